import Foundation
import XCTest
import HabitCore
@testable import HabitSync

/// What a round will do, decided by pure plans from what it knows: tables, with no remote,
/// no clock and no files.
final class SyncPlanTests: XCTestCase {
    func b(_ first: UInt64, _ last: UInt64) -> BatchName { BatchName(first: first, last: last)! }

    // MARK: Push

    func testThePushLimitIsTheRemotesOrWhatItWasLearntToTake() {
        // (remote's most, learnt, limit, learnt to remember)
        let table: [(Int, Int?, Int, Int?)] = [
            (1000, nil, 1000, nil),
            (5000, nil, 5000, nil),
            (5000, 625, 625, 625),
            (1000, 4000, 1000, nil),
            (1000, 0, 1, 1),
        ]
        for (most, learnt, limit, remembered) in table {
            let plan = PushPlan(remoteMost: most, learnt: learnt)
            XCTAssertEqual(plan.limit, limit, "remote \(most), learnt \(String(describing: learnt))")
            XCTAssertEqual(plan.learnt, remembered, "remote \(most), learnt \(String(describing: learnt))")
        }
    }

    func testASizeRefusalHalvesTheBatchDownToOneOperationAndThenStands() {
        var plan = PushPlan(remoteMost: 5000, learnt: nil)
        var limits: [Int] = []
        var count = 1300
        while plan.refused(count: count) {
            limits.append(plan.limit)
            count = plan.limit
        }
        XCTAssertEqual(limits, [650, 325, 162, 81, 40, 20, 10, 5, 2, 1])
        XCTAssertEqual(plan.limit, 1)
        XCTAssertEqual(plan.learnt, 1, "the smaller size is remembered for this remote")
        XCTAssertFalse(plan.refused(count: 1), "one operation refused for its size is an error, not halved")
    }

    func testABatchIsNamedForTheRangeItSends() {
        let device = DeviceID(hi: 1, lo: 2)
        func op(_ seq: UInt64) -> HabitOperation {
            HabitOperation(id: OpID(device: device, seq: seq), hlc: HLC(wallMillis: 1, counter: 0),
                           change: .progress(HabitID(value: 1), LocalDay("2026-11-01")!, delta: 1))
        }
        XCTAssertNil(PushPlan.batch([]))
        XCTAssertEqual(PushPlan.batch([op(7)]), b(7, 7))
        XCTAssertEqual(PushPlan.batch((3...9).map(op)), b(3, 9))
    }

    func testOwnListingShortOfTheCursorMeansTheRemoteLostWhatItAcknowledged() {
        // (this device's batches listed, acked cursor, start)
        let table: [([BatchName], UInt64, PushPlan.Start)] = [
            ([b(1, 4), b(5, 9)], 9, .fromCursor),
            ([b(1, 16)], 9, .fromCursor),
            ([b(1, 4), b(1, 8)], 8, .fromCursor),
            ([b(1, 4)], 9, .sendAllAgain),
            ([], 3, .sendAllAgain),
            ([b(1, 4), b(6, 9)], 9, .sendAllAgain),
            ([b(2, 9)], 9, .sendAllAgain),
        ]
        for (listed, acked, start) in table {
            XCTAssertEqual(PushPlan.start(listed: listed, acked: acked), start, "\(listed), acked \(acked)")
        }
    }

    func testBeforeAFirstPushWhatTheRemoteHoldsWithinTheJournalCountsAsSent() {
        // (listed, operations written, cursor after)
        let table: [([BatchName], UInt64, UInt64)] = [
            ([], 10, 0),
            ([b(1, 4), b(5, 8)], 10, 8),
            ([b(1, 4), b(6, 8)], 10, 4),
            ([b(1, 4), b(5, 12)], 10, 4),
            ([b(1, 12)], 10, 0),
            ([b(1, 4), b(1, 8)], 8, 8),
            // What the remote lacks is sent again, whatever it acknowledged before: a server
            // that answered 201 to the PUT of 4-4 and did not keep it.
            ([b(1, 3)], 4, 3),
            ([b(3, 6)], 10, 0),
        ]
        for (listed, written, after) in table {
            XCTAssertEqual(PushPlan.alreadyHeld(listed: listed, written: written), after, "\(listed), \(written) written")
        }
    }

