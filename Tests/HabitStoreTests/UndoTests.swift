import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// Undo writes the inverse of this device's newest not-yet-undone change; the undo stack
/// is derived from the journal (or a snapshot of it), so it survives a restart.
final class UndoTests: StoreTestCase {
    let day = Fixture.day0

    /// Creates Water, checks in twice on two days and rates the first day.
    private func prepare(_ repo: HabitRepository) async throws -> [HabitState] {
        var states = [await repo.state]
        let steps: [(String, [Change])] = [
            ("create Water", [.create(Fixture.water, Fixture.fields("Water"))]),
            ("check Water day 0", [.progress(Fixture.water, day, delta: 1)]),
            ("check Water day 1", [.progress(Fixture.water, day.adding(1), delta: 2)]),
            ("rate Water day 0", [.rate(Fixture.water, day, 4)]),
        ]
        for (label, changes) in steps {
            states.append(try await repo.commit(label: label) { _, _ in changes }.state)
        }
        return states
    }

    /// The user-visible parts of a state (the version vector and clock move on with undo).
    private func assertSameHabits(_ a: HabitState, _ b: HabitState, _ context: String = "",
                                  file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.habits, b.habits, context, file: file, line: line)
        for d in 0...1 {
            XCTAssertEqual(a.progress(Fixture.water, day.adding(d)), b.progress(Fixture.water, day.adding(d)),
                           "\(context) progress day \(d)", file: file, line: line)
            XCTAssertEqual(a.difficulty(Fixture.water, day.adding(d)), b.difficulty(Fixture.water, day.adding(d)),
                           "\(context) difficulty day \(d)", file: file, line: line)
            XCTAssertEqual(a.isSkipped(Fixture.water, day.adding(d)), b.isSkipped(Fixture.water, day.adding(d)),
                           "\(context) skip day \(d)", file: file, line: line)
        }
    }

    func testUndoRevertsTheNewestChangeAndRepeatedUndoRevertsTheOnesBefore() async throws {
        let repo = try HabitRepository(directory: path("undo"), now: Fixture.clock)
        let states = try await prepare(repo)
        let undoStack = await repo.undoStack
        XCTAssertEqual(undoStack.map(\.label), ["create Water", "check Water day 0", "check Water day 1", "rate Water day 0"])
        XCTAssertEqual(undoStack.map(\.firstSeq), [1, 2, 3, 4])

        for k in stride(from: 3, through: 0, by: -1) {
            let item = try await repo.undo()
            XCTAssertEqual(item?.label, undoStack[k].label)
            XCTAssertEqual(item?.firstSeq, undoStack[k].firstSeq)
            let state = await repo.state
            assertSameHabits(state, states[k], "after undoing step \(k + 1)")
            let remaining = await repo.undoStack
            XCTAssertEqual(remaining, Array(undoStack.prefix(k)))
        }
        let state = await repo.state
        XCTAssertNil(state.habit(Fixture.water))
        XCTAssertEqual(state.seen[repo.device], 8, "each undo is written as new operations")

        let sizeBefore = try fileBytes(repo.paths.journal).count
        let nothing = try await repo.undo()
        XCTAssertNil(nothing)
        XCTAssertEqual(try fileBytes(repo.paths.journal).count, sizeBefore, "nothing to undo writes nothing")

        let labels = try Journal.scan(Array(try fileBytes(repo.paths.journal).dropFirst(Journal.headerSize)),
                                      base: Journal.headerSize).records.map { try JournalEntry(decoding: $0.payload) }
        XCTAssertEqual(labels.suffix(4).map(\.label), ["undo rate Water day 0", "undo check Water day 1",
                                                       "undo check Water day 0", "undo create Water"])
        XCTAssertEqual(labels.suffix(4).map(\.undoes), [4, 3, 2, 1])
    }

    func testUndoOfACommandThatChecksAndUnchecksOneDayGivesBackExactlyWhatItMoved() async throws {
        let repo = try HabitRepository(directory: path("mixed"), now: Fixture.clock)
        let day = self.day
        try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        // +2 then -1 on a day that had nothing, then -5 that can only take the 1 left.
        try await repo.commit(label: "mixed") { _, _ in
            [.progress(Fixture.water, day, delta: 2), .progress(Fixture.water, day, delta: -1)]
        }
        try await repo.commit(label: "too much") { _, _ in [.progress(Fixture.water, day, delta: -5)] }
        var state = await repo.state
        XCTAssertEqual(state.progress(Fixture.water, day), 0)
        // The journal reopens (no inverse of zero was written) and undo walks back exactly.
        let reopened = try HabitRepository(directory: path("mixed"), now: Fixture.clock)
        _ = try await reopened.undo()
        state = await reopened.state
        XCTAssertEqual(state.progress(Fixture.water, day), 1, "the -5 took 1: undo gives back 1")
        _ = try await reopened.undo()
        state = await reopened.state
        XCTAssertEqual(state.progress(Fixture.water, day), 0)
        _ = try HabitRepository(directory: path("mixed"), now: Fixture.clock)
    }

    func testUndoStackSurvivesReopenFromTheJournal() async throws {
        let dir = path("reopen")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let states = try await prepare(repo)
        _ = try await repo.undo()
        let stackBefore = await repo.undoStack
        XCTAssertFalse(fileExists(repo.paths.snapshot))

        let reopened = try HabitRepository(directory: dir, now: Fixture.clock)
        let stack = await reopened.undoStack
        XCTAssertEqual(stack, stackBefore)
        XCTAssertEqual(stack.map(\.label), ["create Water", "check Water day 0", "check Water day 1"])
        let item = try await reopened.undo()
        XCTAssertEqual(item?.label, "check Water day 1")
        let state = await reopened.state
        assertSameHabits(state, states[2])
    }

    func testUndoStackSurvivesReopenFromASnapshot() async throws {
        let dir = path("snapshot")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock, snapshotEvery: 1)
        let states = try await prepare(repo)
        _ = try await repo.undo()
        let stackBefore = await repo.undoStack
        // The snapshot covers the whole journal, so the undo stack comes from it.
        let (snapshot, why) = Snapshot.load(try fileBytes(repo.paths.snapshot), journal: try Journal(path: repo.paths.journal))
        XCTAssertNil(why)
        XCTAssertEqual(snapshot?.coveredOffset, try fileBytes(repo.paths.journal).count)
        XCTAssertEqual(snapshot?.undoStack, stackBefore)

        let reopened = try HabitRepository(directory: dir, now: Fixture.clock, snapshotEvery: 1)
        XCTAssertEqual(reopened.openingWarnings, [])
        let stack = await reopened.undoStack
        XCTAssertEqual(stack, stackBefore)
        let item = try await reopened.undo()
        XCTAssertEqual(item?.label, "check Water day 1")
        let state = await reopened.state
        assertSameHabits(state, states[2])
        let second = try await reopened.undo()
        XCTAssertEqual(second?.label, "check Water day 0")
        let afterSecond = await reopened.state
        assertSameHabits(afterSecond, states[1])
    }

    /// Issue 39, point 14: undo gives back the dated registers exactly, clearing one the edit
    /// made; the cleared registers are in the snapshot (version 9) and read back from it.
    func testUndoOfDatedEditsGivesBackTheRegistersAndASnapshotKeepsTheClearedOnes() async throws {
        let dir = path("dated")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock, snapshotEvery: 1)
        let goal = FieldValue.goal(0).index, d2 = day.adding(2), d5 = day.adding(5)
        _ = try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let first = try await repo.commit(label: "from day 5") { _, _ in [.setFrom(Fixture.water, d5, .goal(10_000))] }.state
        _ = try await repo.commit(label: "from day 2") { _, _ in
            [.setFrom(Fixture.water, d2, .goal(12_000)), .setFrom(Fixture.water, d5, .goal(12_000))]
        }
        let item = try await repo.undo()
        XCTAssertEqual(item?.inverse, [.setFrom(Fixture.water, d5, .goal(10_000)), .clearFrom(Fixture.water, d2, index: goal)])
        let undone = await repo.state
        let registers: [DatedField: FieldValue?] = [DatedField(day: d2, index: goal): nil, DatedField(day: d5, index: goal): .goal(10_000)]
        XCTAssertEqual(undone.entries[Fixture.water]?.dated.mapValues(\.value), registers)
        XCTAssertEqual(undone.habit(Fixture.water)?.definitions, first.habit(Fixture.water)?.definitions)
        let snapshot = try fileBytes(repo.paths.snapshot)
        XCTAssertEqual(Array(snapshot.prefix(Snapshot.magic.count)), Snapshot.magic)
        XCTAssertEqual(Snapshot.formatVersion, 9)
        let reopened = try HabitRepository(directory: dir, now: Fixture.clock, snapshotEvery: 1)
        XCTAssertEqual(reopened.openingWarnings, [])
        let state = await reopened.state
        XCTAssertEqual(state, undone)
        // The same bytes labelled version 8 (before cleared registers) are refused, and the
        // state is rebuilt from the journal.
        try writeFile(Snapshot.beforeClearedMagic + snapshot.dropFirst(Snapshot.magic.count), to: repo.paths.snapshot)
        let (none, why) = Snapshot.load(try fileBytes(repo.paths.snapshot), journal: try Journal(path: repo.paths.journal))
        XCTAssertNil(none)
        XCTAssertEqual(why, "a cleared dated register in a format without them")
        let rebuilt = try HabitRepository(directory: dir, now: Fixture.clock, snapshotEvery: 1)
        XCTAssertEqual(rebuilt.openingWarnings.count, 1)
        let again = await rebuilt.state
        XCTAssertEqual(again, undone)
    }

    func testUndoOfADeleteRestoresTheHabitWithItsHistory() async throws {
        let repo = try HabitRepository(directory: path("delete"), now: Fixture.clock)
        let states = try await prepare(repo)
        let deleted = try await repo.commit(label: "delete Water") { _, _ in [.delete(Fixture.water)] }
        XCTAssertNil(deleted.state.habit(Fixture.water))
        XCTAssertTrue(deleted.state.isDeleted(Fixture.water))

        let item = try await repo.undo()
        XCTAssertEqual(item?.label, "delete Water")
        XCTAssertEqual(item?.inverse, [.restore(Fixture.water, deleteOp: deleted.operations[0].id)])
        let state = await repo.state
        XCTAssertFalse(state.isDeleted(Fixture.water))
        XCTAssertEqual(state.habit(Fixture.water)?.name, "Water")
        assertSameHabits(state, states[4])

        let reopened = try HabitRepository(directory: repo.paths.directory, now: Fixture.clock)
        let again = await reopened.state
        XCTAssertEqual(again, state)
    }

    func testUndoOfAFieldChangeAndASkipRestoresThePreviousValues() async throws {
        let repo = try HabitRepository(directory: path("fields"), now: Fixture.clock)
        _ = try await prepare(repo)
        try await repo.commit(label: "rename and skip") { _, _ in
            [.set(Fixture.water, .name("Water 2L")), .set(Fixture.water, .goal(3)), .skip(Fixture.water, Fixture.day0.adding(1), true)]
        }
        let changed = await repo.state
        XCTAssertEqual(changed.habit(Fixture.water)?.name, "Water 2L")
        XCTAssertTrue(changed.isSkipped(Fixture.water, day.adding(1)))

        _ = try await repo.undo()
        let state = await repo.state
        XCTAssertEqual(state.habit(Fixture.water)?.name, "Water")
        XCTAssertEqual(state.habit(Fixture.water)?.goal, Amount.scale)
        XCTAssertFalse(state.isSkipped(Fixture.water, day.adding(1)))
        XCTAssertEqual(state.progress(Fixture.water, day.adding(1)), 2)
    }

    func testUndoInOneRepositoryTakesBackTheNewestChangeMadeThroughAnotherOnTheSameDirectory() async throws {
        let dir = path("two")
        let a = try HabitRepository(directory: dir, now: Fixture.clock)
        let b = try HabitRepository(directory: dir, now: Fixture.clock)
        _ = try await prepare(a)
        try await a.commit(label: "check Water day 5") { _, _ in [.progress(Fixture.water, Fixture.day0.adding(5), delta: 1)] }
        let item = try await b.undo()
        XCTAssertEqual(item?.label, "check Water day 5")
        let bState = await b.state
        XCTAssertEqual(bState.progress(Fixture.water, day.adding(5)), 0)
        _ = try await a.refresh()
        let aStack = await a.undoStack
        let bStack = await b.undoStack
        XCTAssertEqual(aStack, bStack)
        XCTAssertEqual(aStack.last?.label, "rate Water day 0")
    }

    // MARK: The history kept encoded

    private func items(_ n: Int, changes: Int) -> [UndoItem] {
        (1...n).map { k in
            UndoItem(firstSeq: UInt64(k * 10), inverse: (0..<changes).map { .progress(HabitID(value: UInt64(k)), Fixture.day0.adding($0), delta: -1) },
                     label: "item \(k)")
        }
    }

    func testAnUndoHistoryReadBackIsCopiedAsItWasAndDecodesItemByItem() throws {
        let original = UndoHistory(items(40, changes: 3))
        var w = ByteWriter()
        original.encode(into: &w)
        // Framed in the middle of other bytes, as in a snapshot's meta.
        let framed = [7, 7, 7] + w.bytes + [9]
        var (read, end) = try UndoHistory.decode(in: ArrayBytes(framed), from: 3, to: framed.count)
        XCTAssertEqual(end, framed.count - 1)
        XCTAssertEqual(read.count, 40)
        XCTAssertEqual(read.changeCount, 120)
        // Written again without decoding anything: the same bytes.
        var again = ByteWriter()
        read.encode(into: &again)
        XCTAssertEqual(again.bytes, w.bytes)
        XCTAssertEqual(try read.last(), items(40, changes: 3).last)
        XCTAssertEqual(try read.items(), items(40, changes: 3))
        // Removal and trimming work from the headers alone.
        read.remove(firstSeq: 400)
        read.remove(firstSeq: 12345) // not there: nothing happens
        read.trim(limit: 30, changeLimit: 81)
        XCTAssertEqual(read.count, 27, "at most 81 changes: 27 items of 3")
        XCTAssertEqual(read.changeCount, 81)
        XCTAssertEqual(try read.items().map(\.firstSeq), (13...39).map { UInt64($0 * 10) })
        read.append(UndoItem(firstSeq: 999, inverse: [], label: "new"))
        read.trim(limit: 10, changeLimit: 10_000)
        XCTAssertEqual(try read.items().map(\.label), (31...39).map { "item \($0)" } + ["new"])
    }

    func testAnUndoItemThatDisagreesWithItsHeaderIsAnErrorNotAWrongUndo() throws {
        var w = ByteWriter()
        UndoHistory(items(2, changes: 2)).encode(into: &w)
        var bytes = w.bytes
        // The second header's change count (after the count, the first slot, and the
        // second slot's sequence number) says 1 instead of 2.
        var r = ByteReader(bytes)
        _ = try r.varint()
        _ = try r.varint(); _ = try r.varint(); let length = try r.count(max: 1 << 28); _ = try r.raw(length)
        _ = try r.varint()
        XCTAssertEqual(bytes[r.position], 2)
        bytes[r.position] = 1
        let history = try UndoHistory.decode(in: ArrayBytes(bytes), from: 0, to: bytes.count).0
        XCTAssertEqual(try history.item(at: 0), items(2, changes: 2)[0])
        XCTAssertThrowsError(try history.last()) { XCTAssertTrue($0 is DecodeError, "\($0)") }
    }

    func testAHistoryThatRunsPastItsEndIsRefusedAsAReaderRefusesIt() throws {
        var w = ByteWriter()
        UndoHistory(items(3, changes: 2)).encode(into: &w)
        let bytes = w.bytes
        // Every cut short of the whole history is refused, as ByteReader refuses it.
        for cut in 0..<bytes.count {
            XCTAssertThrowsError(try UndoHistory.decode(in: ArrayBytes(bytes), from: 0, to: cut), "cut at \(cut)") {
                XCTAssertTrue($0 is DecodeError, "\($0)")
            }
        }
        // A varint of eleven bytes is too long; a count beyond what is left is out of range.
        XCTAssertThrowsError(try UndoHistory.decode(in: ArrayBytes([UInt8](repeating: 0x80, count: 10) + [0x01, 0]), from: 0, to: 12)) {
            XCTAssertEqual(($0 as? DecodeError).map { "\($0)" }, "\(DecodeError("varint too long"))")
        }
        XCTAssertThrowsError(try UndoHistory.decode(in: ArrayBytes([5, 1, 1]), from: 0, to: 3)) {
            XCTAssertEqual(($0 as? DecodeError).map { "\($0)" }, "\(DecodeError("length 5 is out of range"))")
        }
        // A start past the end, or an end past the bytes, is refused, not trapped on.
        XCTAssertThrowsError(try UndoHistory.decode(in: ArrayBytes([0, 42]), from: 2, to: 1))
        XCTAssertThrowsError(try UndoHistory.decode(in: ArrayBytes([0, 42]), from: 0, to: 3))
        let (empty, end) = try UndoHistory.decode(in: ArrayBytes([0, 42]), from: 0, to: 2)
        XCTAssertEqual([empty.count, end], [0, 1])
    }
}

