import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// The design that keeps a check-in's cost independent of history length: a snapshot's
/// habits are decoded only when touched, and a rewrite copies untouched blocks.
final class LazyLoadingTests: StoreTestCase {
    let habits = (1...20).map { HabitID(value: UInt64($0) << 8) }

    func makeStore() async throws -> String {
        let dir = root + "/lazy"
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let ids = habits
        try await repo.commit { _, _ in ids.enumerated().map { .create($1, HabitFields(name: "Habit \($0)", startDate: Fixture.day0)) } }
        for d in 0..<30 {
            try await repo.commit { _, _ in ids.map { .progress($0, Fixture.day0.adding(d), delta: 1 + d % 3) } }
        }
        try await repo.writeSnapshot()
        return dir
    }

    func decodedBlocks(_ state: HabitState) -> [HabitID] {
        habits.filter { h in
            guard let block = state.entries[h]?.unchangedDaySource as? SnapshotBlock else { return true }
            return block.isDecoded
        }
    }

    func testOpeningFromASnapshotDecodesNoHabitsDays() async throws {
        let dir = try await makeStore()
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let state = await repo.state
        XCTAssertEqual(decodedBlocks(state), [])
        XCTAssertEqual(state.habits.count, 20, "names and fields come from the snapshot's meta")
    }

    func testTheRulesReadColumnsWithoutDecodingRecordsAndOnlyTheDefaultKeepsRecords() async throws {
        let dir = try await makeStore()
        let kept = try HabitRepository(directory: dir, now: Fixture.clock)
        let notKept = try HabitRepository(directory: dir, now: Fixture.clock, keepDecodedDays: false)
        let a = await kept.state, b = await notKept.state
        // The same summaries, history and figures as a state folded from the journal alone.
        let folded = try foldJournal(try fileBytes(DataPaths(directory: dir).journal))
        let day = Fixture.day0.adding(29)
        XCTAssertEqual(folded.habits.count, 20)
        for h in folded.habits {
            let expected = folded.summary(h, on: day, today: day)
            XCTAssertEqual(a.summary(h, on: day, today: day), expected)
            XCTAssertEqual(b.summary(h, on: day, today: day), expected)
            XCTAssertEqual(b.history(h, through: day), folded.history(h, through: day))
            XCTAssertEqual(b.progress(h.id, day), 1 + 29 % 3)
        }
        XCTAssertEqual(b.stats(today: day), folded.stats(today: day))
        XCTAssertEqual(decodedBlocks(a), [], "the rules decoded no day records")
        XCTAssertEqual(decodedBlocks(b), [])
        // Records (an export, a write) are decoded on demand; only the default keeps them.
        XCTAssertEqual(b.encoded(), a.encoded())
        XCTAssertEqual(a.encoded(), folded.encoded())
        XCTAssertEqual(decodedBlocks(b), [], "nothing decoded is kept")
        XCTAssertEqual(decodedBlocks(a), habits, "the default keeps what it decoded")
    }

    func testACheckInDecodesOnlyTheHabitItTouches() async throws {
        let dir = try await makeStore()
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let target = habits[7]
        let day = Fixture.day0.adding(29)
        let result = try await repo.commit { state, _ in
            XCTAssertEqual(state.progress(target, day), 1 + 29 % 3)
            return [.progress(target, day, delta: 1)]
        }
        XCTAssertEqual(result.state.progress(target, day), 2 + 29 % 3)
        let habit = result.state.habit(target)!
        _ = result.state.summary(habit, on: day, today: day)
        XCTAssertEqual(decodedBlocks(result.state), [target])
    }

    func testChangesToUndecodedHabitsWaitAsPendingAndGiveTheSameState() async throws {
        let dir = try await makeStore()
        let other = try HabitRepository(directory: dir, now: Fixture.clock)
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        // Another process records on every habit; this one reads those records.
        let ids = habits
        try await other.commit { _, _ in ids.map { .progress($0, Fixture.day0, delta: 5) } }
        try await other.commit { _, _ in ids.map { .rate($0, Fixture.day0, 4) } }
        try await repo.refresh()
        let state = await repo.state
        let expected = await other.state
        // Nothing was decoded to apply them, yet the state is the same as a fully decoded one.
        XCTAssertTrue(habits.allSatisfy { state.entries[$0]?.unchangedDaySource == nil })
        // Read first through the columns and single records (the snapshot's columns with
        // the touched days recomputed), then through every record.
        let folded = try foldJournal(try fileBytes(DataPaths(directory: dir).journal))
        for h in habits {
            XCTAssertEqual(state.entries[h]?.columns, DayColumns(folded.entries[h]?.days ?? [:]))
            XCTAssertEqual(state.record(h, Fixture.day0), folded.record(h, Fixture.day0))
            XCTAssertEqual(state.record(h, Fixture.day0.adding(5)), folded.record(h, Fixture.day0.adding(5)))
            XCTAssertNil(state.record(h, Fixture.day0.adding(-1)))
        }
        XCTAssertEqual(state, expected)
        XCTAssertEqual(state.encoded(), expected.encoded())
        XCTAssertEqual(state.progress(habits[3], Fixture.day0), 1 + 5)
        XCTAssertEqual(state.difficulty(habits[3], Fixture.day0), 4)
    }

