import Foundation
import XCTest
import HabitCore
import HabitStore
import WebDAVHarness
import SyncTestKit
@testable import HabitSync

private let ownerTestStart = syncTestDay

/// The round owns the sync state: a subscriber (as the UI subscribes) never undoes what a
/// round recorded, a status reads only what waits to be sent, and operations a round pulled
/// start no second round.
final class StateOwnerTests: SyncTestCase {
    /// What the UI does with the repository's events: every change goes to the engine. Each
    /// state it handled, once the engine has taken it, comes out of the stream returned.
    func followedLikeTheUI(_ repo: HabitRepository, _ engine: SyncEngine) -> (Task<Void, Never>, AsyncStream<HabitState>) {
        let (handled, done) = AsyncStream.makeStream(of: HabitState.self)
        let task = Task {
            for await event in await repo.events() {
                guard case .changed(let s) = event else { continue }
                await engine.repositoryChanged(s)
                done.yield(s)
            }
        }
        return (task, handled)
    }

    /// A subscriber that takes every status, as the UI's does.
    func subscribe(_ engine: SyncEngine, seen: Counter) async -> Task<Void, Never> {
        let stream = await engine.updates()
        return Task { for await _ in stream { seen.add() } }
    }

    func testTheScanOffsetAndTheMigrationMarkSurviveEveryPublishToASubscriber() async throws {
        let (repo, engine) = try await device("a")
        let h = HabitID(value: 0xB1)
        try await repo.commit { _, _ in [.create(h, HabitFields(name: "Water", startDate: ownerTestStart))] }
        for _ in 0..<50 { try await repo.commit { _, _ in [.progress(h, ownerTestStart, delta: 1)] } }
        let first = await engine.syncOnce()
        XCTAssertNil(first.error)
        let paths = DataPaths(directory: root + "/a")
        var journalEnd = await repo.journalEnd
        XCTAssertEqual(try SyncState.load(paths).scanOffset, journalEnd, "a round without a subscriber moves the offset to the end")
        let statuses = Counter()
        let subscriber = await subscribe(engine, seen: statuses)
        defer { subscriber.cancel() }
        let (follower, _) = followedLikeTheUI(repo, engine)
        defer { follower.cancel() }
        for press in 1...3 {
            try await repo.commit { _, _ in [.progress(h, ownerTestStart, delta: 1)] }
            let report = await engine.syncOnce()
            XCTAssertEqual(report.pushed, 1, "press \(press)")
            journalEnd = await repo.journalEnd
            let saved = try SyncState.load(paths)
            XCTAssertEqual(saved.scanOffset, journalEnd, "press \(press): the offset the push reached is saved")
            XCTAssertEqual(saved.migratedTo, saved.target, "press \(press): the migration mark stays")
            XCTAssertEqual(saved.ackedSeq, 51 + UInt64(press))
            let own = await engine.state
            XCTAssertEqual(own.scanOffset, journalEnd, "press \(press): and the engine's own copy is what was saved")
        }
        XCTAssertGreaterThan(statuses.value, 3, "the subscriber was sent statuses while the rounds ran")
    }

    func testAPushWithTheUIsSubscriptionReadsOnlyWhatTheQueueHolds() async throws {
        let (repo, engine) = try await device("a")
        let h = HabitID(value: 0xB2)
        // A long history: 4,004 operations in 21 records, sent in five batches; a round with
        // nothing to send then compacts them, so the three rounds below (operations 4,005 to
        // 4,007) fill no range a compaction merges, and only the queue is read.
        try await repo.commit { _, _ in
            [.create(h, HabitFields(name: "Steps", startDate: ownerTestStart))] + Array(repeating: .progress(h, ownerTestStart, delta: 1), count: 199)
        }
        for _ in 1..<20 { try await repo.commit { _, _ in Array(repeating: .progress(h, ownerTestStart, delta: 1), count: 200) } }
        try await repo.commit { _, _ in Array(repeating: .progress(h, ownerTestStart, delta: 1), count: 4) }
        for _ in 0..<2 {
            let report = await engine.syncOnce()
            XCTAssertNil(report.error)
        }
        let statuses = Counter()
        let subscriber = await subscribe(engine, seen: statuses)
        defer { subscriber.cancel() }
        let (follower, _) = followedLikeTheUI(repo, engine)
        defer { follower.cancel() }
        let history = await repo.journalEnd
        let readBefore = await repo.localScanBytes
        for _ in 0..<3 {
            try await repo.commit { _, _ in [.progress(h, ownerTestStart, delta: 1)] }
            await engine.publishNow()
            let waiting = await engine.status().pending
            XCTAssertEqual(waiting, 1, "the new check-in waits")
            let pushed = await engine.syncOnce().pushed
            XCTAssertEqual(pushed, 1)
            let after = await engine.status().pending
            XCTAssertEqual(after, 0)
        }
        let grown = await repo.journalEnd - history
        let read = await repo.localScanBytes - readBefore
        // Each round reads its own record a few times (the push, the check that nothing more
        // waits, one count for the status), never the history before it.
        XCTAssertGreaterThan(read, 0)
        XCTAssertLessThanOrEqual(read, 4 * grown, "\(read) bytes read for \(grown) bytes of new records")
        XCTAssertLessThan(read * 20, history, "\(read) bytes read of a \(history)-byte journal")
    }