    func testAReadBackShortOfTheCursorPutsTheCursorBackSoWhatWasLostWaits() {
        // (operations read back from 1 with no gap, acked cursor, verification)
        let table: [(UInt64, UInt64, PushPlan.Verification)] = [
            (0, 0, .verified),
            (9, 9, .verified),
            (12, 9, .verified),
            (3, 4, .lacks(cursor: 3)),
            (0, 4, .lacks(cursor: 0)),
        ]
        for (readBack, acked, verification) in table {
            XCTAssertEqual(PushPlan.verification(readBack: readBack, acked: acked), verification, "read back \(readBack), acked \(acked)")
        }
    }

    // MARK: Compaction

    /// Runs a plan to its end with every step carried out.
    func compacted(_ listed: [BatchName], acked: UInt64, largest: UInt64 = CompactionPlan.largest) -> (steps: [CompactionPlan.Step], left: [BatchName]) {
        var plan = CompactionPlan(listed: listed, acked: acked, largest: largest)
        var steps: [CompactionPlan.Step] = []
        while let step = plan.next() {
            steps.append(step)
            plan.merged(step)
        }
        return (steps, plan.files.sorted())
    }

    func testBatchesMergeIntoAlignedLevelsLikeABinaryCounter() {
        let ones = (1...7).map { b($0, $0) }
        // (listed, acked, steps as (range, replaced), left)
        let table: [([BatchName], UInt64, [(BatchName, [BatchName])], [BatchName])] = [
            ([b(1, 1), b(2, 2), b(3, 3)], 3, [], [b(1, 1), b(2, 2), b(3, 3)]),
            ((1...4).map { b($0, $0) }, 4, [(b(1, 4), (1...4).map { b($0, $0) })], [b(1, 4)]),
            (ones, 7, [(b(1, 4), Array(ones.prefix(4)))], [b(1, 4), b(5, 5), b(6, 6), b(7, 7)]),
            ([b(1, 4), b(5, 8)], 8, [(b(1, 8), [b(1, 4), b(5, 8)])], [b(1, 8)]),
            ([b(1, 8), b(9, 12), b(13, 16)], 16, [(b(1, 16), [b(1, 8), b(9, 12), b(13, 16)])], [b(1, 16)]),
            // Straddling a range's end: not inside any range, so left alone.
            ([b(1, 3), b(4, 6)], 6, [], [b(1, 3), b(4, 6)]),
            // Beyond the acked cursor: never touched.
            ([b(1, 2), b(3, 4), b(5, 6)], 4, [(b(1, 4), [b(1, 2), b(3, 4)])], [b(1, 4)]),
        ]
        for (listed, acked, steps, left) in table {
            let (done, after) = compacted(listed, acked: acked)
            XCTAssertEqual(done.map(\.range), steps.map(\.0), "\(listed), acked \(acked)")
            XCTAssertEqual(done.map(\.replaces), steps.map(\.1), "\(listed), acked \(acked)")
            XCTAssertEqual(after, left, "\(listed), acked \(acked)")
        }
    }

    func testNoRangeIsLargerThanTheLargestCompaction() {
        let listed = (0..<8).map { b($0 * 2 + 1, $0 * 2 + 2) }
        XCTAssertEqual(compacted(listed, acked: 16, largest: 8).left, [b(1, 8), b(9, 16)])
        XCTAssertEqual(compacted(listed, acked: 16, largest: 16).left, [b(1, 16)])
        XCTAssertEqual(compacted(listed, acked: 16, largest: 3).left, listed, "no level fits: nothing is merged")
    }

