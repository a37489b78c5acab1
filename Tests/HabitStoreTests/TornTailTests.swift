import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// A crash in the middle of an append leaves a partial record at the end of the journal.
/// Opening cuts it off at the last record boundary, saves the removed bytes, says so, and
/// the journal keeps working.
final class TornTailTests: StoreTestCase {

    func testEveryCutInsideTheLastRecordIsRemovedReportedSavedAndTheJournalKeepsWorking() async throws {
        let history = try await makeHistory()
        let last = history.records.count - 1
        let record = history.records[last]
        for cut in (record.lowerBound + 1)..<record.upperBound {
            try await assertTornTailRecovered(history, cut: cut, boundary: record.lowerBound,
                                              expected: history.states[last])
        }
    }

    func testEveryCutInsideAnEarlierRecordIsATornTailThatDropsItAndEverythingAfter() async throws {
        let history = try await makeHistory()
        for k in 0..<(history.records.count - 1) {
            let record = history.records[k]
            for cut in (record.lowerBound + 1)..<record.upperBound {
                try await assertTornTailRecovered(history, cut: cut, boundary: record.lowerBound,
                                                  expected: history.states[k])
            }
        }
    }

    func testACutUnderTheSnapshotRebuildsItSoLaterCommandsNeitherWarnNorReplayEverything() async throws {
        // Snapshots after 10 and 20 of 25 records; cut inside every record the last one covers.
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let snapshot = try fileBytes(history.paths.snapshot)
        for k in 0..<20 {
            let record = history.records[k]
            let cut = record.lowerBound + record.count / 2
            let context = "journal cut at byte \(cut), in record \(k)"
            let paths = try makeDataDirectory("under-\(cut)", journal: Array(history.journal[..<cut]), device: history.device)
            try writeFile(snapshot, to: paths.snapshot)
            let first = try HabitRepository(directory: paths.directory, now: Fixture.clock)
            XCTAssertEqual(first.openingWarnings.count, 2, "\(context): \(first.openingWarnings)")
            let state = await first.state
            XCTAssertEqual(state, history.states[k], context)
            // Rebuilt as part of the recovery: it covers what is left of the journal.
            let (snap, why) = Snapshot.load(try fileBytes(paths.snapshot), journal: try Journal(path: paths.journal))
            XCTAssertNil(why, context)
            XCTAssertEqual(snap?.coveredOffset, record.lowerBound, context)
            let again = try HabitRepository(directory: paths.directory, now: Fixture.clock)
            XCTAssertEqual(again.openingWarnings, [], context)
            let againState = await again.state
            XCTAssertEqual(againState, history.states[k], context)
        }
    }

