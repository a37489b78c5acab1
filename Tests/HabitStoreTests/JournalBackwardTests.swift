import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// Issue 42, point 3: `habitto log` reads the journal newest first through the repository,
/// and a page costs what its records hold, however long the journal is.
final class JournalBackwardTests: StoreTestCase {
    /// Records of many sizes (one larger than the window), read backwards a small window at a
    /// time, are exactly the records read forwards, in the opposite order; stopping early
    /// stops the reading.
    func testRecordsReadBackwardsAreTheRecordsReadForwardsReversed() async throws {
        let dir = root + "/data"
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let h = Fixture.water
        try await repo.commit { _, _ in [.create(h, Fixture.fields("Water"))] }
        for k in 1...40 {
            let n = k == 17 ? 300 : k % 5 + 1
            try await repo.commit { _, _ in Array(repeating: .progress(h, Fixture.day0, delta: 1), count: n) }
        }
        let journal = try Journal(path: DataPaths(directory: dir).journal)
        let end = try journal.fileSize()
        var forwards: [(Int, [UInt8])] = []
        try journal.forEachRecord(from: Journal.headerSize, to: end) { forwards.append(($0.offset, $0.payload)); return true }
        var backwards: [(Int, [UInt8])] = []
        try journal.forEachRecordBackward(from: end, window: 100) { backwards.append(($0.offset, $0.payload)); return true }
        XCTAssertEqual(forwards.count, 41)
        XCTAssertEqual(backwards.map(\.0), forwards.reversed().map(\.0))
        XCTAssertEqual(backwards.map(\.1), forwards.reversed().map(\.1))
        var seen = 0
        let read = try journal.forEachRecordBackward(from: end, window: 100) { _ in seen += 1; return seen < 2 }
        XCTAssertEqual(seen, 2)
        XCTAssertLessThanOrEqual(read, 1000, "two small records cost a few windows, not the \(end)-byte journal")
        XCTAssertLessThan(read * 10, end)
    }

    /// 100,000 operations written through the repository: the newest page reads one window
    /// of the journal's end, and the pages after it go on from where it stopped to the start,
    /// each record once, holding every operation.
    func testTheNewestPageOfALongHistoryReadsOnlyItsEnd() async throws {
        let repo = try HabitRepository(directory: root + "/data", now: Fixture.clock)
        let h = Fixture.water
        try await repo.commit { _, _ in [.create(h, Fixture.fields("Water"))] + Array(repeating: .progress(h, Fixture.day0, delta: 1), count: 99) }
        for k in 1..<1000 {
            try await repo.commit { _, _ in Array(repeating: .progress(h, Fixture.day0.adding(k % 300), delta: 1), count: 100) }
        }
        for _ in 0..<20 { try await repo.commit { _, _ in [.skip(h, Fixture.day0, true)] } }
        let size = await repo.journalEnd
        let count = await repo.state.operationCount
        XCTAssertEqual(count, 100_020)
        let page = try await repo.journalPage(before: nil, limit: 10)
        XCTAssertEqual(page.entries.count, 10)
        XCTAssertEqual(page.entries.map { $0.entry.ops[0].id.seq }, (100_011...100_020).reversed().map { UInt64($0) })
        let read = await repo.historyReadBytes
        let records = await repo.historyReadRecords
        XCTAssertEqual(records, 10)
        XCTAssertLessThanOrEqual(read, 16 << 10, "\(read) bytes read of a \(size)-byte journal for ten lines")
        XCTAssertLessThan(read * 20, size)
        var before = page.next
        var operations = page.entries.reduce(0) { $0 + $1.entry.ops.count }
        while let b = before {
            let next = try await repo.journalPage(before: b, limit: 64)
            operations += next.entries.reduce(0) { $0 + $1.entry.ops.count }
            before = next.next
        }
        XCTAssertEqual(operations, 100_020)
        let decoded = await repo.historyReadRecords
        XCTAssertEqual(decoded, 1020, "each record decoded once")
    }

    /// Hostile bytes in the journal (a stretch overwritten with random bytes, anywhere past the
    /// header): reading backwards never crashes; it gives records that pass their checksums,
    /// newest first, until it meets the damage, and then says so (`StoreError.corrupt`).
    func testDamagedBytesReadBackwardsGiveCheckedRecordsOrOneError() async throws {
        let dir = root + "/data"
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let h = Fixture.water
        try await repo.commit { _, _ in [.create(h, Fixture.fields("Water"))] }
        for k in 1...30 {
            try await repo.commit { _, _ in Array(repeating: .progress(h, Fixture.day0, delta: 1), count: k % 4 + 1) }
        }
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: DataPaths(directory: dir).journal)))
        var random = SplitMix64(seed: 42)
        for round in 0..<200 {
            var bytes = original
            let from = Journal.headerSize + Int(random.next() % UInt64(bytes.count - Journal.headerSize))
            let count = 1 + Int(random.next() % 64)
            for i in from..<min(bytes.count, from + count) { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
            let path = root + "/damaged-\(round).hbj"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let journal = try Journal(path: path)
            var offsets: [Int] = []
            do {
                try journal.forEachRecordBackward(from: bytes.count, window: 64) { r in
                    offsets.append(r.offset)
                    XCTAssertGreaterThanOrEqual(r.offset, Journal.headerSize)
                    XCTAssertLessThanOrEqual(r.offset + r.payload.count, bytes.count)
                    return true
                }
            } catch let e as StoreError {
                XCTAssertTrue("\(e)".contains("habitto doctor"), "round \(round): \(e)")
            }
            XCTAssertEqual(offsets, offsets.sorted(by: >), "round \(round): not newest first")
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