    func testOverlapsAStoppedCompactionLeftAreMergedAway() {
        // Stopped after writing 1-8 and before removing what it holds.
        let (steps, left) = compacted([b(1, 4), b(5, 8), b(1, 8)], acked: 8)
        XCTAssertEqual(steps, [CompactionPlan.Step(range: b(1, 8), replaces: [b(1, 4), b(5, 8)])])
        XCTAssertEqual(left, [b(1, 8)])
        // A file that holds another one whole, outside any level's range.
        let odd = compacted([b(1, 6), b(2, 3)], acked: 6)
        XCTAssertEqual(odd.steps, [CompactionPlan.Step(range: b(1, 6), replaces: [b(2, 3)])])
        XCTAssertEqual(odd.left, [b(1, 6)])
        // Two identical leftovers of one range: one write replaces the rest.
        XCTAssertEqual(compacted([b(1, 4), b(1, 2), b(3, 4)], acked: 4).left, [b(1, 4)])
    }

    func testMoreThanTwelveFilesHaveTheirNewestMergedIntoOne() {
        // Fifteen files of three operations, whose level merges are all passed over (each too
        // large for a reader, say): the last step merges the newest four into one.
        let listed = (0..<15).map { b($0 * 3 + 1, $0 * 3 + 3) }
        var plan = CompactionPlan(listed: listed, acked: 45, largest: CompactionPlan.largest)
        var last: CompactionPlan.Step?
        while let step = plan.next() { last = step }
        XCTAssertEqual(last, CompactionPlan.Step(range: b(34, 45), replaces: Array(listed.suffix(4))))
        XCTAssertEqual(plan.files.count, 15, "a step passed over changes nothing")
        // (files, acked, largest, the cap)
        let table: [([BatchName], UInt64, UInt64, BatchName?)] = [
            (Array(listed.prefix(12)), 36, 1000, nil),
            (Array(listed.prefix(13)), 39, 1000, b(34, 39)),
            (listed, 45, 12, b(34, 45)),
            (listed, 45, 11, nil),
        ]
        for (files, acked, largest, cap) in table {
            XCTAssertEqual(CompactionPlan.capping(files: Set(files), acked: acked, largest: largest), cap,
                           "\(files.count) files, acked \(acked), largest \(largest)")
        }
        // Carried out, the levels leave no more than twelve.
        let ones = (1...45).map { b($0, $0) }
        XCTAssertLessThanOrEqual(compacted(ones, acked: 45).left.count, CompactionPlan.mostFiles)
    }

    func testAPlanThatStopsMidwayLeavesTheFilesItDidNotMerge() {
        var plan = CompactionPlan(listed: (1...8).map { b($0, $0) }, acked: 8, largest: CompactionPlan.largest)
        let first = plan.next()
        XCTAssertEqual(first?.range, b(1, 8), "the largest level first")
        XCTAssertEqual(plan.files.count, 8, "a step not reported changes nothing")
    }

    // MARK: Pull

    func testThePullReadsTheBatchThatReachesFurthestFromTheNextOperation() {
        // (listed, seen, next)
        let table: [([BatchName], UInt64, PullPlan.Step)] = [
            ([], 0, .done),
            ([b(1, 4)], 0, .read(b(1, 4))),
            ([b(1, 4), b(1, 16), b(5, 8)], 0, .read(b(1, 16))),
            ([b(1, 4), b(5, 8)], 4, .read(b(5, 8))),
            ([b(1, 4), b(3, 10)], 4, .read(b(3, 10))),
            ([b(1, 4), b(5, 8)], 8, .done),
            // A listing that went backwards (ends before what this device has): nothing to do.
            ([b(1, 4)], 9, .done),
            ([b(1, 4), b(7, 9)], 4, .gap(next: b(7, 9))),
            ([b(2, 9)], 0, .gap(next: b(2, 9))),
        ]
        for (listed, seen, next) in table {
            XCTAssertEqual(PullPlan(listed: listed, seen: seen).next, next, "\(listed), seen \(seen)")
        }
    }

    func testAPullOfACompactedDeviceReadsEachOperationOnce() {
        var plan = PullPlan(listed: [b(13, 14), b(1, 8), b(9, 12), b(1, 4)], seen: 2)
        var read: [BatchName] = []
        while case .read(let batch) = plan.next {
            read.append(batch)
            plan.read(batch)
        }
        XCTAssertEqual(read, [b(1, 8), b(9, 12), b(13, 14)])
        XCTAssertEqual(plan.next, .done)
        XCTAssertEqual(plan.seen, 14)
    }

