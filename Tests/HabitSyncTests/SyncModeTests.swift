import Foundation
import XCTest
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif
@testable import HabitSync

private let modeTestStart = LocalDay("2026-11-01")!

/// The mode is a pure function of the settings and the last round's outcome; going offline
/// stops a round at once; every round ends, a hanging one as `unreachable`.
final class SyncModeTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "habitto-mode-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/remote", withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

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

    func device(_ name: String, faults: FaultPlan? = FaultPlan()) async throws -> (HabitRepository, SyncEngine) {
        let repo = try HabitRepository(directory: root + "/" + name)
        let engine = try SyncEngine(repository: repo, faults: faults)
        try await engine.setRemote("dir:" + root + "/remote", account: "me")
        return (repo, engine)
    }

    /// Batch files on the remote, all devices.
    func remoteBatches() -> [String] {
        let devices = root + "/remote/users/me/devices"
        return ((try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []).flatMap { d in
            ((try? FileManager.default.contentsOfDirectory(atPath: devices + "/" + d + "/ops")) ?? [])
                .filter { $0.hasSuffix(".batch") }.map { d.prefix(8) + "/" + $0 }
        }.sorted()
    }

    func checkIn(_ repo: HabitRepository, _ h: HabitID, create: Bool = false) async throws {
        try await repo.commit { _, _ in
            (create ? [.create(h, HabitFields(name: "Water", startDate: modeTestStart))] : []) + [.progress(h, modeTestStart, delta: 1)]
        }
    }

    /// Waits for a status update that satisfies `condition` (from the engine's own stream).
    func waitForStatus(_ engine: SyncEngine, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                       _ condition: @escaping @Sendable (SyncStatus) -> Bool) async {
        let stream = await engine.updates()
        let found = Task { () -> Bool in
            for await s in stream where condition(s) { return true }
            return false
        }
        let timeout = Task { try await Task.sleep(nanoseconds: 10_000_000_000); found.cancel() }
        let ok = await found.value
        timeout.cancel()
        XCTAssertTrue(ok, "no status update showed \(what)", file: file, line: line)
    }

    func testAuthenticationLikeFailureThenUnreachableIsUnreachableWithBackoffThenOnline() async throws {
        let (repo, engine) = try await device("a")
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
        XCTAssertEqual(status.habitStatus(h), "pending", "not shown as failed")
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
        let (repo, engine) = try await device("a", faults: FaultPlan(latency: 0.4))
        let h = HabitID(value: 0xA2)
        try await checkIn(repo, h, create: true)
        let round = Task { await engine.syncOnce() }
        await waitForStatus(engine, "a batch in flight") { $0.inFlight > 0 }
        try await engine.setOffline(true)
        var status = await engine.status()
        XCTAssertEqual(status.mode, .offline)
        XCTAssertEqual(status.inFlight, 0, "the bar shows nothing in flight once offline")
        let report = await round.value
        XCTAssertEqual(report.skipped, "offline")
        XCTAssertNil(report.error)
        XCTAssertEqual(report.pushed, 0)
        // A check-in made just after stays queued; rounds do nothing while offline.
        try await checkIn(repo, h)
        let skipped = await engine.syncOnce().skipped
        XCTAssertEqual(skipped, "offline")
        // Longer than the latency the abandoned call waited: still nothing on the remote.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        XCTAssertEqual(remoteBatches(), [], "no batch was written after going offline")
        let remote = try await engine.remote()
        let faulty = try XCTUnwrap(remote as? FaultyRemote)
        XCTAssertEqual(faulty.writes, 0)
        status = await engine.status()
        XCTAssertEqual(status.pending, 3)
        XCTAssertEqual(status.mode, .offline, "a stopped round records no outcome")
        // Online again: the queue drains in one round.
        try await engine.setOffline(false)
        let back = await engine.syncOnce()
        XCTAssertNil(back.error)
        XCTAssertEqual(back.pushed, 3)
        XCTAssertEqual(remoteBatches().count, 1)
        let drained = await engine.status().pending
        XCTAssertEqual(drained, 0)
    }

    func testGoingOfflineInAnotherProcessStopsTheRoundBeforeItsNextRequest() async throws {
        let (repo, engine) = try await device("a", faults: FaultPlan(latency: 0.3))
        let (other, otherEngine) = try await device("b", faults: nil)
        let h = HabitID(value: 0xA3), g = HabitID(value: 0xA4)
        try await checkIn(other, g, create: true)
        await otherEngine.syncOnce()
        try await checkIn(repo, h, create: true)
        let round = Task { await engine.syncOnce() }
        await waitForStatus(engine, "a batch in flight") { $0.inFlight > 0 }
        // `habitto offline on` in another process: only the file changes.
        let cli = try SyncEngine(repository: repo)
        try await cli.setOffline(true)
        let report = await round.value
        XCTAssertEqual(report.skipped, "offline")
        XCTAssertEqual(report.pushed, 2, "the batch in flight finished")
        XCTAssertEqual(report.pulled, 0, "and nothing was asked for after it")
        XCTAssertEqual(try SyncState.load(repo.paths).ackedSeq, 2, "its acknowledgement was kept")
        let mode = await engine.status().mode
        XCTAssertEqual(mode, .offline)
    }

    func testARoundThatHangsPastItsTimeoutEndsAsUnreachable() async throws {
        let (repo, engine) = try await device("a", faults: FaultPlan(latency: 5))
        await engine.setCallTimeout(0.2)
        try await checkIn(repo, HabitID(value: 0xA5), create: true)
        let started = Date()
        let report = await engine.syncOnce()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "it did not wait for the hung call")
        XCTAssertEqual(report.error, "the remote did not answer within 1 s")
        let status = await engine.status()
        XCTAssertEqual(status.mode, .unreachable)
        XCTAssertNotNil(status.nextRetryAt)
        XCTAssertEqual(status.inFlight, 0)
        XCTAssertFalse(status.pulling)
    }

    func testTheLoopRunsTheRoundAskedForOnceAnotherProcessHasFinishedSyncing() async throws {
        let (repo, engine) = try await device("a", faults: nil)
        try await checkIn(repo, HabitID(value: 0xA7), create: true)
        // Another process holds the sync lock when the loop's first round is due.
        let fd = open(root + "/a/sync.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        let loop = Task { await engine.run() }
        defer { loop.cancel() }
        try await Task.sleep(nanoseconds: 600_000_000)
        var status = await engine.status()
        XCTAssertEqual(status.roundsEnded, 0, "no round while the other process syncs")
        flock(fd, LOCK_UN)
        await waitForStatus(engine, "the round ended") { $0.roundsEnded == 1 && $0.pending == 0 }
        status = await engine.status()
        XCTAssertEqual(status.mode, .online)
    }

    func testPullingShowsAsActivityAndEndsWithTheRound() async throws {
        let (other, otherEngine) = try await device("b", faults: nil)
        try await checkIn(other, HabitID(value: 0xA6), create: true)
        await otherEngine.syncOnce()
        let (_, engine) = try await device("a", faults: FaultPlan(latency: 0.2))
        let round = Task { await engine.syncOnce() }
        await waitForStatus(engine, "pulling") { $0.pulling && $0.inFlight == 0 }
        let report = await round.value
        XCTAssertEqual(report.pulled, 2)
        let status = await engine.status()
        XCTAssertFalse(status.pulling)
        XCTAssertEqual(status.history.last?.pulled, 2)
    }
}