    /// A on `remote` makes a habit and syncs; B, on a manual clock with its loop running and
    /// its repository followed as the UI follows it, pulls it in its first round, which asks
    /// for no second one. Then `body` goes on with both.
    /// On WebDAV (`remote` given) the loop, active after its first round pulled, waits a
    /// probe's interval between probes; on the folder, the pull interval between rounds.
    func withBsUIOpen(remote: String? = nil, user: String? = nil, password: String? = nil,
                      _ body: (_ a: (HabitRepository, SyncEngine), _ b: (HabitRepository, SyncEngine), _ h: HabitID, _ clock: ManualClock,
                               _ handled: AsyncStream<HabitState>) async throws -> Void) async throws {
        let (a, aEngine) = try await device("a", remote: remote, user: user, password: password)
        let h = HabitID(value: 0xB3)
        try await a.commit { _, _ in [.create(h, HabitFields(name: "Read", startDate: ownerTestStart))] }
        await syncOK(aEngine)
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let (b, bEngine) = try await device("b", clock: clock, remote: remote, user: user, password: password)
        let (follower, handled) = followedLikeTheUI(b, bEngine)
        defer { follower.cancel() }
        let loop = Task { await bEngine.run() }
        defer { loop.cancel() }
        await clock.waiting([SyncScheduler.gatherWrites])
        clock.advance(by: SyncScheduler.gatherWrites)
        await settled(bEngine, clock, rounds: 1, handled: handled, waits: remote == nil ? SyncScheduler.pullInterval : SyncScheduler.activeProbeInterval,
                      holds: { $0.habit(h) != nil })
        try await body((a, aEngine), (b, bEngine), h, clock, handled)
    }

    func testOperationsPulledWithTheUIOpenStartNoSecondRound() async throws {
        try await withBsUIOpen { a, b, h, clock, handled in
            // Another change on A, pulled on the next pull interval: one round, no second.
            try await a.0.commit { _, _ in [.progress(h, ownerTestStart, delta: 1)] }
            await syncOK(a.1)
            clock.advance(by: SyncScheduler.pullInterval)
            await settled(b.1, clock, rounds: 2, handled: handled, holds: { $0.progress(h, ownerTestStart) > 0 })
            // A change made on B itself does start a round.
            try await b.0.commit { _, _ in [.progress(h, ownerTestStart, delta: 1)] }
            await clock.waiting([SyncScheduler.gatherWrites])
            clock.advance(by: SyncScheduler.gatherWrites)
            await clock.waiting([SyncScheduler.pullInterval])
            let status = await b.1.status()
            XCTAssertEqual(status.roundsEnded, 3)
            XCTAssertEqual(status.pending, 0)
        }
    }

    func testOnApacheAPulledChangeCostsOneRoundsRequestsAndNoMore() async throws {
        if let missing = WebDAVServer.missingTools { XCTFail(missing); return }
        let server = try WebDAVServer()
        defer { server.stop() }
        try await withBsUIOpen(remote: server.baseURL.absoluteString, user: server.user, password: server.password) { a, b, h, clock, handled in
            try await a.0.commit { _, _ in [.progress(h, ownerTestStart, delta: 1)] }
            await syncOK(a.1)
            let before = server.requests().count
            // The probe's wait ends (a quarter of a second of it passed in `settled`); the probe
            // finds A's change, and the round runs at once, as a timed one does.
            clock.advance(by: SyncScheduler.activeProbeInterval - SyncScheduler.gatherWrites)
            await settled(b.1, clock, rounds: 2, handled: handled, waits: SyncScheduler.activeProbeInterval,
                          holds: { $0.progress(h, ownerTestStart) > 0 })
            let round = server.requests().dropFirst(before)
            XCTAssertEqual(round.map(\.method), ["GET", "PROPFIND", "PROPFIND", "GET"],
                           "the probe, the devices, A's batches, A's new batch: \(round.map(\.description))")
        }
    }

    /// Waits until the UI's follower has handled a change after which the repository holds
    /// what `holds` checks, then checks that the loop ended exactly `rounds` rounds and waits
    /// `waits` (a pull interval, or a probe's on WebDAV; a round asked for would wait the gathering pause instead), also
    /// once the gathering pause has passed.
    func settled(_ engine: SyncEngine, _ clock: ManualClock, rounds: Int, handled: AsyncStream<HabitState>,
                 waits: Double = SyncScheduler.pullInterval,
                 holds: @escaping @Sendable (HabitState) -> Bool, file: StaticString = #filePath, line: UInt = #line) async {
        let arrived = await within {
            for await s in handled where holds(s) { return true }
            return false
        }
        XCTAssertTrue(arrived, "the pulled change never reached the engine", file: file, line: line)
        await clock.waiting([waits], file: file, line: line)
        let ended = await engine.status().roundsEnded
        XCTAssertEqual(ended, rounds, file: file, line: line)
        clock.advance(by: SyncScheduler.gatherWrites)
        await clock.waiting([waits - SyncScheduler.gatherWrites], file: file, line: line)
        let after = await engine.status().roundsEnded
        XCTAssertEqual(after, rounds, "no second round", file: file, line: line)
    }
}