    func testARefusedBatchHidesNoneOfTheDevicesOtherBatches() {
        // A squatted 3-1002 reaches furthest; refused, the real batches from 3 on still apply.
        var plan = PullPlan(listed: [b(1, 2), b(3, 1002), b(3, 4), b(5, 6)], seen: 2)
        var read: [BatchName] = []
        while case .read(let batch) = plan.next {
            if batch == b(3, 1002) { plan.refuse(batch); continue }
            read.append(batch)
            plan.read(batch)
        }
        XCTAssertEqual(read, [b(3, 4), b(5, 6)])
        XCTAssertEqual(plan.next, .done)
        XCTAssertEqual(plan.seen, 6)
        // A refused batch that held the only copy of an operation: a gap, not a skip.
        var gap = PullPlan(listed: [b(1, 2), b(3, 4), b(5, 6)], seen: 2)
        gap.refuse(b(3, 4))
        XCTAssertEqual(gap.next, .gap(next: b(5, 6)))
    }

    func testAMissingBatchMeansListingTheDeviceAgainOnceARound() {
        var plan = PullPlan(listed: [b(1, 4), b(5, 8)], seen: 4)
        XCTAssertEqual(plan.next, .read(b(5, 8)))
        XCTAssertTrue(plan.missing(), "gone since it was listed: list again")
        plan.relist([b(1, 12)])
        XCTAssertEqual(plan.next, .read(b(1, 12)), "the batch that covers it now")
        XCTAssertFalse(plan.missing(), "missing again in the same round: reported")
    }

