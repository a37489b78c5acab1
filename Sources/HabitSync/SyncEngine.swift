import FoundationEssentials
import HabitCore
import HabitStore

/// Pushes this device's unacknowledged operations and pulls other devices' operations
/// through a `Remote`, one round at a time per data directory. It coordinates: what a round
/// does is decided by plans (`PushPlan`, `CompactionPlan`, `PullPlan`, `Negotiation`) and
/// carried out here through one gate of remote calls (`RemoteCalls`); when rounds run is the
/// `SyncScheduler`'s; statuses reach subscribers through the `StatusPublisher`.
///
/// The round owns `state`: only a round changes it, and it saves what it changed before it
/// publishes. A status is made from it (and from the queue count the round keeps), never by
/// reading it again; between rounds, when nothing here is unsaved, the scheduler reads the
/// file again for what other processes did. An operation leaves the queue only once the
/// remote has it; the acked cursor is then recorded durably, so a crash at any point leads
/// to a resend that the remote recognises (same batch name, same operations: `BatchAck`).
public actor SyncEngine {
    public let repository: HabitRepository
    let paths: DataPaths
    let clock: any SyncClock
    let faults: FaultPlan?
    let access: RemoteAccess
    public private(set) var state: SyncState
    /// When rounds run (`run`, `poke`).
    public nonisolated let scheduler: SyncScheduler
    let calls: RemoteCalls
    private var remotes = RemoteCache()
    var activity = RoundActivity()
    private var queue: QueueSummary?
    private var publisher = StatusPublisher()
    /// This device's last operation when the repository last said it changed.
    private var written: UInt64?
    /// The folder remote's watch while the loop runs (`run`), and how changes are learnt.
    private var watch: RemoteWatch?
    public private(set) var watchMode = WatchMode.off
    private var looping = false
    private var watchingAllowed = true
    /// The change marker's tag as the last probe read it (`probe`).
    private var markerTag: String?
    /// Whether the remote answered the last probe (nil: not probed since the last round).
    private var probeAnswered: Bool?
    /// When the remote last answered a probe, and when a change was last seen here (a local
    /// write, a round that moved something, a probe that found one).
    private var probedAt: Date?
    private var changeSeenAt: Date?

    /// Backoff: full jitter on base · 2^attempts seconds, capped.
    public static let backoffBase = 1.0
    public static let backoffCap = 300.0
    /// How long one remote call may take before the round ends as `unreachable` (seconds).
    /// Above WebDAV's 20 s request timeout and the fault injection's 60 s latency; a folder
    /// on a hung network mount has no timeout of its own.
    public static let callTimeout = 75.0

    private nonisolated let home: ExecutorHome?

    /// Where the engine's work runs: like any actor's (the shared thread pool), or the main
    /// thread's executor when made with `onMainThread`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        home?.unownedExecutor ?? MainActor.sharedUnownedExecutor
    }

    /// With `onMainThread` (a one-shot command, whose repository is there too), its work runs
    /// on the main thread's executor: reading the status starts no worker thread. Remote calls
    /// still run off it, so a round's time limit holds. Every time read and every wait goes
    /// through `clock`, the fault injection's latency too.
    public init(repository: HabitRepository, clock: any SyncClock = LiveClock(), faults: FaultPlan? = nil,
                access: RemoteAccess = RemoteAccess(), onMainThread: Bool = false) throws {
        home = onMainThread ? nil : ExecutorHome()
        self.repository = repository
        self.access = access
        paths = repository.paths
        self.clock = clock
        self.faults = faults
        scheduler = SyncScheduler(clock: clock)
        calls = RemoteCalls(clock: clock, paths: repository.paths, limit: SyncEngine.callTimeout)
        // An older version kept the remote setting in sync.json only: move it out once (a
        // read-only data directory keeps working from sync.json).
        try? SyncState.moveSettingsOutOfSyncJSON(repository.paths)
        state = try SyncState.load(repository.paths)
    }

    // MARK: Settings

    /// Connects a remote (or none), encrypted (`encrypt`: `age`, with the data directory's
    /// `RemoteKey`) or not. A new remote, account or encryption starts a fresh migration.
    public func setRemote(_ spec: String?, account: String, user: String? = nil, encrypt: String? = nil) async throws {
        if let spec { _ = try makeRemote(spec, user: user, access: RemoteAccess(caFile: access.caFile)) }
        try validateAccount(account)
        let encrypt = spec == nil ? nil : encrypt
        state = try SyncState.update(paths) { s in
            guard s.remote != spec || s.account != account || s.user != user || s.encrypt != encrypt else { return }
            let offline = s.offline, encrypted = s.encryptedTargets
            s = SyncState()
            s.settings = RemoteSettings(remote: spec, account: account, user: user, offline: offline, encrypt: encrypt)
            s.encryptedTargets = encrypted
        }
        remotes = RemoteCache()
        queue = nil
        refreshWatch()
        await publish()
    }

    /// The user's offline switch (persisted). Going offline takes effect at once: the round
    /// in flight abandons its remote call and sends nothing more. Going online syncs at once.
    public func setOffline(_ on: Bool) async throws {
        try SyncState.update(paths) { s in
            s.offline = on
            if !on { s.nextRetryAt = nil; s.attempts = 0 }
        }
        // The same change here, without undoing what a round has not saved yet.
        state.offline = on
        if on {
            calls.stop()
            activity.inFlight = []
            activity.pulling = false
        } else {
            state.nextRetryAt = nil
            state.attempts = 0
        }
        refreshWatch()
        await publish()
        if !on { await scheduler.poke() }
    }

    public func setPullInterval(_ seconds: Double) async { await scheduler.setPullInterval(seconds) }

    /// Whether the loop watches a folder remote (on unless turned off: a test of the timer's
    /// schedule turns it off, so that only its clock starts rounds).
    public func setWatching(_ on: Bool) {
        watchingAllowed = on
        refreshWatch()
    }
    public func setCallTimeout(_ seconds: Double) { calls.limit = seconds }

    // MARK: Status

    /// The status now: made from the state, and from the queue as last counted (counted
    /// again, from the scan offset, only when the cursor or this device's operations moved).
    public func status() async -> SyncStatus {
        var s = SyncStatus(state: state, device: repository.device, queue: await countedQueue(), activity: activity)
        s.watch = watchMode
        s.lastCheckedAt = [state.lastSyncAt, probedAt].compactMap { $0 }.max()
        return s
    }

    private func countedQueue() async -> QueueSummary {
        guard state.remote != nil else { return QueueSummary() }
        let acked = state.ackedSeq, offset = state.scanOffset
        let written = await repository.state.seen[repository.device] ?? 0
        if let queue, queue.acked == acked, queue.written == written { return queue }
        guard let summary = try? await repository.pendingSummary(afterSeq: acked, fromOffset: offset, keep: SyncStatus.queueShown)
        else { return QueueSummary(acked: acked, written: written) }
        let counted = QueueSummary(count: summary.count, habits: summary.habits, oldest: summary.oldest, acked: acked, written: written)
        queue = counted
        return counted
    }

    /// Status updates (the current one first), for the UI.
    public func updates() async -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(8))
        let id = publisher.add(continuation)
        continuation.yield(await status())
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: UUID) { publisher.remove(id) }

    func publish() async {
        guard publisher.request() else { return }
        var again = true
        while again { again = publisher.send(await status()) }
    }

    /// Sends the current status to the subscribers now, in order with every other status.
    public func publishNow() async { await publish() }

    /// The repository's state changed (a local write, records another process appended, or
    /// operations a round pulled). A round is asked for only when this device wrote
    /// something new: a pull that changed something starts no second round.
    public func repositoryChanged(_ new: HabitState) async {
        let now = new.seen[repository.device] ?? 0, before = written
        written = max(before ?? 0, now)
        await publish()
        if let before, now > before {
            changeSeenAt = clock.now()
            await scheduler.poke()
        }
    }

    /// What the scheduler decides from, read again from disk when `reread` and no round
    /// holds the state (so nothing unsaved is lost): what other processes did shows.
    func facts(reread: Bool) async -> SyncScheduler.Facts {
        if reread && !activity.running, let fresh = try? SyncState.load(paths), fresh != state {
            state = fresh
            await publish()
        }
        var facts = SyncScheduler.Facts(state)
        facts.probes = probeAnswered != false && (try? state.remoteSpec())??.plain.isWebDAV == true
        facts.active = changeSeenAt.map { clock.now().timeIntervalSince($0) < SyncScheduler.activeFor } ?? false
        return facts
    }

    /// One probe of the remote's change marker (one request): what it found, nil when it
    /// could not be made (offline, no remote, a failure: the next round reports it). A change
    /// found makes the loop active; the bar's "checked" counts the answer.
    func probe() async -> ChangeProbe? {
        guard looping, !state.offline, !activity.running, let remote = try? remote() else { return nil }
        let account = state.account, tag = markerTag
        do {
            let found = try await calls.run { try await remote.probeChanges(account: account, since: tag) }
            probeAnswered = found != .unsupported
            probedAt = clock.now()
            if case .changed(let t) = found { markerTag = t; changeSeenAt = clock.now() }
            await publish()
            return found
        } catch {
            return nil
        }
    }

    // MARK: Background

    /// Runs rounds until cancelled (see `SyncScheduler`), watching a folder remote meanwhile.
    public func run() async {
        looping = true
        refreshWatch()
        await scheduler.run(self)
        looping = false
        refreshWatch()
    }

    /// Starts, keeps or stops the folder remote's watch for what the settings say now: a
    /// watch while the loop runs, online, on a folder that reports other machines' changes
    /// (see `RemoteWatch`); none otherwise. Cheap when nothing changed: it runs after every
    /// round, so a folder the first round made is watched from then on.
    func refreshWatch() {
        guard looping, watchingAllowed, !state.offline, let spec = try? state.remoteSpec() else { setWatch(nil, .off); return }
        // A watch on this folder and account already runs: nothing to read again (the mount
        // table is read only when a watch is to be made).
        if let w = watch, case .folder(let path) = spec.plain, w.root == path, w.account == state.account { return }
        let (root, mode) = RemoteWatch.mode(for: spec)
        guard let root, mode == .watching else { setWatch(nil, mode); return }
        let scheduler = self.scheduler
        do {
            let w = try RemoteWatch(root: root, account: state.account, own: repository.device) {
                Task { await scheduler.nudge() }
            }
            setWatch(w, .watching)
        } catch {
            setWatch(nil, .timer("the folder cannot be watched yet (\(error))"))
        }
    }

    /// How a loop on this remote learns of other devices' changes, whether or not one runs
    /// now (`status` says it): watched, on its timer (and why), or off without a remote.
    public func liveMode() -> WatchMode {
        guard let spec = try? state.remoteSpec() else { return .off }
        let mode = RemoteWatch.mode(for: spec).mode
        return mode == .off ? .timer("") : mode
    }

    private func setWatch(_ w: RemoteWatch?, _ mode: WatchMode) {
        if w !== watch { watch = w }
        watchMode = mode
    }

    /// Wakes the background loop soon (after a local write, or going online).
    public func poke() async { await scheduler.poke() }

    /// Syncs now, also after a permanent failure.
    public func retryNow() async { await scheduler.poke() }

    // MARK: Rounds

    /// One round: push everything pending, then pull what other devices wrote. It runs
    /// after a permanent failure too (an explicit `habitto sync`), never while offline:
    /// going offline mid-round (here or in another process) stops it before its next
    /// remote call, with `skipped` `.offline`.
    /// `waitingForOthers`: how long to wait for another process's round to end first (none:
    /// skip at once with `.anotherProcessSyncing`).
    @discardableResult
    public func syncOnce(waitingForOthers: Double? = nil) async -> SyncReport {
        var report = SyncReport()
        do {
            guard try SyncState.loadSettings(paths).remote != nil else { report.skipped = .noRemote; return report }
            calls.start()
            try calls.checkNotStopped()
        } catch is RoundStopped {
            report.skipped = .offline
            return report
        } catch {
            report.error = "\(error)"
            return report
        }
        let lock: RoundLock
        do {
            guard let taken = try waitingForOthers.map({ try RoundLock.wait(paths, seconds: $0) }) ?? RoundLock.take(paths) else { report.skipped = .anotherProcessSyncing; return report }
            lock = taken
            state = try SyncState.load(paths)
        } catch {
            report.error = "\(error)"
            return report
        }
        defer { lock.release() }
        activity.running = true
        state.lastAttemptAt = clock.now()
        var round = SyncRound(engine: self, repository: repository, calls: calls, clock: clock, paths: paths, state: state)
        var used: (any Remote)?
        var outcome: RoundOutcome?
        do {
            let plain = try remote()
            used = plain
            try await round.run(plain)
            // A device with bad batches is reported but blocks neither this device nor the
            // others: the mode stays online and the next round tries it again.
            outcome = .synced(note: round.report.error)
        } catch is RoundStopped {
            round.report.skipped = .offline
        } catch let e as RemoteError {
            round.report.error = e.message
            outcome = e.kind == .transient ? .unreachable(e.message, retryAfter: e.retryAfter) : .failed(e.message)
        } catch let e as StoreError where e.isLockBusy {
            // Another process holds a local lock: it lets go, so the round is retried.
            round.report.error = "\(e)"
            outcome = .unreachable("\(e)", retryAfter: nil)
        } catch {
            round.report.error = "\(error)"
            outcome = .failed("\(error)")
        }
        report = round.report
        state = round.state
        if let used { state.learn(used.knownToExist) }
        activity = RoundActivity(roundsEnded: activity.roundsEnded)
        // Stopped by going offline: keep what was acknowledged, record no outcome.
        if let outcome {
            let now = clock.now()
            state.record(outcome, at: now, jitter: Double.random(in: 0...1))
            activity.roundsEnded += 1
            state.history.append(SyncState.Attempt(at: now, pushed: report.pushed, pulled: report.pulled, error: report.error))
            if state.history.count > 20 { state.history.removeFirst(state.history.count - 20) }
        }
        do { state = try save(state) } catch { report.error = report.error ?? "\(error)" }
        refreshWatch()
        // A round that moved something keeps the loop active; the marker may exist now.
        if report.pushed > 0 || report.pulled > 0 { changeSeenAt = clock.now() }
        probeAnswered = nil
        await publish()
        return report
    }

    /// Saves a round's state durably, with the settings as the file has them now (`habitto
    /// offline` or the UI may have changed them, in any process), and makes it the engine's;
    /// `acknowledging`: the batch whose acknowledgement it records. When the remote or account
    /// changed meanwhile, the round's progress belongs elsewhere and is not saved.
    func save(_ round: SyncState, acknowledging batch: BatchName? = nil) throws -> SyncState {
        var saved = round
        try SyncState.withLock(paths) {
            let settings = try SyncState.loadSettings(paths)
            guard settings.remote == saved.remote, settings.account == saved.account else {
                throw RemoteError.refused("the remote was changed while syncing; this round stopped")
            }
            saved.settings = settings
            try saved.save(paths)
        }
        state = saved
        if let batch {
            // The queue the round keeps goes down with it (counted again when more waited).
            if let q = queue, q.written == batch.last { queue = QueueSummary(acked: batch.last, written: q.written) } else { queue = nil }
        }
        return saved
    }

    /// The round sends the batch of `ops` now (none: it was acknowledged).
    func show(sending ops: [HabitOperation]) async {
        activity.inFlight = ops
        await publish()
    }

    /// The round reads other devices' batches now.
    func show(pulling: Bool) async {
        activity.pulling = pulling
        await publish()
    }

    /// The plain remote the settings name, with injected faults (kept from round to round).
    func remote() throws -> any Remote {
        let spec: RemoteSpec
        do {
            guard let s = try state.remoteSpec() else { throw RemoteError.refused("no remote is set") }
            spec = s
        } catch let e as SyncSettingError { throw RemoteError.refused(e.description) }
        return try remotes.remote(for: spec, access: access, faults: faults, clock: clock, existing: state.learntNow?.existing ?? [])
    }
}
