import Foundation
import XCTest
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif
@testable import HabitSync
import SyncTestKit

/// The mode is a pure function of the settings and the last round's outcome; going offline
/// stops a round at once; every round ends, a hanging one as `unreachable`.
final class SyncModeTests: SyncTestCase {
    // MARK: The transition table

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let ok = RoundOutcome.synced(note: nil)
    static let down = RoundOutcome.unreachable("cannot reach the server", retryAfter: nil)
    static let refused = RoundOutcome.failed("authentication failed: check user and password")

    /// A state connected to a remote, after `outcomes` in order.
    func state(after outcomes: [RoundOutcome], offline: Bool = false, remote: String? = "dir:/r") -> SyncState {
        var s = SyncState()
        s.remote = remote
        s.offline = offline
        for (i, o) in outcomes.enumerated() { s.record(o, at: Self.now.addingTimeInterval(Double(i)), jitter: 0.5) }
        return s
    }

    func testTheModeFollowsTheLastRoundsOutcomeWhateverCameBefore() {
        // (outcomes in order, mode after, a retry time set?)
        let table: [([RoundOutcome], SyncStatus.Mode, Bool)] = [
            ([], .online, false),
            ([Self.ok], .online, false),
            ([Self.down], .unreachable, true),
            ([Self.refused], .failed, false),
            ([Self.refused, Self.down], .unreachable, true),
            ([Self.refused, Self.down, Self.ok], .online, false),
            ([Self.down, Self.refused], .failed, false),
            ([Self.down, Self.down, Self.refused, Self.down], .unreachable, true),
            ([Self.down, Self.ok], .online, false),
            ([Self.refused, Self.ok], .online, false),
            ([Self.ok, .synced(note: "device eeeeeeee has a bad batch")], .online, false),
        ]
        for (outcomes, mode, retry) in table {
            let s = state(after: outcomes)
            XCTAssertEqual(s.mode, mode, "after \(outcomes)")
            XCTAssertEqual(s.nextRetryAt != nil, retry, "retry time after \(outcomes)")
            XCTAssertEqual(s.failed, mode == .failed, "after \(outcomes)")
        }
        // The switch and the remote come first, whatever the rounds said.
        for outcomes in [[], [Self.ok], [Self.down], [Self.refused]] {
            XCTAssertEqual(state(after: outcomes, offline: true).mode, .offline)
            XCTAssertEqual(state(after: outcomes, remote: nil).mode, .local)
        }
    }

    func testBackoffGrowsWithUnreachableRoundsAndHonoursRetryAfter() {
        let s1 = state(after: [Self.down]), s3 = state(after: [Self.down, Self.down, Self.down])
        XCTAssertEqual(s1.attempts, 1)
        XCTAssertEqual(s3.attempts, 3)
        // jitter 0.5 of ceilings 2 s and 8 s, from each round's time.
        XCTAssertEqual(s1.nextRetryAt, Self.now.addingTimeInterval(1))
        XCTAssertEqual(s3.nextRetryAt, Self.now.addingTimeInterval(2 + 4))
        let slow = state(after: [.unreachable("the server asked to slow down (429)", retryAfter: 120)])
        XCTAssertEqual(slow.nextRetryAt, Self.now.addingTimeInterval(120))
        XCTAssertEqual(state(after: [Self.down, Self.down, Self.ok]).attempts, 0, "a success resets the backoff")
        XCTAssertEqual(state(after: [Self.down, Self.refused]).attempts, 0)
    }

    // MARK: The engine

    func testAuthenticationLikeFailureThenUnreachableIsUnreachableWithBackoffThenOnline() async throws {
        let (repo, engine) = try await device("a", faults: FaultPlan())
        let h = HabitID(value: 0xA1)
        try await checkIn(repo, h, create: true)
        // Permanent: the remote folder is gone.
        try FileManager.default.removeItem(atPath: root + "/remote")
        var report = await engine.syncOnce()
        XCTAssertTrue(report.error?.contains("does not exist") == true, report.error ?? "no error")
        var status = await engine.status()
        XCTAssertEqual(status.mode, .failed)
        XCTAssertNil(status.nextRetryAt)
        // Then it cannot be reached: unreachable with a retry time, not failed.
        try FileManager.default.createDirectory(atPath: root + "/remote", withIntermediateDirectories: true)
        let remote = try await engine.remote()
        let faulty = try XCTUnwrap(remote as? FaultyRemote)
        faulty.plan = FaultPlan(unreachable: true)
        report = await engine.syncOnce()
        XCTAssertTrue(report.error?.contains("unreachable") == true, report.error ?? "no error")
        status = await engine.status()
        XCTAssertEqual(status.mode, .unreachable)
        XCTAssertNotNil(status.nextRetryAt, "backoff")
        XCTAssertEqual(status.habitStatus(h), .pending, "not shown as failed")
        // And back: online, the queue drained.
        faulty.plan = FaultPlan()
        report = await engine.syncOnce()
        XCTAssertNil(report.error)
        status = await engine.status()
        XCTAssertEqual(status.mode, .online)
        XCTAssertEqual(status.pending, 0)
        XCTAssertNil(status.nextRetryAt)
        // Unreachable, then failed: failed, with no retry time left over.
        faulty.plan = FaultPlan(unreachable: true)
        await engine.syncOnce()
        faulty.plan = FaultPlan()
        try FileManager.default.removeItem(atPath: root + "/remote")
        await engine.syncOnce()
        status = await engine.status()
        XCTAssertEqual(status.mode, .failed)
        XCTAssertNil(status.nextRetryAt)
    }