    func testTheClockAheadAndTheDevicesKept() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertNil(PullPlan.clockAhead(newestMillis: 1_800_000_060_000, now: now), "a minute is not ahead")
        XCTAssertEqual(PullPlan.clockAhead(newestMillis: 1_800_000_061_000, now: now), 61)
        XCTAssertNil(PullPlan.clockAhead(newestMillis: 1_700_000_000_000, now: now))
        let ids = (1...5).map { DeviceID(hi: 0, lo: UInt64($0)) }
        XCTAssertEqual(PullPlan.kept(Set(ids), known: [], most: 5).left, 0)
        let (kept, left) = PullPlan.kept(Set(ids), known: [ids[4]], most: 3)
        XCTAssertEqual(kept, [ids[4], ids[0], ids[1]], "devices this one has operations of first, then by id")
        XCTAssertEqual(left, 2)
    }

    // MARK: Acknowledgement, negotiation, schedule

    func testWhatCountsAsAnAcknowledgementIsDecidedByWhatABatchHolds() throws {
        let device = DeviceID(hi: 7, lo: 7)
        let ops = (1...3).map {
            HabitOperation(id: OpID(device: device, seq: $0), hlc: HLC(wallMillis: Int64($0), counter: 0),
                           change: .progress(HabitID(value: 1), LocalDay("2026-11-01")!, delta: 1))
        }
        let bytes = BatchFile.encode(ops), name = b(1, 3)
        XCTAssertTrue(BatchAck.acknowledges(bytes, bytes, device: device, name: name))
        var changed = bytes
        changed[changed.count / 2] ^= 1
        XCTAssertFalse(BatchAck.acknowledges(changed, bytes, device: device, name: name), "damaged")
        XCTAssertFalse(BatchAck.acknowledges(Array(bytes.dropLast()), bytes, device: device, name: name), "cut short")
        XCTAssertFalse(BatchAck.acknowledges([], bytes, device: device, name: name))
        let other = BatchFile.encode(ops.map { HabitOperation(id: $0.id, hlc: HLC(wallMillis: 9, counter: 0), change: $0.change) })
        XCTAssertFalse(BatchAck.acknowledges(other, bytes, device: device, name: name), "other operations under the same name")
    }

    func testEncryptionMustAgreeBeforeAnythingIsWritten() {
        let a = "age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq"
        let c = "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj"
        // (the remote's recipient, this device's, refused saying)
        let table: [(String?, String?, String?)] = [
            (nil, nil, nil),
            (a, a, nil),
            (nil, a, "this remote is not encrypted, and this device is set to encrypt"),
            (a, nil, "this remote is encrypted: join with --key FILE"),
            (a, c, "wrong key: this remote is encrypted for age1qyqszqgp…3290gq"),
        ]
        for (remote, key, refusal) in table {
            do {
                try Negotiation.encryption(remote: remote, key: key, spec: "dir:/r")
                XCTAssertNil(refusal, "\(String(describing: remote)) / \(String(describing: key)) was accepted")
            } catch let e as RemoteError {
                XCTAssertEqual(e.kind, .permanent)
                XCTAssertTrue(e.message.contains(refusal ?? "(accepted)"), e.message)
            } catch {
                XCTFail("\(error)")
            }
        }
        // A remote whose format names no recipient (`age`, with a keycheck): any key goes on
        // to the keycheck; no key is refused.
        XCTAssertNoThrow(try Negotiation.encryption(remote: nil, keychecked: true, key: c, spec: "dir:/r"))
        XCTAssertThrowsError(try Negotiation.encryption(remote: nil, keychecked: true, key: nil, spec: "dir:/r")) {
            XCTAssertTrue(($0 as? RemoteError)?.message.hasPrefix("this remote is encrypted: join with --key FILE") == true, "\($0)")
        }
    }

    func testAnotherIdentityInTheFormatMeansTheRemoteWasMadeAgain() {
        let one = RemoteFormat(version: 2, id: String(repeating: "a", count: 32))
        let two = RemoteFormat(version: 2, id: String(repeating: "b", count: 32))
        XCTAssertEqual(Negotiation.identity(nil, recorded: one.id), .unchanged, "not read this round")
        XCTAssertEqual(Negotiation.identity(one, recorded: one.id), .unchanged)
        XCTAssertEqual(Negotiation.identity(one, recorded: nil), .first(one))
        XCTAssertEqual(Negotiation.identity(two, recorded: one.id), .changed(two))
        XCTAssertEqual(Negotiation.identity(RemoteFormat(version: 1, id: nil), recorded: one.id), .unchanged)
    }

    func testTheSchedulerRunsRoundsOnlyWhenTheyCanDoSomething() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let soon = now.addingTimeInterval(5), past = now.addingTimeInterval(-5)
        typealias F = SyncScheduler.Facts
        // (facts, poked, runs)
        let table: [(F, Bool, Bool)] = [
            (F(remote: true, offline: false, failed: false, nextRetryAt: nil), false, true),
            (F(remote: false, offline: false, failed: false, nextRetryAt: nil), true, false),
            (F(remote: true, offline: true, failed: false, nextRetryAt: nil), true, false),
            (F(remote: true, offline: false, failed: true, nextRetryAt: nil), false, false),
            (F(remote: true, offline: false, failed: true, nextRetryAt: nil), true, true),
            (F(remote: true, offline: false, failed: false, nextRetryAt: soon), false, false),
            (F(remote: true, offline: false, failed: false, nextRetryAt: soon), true, true),
            (F(remote: true, offline: false, failed: false, nextRetryAt: past), false, true),
        ]
        for (facts, poked, runs) in table {
            XCTAssertEqual(SyncScheduler.runs(facts, poked: poked, now: now), runs, "\(facts), poked \(poked)")
        }
        let quiet = F(remote: true, offline: false, failed: false, nextRetryAt: nil)
        XCTAssertEqual(SyncScheduler.wait(quiet, now: now, pullEvery: 30), 30)
        XCTAssertEqual(SyncScheduler.wait(F(remote: true, offline: false, failed: false, nextRetryAt: soon), now: now, pullEvery: 30), 5)
        XCTAssertEqual(SyncScheduler.wait(F(remote: true, offline: false, failed: false, nextRetryAt: past), now: now, pullEvery: 30), 0)
    }

    // MARK: Honest remotes

    func testEachDevicesHighestClaimIsKeptButNoneAboutThisDeviceOrTheWriter() {
        let me = DeviceID(hi: 0, lo: 1), a = DeviceID(hi: 0, lo: 2), b = DeviceID(hi: 0, lo: 3), c = DeviceID(hi: 0, lo: 4)
        typealias C = PullPlan.Claim
        // (claims before, seen vector, writer, claims after)
        let table: [([DeviceID: C], [DeviceID: UInt64], DeviceID, [DeviceID: C])] = [
            ([:], [a: 5], b, [a: C(seq: 5, by: b)]),
            ([a: C(seq: 9, by: c)], [a: 5], b, [a: C(seq: 9, by: c)]),
            ([a: C(seq: 9, by: c)], [a: 9], b, [a: C(seq: 9, by: c)]),
            ([a: C(seq: 4, by: c)], [a: 5, c: 2], b, [a: C(seq: 5, by: b), c: C(seq: 2, by: b)]),
            ([:], [me: 40], b, [:]),
            ([:], [b: 40], b, [:]),
        ]
        for (before, seen, writer, after) in table {
            XCTAssertEqual(PullPlan.noting(seen, by: writer, me: me, into: before), after, "\(before) + \(seen) by \(writer)")
        }
    }

    func testAListingThatEndsBeforeWhatAnotherDeviceSawIsReportedInOneLine() {
        let x = DeviceID("3f2a0000000000000000000000000000")!, y = DeviceID("9b1c0000000000000000000000000000")!
        let me = DeviceID("11110000000000000000000000000000")!
        // (listing of a, claim, line)
        let table: [([BatchName], PullPlan.Claim?, String?)] = [
            ([b(1, 120)], PullPlan.Claim(seq: 140, by: y),
             "the remote holds device 3f2a0000 up to 120; device 9b1c0000 saw it up to 140 (operations 121-140 are withheld or lost)"),
            ([b(1, 120)], PullPlan.Claim(seq: 121, by: y),
             "the remote holds device 3f2a0000 up to 120; device 9b1c0000 saw it up to 121 (operation 121 is withheld or lost)"),
            ([], PullPlan.Claim(seq: 3, by: y),
             "the remote holds nothing of device 3f2a0000; device 9b1c0000 saw it up to 3 (operations 1-3 are withheld or lost)"),
            ([b(1, 60), b(100, 140)], PullPlan.Claim(seq: 140, by: y),
             "the remote holds device 3f2a0000 up to 60; device 9b1c0000 saw it up to 140 (operations 61-140 are withheld or lost)"),
            ([b(1, 120), b(1, 140)], PullPlan.Claim(seq: 140, by: y), nil),
            ([b(1, 150)], PullPlan.Claim(seq: 140, by: y), nil),
            ([b(1, 120)], nil, nil),
            ([b(1, 120)], PullPlan.Claim(seq: 130, by: me),
             "the remote holds device 3f2a0000 up to 120; this device holds it up to 130 (operations 121-130 are withheld or lost)"),
        ]
        for (listed, claim, line) in table {
            XCTAssertEqual(PullPlan.shortfall(of: x, listed: listed, claim: claim, me: me), line, "\(listed), \(String(describing: claim))")
        }
    }

    func testARefillFillsEveryHoleUpToWhatThisDeviceHoldsAndNeverOverlapsAListedBatch() {
        // (listed, held, most, refill)
        let table: [([BatchName], UInt64, Int, [BatchName])] = [
            ([b(1, 120)], 140, 1000, [b(121, 140)]),
            ([b(1, 120)], 120, 1000, []),
            ([b(1, 120)], 100, 1000, []),
            ([], 5, 1000, [b(1, 5)]),
            ([], 0, 1000, []),
            ([], 10, 4, [b(1, 4), b(5, 8), b(9, 10)]),
            ([b(1, 4), b(9, 12)], 14, 1000, [b(5, 8), b(13, 14)]),
            ([b(3, 4)], 6, 1000, [b(1, 2), b(5, 6)]),
            ([b(1, 8), b(1, 4), b(5, 12)], 12, 1000, []),
            ([b(5, 20)], 10, 1000, [b(1, 4)]),
            ([b(1, 2), b(4, 4)], 3, 1, [b(3, 3)]),
        ]
        for (listed, held, most, refill) in table {
            XCTAssertEqual(PullPlan.refill(listed: listed, held: held, most: most), refill, "\(listed), held \(held), most \(most)")
        }
    }
}
