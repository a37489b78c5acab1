import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// A bad record followed by good ones is corruption, not a crash: the repository refuses
/// to open or write, reports the offset, and leaves every file as it was.
final class CorruptionTests: StoreTestCase {

    func testFlippingAnyByteOfARecordBeforeTheLastRefusesToOpenAtThatRecordAndWritesNothing() async throws {
        let history = try await makeHistory()
        for k in 0..<(history.records.count - 1) {
            let record = history.records[k]
            for i in record {
                var bytes = history.journal
                bytes[i] ^= UInt8(1 << (i % 8))
                let paths = try makeDataDirectory("flip-\(i)", journal: bytes, device: history.device)
                let before = try directoryContents(paths.directory)
                let error = storeError { try HabitRepository(directory: paths.directory, now: Fixture.clock) }
                assertCorrupt(error, path: paths.journal, offset: record.lowerBound, "byte \(i) of record \(k) flipped")
                XCTAssertEqual(try fileBytes(paths.journal), bytes, "byte \(i) flipped: the journal is unchanged")
                XCTAssertEqual(try directoryContents(paths.directory), before, "byte \(i) flipped: nothing written")
            }
        }
    }

    func testARecordWithValidChecksumsAndAnAmountOfIntMinIsReportedAsDamageNotACrash() async throws {
        let history = try await makeHistory()
        let last = try XCTUnwrap(history.states.last)
        let seq = (last.seen[history.deviceID] ?? 0) + 1
        let habit = try XCTUnwrap(last.habits.first)
        func record(_ seq: UInt64, _ delta: Int) -> [UInt8] {
            let op = HabitOperation(id: OpID(device: history.deviceID, seq: seq),
                                    hlc: HLC(wallMillis: 1_900_000_000_000, counter: UInt32(seq)),
                                    change: .progress(habit.id, habit.startDate, delta: delta))
            return Journal.frame(JournalEntry(ops: [op]).encoded())
        }
        // Checksums are valid: only the decoder can refuse it. A good record follows.
        let bytes = history.journal + record(seq, .min) + record(seq + 1, 1)
        let paths = try makeDataDirectory("int-min", journal: bytes, device: history.device)
        let error = storeError { try HabitRepository(directory: paths.directory, now: Fixture.clock) }
        assertCorrupt(error, path: paths.journal, offset: history.journal.count, "a change of Int.min")
        XCTAssertEqual(try fileBytes(paths.journal), bytes, "nothing written")
    }

