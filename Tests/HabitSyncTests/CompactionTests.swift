import Foundation
import XCTest
import HabitCore
import HabitStore
@testable import HabitSync
import SyncTestKit

/// Devices compact their own batches on a folder remote, and readers that race a
/// compaction, a compaction stopped at any step, and two devices compacting at once lose
/// and double-apply nothing.
final class CompactionTests: SyncTestCase {
    /// `rounds` rounds of one check-in each (the first creates the habit).
    func rounds(_ d: (repo: HabitRepository, engine: SyncEngine, remote: FaultyRemote), _ h: HabitID, _ rounds: Int,
                file: StaticString = #filePath, line: UInt = #line) async throws {
        for _ in 0..<rounds {
            try await checkIn(d.repo, h)
            await syncOK(d.engine, file: file, line: line)
        }
    }

    /// The most files a device keeps after `acked` operations sent one at a time: one a level
    /// (4, 8, 16, … operations) and three recent ones.
    func mostFiles(_ acked: UInt64) -> Int {
        var levels = 0, size = CompactionPlan.smallest
        while size <= acked { levels += 1; size *= 2 }
        return levels + 3
    }

    /// Every operation `1...last` of `d` is in some batch on the remote.
    func assertEveryOperationIsOnTheRemote(_ d: DeviceID, upTo last: UInt64, file: StaticString = #filePath, line: UInt = #line) throws {
        let held = try files(d)
        XCTAssertEqual(held.contiguousEnd(), last, "batches on the remote: \(held)", file: file, line: line)
    }

    func testADeviceKeepsFewBatchFilesAndANewDeviceReadsThemAllInAFewReads() async throws {
        let a = try await faultyDevice("a")
        let h = HabitID(value: 0xC1)
        try await rounds(a, h, 30)
        // 2 operations in the first round (create and check-in), then 1 a round.
        let held = try files(a.repo.device)
        XCTAssertLessThanOrEqual(held.count, mostFiles(31), "\(held)")
        XCTAssertGreaterThan(held.count, 0)
        try assertEveryOperationIsOnTheRemote(a.repo.device, upTo: 31)
        XCTAssertTrue(held.contains { $0.first == 1 && $0.count > 1 }, "the first batches were merged: \(held)")

        let b = try await faultyDevice("b")
        let reads = Counter()
        b.remote.intercept = { call in if case .read = call { reads.add() } }
        await syncOK(b.engine)
        let got = await progress(b.repo, h)
        XCTAssertEqual(got, 30, "every check-in arrived once")
        XCTAssertLessThanOrEqual(reads.value, held.count, "one read per batch at most")
        XCTAssertLessThan(reads.value, 30)
    }

    /// A reader lists another device's small batches, that device compacts them into one
    /// batch and removes them, then the reader reads: it lists that device again, reads the
    /// covering batch, and applies the operations it had not applied, each once.
    func testABatchRemovedAfterAReaderListedItIsFoundInTheBatchCoveringIt() async throws {
        let a = try await faultyDevice("a")
        let h = HabitID(value: 0xC2)
        try await rounds(a, h, 2)
        let ops = try await a.repo.localOperations(afterSeq: 0, fromOffset: 0, limit: .max).ops
        XCTAssertEqual(ops.count, 3)
        let smalls = try files(a.repo.device)
        XCTAssertEqual(smalls.count, 2, "no compaction yet: \(smalls)")
        let folder = opsFolder(a.repo.device)
        let covering = try XCTUnwrap(BatchName(first: 1, last: 3))

        let b = try await faultyDevice("b")
        let reads = Counter()
        let device = a.repo.device
        // After the reader read the first batches: the covering batch appears, the small ones go.
        b.remote.intercept = { call in
            guard case .read(device, let batch) = call else { return }
            reads.add()
            if batch.first == 3 && !FileManager.default.fileExists(atPath: folder + "/" + covering.fileName) {
                try Data(BatchFile.encode(ops)).write(to: URL(fileURLWithPath: folder + "/" + covering.fileName))
                for s in smalls { try FileManager.default.removeItem(atPath: folder + "/" + s.fileName) }
            }
        }
        await syncOK(b.engine)
        let got = await progress(b.repo, h)
        XCTAssertEqual(got, 2, "every check-in once: none lost, none applied twice")
        let seen = await b.repo.state.seen[device]
        XCTAssertEqual(seen, 3)
        // The first small batch, the one found gone, then the covering one.
        XCTAssertEqual(reads.value, 3)
    }