    /// Changes to undecoded days are added in place when the state holds the only reference
    /// to them (a journal's tail is applied without copying the changes before), and to a new
    /// list when a copy of the state shares them: a copy never sees another's changes.
    func testChangesAddedInPlaceNeverReachACopyOfTheState() async throws {
        let dir = try await makeStore()
        let repo = try HabitRepository(directory: dir, now: Fixture.clock, keepDecodedDays: false)
        let opened = await repo.state
        let h = habits[2], day = Fixture.day0.adding(3)
        var device = UInt64(0)
        func op(_ change: Change) -> HabitOperation {
            device += 1
            return HabitOperation(id: OpID(device: DeviceID(hi: 7, lo: 7), seq: device), hlc: HLC(wallMillis: 2_000_000_000_000 + Int64(device), counter: 0), change: change)
        }
        var a = opened
        let before = opened.progress(h, day)
        XCTAssertEqual(a.apply(op(.progress(h, day, delta: 5))), .applied)
        let shared = a
        // `a` shares its days with `shared` now: these go to a new list.
        XCTAssertEqual(a.apply(op(.progress(h, day, delta: 7))), .applied)
        XCTAssertEqual(a.apply(op(.progress(h, day.adding(1), delta: 2))), .applied)
        XCTAssertEqual(a.apply(op(.skip(h, day.adding(2), true))), .applied)
        XCTAssertEqual(opened.progress(h, day), before, "the state as opened changed")
        XCTAssertEqual(shared.progress(h, day), before + 5, "a copy saw later changes")
        XCTAssertEqual(a.progress(h, day), before + 12)
        XCTAssertTrue(a.isSkipped(h, day.adding(2)))
        XCTAssertFalse(shared.isSkipped(h, day.adding(2)))
        // The columns and records agree with a state folded from scratch with the same changes.
        var folded = try foldJournal(try fileBytes(DataPaths(directory: dir).journal))
        device = 0
        for c: Change in [.progress(h, day, delta: 5), .progress(h, day, delta: 7), .progress(h, day.adding(1), delta: 2), .skip(h, day.adding(2), true)] {
            XCTAssertEqual(folded.apply(op(c)), .applied)
        }
        XCTAssertEqual(a.entries[h]?.columns, DayColumns(folded.entries[h]?.days ?? [:]))
        XCTAssertEqual(a.record(h, day), folded.record(h, day))
        XCTAssertEqual(a, folded)
    }

    func testSnapshotRewriteCopiesUntouchedBlocksAsTheyAre() async throws {
        let dir = try await makeStore()
        let paths = DataPaths(directory: dir)
        let before = try XCTUnwrap(Sys.readFile(paths.snapshot))
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let first = habits[0]
        try await repo.commit { _, _ in [.progress(first, Fixture.day0, delta: 1)] }
        try await repo.writeSnapshot()
        let state = await repo.state
        // Only the touched habit was decoded to write the new snapshot.
        XCTAssertEqual(decodedBlocks(state), [habits[0]])
        let after = try XCTUnwrap(Sys.readFile(paths.snapshot))
        let reopened = try HabitRepository(directory: dir, now: Fixture.clock)
        let reopenedState = await reopened.state
        XCTAssertEqual(reopenedState, state)
        XCTAssertNotEqual(after, before)
        // An untouched habit's block is byte-identical in both files.
        let (old, _) = Snapshot.load(before, journal: try Journal(path: paths.journal))
        let (new, _) = Snapshot.load(after, journal: try Journal(path: paths.journal))
        let oldBlock = try XCTUnwrap(old?.state.entries[habits[5]]?.unchangedDaySource as? SnapshotBlock)
        let newBlock = try XCTUnwrap(new?.state.entries[habits[5]]?.unchangedDaySource as? SnapshotBlock)
        XCTAssertEqual(oldBlock.verifiedBytes, newBlock.verifiedBytes)
        XCTAssertNotNil(oldBlock.verifiedBytes)
    }
}

/// The prompt segment's read: one day of a habit through a snapshot block's index, without
/// the block's checksum, gives the same record as the checked read, on every day of a history
/// longer than several index strides.
final class PeekRecordTests: StoreTestCase {
    func testAPeekedRecordIsTheCheckedRecordOnEveryDayAndTheTallyAgrees() async throws {
        let dir = root + "/peek"
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let read = HabitID(value: 1 << 8), gym = HabitID(value: 2 << 8)
        try await repo.commit { _, _ in
            [.create(read, HabitFields(name: "Read", startDate: Fixture.day0)),
             .create(gym, HabitFields(name: "Gym", schedule: .perWeek(3), startDate: Fixture.day0))]
        }
        let days = 700
        try await repo.commit { _, _ in
            (0..<days).filter { $0 % 7 != 3 }.flatMap { d -> [Change] in
                [.progress(read, Fixture.day0.adding(d), delta: 1 + d % 2), .progress(gym, Fixture.day0.adding(d), delta: d % 3 == 0 ? 1 : 0)]
                    .filter { if case .progress(_, _, let delta) = $0 { return delta > 0 } else { return true } }
            } + [.skip(read, Fixture.day0.adding(500), true)]
        }
        try await repo.writeSnapshot()
        let state = await (try HabitRepository(directory: dir, now: Fixture.clock, keepDecodedDays: false)).state
        let folded = try foldJournal(try fileBytes(DataPaths(directory: dir).journal))
        for h in [read, gym] {
            let entry = try XCTUnwrap(state.entries[h])
            XCTAssertNotNil(entry.unchangedDaySource as? SnapshotBlock, "the days come from the snapshot")
            for d in -2..<(days + 2) {
                let day = Fixture.day0.adding(d)
                XCTAssertEqual(entry.peekRecord(day), folded.entries[h]?.record(day), "day \(d)")
            }
        }
        for d in [0, 3, 255, 256, 257, 500, 511, 512, 699] {
            let day = Fixture.day0.adding(d)
            XCTAssertEqual(state.tally(on: day), folded.tally(on: day), "day \(d)")
        }
    }
}