    func testMidFileCorruptionStillRefusesOnASecondAttemptAndNothingIsEverWritten() async throws {
        let history = try await makeHistory()
        let record = history.records[2]
        var bytes = history.journal
        bytes[record.lowerBound + Journal.frameOverhead + 3] ^= 0xFF
        let paths = try makeDataDirectory("corrupt", journal: bytes, device: history.device)
        let before = try directoryContents(paths.directory)
        for attempt in 1...3 {
            let error = storeError {
                try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 1)
            }
            assertCorrupt(error, path: paths.journal, offset: record.lowerBound, "attempt \(attempt)")
            XCTAssertEqual(try directoryContents(paths.directory), before, "attempt \(attempt)")
        }
        XCTAssertFalse(fileExists(paths.recovered))
        XCTAssertFalse(fileExists(paths.snapshot))
    }

    func testCommitRefusesToWriteWhenRecordsAppendedByAnotherRepositoryAreCorruptInTheMiddle() async throws {
        let history = try await makeHistory()
        let reader = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let writer = try HabitRepository(directory: history.directory, now: Fixture.clock)
        for d in 1...3 {
            try await writer.commit(label: "more \(d)") { _, _ in [.progress(Fixture.walk, Fixture.day0.adding(d), delta: d)] }
        }
        var bytes = try fileBytes(history.paths.journal)
        let firstNew = history.journal.count
        bytes[firstNew + Journal.frameOverhead + 1] ^= 0x10
        try writeFile(bytes, to: history.paths.journal)
        let stateBefore = await reader.state

        let commitError = await asyncStoreError {
            try await reader.commit(label: "refused") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        }
        assertCorrupt(commitError, path: history.paths.journal, offset: firstNew)
        let undoError = await asyncStoreError { try await reader.undo() }
        assertCorrupt(undoError, path: history.paths.journal, offset: firstNew)
        let refreshError = await asyncStoreError { try await reader.refresh() }
        assertCorrupt(refreshError, path: history.paths.journal, offset: firstNew)

        XCTAssertEqual(try fileBytes(history.paths.journal), bytes, "nothing was written")
        let stateAfter = await reader.state
        XCTAssertEqual(stateAfter, stateBefore)
    }

    func testScanDetectsEveryBitFlipAndTellsCorruptionFromATornTail() async throws {
        let history = try await makeHistory()
        let body = Array(history.journal.dropFirst(Journal.headerSize))
        let base = Journal.headerSize
        let clean = Journal.scan(body, base: base)
        XCTAssertEqual(clean.status, .clean)
        XCTAssertEqual(clean.end, history.journal.count)
        XCTAssertEqual(clean.records.map(\.offset), history.records.map(\.lowerBound))
        XCTAssertEqual(clean.records.map { $0.offset + Journal.frameOverhead + $0.payload.count },
                       history.records.map(\.upperBound))

        let lastIndex = history.records.count - 1
        for (k, record) in history.records.enumerated() {
            for i in record {
                for bit in 0..<8 {
                    var flipped = body
                    flipped[i - base] ^= UInt8(1 << bit)
                    let scan = Journal.scan(flipped, base: base)
                    let context = "bit \(bit) of byte \(i) (record \(k))"
                    XCTAssertEqual(scan.records.map(\.offset), Array(history.records.prefix(k).map(\.lowerBound)), context)
                    XCTAssertEqual(scan.records.map(\.payload), Array(clean.records.prefix(k).map(\.payload)), context)
                    XCTAssertEqual(scan.end, record.lowerBound, context)
                    if k == lastIndex {
                        XCTAssertEqual(scan.status, .torn(offset: record.lowerBound), context)
                    } else if case .corrupt(let offset, let detail) = scan.status {
                        XCTAssertEqual(offset, record.lowerBound, context)
                        XCTAssertFalse(detail.isEmpty, context)
                    } else {
                        XCTFail("expected corruption, got \(scan.status): \(context)")
                    }
                }
            }
        }
    }

    func testScanOfBytesWithNoValidRecordIsATornTailAtTheStart() {
        var rng = SplitMix64(seed: 42)
        for length in [1, 11, 12, 13, 100, 1000] {
            let garbage = (0..<length).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            let scan = Journal.scan(garbage, base: 16)
            XCTAssertTrue(scan.records.isEmpty, "\(length) random bytes")
            XCTAssertEqual(scan.status, .torn(offset: 16), "\(length) random bytes")
            XCTAssertEqual(scan.end, 16, "\(length) random bytes")
        }
        let empty = Journal.scan([], base: 16)
        XCTAssertEqual(empty.status, .clean)
        XCTAssertEqual(empty.end, 16)
    }

    func testAFileThatIsNotAJournalIsUnreadableAndLeftUnchanged() async throws {
        var rng = SplitMix64(seed: 7)
        var futureVersion = Journal.magic
        futureVersion[futureVersion.count - 1] = 2
        let candidates: [(String, [UInt8])] = [
            ("random", (0..<200).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }),
            ("short text", Array("hello".utf8)),
            ("future version", futureVersion + Journal.frame([1, 0, 0, 0])),
            ("header only, wrong", Array("HABITTO-JOURNAL\u{0}".utf8)),
        ]
        let device = Array("\(String(repeating: "cd", count: 16))\n".utf8)
        for (i, (name, bytes)) in candidates.enumerated() {
            let paths = try makeDataDirectory("foreign-\(i)", journal: bytes, device: device)
            let before = try directoryContents(paths.directory)
            for attempt in 1...2 {
                let error = storeError { try HabitRepository(directory: paths.directory, now: Fixture.clock) }
                guard case .unreadable(let p, let detail)? = error else {
                    XCTFail("\(name): expected .unreadable, got \(String(describing: error))")
                    continue
                }
                XCTAssertEqual(p, paths.journal, name)
                XCTAssertTrue(detail.contains("not a Habitto journal"), "\(name): \(detail)")
                XCTAssertEqual(try directoryContents(paths.directory), before, "\(name), attempt \(attempt)")
            }
        }
    }

    func testDamagedDeviceFileIsUnreadableAndNothingIsWritten() throws {
        let dir = path("bad-device")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let paths = DataPaths(directory: dir)
        try writeFile(Array("not-a-device-id\n".utf8), to: paths.device)
        let error = storeError { try HabitRepository(directory: dir, now: Fixture.clock) }
        guard case .unreadable(let p, _)? = error else {
            return XCTFail("expected .unreadable, got \(String(describing: error))")
        }
        XCTAssertEqual(p, paths.device)
        XCTAssertFalse(fileExists(paths.journal))
        XCTAssertEqual(try fileBytes(paths.device), Array("not-a-device-id\n".utf8))
    }
}