    /// A compaction that stops at any step (writing the covering batch, reading it back,
    /// or after any number of removals) leaves every operation on the remote, a new device
    /// joins with each check-in once, and the next compaction finishes the job.
    func testACompactionStoppedAtAnyStepLosesNothingAndTheNextOneFinishes() async throws {
        // The steps of the compaction into 1-16: the covering batch's write, its read-back, 6 removals.
        for step in 0..<8 {
            if step > 0 { try setUpWithError() }
            defer { tearDown() }
            let a = try await faultyDevice("a")
            let h = HabitID(value: 0xC3)
            try await rounds(a, h, 14)
            XCTAssertEqual(try files(a.repo.device).map(\.description), ["1-8.batch", "9-12.batch", "13-13.batch", "14-14.batch", "15-15.batch"])
            let calls = Counter()
            let me = a.repo.device
            a.remote.intercept = { call in
                let counted: Bool
                switch call {
                case .create(me, let batch): counted = batch.count > 1
                case .read(me, _), .remove(me, _): counted = true
                default: counted = false
                }
                if counted && calls.add() == step { throw RemoteError.unreachable("stopped at step \(step) (injected)") }
            }
            try await checkIn(a.repo, h)
            let report = await a.engine.syncOnce()
            XCTAssertEqual(report.error, "stopped at step \(step) (injected)")
            XCTAssertEqual(report.pushed, 1, "the check-in was pushed before the compaction")
            try assertEveryOperationIsOnTheRemote(me, upTo: 16)

            let c = try await faultyDevice("c\(step)")
            await syncOK(c.engine)
            let joined = await progress(c.repo, h)
            XCTAssertEqual(joined, 15, "step \(step): each check-in once")

            a.remote.intercept = nil
            try await rounds(a, h, 1)
            XCTAssertEqual(try files(me), [BatchName(first: 1, last: 16)!, BatchName(first: 17, last: 17)!], "step \(step)")
            await syncOK(c.engine)
            let after = await progress(c.repo, h)
            XCTAssertEqual(after, 16, "step \(step)")
        }
    }

    /// A batch already there under the covering name with other contents is never taken as
    /// the replacement: nothing is removed.
    func testACoveringBatchThatDiffersRemovesNothing() async throws {
        let a = try await faultyDevice("a")
        let h = HabitID(value: 0xC4)
        try await rounds(a, h, 2)
        let me = a.repo.device
        let before = try files(me)
        let other = try HabitRepository(directory: root + "/forger")
        try await checkIn(other, HabitID(value: 0xC5))
        let forged = try await other.localOperations(afterSeq: 0, fromOffset: 0, limit: .max).ops
        // A file under the name the compaction will use, holding something else.
        try Data(BatchFile.encode(forged)).write(to: URL(fileURLWithPath: opsFolder(me) + "/1-4.batch"))
        try await checkIn(a.repo, h)
        let report = await a.engine.syncOnce()
        XCTAssertNotNil(report.error)
        XCTAssertEqual(report.pushed, 1)
        XCTAssertEqual(try files(me), (before + [BatchName(first: 4, last: 4)!, BatchName(first: 1, last: 4)!]).sorted())
    }

    /// Two devices that both compact, syncing at the same moment every round, each keep a
    /// few files, and each ends with every check-in of both exactly once.
    func testTwoDevicesCompactingAtOnceBothEndWithEveryCheckInOnce() async throws {
        let a = try await faultyDevice("a"), b = try await faultyDevice("b")
        let ha = HabitID(value: 0xC6), hb = HabitID(value: 0xC7)
        for _ in 0..<40 {
            try await checkIn(a.repo, ha)
            try await checkIn(b.repo, hb)
            async let ra = a.engine.syncOnce()
            async let rb = b.engine.syncOnce()
            let (x, y) = await (ra, rb)
            XCTAssertNil(x.error, x.error ?? "")
            XCTAssertNil(y.error, y.error ?? "")
        }
        await syncOK(a.engine)
        await syncOK(b.engine)
        for d in [a, b] {
            let held = try files(d.repo.device)
            XCTAssertLessThanOrEqual(held.count, mostFiles(41), "\(held)")
            try assertEveryOperationIsOnTheRemote(d.repo.device, upTo: 41)
            for h in [ha, hb] {
                let p = await progress(d.repo, h)
                XCTAssertEqual(p, 40)
            }
        }
    }
}

