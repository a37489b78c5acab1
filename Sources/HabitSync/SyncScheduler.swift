import FoundationEssentials
import HabitCore

/// When rounds run: one at once when the loop starts (so the status is fresh when the UI
/// opens), one soon after a poke (a local change, going online, asking to sync now; changes
/// made within `gatherWrites` of each other go in one round), one when a retry is due, and
/// one every `pullEvery` seconds; none while local-only or offline, nor after a permanent
/// failure until asked. The decisions are pure (`wait`, `runs`); every wait is on the clock.
public actor SyncScheduler {
    /// How long the loop waits after a poke, so that a burst of writes goes in one round
    /// (seconds).
    public static let gatherWrites = 0.25
    /// How often the loop pulls when nothing else happens (seconds).
    public static let pullInterval = 30.0
    /// On a remote that answers probes: how often one is made while active (a change seen in
    /// the last `activeFor` seconds, here or by a probe); when quiet, every `pullEvery`, and a
    /// round runs only when a probe says something changed.
    public static let activeProbeInterval = 3.0
    public static let activeFor = 300.0

    let clock: any SyncClock
    /// This loop's pull interval (the demo pulls more often).
    public private(set) var pullEvery = SyncScheduler.pullInterval
    /// The wait in progress, and which one it is (see `sleep`).
    private var wake: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
    private var waits: UInt64 = 0
    private var wakeRequested = false
    /// The remote said it changed (`nudge`) since the last round began.
    private var remoteChanged = false

    public init(clock: any SyncClock) { self.clock = clock }

    public func setPullInterval(_ seconds: Double) { pullEvery = max(0.5, seconds) }

    /// Wakes the loop soon for a change on the remote (a watched folder's event): a round
    /// runs as for the pull timer, so a failure or a backoff is waited out as it would be.
    public func nudge() {
        remoteChanged = true
        wake?.continuation.resume()
        wake = nil
    }

    /// Wakes the loop soon.
    public func poke() {
        wakeRequested = true
        wake?.continuation.resume()
        wake = nil
    }

    /// What the decisions need to know of the sync state.
    public struct Facts: Equatable, Sendable {
        public var remote: Bool
        public var offline: Bool
        public var failed: Bool
        public var nextRetryAt: Date?
        /// The remote answers cheap probes (`Remote.probeChanges`: WebDAV with a change marker).
        public var probes = false
        /// A change was seen in the last `activeFor` seconds (probes are quick then).
        public var active = false

        public init(remote: Bool, offline: Bool, failed: Bool, nextRetryAt: Date?, probes: Bool = false, active: Bool = false) {
            self.remote = remote; self.offline = offline; self.failed = failed; self.nextRetryAt = nextRetryAt
            self.probes = probes; self.active = active
        }

        init(_ s: SyncState) { self.init(remote: s.remote != nil, offline: s.offline, failed: s.failed, nextRetryAt: s.nextRetryAt) }
    }

    /// How long the loop waits for the next round (or probe) when nothing pokes it: the pull
    /// interval (a probe's, while active on a remote that answers probes), or until a retry
    /// is due when that is sooner.
    public static func wait(_ facts: Facts, now: Date, pullEvery: Double) -> Double {
        // A backoff in progress waits for its retry as before: no probe until then.
        guard let next = facts.nextRetryAt else {
            return probesFirst(facts, now: now) && facts.active ? min(pullEvery, activeProbeInterval) : pullEvery
        }
        return min(pullEvery, max(0, next.timeIntervalSince(now)))
    }

    /// After a timed wait on a remote that answers probes: whether to probe first (and run a
    /// round only when it finds a change) rather than run a round. Not during a backoff (the
    /// next round is the retry, when it is due) nor after a failure.
    public static func probesFirst(_ facts: Facts, now: Date) -> Bool {
        facts.probes && !facts.failed && !facts.offline && facts.remote && facts.nextRetryAt == nil
    }

    /// Whether a round runs now: never local-only or offline; after a permanent failure, or
    /// before a retry is due, only when poked.
    public static func runs(_ facts: Facts, poked: Bool, now: Date) -> Bool {
        if !facts.remote || facts.offline || (facts.failed && !poked) { return false }
        if let next = facts.nextRetryAt, next > now, !poked { return false }
        return true
    }

    /// Runs `engine`'s rounds until cancelled.
    func run(_ engine: SyncEngine) async {
        wakeRequested = true
        while !Task.isCancelled {
            if !wakeRequested && !remoteChanged {
                let facts = await engine.facts(reread: false)
                await sleep(seconds: SyncScheduler.wait(facts, now: clock.now(), pullEvery: pullEvery))
                // A cheap probe instead of a timed round where the remote answers one.
                if !Task.isCancelled && !wakeRequested && !remoteChanged && SyncScheduler.probesFirst(facts, now: clock.now()) {
                    if await engine.probe() == .unchanged { continue }
                }
            }
            if Task.isCancelled { return }
            let poked = wakeRequested, nudged = remoteChanged
            wakeRequested = false
            remoteChanged = false
            // A burst of writes (here, or another device's batch written in steps) goes in one round.
            if poked || nudged { try? await clock.sleep(seconds: SyncScheduler.gatherWrites) }
            guard SyncScheduler.runs(await engine.facts(reread: true), poked: poked, now: clock.now()) else { continue }
            // Another process is syncing: try again shortly, so the round asked for (and the
            // "Syncing…" waiting for it) ends soon after theirs, not a pull interval later.
            if await engine.syncOnce().skipped == .anotherProcessSyncing { wakeRequested = true }
        }
    }

    /// Waits until `poke`, until `seconds` have passed on the clock, or until the task is
    /// cancelled. The clock's sleep ends with the wait, so it never ends a later one.
    private func sleep(seconds: Double) async {
        waits += 1
        let id = waits, clock = clock
        let timer = Task { [weak self] in
            do { try await clock.sleep(seconds: seconds) } catch { return }
            await self?.timeUp(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in wake = (id, c) }
        } onCancel: {
            Task { await self.poke() }
        }
        timer.cancel()
    }

    private func timeUp(_ id: UInt64) {
        guard let w = wake, w.id == id else { return }
        wake = nil
        w.continuation.resume()
    }
}