    func testGoingOfflineWhileABatchIsInFlightSendsNothingMore() async throws {
        let clock = ManualClock(now: Self.now)
        let (repo, engine) = try await device("a", faults: FaultPlan(latency: 0.4), clock: clock)
        let h = HabitID(value: 0xA2)
        try await checkIn(repo, h, create: true)
        let round = Task { await engine.syncOnce() }
        // The first requests to a new remote: prepare, and the list of this device's batches.
        await clock.answer(2, latency: 0.4)
        await waitForStatus(engine, "a batch in flight") { $0.inFlight > 0 }
        // The batch's request waits out its latency.
        await clock.sleeping(2)
        try await engine.setOffline(true)
        var status = await engine.status()
        XCTAssertEqual(status.mode, .offline)
        XCTAssertEqual(status.inFlight, 0, "the bar shows nothing in flight once offline")
        let report = await ended(round, clock: clock)
        XCTAssertEqual(report.skipped, .offline)
        XCTAssertNil(report.error)
        XCTAssertEqual(report.pushed, 0)
        // The abandoned request was cancelled while it waited, before it reached the remote.
        XCTAssertEqual(clock.deadlines, [], "the request in flight and its deadline were cancelled")
        // A check-in made just after stays queued; rounds do nothing while offline.
        try await checkIn(repo, h)
        let skipped = await engine.syncOnce().skipped
        XCTAssertEqual(skipped, .offline)
        // Past the latency the abandoned request waited: still nothing on the remote.
        clock.advance(by: 1)
        XCTAssertEqual(remoteBatches(), [], "no batch was written after going offline")
        let faulty = try await faultyRemote(engine)
        XCTAssertEqual(faulty.writes, 0)
        XCTAssertEqual(faulty.calls, 3, "nothing was asked of the remote after the abandoned batch")
        status = await engine.status()
        XCTAssertEqual(status.pending, 3)
        XCTAssertEqual(status.mode, .offline, "a stopped round records no outcome")
        // Online again: the queue drains in one round.
        try await engine.setOffline(false)
        let back = await ended(Task { await engine.syncOnce() }, clock: clock, advancing: 0.4)
        XCTAssertNil(back.error)
        XCTAssertEqual(back.pushed, 3)
        XCTAssertEqual(remoteBatches().count, 1)
        let drained = await engine.status().pending
        XCTAssertEqual(drained, 0)
    }

    func testGoingOfflineInAnotherProcessStopsTheRoundBeforeItsNextRequest() async throws {
        let clock = ManualClock(now: Self.now)
        let (repo, engine) = try await device("a", faults: FaultPlan(latency: 0.3), clock: clock)
        let (other, otherEngine) = try await device("b", faults: nil)
        let h = HabitID(value: 0xA3), g = HabitID(value: 0xA4)
        try await checkIn(other, g, create: true)
        await otherEngine.syncOnce()
        try await checkIn(repo, h, create: true)
        let round = Task { await engine.syncOnce() }
        await clock.answer(2, latency: 0.3)
        await waitForStatus(engine, "a batch in flight") { $0.inFlight > 0 }
        await clock.sleeping(2)
        // `habitto offline on` in another process: only the file changes.
        let cli = try SyncEngine(repository: repo)
        try await cli.setOffline(true)
        // The request in flight gets its answer; the round then stops.
        clock.advance(by: 0.3)
        let report = await ended(round, clock: clock)
        XCTAssertEqual(report.skipped, .offline)
        XCTAssertEqual(report.pushed, 2, "the batch in flight finished")
        XCTAssertEqual(report.pulled, 0)
        let calls = try await faultyRemote(engine).calls
        XCTAssertEqual(calls, 3, "nothing was asked for after the batch")
        XCTAssertEqual(try SyncState.load(repo.paths).ackedSeq, 2, "its acknowledgement was kept")
        let mode = await engine.status().mode
        XCTAssertEqual(mode, .offline)
    }