extension CompactionTests {
    /// A remote restored from an old backup, then emptied: each device finds operations it
    /// had sent missing from its own listing, sends them again (only what the remote lacks)
    /// and reads them back; a new device then sees every check-in of both, once.
    func testARemoteRestoredFromAnOldBackupOrEmptiedIsRefilledByEveryDevice() async throws {
        let a = try await faultyDevice("a"), b = try await faultyDevice("b")
        let ha = HabitID(value: 0xC8), hb = HabitID(value: 0xC9)
        try await rounds(a, ha, 3)
        try await rounds(b, hb, 2)
        let users = root + "/remote/users"
        try FileManager.default.copyItem(atPath: users, toPath: root + "/backup")
        try await rounds(a, ha, 12)
        try await rounds(b, hb, 1)

        try FileManager.default.removeItem(atPath: users)
        try FileManager.default.copyItem(atPath: root + "/backup", toPath: users)
        for (d, last) in [(a, UInt64(16)), (b, UInt64(4))] {
            let report = await d.engine.syncOnce()
            XCTAssertNil(report.error, report.error ?? "")
            XCTAssertTrue(report.refilled)
            try assertEveryOperationIsOnTheRemote(d.repo.device, upTo: last)
        }
        let c = try await faultyDevice("c")
        await syncOK(c.engine)
        var got = [await progress(c.repo, ha), await progress(c.repo, hb)]
        XCTAssertEqual(got, [15, 3])

        try FileManager.default.removeItem(atPath: users)
        for d in [a, b] {
            let report = await d.engine.syncOnce()
            XCTAssertNil(report.error, report.error ?? "")
            XCTAssertTrue(report.refilled)
        }
        let again = await a.engine.syncOnce()
        XCTAssertFalse(again.refilled, "refilled once")
        let e = try await faultyDevice("e")
        await syncOK(e.engine)
        got = [await progress(e.repo, ha), await progress(e.repo, hb)]
        XCTAssertEqual(got, [15, 3])
    }

    /// A compaction reads its range from the journal where the last one's started; a mark
    /// that is wrong (the journal was cut, say) makes it read from the start instead.
    func testACompactionWithAWrongJournalMarkReadsFromTheStart() async throws {
        let a = try await faultyDevice("a")
        let h = HabitID(value: 0xCE)
        try await rounds(a, h, 6)
        let paths = DataPaths(directory: root + "/a")
        try SyncState.update(paths) { $0.compactedFrom = SyncState.JournalMark(seq: 1, offset: 1 << 40) }
        try await rounds(a, h, 1)
        XCTAssertEqual(try files(a.repo.device), [BatchName(first: 1, last: 8)!])
        let mark = try SyncState.load(paths).compactedFrom
        XCTAssertEqual(mark?.seq, 1)
        XCTAssertLessThan(mark?.offset ?? .max, 1 << 20)
    }

    /// After 1,500 rounds of two devices (one check-in each per round, both syncing every
    /// round) the remote holds a few files a device (200 in all would be the limit), and a
    /// new device joins in a few calls with every check-in once.
    func testFifteenHundredRoundsOfTwoDevicesLeaveFewFilesOnTheRemote() async throws {
        let a = try await faultyDevice("a"), b = try await faultyDevice("b")
        let ha = HabitID(value: 0xCC), hb = HabitID(value: 0xCD)
        for _ in 0..<1_500 {
            try await checkIn(a.repo, ha)
            try await checkIn(b.repo, hb)
            await syncOK(a.engine)
            await syncOK(b.engine)
        }
        let held = try files(a.repo.device) + files(b.repo.device)
        XCTAssertLessThanOrEqual(held.count, 2 * mostFiles(1_501))
        for d in [a, b] {
            try assertEveryOperationIsOnTheRemote(d.repo.device, upTo: 1_501)
            // The last range compacted (1497-1500) starts late: its read starts near there.
            let mark = await d.engine.state.compactedFrom
            XCTAssertEqual(mark?.seq, 1_497)
            XCTAssertGreaterThan(mark?.offset ?? 0, 1_000 * 20, "an offset past the first thousand operations")
        }
        let c = try await faultyDevice("c")
        let before = c.remote.calls
        await syncOK(c.engine)
        XCTAssertLessThanOrEqual(c.remote.calls - before, 40)
        let got = [await progress(c.repo, ha), await progress(c.repo, hb)]
        XCTAssertEqual(got, [1_500, 1_500])
    }