    func testJournalEndingExactlyAtARecordBoundaryOpensCleanlyWithoutWarnings() async throws {
        let history = try await makeHistory()
        for (k, record) in history.records.enumerated() {
            let journal = Array(history.journal[..<record.lowerBound])
            let paths = try makeDataDirectory("boundary-\(k)", journal: journal, device: history.device)
            let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock)
            let state = await repo.state
            XCTAssertEqual(state, history.states[k], "boundary of record \(k)")
            XCTAssertEqual(repo.openingWarnings, [], "boundary of record \(k)")
            XCTAssertEqual(try fileBytes(paths.journal), journal, "boundary of record \(k)")
            XCTAssertFalse(fileExists(paths.recovered), "boundary of record \(k)")
        }
    }

    func testZeroFilledTailLeftByACrashIsTornNotCorrupt() async throws {
        let history = try await makeHistory()
        let zeros = [UInt8](repeating: 0, count: 300)
        let paths = try makeDataDirectory("zeros", journal: history.journal + zeros, device: history.device)
        let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock)
        let state = await repo.state
        XCTAssertEqual(state, history.states.last)
        XCTAssertEqual(try fileBytes(paths.journal), history.journal)
        XCTAssertEqual(repo.openingWarnings.count, 1)
        XCTAssertTrue(repo.openingWarnings.first?.description.contains("byte \(history.journal.count)") ?? false,
                      "\(repo.openingWarnings)")
        let saved = listing(paths.recovered)
        XCTAssertEqual(saved.count, 1)
        XCTAssertEqual(try fileBytes(paths.recovered + "/" + (saved.first ?? "")), zeros)
    }

    func testJournalWhoseHeaderWasTornOnCreationStartsAfreshWithNothingLost() async throws {
        for cut in 1..<Journal.headerSize {
            let paths = try makeDataDirectory("header-\(cut)", journal: Array(Journal.magic.prefix(cut)),
                                              device: Array("\(String(repeating: "ab", count: 16))\n".utf8))
            let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock)
            let state = await repo.state
            XCTAssertEqual(state, HabitState(), "header cut at \(cut)")
            XCTAssertEqual(try fileBytes(paths.journal), Journal.magic, "header cut at \(cut)")
            let result = try await repo.commit(label: "first") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
            let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock)
            let again = await reopened.state
            XCTAssertEqual(again, result.state, "header cut at \(cut)")
            XCTAssertNotNil(again.habit(Fixture.water), "header cut at \(cut)")
        }
    }

    func testTwoTornTailsAtTheSameOffsetAreBothKeptInRecovered() async throws {
        let history = try await makeHistory()
        let last = history.records.last!
        let paths = try makeDataDirectory("twice", journal: Array(history.journal[..<(last.lowerBound + 20)]),
                                          device: history.device)
        let first = try HabitRepository(directory: paths.directory, now: Fixture.clock)
        XCTAssertEqual(first.openingWarnings.count, 1)
        // Another crash at the same place, with different bytes, right afterwards.
        let secondTail = Array(history.journal[last.lowerBound..<(last.lowerBound + 30)])
        try writeFile(Array(history.journal[..<last.lowerBound]) + secondTail, to: paths.journal)
        let second = try HabitRepository(directory: paths.directory, now: Fixture.clock)
        XCTAssertEqual(second.openingWarnings.count, 1)
        let saved = listing(paths.recovered)
        XCTAssertEqual(saved.count, 2, "each removed tail is kept: \(saved)")
        let contents = Set(try saved.map { try fileBytes(paths.recovered + "/" + $0) })
        XCTAssertEqual(contents, [Array(history.journal[last.lowerBound..<(last.lowerBound + 20)]), secondTail])
        for name in saved { XCTAssertTrue(name.hasPrefix("torn-at-\(last.lowerBound)-"), name) }
    }

    func testTornTailLeftByACrashedWriterIsRemovedByTheNextCommitOfARunningRepository() async throws {
        let history = try await makeHistory()
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let garbage = Array(Journal.frame(Array(repeating: 7, count: 40)).prefix(30))
        try writeFile(history.journal + garbage, to: history.paths.journal)
        let result = try await repo.commit(label: "after crash") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 5)] }
        XCTAssertEqual(result.state.progress(Fixture.water, Fixture.day0), 8)
        let saved = listing(history.paths.recovered)
        XCTAssertEqual(saved.count, 1)
        XCTAssertEqual(try fileBytes(history.paths.recovered + "/" + (saved.first ?? "")), garbage)
        let onDisk = try fileBytes(history.paths.journal)
        XCTAssertEqual(Array(onDisk.prefix(history.journal.count)), history.journal)
        XCTAssertEqual(try foldJournal(onDisk), result.state)
    }

    /// Opens a copy of the history's journal cut at `cut` and checks the whole recovery.
    private func assertTornTailRecovered(_ history: History, cut: Int, boundary: Int, expected: HabitState,
                                         file: StaticString = #filePath, line: UInt = #line) async throws {
        let context = "journal cut at byte \(cut)"
        let paths = try makeDataDirectory("cut-\(cut)", journal: Array(history.journal[..<cut]), device: history.device)
        let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock)

        let state = await repo.state
        XCTAssertEqual(state, expected, context, file: file, line: line)
        XCTAssertEqual(state.encoded(), expected.encoded(), context, file: file, line: line)
        XCTAssertEqual(try fileBytes(paths.journal), Array(history.journal[..<boundary]),
                       "\(context): truncated to the record boundary", file: file, line: line)

        XCTAssertEqual(repo.openingWarnings.count, 1, context, file: file, line: line)
        let warning = repo.openingWarnings.first?.description ?? ""
        XCTAssertTrue(warning.contains("at byte \(boundary)"), "\(context): \(warning)", file: file, line: line)
        XCTAssertTrue(warning.contains("recovered/torn-at-\(boundary)-"), "\(context): \(warning)", file: file, line: line)

        let saved = listing(paths.recovered)
        XCTAssertEqual(saved.count, 1, context, file: file, line: line)
        XCTAssertTrue(saved.first?.hasPrefix("torn-at-\(boundary)-") ?? false, "\(context): \(saved)", file: file, line: line)
        XCTAssertEqual(try fileBytes(paths.recovered + "/" + (saved.first ?? "")),
                       Array(history.journal[boundary..<cut]), "\(context): removed bytes saved", file: file, line: line)

        // The journal keeps working: a new record lands at the boundary and survives a reopen.
        let result = try await repo.commit(label: "after recovery") { _, _ in [.create(Fixture.read, Fixture.fields("Read"))] }
        XCTAssertEqual(result.state.seen[history.deviceID], (expected.seen[history.deviceID] ?? 0) + 1,
                       "\(context): sequence numbers continue without a gap", file: file, line: line)
        let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock)
        let again = await reopened.state
        XCTAssertEqual(again, result.state, context, file: file, line: line)
        XCTAssertNotNil(again.habit(Fixture.read), context, file: file, line: line)
        XCTAssertEqual(reopened.openingWarnings, [], context, file: file, line: line)
        let onDisk = try fileBytes(paths.journal)
        XCTAssertEqual(Array(onDisk.prefix(boundary)), Array(history.journal[..<boundary]), context, file: file, line: line)
        XCTAssertEqual(try foldJournal(onDisk, file: file, line: line), result.state, context, file: file, line: line)
    }

    // MARK: Reading a window at a time

    func testRecordsAreReadAWindowAtATimeWhateverTheWindowAndRecordSizes() async throws {
        let history = try await makeHistory()
        let journal = try Journal(path: history.paths.journal)
        let end = try journal.fileSize()
        let whole = Journal.scan(Array(try fileBytes(history.paths.journal).dropFirst(Journal.headerSize)), base: Journal.headerSize)
        XCTAssertEqual(whole.status, .clean)
        let expected = whole.records.map { "\($0.offset):\($0.payload)" }
        XCTAssertGreaterThan(expected.count, 5)
        // Windows smaller than one record, of about one, and larger than the whole file.
        for window in [1, 7, 12, 13, 40, 64, 100, 1 << 20] {
            var seen: [String] = []
            try journal.forEachRecord(from: Journal.headerSize, to: end, window: window) { seen.append("\($0.offset):\($0.payload)"); return true }
            XCTAssertEqual(seen, expected, "window \(window)")
        }
        // From a later record boundary, and stopping early.
        var firstTwo: [Int] = []
        try journal.forEachRecord(from: whole.records[2].offset, to: end, window: 30) { firstTwo.append($0.offset); return firstTwo.count < 2 }
        XCTAssertEqual(firstTwo, [whole.records[2].offset, whole.records[3].offset])
    }

    func testAWindowedReadOfARecordChangedOnDiskThrowsCorruptWithItsOffset() async throws {
        let history = try await makeHistory()
        var bytes = try fileBytes(history.paths.journal)
        let victim = history.records[3]
        bytes[victim.upperBound - 1] ^= 0x40
        try writeFile(bytes, to: history.paths.journal)
        let journal = try Journal(path: history.paths.journal)
        for window in [16, 1 << 20] {
            var read = 0
            XCTAssertThrowsError(try journal.forEachRecord(from: Journal.headerSize, to: bytes.count, window: window) { _ in read += 1; return true }) {
                assertCorrupt($0 as? StoreError, path: history.paths.journal, offset: victim.lowerBound, "window \(window)")
            }
            XCTAssertEqual(read, 3, "the records before it were read, window \(window)")
        }
    }
}