    func testARoundThatHangsPastItsTimeoutEndsAsUnreachable() async throws {
        let clock = ManualClock(now: Self.now)
        let (repo, engine) = try await device("a", faults: FaultPlan(latency: 5), clock: clock)
        await engine.setCallTimeout(0.2)
        try await checkIn(repo, HabitID(value: 0xA5), create: true)
        let round = Task { await engine.syncOnce() }
        await clock.sleeping(2)
        // The deadline passes; the call's latency never does.
        clock.advance(by: 0.2)
        let report = await ended(round, clock: clock)
        XCTAssertEqual(report.error, "the remote did not answer within 1 s")
        let status = await engine.status()
        XCTAssertEqual(status.mode, .unreachable)
        XCTAssertNotNil(status.nextRetryAt)
        XCTAssertEqual(status.inFlight, 0)
        XCTAssertFalse(status.pulling)
    }

    func testTheLoopRunsTheRoundAskedForOnceAnotherProcessHasFinishedSyncing() async throws {
        let clock = ManualClock(now: Self.now)
        let (repo, engine) = try await device("a", faults: nil, clock: clock)
        try await checkIn(repo, HabitID(value: 0xA7), create: true)
        // Another process holds the sync lock when the loop's first round is due.
        let fd = open(root + "/a/sync.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        let loop = Task { await engine.run() }
        defer { loop.cancel() }
        // A round is due after the pause that gathers writes. Finding the lock held, the loop
        // asks for the round again: the same pause (the loop's only wait on the clock), not
        // a pull interval.
        for attempt in 1...3 {
            await clock.waiting([SyncScheduler.gatherWrites])
            let rounds = await engine.status().roundsEnded
            XCTAssertEqual(rounds, 0, "no round while the other process syncs (attempt \(attempt))")
            if attempt < 3 { clock.advance(by: SyncScheduler.gatherWrites) }
        }
        // The other process is done: the next attempt is the round.
        flock(fd, LOCK_UN)
        clock.advance(by: SyncScheduler.gatherWrites)
        await waitForStatus(engine, "the round ended") { $0.roundsEnded == 1 && $0.pending == 0 }
        let status = await engine.status()
        XCTAssertEqual(status.mode, .online)
    }

    func testAChangeDuringTheWaitForTheNextPullStartsTheWaitAfresh() async throws {
        let clock = ManualClock(now: Self.now)
        let (repo, engine) = try await device("a", faults: nil, clock: clock)
        let loop = Task { await engine.run() }
        defer { loop.cancel() }
        // The first round, when the loop starts, then a pull interval's wait.
        await clock.waiting([SyncScheduler.gatherWrites])
        clock.advance(by: SyncScheduler.gatherWrites)
        await clock.waiting([SyncScheduler.pullInterval])
        // A check-in part-way through the wait: its round, then a whole pull interval again.
        clock.advance(by: 10)
        try await checkIn(repo, HabitID(value: 0xA8), create: true)
        await engine.poke()
        await clock.waiting([SyncScheduler.gatherWrites])
        clock.advance(by: SyncScheduler.gatherWrites)
        await clock.waiting([SyncScheduler.pullInterval])
        let status = await engine.status()
        XCTAssertEqual(status.roundsEnded, 2)
        XCTAssertEqual(status.pending, 0)
    }

    func testPullingShowsAsActivityAndEndsWithTheRound() async throws {
        let (other, otherEngine) = try await device("b", faults: nil)
        try await checkIn(other, HabitID(value: 0xA6), create: true)
        await otherEngine.syncOnce()
        let clock = ManualClock(now: Self.now)
        let (_, engine) = try await device("a", faults: FaultPlan(latency: 0.2), clock: clock)
        let round = Task { await engine.syncOnce() }
        await clock.answer(2, latency: 0.2)
        await waitForStatus(engine, "pulling") { $0.pulling && $0.inFlight == 0 }
        let report = await ended(round, clock: clock, advancing: 0.2)
        XCTAssertEqual(report.pulled, 2)
        let status = await engine.status()
        XCTAssertFalse(status.pulling)
        XCTAssertEqual(status.history.last?.pulled, 2)
    }
}
