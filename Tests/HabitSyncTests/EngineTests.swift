import Foundation
import XCTest
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif
@testable import HabitSync
import SyncTestKit

private let engineTestStart = LocalDay("2026-11-01")!

/// The engine against hostile remotes and disagreeing clocks.
final class EngineTests: SyncTestCase {
    func write(_ bytes: [UInt8], to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Device folders with no batch (3,000 of them, as a hostile device can make) are read
    /// but not remembered; a device whose folder goes is forgotten; the status lists only
    /// devices with batches.
    func testEmptyDeviceFoldersAreNotRememberedAndAGoneDeviceIsForgotten() async throws {
        let (other, otherEngine) = try await device("other")
        let h = HabitID(value: 0xE7)
        try await other.commit { _, _ in [.create(h, HabitFields(name: "Tea", startDate: engineTestStart))] }
        await syncOK(otherEngine)
        for i in 0..<3_000 {
            let id = String(format: "%032x", 0xF000_0000 + i)
            try FileManager.default.createDirectory(atPath: root + "/remote/users/me/devices/\(id)/ops", withIntermediateDirectories: true)
        }
        let (me, engine) = try await device("me")
        for _ in 0..<2 { await syncOK(engine) }
        let listed = await engine.status().devices.map(\.id)
        XCTAssertEqual(listed, [other.device], "only the device with batches is listed")
        let saved = try SyncState.load(DataPaths(directory: root + "/me"))
        XCTAssertEqual(Array(saved.devicesSeen.keys), [other.device])
        let state = await me.state
        XCTAssertNotNil(state.habit(h), "the real device's operations arrived")

        try FileManager.default.removeItem(atPath: root + "/remote/users/me/devices/\(other.device.rawValue)")
        await syncOK(engine)
        let after = await engine.status().devices
        XCTAssertTrue(after.isEmpty, "a device no longer on the remote is forgotten: \(after)")
    }

    /// A data lock another process holds past its wait ends the round as a transient
    /// problem, retried with backoff, not as `failed`; the next round syncs.
    func testADataLockHeldElsewhereIsRetriedNotFailed() async throws {
        let (other, otherEngine) = try await device("other")
        let h = HabitID(value: 0xE8)
        try await other.commit { _, _ in [.create(h, HabitFields(name: "Tea", startDate: engineTestStart))] }
        await syncOK(otherEngine)
        let (me, engine) = try await device("me")
        let saved = Sys.lockWait
        Sys.lockWait = 0.2
        defer { Sys.lockWait = saved }
        let holder = open(root + "/me/lock", O_RDWR)
        XCTAssertGreaterThanOrEqual(holder, 0)
        XCTAssertEqual(flock(holder, LOCK_EX | LOCK_NB), 0, "the test holds the data lock")
        let report = await engine.syncOnce()
        XCTAssertTrue(report.error?.contains("has held the data lock") == true, report.error ?? "no error")
        let status = await engine.status()
        XCTAssertEqual(status.mode, .unreachable, "a held lock is retried")
        XCTAssertNotNil(status.nextRetryAt)
        close(holder)
        await syncOK(engine)
        let state = await me.state
        XCTAssertNotNil(state.habit(h))
    }

    func testABadBatchFromOneDeviceIsReportedAndTheOthersStillSync() async throws {
        let (good, goodEngine) = try await device("good")
        let h = HabitID(value: 0xE1)
        try await good.commit { _, _ in [.create(h, HabitFields(name: "Tea", startDate: engineTestStart))] }
        try await good.commit { _, _ in [.progress(h, engineTestStart, delta: 2)] }
        await syncOK(goodEngine)
        // A hostile device: garbage under a valid name, a name trying to escape, a huge file.
        let evil = DeviceID("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")!
        try write(Array("not a batch\u{1B}[2J".utf8), to: opsFolder(evil) + "/1-1.batch")
        try write([1, 2, 3], to: root + "/remote/users/me/devices/..%2f..%2fescape/ops/1-1.batch")
        let (me, engine) = try await device("me")
        let report = await engine.syncOnce()
        XCTAssertEqual(report.pulled, 2, "the good device's operations arrived")
        let state = await me.state
        XCTAssertEqual(state.progress(h, engineTestStart), 2)
        let error = try XCTUnwrap(report.error)
        XCTAssertTrue(error.contains("batch 1-1.batch of device eeeeeeee is invalid"), error)
        XCTAssertFalse(error.contains("\u{1B}"), "nothing from the remote reaches the terminal raw")
        let status = await engine.status()
        XCTAssertEqual(status.mode, .online, "one bad device does not fail the sync")
        XCTAssertEqual(status.lastError, error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/escape"))
    }

    func testEscapeSequencesInARemoteHabitNameAreRefusedHarmlessly() async throws {
        let evil = DeviceID("dddddddddddddddddddddddddddddddd")!
        // A well-formed batch (valid checksum) whose habit name carries a terminal escape.
        var w = ByteWriter()
        let op = HabitOperation(id: OpID(device: evil, seq: 1), hlc: HLC(wallMillis: 1_800_000_000_000, counter: 0),
                                change: .create(HabitID(value: 0xD1), HabitFields(name: "pwn\u{1B}]0;owned\u{7}", startDate: engineTestStart)))
        w.operation(op)
        let bytes = BatchFile.encode([op])
        try write(bytes, to: opsFolder(evil) + "/1-1.batch")
        let (me, engine) = try await device("me")
        let report = await engine.syncOnce()
        XCTAssertEqual(report.pulled, 0)
        let error = try XCTUnwrap(report.error)
        XCTAssertTrue(error.contains("control character"), error)
        XCTAssertFalse(error.contains("\u{1B}") || error.contains("\u{7}"))
        let state = await me.state
        XCTAssertTrue(state.habits.isEmpty)
    }

    /// A well-formed batch (valid checksum) of one device's operations, planted in the remote.
    func plant(_ device: DeviceID, _ changes: [Change], wallMillis: Int64 = 1_800_000_000_000) throws {
        let ops = changes.enumerated().map { i, c in
            HabitOperation(id: OpID(device: device, seq: UInt64(i + 1)),
                           hlc: HLC(wallMillis: wallMillis, counter: UInt32(i)), change: c)
        }
        try write(BatchFile.encode(ops), to: opsFolder(device) + "/1-\(ops.count).batch")
    }

    func testAmountsLocalInputRefusesAreRefusedFromARemoteAndTheDeviceReported() async throws {
        let h = HabitID(value: 0xA5)
        let create = Change.create(h, HabitFields(name: "Tea", startDate: engineTestStart))
        let huge = DeviceID("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1")!, trap = DeviceID("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2")!
        try plant(huge, [create, .progress(h, engineTestStart, delta: 5_000_000 * Amount.scale)])
        try plant(trap, [.progress(h, engineTestStart, delta: .min)])
        let (me, engine) = try await device("me")
        let report = await engine.syncOnce()
        let error = try XCTUnwrap(report.error)
        XCTAssertTrue(error.contains("aaaaaaaa"), error)
        let state = await me.state
        XCTAssertNil(state.habit(h), "the whole batch with +5,000,000 is refused")
        XCTAssertEqual(report.pulled, 0)
        let status = await engine.status()
        XCTAssertEqual(status.mode, .online, "bad devices are reported and skipped; sync goes on")
    }

    func testAnOversizedUncheckFromAnotherDeviceCannotHideLaterCheckIns() async throws {
        let (me, engine) = try await device("me")
        let h = HabitID(value: 0xA6)
        try await me.commit { _, _ in [.create(h, HabitFields(name: "Tea", startDate: engineTestStart))] }
        try await me.commit { _, _ in [.progress(h, engineTestStart, delta: 2)] }
        await syncOK(engine)
        // −50 from a device that has no share on the day, stamped after our check-in.
        let wiper = DeviceID("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1")!
        try plant(wiper, [.progress(h, engineTestStart, delta: -50)], wallMillis: Int64(Date().timeIntervalSince1970 * 1000) + 1)
        await syncOK(engine)
        var state = await me.state
        XCTAssertEqual(state.progress(h, engineTestStart), 0, "it took back the 2 it came after")
        try await me.commit { _, _ in [.progress(h, engineTestStart, delta: 1)] }
        state = await me.state
        XCTAssertEqual(state.progress(h, engineTestStart), 1, "a later check-in counts")
    }

    func testADeviceTwoDaysAheadLosesNobodysEditsAndTheSkewIsReported() async throws {
        let twoDays = 2.0 * 86_400
        let (ahead, aheadEngine) = try await device("ahead", now: { Date().addingTimeInterval(twoDays) })
        let h = HabitID(value: 0xF1)
        try await ahead.commit { _, _ in [.create(h, HabitFields(name: "Far", startDate: engineTestStart))] }
        try await ahead.commit { _, _ in [.progress(h, engineTestStart, delta: 1)] }
        await syncOK(aheadEngine)
        let (me, engine) = try await device("me")
        await syncOK(engine)
        // An edit made here after seeing the future one still wins: the clock is hybrid.
        try await me.commit { _, _ in [.set(h, .name("Near"))] }
        try await me.commit { _, _ in [.progress(h, engineTestStart, delta: 1)] }
        await syncOK(engine)
        await syncOK(aheadEngine)
        let mine = await me.state, theirs = await ahead.state
        XCTAssertEqual(mine.habit(h)?.name, "Near")
        XCTAssertEqual(theirs.habit(h)?.name, "Near")
        XCTAssertEqual(theirs.progress(h, engineTestStart), 2, "both check-ins count")
        let status = await engine.status()
        let skew = try XCTUnwrap(status.clockAhead.first { $0.id == ahead.device })
        XCTAssertEqual(skew.seconds, twoDays, accuracy: 120)
    }

    func testADeviceWhoseClockSaysTwoThousandOneLosesNothing() async throws {
        let (old, oldEngine) = try await device("y2k1", now: { Date(timeIntervalSince1970: 978_307_200) })
        let (me, engine) = try await device("me")
        let h = HabitID(value: 0xF2)
        try await me.commit { _, _ in [.create(h, HabitFields(name: "Stretch", startDate: engineTestStart))] }
        await syncOK(engine)
        await syncOK(oldEngine)
        // Its check-ins count, and its edit after seeing ours is newer than ours.
        try await old.commit { _, _ in [.progress(h, engineTestStart, delta: 3)] }
        try await old.commit { _, _ in [.set(h, .goal(5))] }
        await syncOK(oldEngine)
        await syncOK(engine)
        let state = await me.state
        XCTAssertEqual(state.progress(h, engineTestStart), 3)
        XCTAssertEqual(state.habit(h)?.goal, 5)
    }

    func testAMissingBatchIsReportedAndNothingAfterTheGapIsApplied() async throws {
        let (other, otherEngine) = try await device("other")
        let h = HabitID(value: 0xF3)
        try await other.commit { _, _ in [.create(h, HabitFields(name: "Gap", startDate: engineTestStart))] }
        await syncOK(otherEngine)
        try await other.commit { _, _ in [.progress(h, engineTestStart, delta: 1)] }
        await syncOK(otherEngine)
        try FileManager.default.removeItem(atPath: opsFolder(other.device) + "/1-1.batch")
        let (me, engine) = try await device("me")
        let report = await engine.syncOnce()
        XCTAssertTrue(report.error?.contains("has no batch with operation 1") == true, report.error ?? "")
        let state = await me.state
        XCTAssertNil(state.habit(h))
        XCTAssertEqual(state.seen[other.device], nil)
    }

    func testHostileEntriesAreListedOnceInTheStatusWhileTheOthersSync() async throws {
        let (good, goodEngine) = try await device("good")
        let h = HabitID(value: 0xE2)
        try await good.commit { _, _ in [.create(h, HabitFields(name: "Tea", startDate: engineTestStart))] }
        await syncOK(goodEngine)
        // Entries a pull cannot use: a FIFO, a folder and a link under batch names, 0-0.batch,
        // device folders whose names are not device ids (one with an escape sequence).
        let evil = DeviceID("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")!
        try FileManager.default.createDirectory(atPath: opsFolder(evil) + "/2-2.batch", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(opsFolder(evil) + "/1-1.batch", 0o600), 0)
        try write([1], to: opsFolder(evil) + "/0-0.batch")
        XCTAssertEqual(symlink("/etc/passwd", opsFolder(evil) + "/3-3.batch"), 0)
        let devices = root + "/remote/users/me/devices"
        try FileManager.default.createDirectory(atPath: devices + "/bad\u{1B}[31mname", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: devices + "/notes", withIntermediateDirectories: true)
        let (me, engine) = try await device("me")
        let first = await engine.syncOnce()
        XCTAssertNil(first.error, "skipped entries are not an error of the round")
        XCTAssertEqual(first.pulled, 1, "the good device's operations arrived")
        let hasHabit = await me.state.habit(h) != nil
        XCTAssertTrue(hasHabit)
        let expected = [
            "devices/bad\u{FFFD}[31mname: not a device id (32 lower-case hex digits)",
            "devices/notes: not a device id (32 lower-case hex digits)",
            "devices/eeeeeeee…/ops/0-0.batch: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "devices/eeeeeeee…/ops/1-1.batch: a FIFO (named pipe), not a batch file",
            "devices/eeeeeeee…/ops/2-2.batch: a folder, not a batch file",
            "devices/eeeeeeee…/ops/3-3.batch: a symbolic link, not a batch file (links are never followed)",
        ]
        XCTAssertEqual(first.remoteProblems, expected)
        XCTAssertEqual(first.newRemoteProblems, expected)
        var status = await engine.status()
        XCTAssertEqual(status.mode, .online)
        XCTAssertNil(status.lastError)
        XCTAssertEqual(status.remoteProblems, expected)
        // Later rounds keep the same list, once, and announce nothing new.
        let second = await engine.syncOnce()
        XCTAssertEqual(second.newRemoteProblems, [])
        XCTAssertNil(second.error)
        status = await engine.status()
        XCTAssertEqual(status.remoteProblems, expected)
        XCTAssertTrue(status.history.allSatisfy { $0.error == nil }, "the attempts are not flooded with them")
        // Once removed, they are gone from the status.
        try FileManager.default.removeItem(atPath: devices + "/notes")
        try FileManager.default.removeItem(atPath: opsFolder(evil) + "/0-0.batch")
        let third = await engine.syncOnce()
        XCTAssertEqual(third.remoteProblems, expected.filter { !$0.contains("notes") && !$0.contains("0-0.batch") })
        XCTAssertEqual(third.newRemoteProblems, [])
        for name in ["1-1.batch", "2-2.batch", "3-3.batch"] { try FileManager.default.removeItem(atPath: opsFolder(evil) + "/" + name) }
        try FileManager.default.removeItem(atPath: devices + "/bad\u{1B}[31mname")
        await syncOK(engine)
        status = await engine.status()
        XCTAssertEqual(status.remoteProblems, [])
        XCTAssertNil(try SyncState.load(me.paths).remoteProblems)
    }

    func testALinkPlantedInThePlaceOfThisDevicesFolderIsAPermanentFailureAndNothingIsWrittenThere() async throws {
        let (me, engine) = try await device("me")
        let h = HabitID(value: 0xE3)
        try await me.commit { _, _ in [.create(h, HabitFields(name: "Walk", startDate: engineTestStart))] }
        await syncOK(engine)
        let outside = root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for planted in [opsFolder(me.device), (opsFolder(me.device) as NSString).deletingLastPathComponent] {
            try FileManager.default.removeItem(atPath: planted)
            XCTAssertEqual(symlink(outside, planted), 0)
            try await me.commit { _, _ in [.progress(h, engineTestStart, delta: 1)] }
            let report = await engine.syncOnce()
            XCTAssertEqual(report.pushed, 0, "nothing is reported as pushed")
            let error = try XCTUnwrap(report.error)
            XCTAssertTrue(error.contains(planted + " is a symbolic link"), error)
            let status = await engine.status()
            XCTAssertEqual(status.mode, .failed, "a permanent failure: no retry until asked")
            XCTAssertGreaterThan(status.pending, 0, "the operations stay queued")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing was written through the link")
            // Put right, the queue goes out.
            try FileManager.default.removeItem(atPath: planted)
            await engine.retryNow()
            await syncOK(engine)
            let after = await engine.status()
            XCTAssertEqual(after.pending, 0)
            XCTAssertEqual(after.mode, .online)
        }
    }

    func testSettingsChangedDuringASyncRoundAreKept() async throws {
        let dir = root + "/race"
        let repo = try HabitRepository(directory: dir)
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let slow = try SyncEngine(repository: repo, clock: clock, faults: FaultPlan(latency: 0.3))
        try await slow.setRemote("dir:" + root + "/remote", account: "me")
        let h = HabitID(value: 0xF4)
        try await repo.commit { _, _ in [.create(h, HabitFields(name: "Race", startDate: engineTestStart))] }
        // A round sending its batch (after prepare and the list of this device's batches on a
        // new remote, each request waiting on the clock); meanwhile the user goes offline from
        // another process.
        let round = Task { await slow.syncOnce() }
        await clock.answer(2, latency: 0.3)
        await clock.sleeping(2)
        let other = try SyncEngine(repository: repo)
        try await other.setOffline(true)
        clock.advance(by: 0.3)
        let report = await ended(round, clock: clock)
        XCTAssertNil(report.error)
        XCTAssertEqual(report.skipped, .offline, "going offline stopped the round")
        XCTAssertEqual(report.pushed, 1, "after the batch in flight")
        XCTAssertEqual(try SyncState.load(repo.paths).offline, true, "the offline switch survived the round")
        XCTAssertEqual(try SyncState.load(repo.paths).ackedSeq, 1, "and so did the round's progress")
        // A remote changed mid-round: the round's progress is not written over the new remote.
        try await other.setOffline(false)
        try await repo.commit { _, _ in [.progress(h, engineTestStart, delta: 1)] }
        try FileManager.default.createDirectory(atPath: root + "/remote2", withIntermediateDirectories: true)
        let second = Task { await slow.syncOnce() }
        await clock.sleeping(2)
        try await other.setRemote("dir:" + root + "/remote2", account: "me")
        let report2 = await ended(second, clock: clock, advancing: 0.3)
        XCTAssertTrue(report2.error?.contains("the remote was changed while syncing") == true, report2.error ?? "no error")
        let saved = try SyncState.load(repo.paths)
        XCTAssertEqual(saved.remote, "dir:" + root + "/remote2")
        XCTAssertEqual(saved.ackedSeq, 0, "nothing is recorded as acked by the new remote")
    }

    func testAnInterruptedMigrationIsNotMarkedDoneAndResumesToAVerifiedPush() async throws {
        let dir = root + "/migrate"
        let repo = try HabitRepository(directory: dir)
        let h = HabitID(value: 0xF5)
        try await repo.commit { _, _ in [.create(h, HabitFields(name: "Old data", startDate: engineTestStart))] }
        for d in 0..<5 { try await repo.commit { _, _ in [.progress(h, engineTestStart.adding(d), delta: 1)] } }
        // Connecting while the remote does not answer: nothing is marked done.
        let broken = try SyncEngine(repository: repo, faults: FaultPlan(unreachable: true))
        try await broken.setRemote("dir:" + root + "/remote", account: "me")
        _ = await broken.syncOnce()
        var saved = try SyncState.load(repo.paths)
        XCTAssertNil(saved.migratedTo)
        XCTAssertEqual(saved.ackedSeq, 0)
        // The answer to the first batch is lost: written, but not known to be.
        let lossy = try SyncEngine(repository: repo, faults: FaultPlan(lostAckRate: 1))
        _ = await lossy.syncOnce()
        saved = try SyncState.load(repo.paths)
        XCTAssertNil(saved.migratedTo)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: opsFolder(repo.device)).filter { $0.hasSuffix(".batch") }, ["1-6.batch"])
        // Later, with the remote healthy, it resumes: the same batch is recognised, verified, done.
        let healthy = try SyncEngine(repository: repo)
        await syncOK(healthy)
        saved = try SyncState.load(repo.paths)
        XCTAssertEqual(saved.migratedTo, saved.target)
        XCTAssertEqual(saved.ackedSeq, 6)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: opsFolder(repo.device)).filter { $0.hasSuffix(".batch") }, ["1-6.batch"])
    }

    /// A folder remote that answers two rounds' writes of a batch and does not keep them (a
    /// write-back cache whose upload failed): the round that finds the loss sends it again,
    /// and when that is lost too, the verification says so and puts the cursor back, so the
    /// status counts what the remote lacks as waiting; the next round sends it, with what was
    /// checked in since, and another device gets every operation. No repair is run.
    func testWritesTheRemoteAnsweredAndDidNotKeepWaitInTheStatusAndTheNextRoundSendsThem() async throws {
        let a = try await faultyDevice("a"), b = try await device("b")
        let h = HabitID(value: 0xD5), me = a.repo.device
        try await checkIn(a.repo, h)
        await syncOK(a.engine)
        let lost = LostWrites(a.remote, device: me, ops: opsFolder(me), count: 2)
        try await checkIn(a.repo, h)
        await syncOK(a.engine)
        var st = await a.engine.status()
        XCTAssertEqual(st.pending, 0, "answered: the device cannot know yet")
        let second = await a.engine.syncOnce()
        XCTAssertEqual(second.error, "verification failed: the remote lacks this device's operations from 3, which it had acknowledged; they wait to be sent again: run 'habitto sync' again")
        XCTAssertEqual(lost.lost.map(\.description), ["3-3.batch", "3-3.batch"], "sent again once the loss was seen, and lost again")
        st = await a.engine.status()
        XCTAssertEqual(st.pending, 1, "what the remote lacks waits")
        XCTAssertEqual(st.pendingHabits, [h])
        XCTAssertEqual(st.mode, .failed)
        XCTAssertEqual(try SyncState.load(a.repo.paths).ackedSeq, 2)

        try await checkIn(a.repo, h)
        await syncOK(a.engine)
        st = await a.engine.status()
        XCTAssertEqual(st.pending, 0)
        XCTAssertEqual(st.mode, .online)
        let held = try files(me)
        XCTAssertEqual(held.contiguousEnd(), 4, "\(held)")
        let saved = try SyncState.load(a.repo.paths)
        XCTAssertEqual(saved.migratedTo, saved.target, "verified again")
        XCTAssertEqual(saved.ackedSeq, 4)
        await syncOK(b.engine)
        let seen = await b.repo.state.seen[me]
        XCTAssertEqual(seen, 4, "every operation of a")
        let got = await progress(b.repo, h)
        XCTAssertEqual(got, 3)
    }
}
