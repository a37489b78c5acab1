import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// Snapshots are caches of the folded state: written every N records, used on start-up
/// when they match the journal, ignored (with a warning) and rebuilt when they do not.
final class SnapshotTests: StoreTestCase {

    /// A create and 24 more changes on one habit.
    static func commits(_ habit: HabitID, name: String) -> [[Change]] {
        [[.create(habit, Fixture.fields(name))]] + (1...24).map { i -> [Change] in
            let day = Fixture.day0.adding(i % 7)
            return i % 4 == 0 ? [.rate(habit, day, i % 5 + 1)] : [.progress(habit, day, delta: i % 3 + 1)]
        }
    }

    func testSnapshotIsWrittenEveryTenRecordsAndReopeningGivesTheSameStateAndUndoStack() async throws {
        let history = try await makeHistory(commits: Self.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let paths = history.paths
        XCTAssertTrue(fileExists(paths.snapshot))
        XCTAssertFalse(listing(paths.directory).contains { $0.contains(".tmp-") }, "\(listing(paths.directory))")

        // The newest snapshot covers the first 20 records exactly.
        let snapshotBytes = try fileBytes(paths.snapshot)
        let (snapshot, why) = Snapshot.load(snapshotBytes, journal: try Journal(path: paths.journal))
        XCTAssertNil(why)
        XCTAssertEqual(snapshot?.coveredOffset, history.records[19].upperBound)
        XCTAssertEqual(snapshot?.lastRecord?.offset, history.records[19].lowerBound)
        XCTAssertEqual(snapshot?.state, history.states[20])
        XCTAssertEqual(snapshot?.undoStack, history.undoStacks[20])

        let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
        let state = await reopened.state
        let undo = await reopened.undoStack
        XCTAssertEqual(state, history.states[25])
        XCTAssertEqual(state.encoded(), history.states[25].encoded())
        XCTAssertEqual(undo, history.undoStacks[25])
        XCTAssertEqual(undo.count, 25)
        XCTAssertEqual(reopened.openingWarnings, [])
        XCTAssertEqual(try fileBytes(paths.snapshot), snapshotBytes, "five new records do not call for a new snapshot")
        XCTAssertEqual(try foldJournal(history.journal), history.states[25])

        // Commits after the reopen continue from the snapshot's state and land in the next snapshot.
        for i in 0..<5 {
            try await reopened.commit(label: "more \(i)") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        }
        let (next, nextWhy) = Snapshot.load(try fileBytes(paths.snapshot), journal: try Journal(path: paths.journal))
        XCTAssertNil(nextWhy)
        XCTAssertEqual(next?.coveredOffset, try fileBytes(paths.journal).count)
        let finalState = await reopened.state
        XCTAssertEqual(next?.state, finalState)
    }

    func testCorruptSnapshotIsIgnoredWithAWarningAndRebuiltFromTheJournal() async throws {
        let history = try await makeHistory(commits: Self.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let snapshotBytes = try fileBytes(history.paths.snapshot)
        XCTAssertGreaterThan(snapshotBytes.count, 100)
        // Header and meta are checked when opening; each habit's block when it is first read.
        let metaLength = Int(snapshotBytes[17]) | Int(snapshotBytes[18]) << 8 | Int(snapshotBytes[19]) << 16 | Int(snapshotBytes[20]) << 24
        let blocksStart = 25 + metaLength
        XCTAssertLessThan(blocksStart, snapshotBytes.count)
        for i in 0..<snapshotBytes.count {
            var flipped = snapshotBytes
            flipped[i] ^= UInt8(1 << (i % 8))
            let paths = try makeDataDirectory("snap-\(i)", journal: history.journal, device: history.device)
            try writeFile(flipped, to: paths.snapshot)
            let context = "snapshot byte \(i) flipped"

            let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
            let state = await repo.state
            let undo = await repo.undoStack
            XCTAssertEqual(state, history.states[25], context)
            XCTAssertEqual(undo, history.undoStacks[25], context)
            XCTAssertEqual(try fileBytes(paths.journal), history.journal, context)
            if Array(flipped.prefix(Snapshot.magic.count)) == Snapshot.beforeClearedMagic {
                // The version byte flipped to 8: the format before cleared dated registers,
                // the same bytes for a state without any, so the snapshot is used as it is.
                XCTAssertEqual(repo.openingWarnings, [], context)
                XCTAssertEqual(repo.warnings.drain(), [], context)
                XCTAssertEqual(try fileBytes(paths.snapshot), flipped, context)
            } else if i < blocksStart {
                XCTAssertEqual(repo.openingWarnings.count, 1, context)
                let warning = repo.openingWarnings.first?.description ?? ""
                XCTAssertTrue(warning.contains("snapshot \(paths.snapshot) was ignored"), "\(context): \(warning)")
                // It was rebuilt: the new one checks out and covers the whole journal.
                let rebuilt = try fileBytes(paths.snapshot)
                let (snapshot, why) = Snapshot.load(rebuilt, journal: try Journal(path: paths.journal))
                XCTAssertNil(why, context)
                XCTAssertEqual(snapshot?.coveredOffset, history.journal.count, context)
                XCTAssertEqual(snapshot?.state, history.states[25], context)
            } else {
                // A damaged block: found when the habit's days were read (comparing the
                // state above), rebuilt from the journal, reported, and the snapshot removed.
                XCTAssertEqual(repo.openingWarnings, [], context)
                let late = repo.warnings.drain()
                XCTAssertEqual(late.count, 1, context)
                XCTAssertTrue(late.first?.description.contains("was damaged") == true, "\(context): \(late)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: paths.snapshot), context)
            }

            if i % 64 == 0 || i >= blocksStart {
                let again = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
                let againState = await again.state
                XCTAssertEqual(againState, history.states[25], context)
                XCTAssertEqual(again.openingWarnings, [], context)
                XCTAssertEqual(again.warnings.drain(), [], context)
            }
            try FileManager.default.removeItem(atPath: paths.directory)
        }
    }

    func testSnapshotOfAnotherJournalIsIgnoredWhenTheJournalIsReplaced() async throws {
        let a = try await makeHistory("a", commits: Self.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let b = try await makeHistory("b", commits: Self.commits(Fixture.read, name: "Water"), snapshotEvery: 10)
        XCTAssertEqual(a.records.map(\.count), b.records.map(\.count), "same shape, different content")
        XCTAssertNotEqual(a.journal, b.journal)
        // b's journal with a's snapshot: the covered record is there but is not the same.
        try writeFile(try fileBytes(a.paths.snapshot), to: b.paths.snapshot)
        let repo = try HabitRepository(directory: b.directory, now: Fixture.clock, snapshotEvery: 10)
        let state = await repo.state
        let undo = await repo.undoStack
        XCTAssertEqual(state, b.states[25])
        XCTAssertNil(state.habit(Fixture.water))
        XCTAssertEqual(undo, b.undoStacks[25])
        XCTAssertEqual(repo.openingWarnings.count, 1)
        XCTAssertTrue(repo.openingWarnings.first?.description.contains("does not match the journal") ?? false, "\(repo.openingWarnings)")
    }

    func testSnapshotCoveringMoreThanAShorterReplacementJournalIsIgnored() async throws {
        let a = try await makeHistory("a", commits: Self.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let paths = try makeDataDirectory("short", journal: Array(a.journal[..<a.records[4].upperBound]), device: a.device)
        try writeFile(try fileBytes(a.paths.snapshot), to: paths.snapshot)
        let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
        let state = await repo.state
        let undo = await repo.undoStack
        XCTAssertEqual(state, a.states[5])
        XCTAssertEqual(undo, a.undoStacks[5])
        XCTAssertEqual(repo.openingWarnings.count, 1)
        XCTAssertTrue(repo.openingWarnings.first?.description.contains("covers more than the journal holds") ?? false,
                      "\(repo.openingWarnings)")
    }

    func testExplicitSnapshotOfAnEmptyJournalIsUsedAndStillMatchesAfterTheFirstRecords() async throws {
        let dir = path("empty")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        try await repo.writeSnapshot()
        let first = try HabitRepository(directory: dir, now: Fixture.clock)
        XCTAssertEqual(first.openingWarnings, [])
        let result = try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let second = try HabitRepository(directory: dir, now: Fixture.clock)
        let state = await second.state
        XCTAssertEqual(state, result.state)
        XCTAssertEqual(second.openingWarnings, [])
    }

    /// Start-up copies the meta's first kilobytes to read what precedes the undo history;
    /// with many devices that part is longer, and the whole meta is read instead.
    func testAMetaWhoseStartOutgrowsTheFirstReadLoadsTheSame() async throws {
        let history = try await makeHistory(commits: Self.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let journal = try Journal(path: history.paths.journal)
        let (loaded, why) = Snapshot.load(try fileBytes(history.paths.snapshot), journal: journal)
        var snapshot = try XCTUnwrap(loaded, why ?? "")
        XCTAssertEqual(snapshot.undoStack.count, 20)
        var rng = SplitMix64(seed: 5)
        var seen = snapshot.state.seen
        for k in 0..<400 { seen[DeviceID.random(using: &rng)] = UInt64(k * 1_000 + 1) }
        snapshot.state = HabitState(seen: seen, clock: snapshot.state.clock, entries: snapshot.state.entries)
        let bytes = snapshot.encoded()
        XCTAssertGreaterThan(bytes.count, Snapshot.headerSize + Snapshot.metaHeadLength, "401 devices of 17 bytes or more: the part before the undo history outgrows the first read")
        let (again, againWhy) = Snapshot.load(bytes, journal: journal)
        XCTAssertNil(againWhy)
        XCTAssertEqual(again?.state, snapshot.state)
        XCTAssertEqual(again?.state.seen.count, 401)
        XCTAssertEqual(again?.undoStack, history.undoStacks[20])
        XCTAssertEqual(again?.encoded(), bytes, "written again as read, undo items copied from the file")
    }

    func testHostileSnapshotWithAValidChecksumButImpossibleOffsetsIsIgnoredNotTrappedOn() async throws {
        let history = try await makeHistory(commits: Self.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        var bytes = try fileBytes(history.paths.snapshot)
        let metaLength = Int(bytes[17]) | Int(bytes[18]) << 8 | Int(bytes[19]) << 16 | Int(bytes[20]) << 24
        // The covered offset (the meta's first 8 bytes) set to 2^64 - 1, checksum made to match.
        for k in 25..<33 { bytes[k] = 0xFF }
        let crc = CRC32C.checksum(Array(bytes[25..<(25 + metaLength)]))
        for k in 0..<4 { bytes[21 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
        let paths = try makeDataDirectory("hostile", journal: history.journal, device: history.device)
        try writeFile(bytes, to: paths.snapshot)
        let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
        let state = await repo.state
        XCTAssertEqual(state, history.states[25])
        XCTAssertEqual(repo.openingWarnings.count, 1)
        XCTAssertTrue(repo.openingWarnings.first?.description.contains("was ignored (offset out of range)") == true, "\(repo.openingWarnings)")
    }

    func testAFewRecordsHoldingVeryManyOperationsAreSnapshottedWithoutWaitingForMoreRecords() async throws {
        let dir = path("bulk")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        XCTAssertFalse(fileExists(repo.paths.snapshot), "one small record: no snapshot yet")
        // One record of 12,000 operations (an import of years of history).
        let start = Fixture.day0.adding(-12_000)
        try await repo.commit { _, _ in (0..<12_000).map { .progress(Fixture.water, start.adding($0), delta: 1) } }
        let journal = try Journal(path: repo.paths.journal)
        let (written, why) = Snapshot.load(try fileBytes(repo.paths.snapshot), journal: journal)
        XCTAssertNil(why)
        XCTAssertEqual(written?.coveredOffset, try fileBytes(repo.paths.journal).count, "the snapshot covers the bulk record")
        // Without it, the next start replays the record once and writes it again.
        unlink(repo.paths.snapshot)
        let reopened = try HabitRepository(directory: dir, now: Fixture.clock)
        XCTAssertTrue(fileExists(repo.paths.snapshot), "written at start-up after replaying 12,000 operations")
        let state = await reopened.state
        XCTAssertEqual(state.progress(Fixture.water, start.adding(11_999)), 1)
        XCTAssertEqual(state.entries[Fixture.water]?.columns.totalProgress, 12_000)
    }

    func testABlocksIndexFindsEveryRecordedDayAndNothingElse() throws {
        // 1,300 recorded days with gaps (five index marks), two devices on some days, and
        // skips, ratings and notes here and there.
        var state = HabitState()
        var seq: [DeviceID: UInt64] = [:]
        let devices = [DeviceID(hi: 1, lo: 1), DeviceID(hi: 2, lo: 2)]
        func apply(_ change: Change, _ device: DeviceID) {
            seq[device, default: 0] += 1
            state.apply(HabitOperation(id: OpID(device: device, seq: seq[device]!), hlc: HLC(wallMillis: Int64(seq[device]!), counter: 0), change: change))
        }
        apply(.create(Fixture.water, Fixture.fields("Water")), devices[0])
        var recorded: [LocalDay] = []
        var day = Fixture.day0.adding(-3000)
        for i in 0..<1300 {
            day = day.adding(1 + i % 3)
            recorded.append(day)
            apply(.progress(Fixture.water, day, delta: 1 + i % 4), devices[i % 5 == 0 ? 1 : 0])
            if i % 7 == 0 { apply(.skip(Fixture.water, day, true), devices[0]) }
            if i % 11 == 0 { apply(.rate(Fixture.water, day, 1 + i % 5), devices[1]) }
            if i % 13 == 0 { apply(.note(Fixture.water, day, "note \(i)"), devices[0]) }
        }
        let days = try XCTUnwrap(state.entries[Fixture.water]?.days)
        let block = DayBlock.encode(days)
        XCTAssertEqual(try DayBlock.index(block).marks.count, 6)
        XCTAssertEqual(try DayBlock.days(block), days)
        XCTAssertEqual(try DayBlock.columns(block), DayColumns(days))
        for d in recorded {
            XCTAssertEqual(try DayBlock.records(block, only: [d]), [d: days[d]!], "\(d)")
        }
        let absent = [recorded[0].adding(-1), recorded.last!.adding(1)] + recorded.map { $0.adding(1) }.filter { days[$0] == nil }.prefix(50)
        for d in absent { XCTAssertEqual(try DayBlock.records(block, only: [d]), [:], "\(d)") }
        let some = Set(recorded.enumerated().filter { $0.offset % 97 == 0 }.map(\.element) + absent.prefix(5))
        XCTAssertEqual(try DayBlock.records(block, only: some), days.filter { some.contains($0.key) })

        // The columns from a day on (a check-in's confirmation): exactly the days from the
        // last index mark on or before it (from the first day when none is) to the end.
        let marks = try DayBlock.index(block).marks.map { LocalDay(ordinal: $0.ordinal) }
        for from in [recorded[0].adding(-5), recorded[0], recorded[255], recorded[256], recorded[300], recorded[700].adding(1),
                     recorded.last!, recorded.last!.adding(9)] {
            let markDay = marks.last { $0 <= from } ?? recorded[0]
            XCTAssertEqual(try DayBlock.columns(reading: { Array(block[$0]) }, count: block.count, from: from),
                           DayColumns(days.filter { $0.key >= markDay }), "from \(from)")
        }
        let empty = DayBlock.encode([:])
        XCTAssertEqual(try DayBlock.columns(reading: { Array(empty[$0]) }, count: empty.count, from: Fixture.day0), DayColumns())
        // A block cut short ends in the middle of a record: refused, not read as fewer days.
        XCTAssertThrowsError(try DayBlock.columns(reading: { Array(block[$0]) }, count: block.count - 2, from: recorded[1200]))
    }
}