    /// A round with nothing to do makes four remote calls with two devices (the format
    /// check, this device's listing, the devices listing, the other device's listing),
    /// however long the history is.
    func testARoundWithNothingToDoMakesFourCallsWhateverTheHistory() async throws {
        let a = try await faultyDevice("a"), b = try await faultyDevice("b")
        let h = HabitID(value: 0xCA)
        try await rounds(b, HabitID(value: 0xCB), 1)
        var costs: [Int] = []
        for n in [1, 60] {
            try await rounds(a, h, n)
            await syncOK(a.engine)
            let before = a.remote.calls
            await syncOK(a.engine)
            costs.append(a.remote.calls - before)
        }
        XCTAssertEqual(costs, [4, 4])
    }
}

extension CompactionTests {
    /// What `SyncEngine.compact` does to a device's files, as a model: each range it may
    /// write that holds two files or more (one, when the range is there) replaces them.
    /// Returns the operations written again.
    func compactModel(_ files: inout Set<BatchName>, acked: UInt64) -> UInt64 {
        var written: UInt64 = 0
        for r in CompactionPlan.ranges(files: files, acked: acked, largest: CompactionPlan.largest) {
            let covered = files.filter { $0 != r && $0.first >= r.first && $0.last <= r.last }
            guard covered.count >= (files.contains(r) ? 1 : 2) else { continue }
            files.subtract(covered)
            files.insert(r)
            written += r.count
        }
        if let r = CompactionPlan.capping(files: files, acked: acked, largest: CompactionPlan.largest) {
            files = files.filter { !($0.first >= r.first && $0.last <= r.last) }
            files.insert(r)
            written += r.count
        }
        return written
    }

    func testCompactionRangesAreFullAlignedRangesLargestFirstThenLeftovers() {
        func b(_ f: UInt64, _ l: UInt64) -> BatchName { BatchName(first: f, last: l)! }
        // Up to three recent files wait; a fourth completes the range of 4.
        var files: Set<BatchName> = [b(1, 1), b(2, 2), b(3, 3)]
        XCTAssertEqual(CompactionPlan.ranges(files: files, acked: 3, largest: 1000), [])
        files.insert(b(4, 4))
        XCTAssertEqual(CompactionPlan.ranges(files: files, acked: 4, largest: 1000), [b(1, 4)])
        // The largest full range comes first; a file inside another is a leftover.
        files = [b(1, 8), b(9, 12), b(13, 14), b(15, 15), b(16, 16), b(17, 17), b(13, 16), b(14, 15)]
        XCTAssertEqual(CompactionPlan.ranges(files: files, acked: 17, largest: 1000),
                       [b(1, 16), b(9, 16), b(13, 16), b(13, 16), b(14, 15)])
        // Levels stop at the largest size; a range not yet acknowledged is not written.
        files = [b(1, 8), b(9, 16)]
        XCTAssertEqual(CompactionPlan.ranges(files: files, acked: 16, largest: 15), [])
        XCTAssertEqual(CompactionPlan.ranges(files: files, acked: 16, largest: 16), [b(1, 16)])
        XCTAssertEqual(CompactionPlan.ranges(files: [b(1, 8), b(9, 15)], acked: 15, largest: 16), [])
    }

    /// Thirty thousand rounds of one operation each, then a backlog of ten thousand sent in
    /// batches of 1,000: the device never holds more than a few files, and compaction writes
    /// each operation again at most once a level.
    func testALongHistoryKeepsFewFilesAndWritesEachOperationAgainAFewTimes() {
        var files = Set<BatchName>()
        var most = 0, written: UInt64 = 0
        var acked: UInt64 = 0
        func push(_ n: UInt64) {
            files.insert(BatchName(first: acked + 1, last: acked + n)!)
            acked += n
            written += compactModel(&files, acked: acked)
            most = max(most, files.count)
            XCTAssertEqual(Array(files).contiguousEnd(), acked)
        }
        for _ in 0..<30_000 { push(1) }
        let levels = 15 // 4, 8, … 65,536
        XCTAssertLessThanOrEqual(most, CompactionPlan.mostFiles, "never more files than a join should read")
        XCTAssertLessThanOrEqual(written, UInt64(levels) * acked)
        XCTAssertEqual(files.sorted().map(\.description), ["1-16384.batch", "16385-24576.batch", "24577-28672.batch",
                                                           "28673-29696.batch", "29697-29952.batch", "29953-29984.batch",
                                                           "29985-30000.batch"])
        for _ in 0..<10 { push(1000) }
        XCTAssertLessThanOrEqual(files.count, CompactionPlan.mostFiles, files.sorted().description)
    }

    /// The history whose length uses the most levels (4·(2^13 − 1) + 3 operations: 13 levels
    /// and 3 recent files, 16 in all): its newest files are merged so that 12 are left.
    func testNeverMoreThanTwelveFilesWhateverTheLevelsInUse() {
        func b(_ f: UInt64, _ l: UInt64) -> BatchName { BatchName(first: f, last: l)! }
        var files = Set<BatchName>()
        var start: UInt64 = 1
        for k in (0..<13).reversed() {
            let size = UInt64(4) << UInt64(k)
            files.insert(b(start, start + size - 1))
            start += size
        }
        for _ in 0..<3 { files.insert(b(start, start)); start += 1 }
        let acked = start - 1
        XCTAssertEqual(acked, 4 * 8191 + 3)
        XCTAssertEqual(files.count, 16)
        XCTAssertEqual(CompactionPlan.ranges(files: files, acked: acked, largest: CompactionPlan.largest), [])
        let cap = CompactionPlan.capping(files: files, acked: acked, largest: CompactionPlan.largest)
        let newest = files.sorted().suffix(5)
        XCTAssertEqual(cap, b(newest.first!.first, acked))
        XCTAssertNil(CompactionPlan.capping(files: files, acked: acked, largest: 10), "never larger than the largest compaction")
        var model = files
        _ = compactModel(&model, acked: acked)
        XCTAssertEqual(model.count, CompactionPlan.mostFiles)
        XCTAssertEqual(Array(model).contiguousEnd(), acked)
    }

    /// A device with a long history (scaled down: batches of 10 operations, so levels of 10,
    /// 40, 160 and 640): its files stay few, and a new device joins in the same few calls as
    /// after a short history.
    func testJoiningCostsAboutTheSameWhateverTheHistorysLength() async throws {
        let a = try await faultyDevice("a", batchSize: 10)
        let h = HabitID(value: 0xD1)
        var joins: [Int] = []
        for (i, rounds) in [40, 260].enumerated() {
            for _ in 0..<rounds {
                for _ in 0..<3 { try await checkIn(a.repo, h) }
                await syncOK(a.engine)
            }
            let held = try files(a.repo.device)
            XCTAssertLessThanOrEqual(held.count, mostFiles(UInt64(3 * (i == 0 ? 40 : 300))), "\(held)")
            let c = try await faultyDevice("c\(i)", batchSize: 10)
            let before = c.remote.calls
            await syncOK(c.engine)
            joins.append(c.remote.calls - before)
            let got = await progress(c.repo, h)
            XCTAssertEqual(got, 3 * (i == 0 ? 40 : 300))
        }
        XCTAssertLessThanOrEqual(joins[1], 40, "\(joins)")
        XCTAssertLessThanOrEqual(joins[1], joins[0] + 8, "the join does not grow with the history: \(joins)")
    }

    /// A remote whose layout was made again (another identity in `format`) while this
    /// device's batches look complete (copied back by hand, say): the device notices, reads
    /// its batches back and verifies them, sending what the remote lacks (nothing here); the
    /// same identity later changes nothing.
    func testANewRemoteIdentityMakesTheDeviceVerifyAndRefill() async throws {
        let a = try await faultyDevice("a")
        let h = HabitID(value: 0xD2)
        try await rounds(a, h, 2)
        let formatPath = root + "/remote/users/me/format"
        let first = try String(contentsOfFile: formatPath, encoding: .utf8)
        XCTAssertEqual(try SyncState.load(DataPaths(directory: root + "/a")).remoteID.map { "habitto-sync 2 remote \($0)\n" }, first)
        try Data(RemoteFormat.fresh().bytes).write(to: URL(fileURLWithPath: formatPath))
        let report = await a.engine.syncOnce()
        XCTAssertNil(report.error, report.error ?? "")
        XCTAssertTrue(report.refilled)
        XCTAssertEqual(report.pushed, 0, "the remote lacked nothing")
        let verified = try SyncState.load(DataPaths(directory: root + "/a"))
        XCTAssertNotNil(verified.migratedTo, "read back and verified again")
        XCTAssertEqual(verified.remoteID.map { "habitto-sync 2 remote \($0)\n" }, try String(contentsOfFile: formatPath, encoding: .utf8))
        try assertEveryOperationIsOnTheRemote(a.repo.device, upTo: 3)
        let again = await a.engine.syncOnce()
        XCTAssertFalse(again.refilled)
        XCTAssertEqual(again.pushed, 0)
    }
}
