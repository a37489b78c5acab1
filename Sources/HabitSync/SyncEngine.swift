import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// Pushes this device's unacknowledged operations and pulls other devices' operations
/// through a `Remote`. An operation leaves the outbox only once the remote has it; the
/// acked cursor is then recorded durably, so a crash at any point leads to a resend that
/// the remote recognises (same batch name, same bytes). Rounds from several processes on
/// one data directory are serialised by a lock file.
public actor SyncEngine {
    public let repository: HabitRepository
    let paths: DataPaths
    let clock: any SyncClock
    let faults: FaultPlan?
    let access: RemoteAccess
    public private(set) var state: SyncState
    private var remoteCache: (spec: String, remote: any Remote)?
    private var inFlightOps: [HabitOperation] = []
    private var pulling = false
    private var roundsEnded = 0
    /// Set by going offline: the round in flight sends nothing more.
    private var stopRequested = false
    /// Abandons the remote call in flight (set while one runs).
    private var abandonCall: (@Sendable () -> Void)?
    private var subscribers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    /// The background loop's wait in progress, and which one it is (see `sleep`).
    private var wake: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
    private var waits: UInt64 = 0
    private var wakeRequested = false

    /// Backoff: full jitter on base · 2^attempts seconds, capped.
    public static let backoffBase = 1.0
    public static let backoffCap = 300.0
    /// How long the background loop waits after a poke, so that a burst of writes goes in
    /// one round (seconds).
    public static let gatherWrites = 0.25
    /// How often the background loop pulls when nothing else happens (seconds).
    public static let pullInterval = 30.0
    /// This engine's pull interval (the demo pulls more often).
    public var pullEvery = SyncEngine.pullInterval

    public func setPullInterval(_ seconds: Double) { pullEvery = max(0.5, seconds) }

    /// How long one remote call may take before the round ends as `unreachable` (seconds).
    /// Above WebDAV's 20 s request timeout and the fault injection's 60 s latency; a folder
    /// on a hung network mount has no timeout of its own.
    public static let callTimeout = 75.0
    /// This engine's call timeout (tests shorten it).
    public var callLimit = SyncEngine.callTimeout

    public func setCallTimeout(_ seconds: Double) { callLimit = max(0.01, seconds) }

    /// The default actor whose executor the engine shares (its own, in effect), or nil when
    /// it runs on the main thread's (see `init`).
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
            if s.remote != spec || s.account != account || s.user != user || s.encrypt != encrypt {
                let offline = s.offline
                s = SyncState()
                s.offline = offline
                s.remote = spec
                s.account = account
                s.user = user
                s.encrypt = encrypt
            }
        }
        remoteCache = nil
        await publish()
    }

    /// The user's offline switch (persisted). Going offline takes effect at once: the round
    /// in flight abandons its remote call and sends nothing more. Going online syncs at once
    /// in the loop.
    public func setOffline(_ on: Bool) async throws {
        state = try SyncState.update(paths) { s in
            s.offline = on
            if !on { s.nextRetryAt = nil; s.attempts = 0 }
        }
        stopRequested = on
        if on {
            abandonCall?()
            inFlightOps = []
            pulling = false
        }
        await publish()
        if !on { poke() }
    }

    // MARK: Status

    /// The status now (pending counted from the journal).
    public func status() async -> SyncStatus {
        if let fresh = try? SyncState.load(paths) { state = fresh }
        let device = repository.device
        var pendingHabits = Set<HabitID>()
        var pending = 0
        // Local only: there is no queue to count (and reading a long history would cost).
        if state.remote != nil,
           let summary = try? await repository.pendingSummary(afterSeq: state.ackedSeq, fromOffset: state.scanOffset) {
            pending = summary.count
            pendingHabits = summary.habits
        }
        let mode = state.mode
        let versions = state.devicesVersion ?? [:]
        let devices = state.devicesSeen.compactMap { k, v in DeviceID(k).map { (id: $0, lastSeen: v, version: versions[k]) } }
            .sorted { $0.id < $1.id }
        let ahead = state.clockAhead.compactMap { k, v in DeviceID(k).map { (id: $0, seconds: v) } }.sorted { $0.id < $1.id }
        return SyncStatus(mode: mode, remote: state.remote, account: state.account, device: device, pending: pending,
                          inFlight: inFlightOps.count, pulling: pulling, roundsEnded: roundsEnded, lastSyncAt: state.lastSyncAt, lastError: state.lastError,
                          nextRetryAt: state.nextRetryAt, devices: devices,
                          pendingHabits: pendingHabits, syncingHabits: Set(inFlightOps.map(\.change.habit)),
                          clockAhead: ahead, history: state.history, remoteProblems: state.remoteProblems ?? [])
    }

    /// The oldest operations waiting to be sent (for the sync screen's queue).
    public func pendingOperations(limit: Int) async -> [HabitOperation] {
        (try? await repository.localOperations(afterSeq: state.ackedSeq, fromOffset: state.scanOffset, limit: limit))?.ops ?? []
    }

    /// Status updates (the current one first), for the UI.
    public func updates() async -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        subscribers[id] = continuation
        continuation.yield(await status())
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    /// Sends the status to every subscriber. Statuses are computed and sent one after
    /// another: a request while one is being computed (computing awaits the journal) runs
    /// one more after it, so subscribers never get an older status after a newer one, and
    /// the last one sent was computed after the last request.
    private func publish() async {
        guard !subscribers.isEmpty else { return }
        if publishing { publishAgain = true; return }
        publishing = true
        repeat {
            publishAgain = false
            let s = await status()
            for c in subscribers.values { c.yield(s) }
        } while publishAgain
        publishing = false
    }
    private var publishing = false
    private var publishAgain = false

    /// Sends the current status to the subscribers now (after a local write, say), in
    /// order with every other status the engine sends.
    public func publishNow() async { await publish() }

    // MARK: Rounds

    /// What earlier rounds learnt about the current remote (nil if nothing, or if it was
    /// about another remote).
    var learnt: SyncState.Learnt? {
        guard let target = state.target, let l = state.learnt, l.target == target else { return nil }
        return l
    }

    /// Records what this round learnt about the remote (kept with the progress).
    private func learn(_ remote: any Remote, maxBatchOperations: Int? = nil) {
        guard let target = state.target else { return }
        var l = learnt ?? SyncState.Learnt(target: target)
        if let maxBatchOperations { l.maxBatchOperations = maxBatchOperations }
        l.existing = remote.knownToExist.sorted()
        state.learnt = l
    }

    func remote() throws -> any Remote {
        guard let spec = state.remote else { throw RemoteError.permanent("no remote is set") }
        if let cached = remoteCache, cached.spec == spec { return cached.remote }
        var r: any Remote
        do { r = try makeRemote(spec, user: state.user, access: access) } catch let e as CoreError { throw RemoteError.permanent(e.description) }
        if let faults { r = FaultyRemote(r, plan: faults, clock: clock) }
        r.assumeExisting(Set(learnt?.existing ?? []))
        remoteCache = (spec, r)
        return r
    }

    /// One round: push everything pending, then pull what other devices wrote. It runs
    /// after a permanent failure too (an explicit `habitto sync`), never while offline:
    /// going offline mid-round (here or in another process) stops it before its next
    /// remote call, with `skipped` `.offline`.
    @discardableResult
    public func syncOnce() async -> SyncReport {
        var report = SyncReport()
        do { state = try SyncState.load(paths) } catch {
            report.error = "\(error)"
            return report
        }
        guard state.remote != nil else { report.skipped = .noRemote; return report }
        if state.offline { report.skipped = .offline; return report }
        stopRequested = false
        // One round at a time per data directory, across processes.
        let lockPath = paths.directory + "/sync.lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { report.error = "cannot open \(lockPath): \(String(cString: strerror(errno)))"; return report }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { report.skipped = .anotherProcessSyncing; return report }
        defer { flock(fd, LOCK_UN) }
        state = (try? SyncState.load(paths)) ?? state
        state.lastAttemptAt = clock.now()
        var used: (any Remote)?
        var outcome: RoundOutcome?
        do {
            let plain = try remote()
            used = plain
            let (remote, format) = try await prepared(plain)
            try await noticeIdentity(format, &report)
            if let own = try await push(remote, &report) {
                try await compact(remote, own.items)
                try await markVersion(remote, own.versions)
            }
            try await pull(remote, &report)
            if state.migratedTo != state.target {
                if let markers = try await verifyMigration(remote) { try await markVersion(remote, markers) }
            }
            // A device with bad batches is reported but blocks neither this device nor the
            // others: the mode stays online and the next round tries it again.
            outcome = .synced(note: report.error)
        } catch is RoundStopped {
            report.skipped = .offline
        } catch let e as RemoteError {
            report.error = e.message
            outcome = e.kind == .transient ? .unreachable(e.message, retryAfter: e.retryAfter) : .failed(e.message)
        } catch let e as StoreError where e.isLockBusy {
            // Another process holds a local lock: it lets go, so the round is retried.
            report.error = "\(e)"
            outcome = .unreachable("\(e)", retryAfter: nil)
        } catch {
            report.error = "\(error)"
            outcome = .failed("\(error)")
        }
        if let used { learn(used) }
        inFlightOps = []
        pulling = false
        guard let outcome else {
            // Stopped by going offline: keep what was acknowledged, record no outcome.
            do { try saveProgress() } catch { report.error = "\(error)" }
            await publish()
            return report
        }
        state.record(outcome, at: clock.now(), jitter: Double.random(in: 0...1))
        roundsEnded += 1
        state.history.append(SyncState.Attempt(at: clock.now(), pushed: report.pushed, pulled: report.pulled, error: report.error))
        if state.history.count > 20 { state.history.removeFirst(state.history.count - 20) }
        do { try saveProgress() } catch { report.error = report.error ?? "\(error)" }
        await publish()
        return report
    }

    /// Saves this round's progress without undoing settings changed meanwhile (by `habitto
    /// offline`, `remote set` or the UI, in any process): those are taken from the file. If
    /// the remote or account changed, this round's progress belongs elsewhere and is dropped.
    private func saveProgress() throws {
        let mine = state
        state = try SyncState.withLock(paths) { () throws -> SyncState in
            let fresh = try SyncState.load(paths)
            guard fresh.target == mine.target else {
                throw RemoteError.permanent("the remote was changed while syncing; this round stopped")
            }
            var merged = mine
            merged.offline = fresh.offline
            try merged.save(paths)
            return merged
        }
    }

    /// Pushes what is pending; returns this device's batches on the remote (listed before,
    /// and written since) and its version markers when the remote is verified, nil otherwise.
    private func push(_ remote: any Remote, _ report: inout SyncReport) async throws -> Listing<BatchName>? {
        let me = repository.device
        var held: [BatchName]?
        var versions: [String] = []
        if state.migratedTo == state.target && state.ackedSeq > 0 {
            let listing = try await call { [account = state.account] in try await remote.listBatches(account: account, device: me) }
            let listed = listing.items
            versions = listing.versions
            if listed.contiguousEnd() < state.ackedSeq {
                // The remote lost what it acknowledged (emptied, restored from an old backup,
                // re-created). The root may be gone too: it is checked (never created) and the
                // layout made again; then everything is pushed again, as after connecting the
                // remote, and read back.
                remote.forgetExisting()
                let format = try await call { [account = state.account] in try await remote.prepare(account: account) }
                try sendAllAgain(&report)
                try await noticeIdentity(format, &report)
            }
            held = listed
        }
        if state.migratedTo != state.target { try await skipWhatRemoteHas(remote, listed: held) }
        var limit = max(1, min(remote.maxBatchOperations, learnt?.maxBatchOperations ?? .max))
        while true {
            // The end the read covered comes from the same call: reading the journal's end
            // afterwards could pass over a check-in committed in between, never to be sent.
            let (ops, first, scannedTo) = try await repository.pendingOperations(
                afterSeq: state.ackedSeq, fromOffset: state.scanOffset, limit: limit)
            if let first { state.scanOffset = first }
            guard !ops.isEmpty, let name = BatchName(first: ops[0].id.seq, last: ops[ops.count - 1].id.seq) else {
                state.scanOffset = scannedTo
                return held.map { var l = Listing(items: $0); l.versions = versions; return l }
            }
            let account = state.account, bytes = BatchFile.encode(ops)
            try checkNotStopped()
            inFlightOps = ops
            await publish()
            do {
                _ = try await call { try await remote.create(account: account, device: me, batch: name, bytes: bytes) }
            } catch let e as RemoteError where e.tooLarge && ops.count > 1 {
                // Too large for this server, and not written: send the first half at once.
                // Names stay deterministic (the range sent), and a range's bytes are always
                // the same, so no two batches hold the same operations differently.
                limit = ops.count / 2
                continue
            }
            if limit < remote.maxBatchOperations { learn(remote, maxBatchOperations: limit) }
            // The remote has it: record the cursor durably before anything else.
            state.ackedSeq = name.last
            try saveProgress()
            held?.append(name)
            inFlightOps = []
            report.pushed += ops.count
            report.batches += 1
            await publish()
        }
    }

    /// The smallest range a compaction writes; each level doubles it.
    public static let smallestCompaction: UInt64 = 4
    /// The most operations a compacted batch holds (the largest level).
    public static let largestCompaction: UInt64 = 65_536

    /// The ranges a compaction may write, in the order it tries them (see `compact`), for
    /// this device's `files` on the remote and its acknowledged cursor `acked`: the full
    /// aligned ranges of each level that hold two files or more (or one and a file of that
    /// very range), largest level first, where level k's ranges are `j·L+1 … (j+1)·L` with
    /// L = 4·2^k, up to `largest` operations; then every file that holds another one whole
    /// (what a compaction that stopped midway left), widest first.
    static func compactionRanges(files: Set<BatchName>, acked: UInt64, largest: UInt64) -> [BatchName] {
        var levels = [smallestCompaction]
        while let top = levels.last, top <= largest / 2 { levels.append(top * 2) }
        var out: [BatchName] = []
        for level in levels.reversed() where level <= acked {
            // The files inside each full range of this level, by the range's index.
            var inside: [UInt64: Int] = [:]
            for f in files where (f.first - 1) / level == (f.last - 1) / level && f.last <= acked / level * level {
                inside[(f.first - 1) / level, default: 0] += 1
            }
            for (index, count) in inside.sorted(by: { $0.key < $1.key }) {
                guard let r = BatchName(first: index * level + 1, last: (index + 1) * level) else { continue }
                if count >= 2 { out.append(r) }
            }
        }
        out += files.filter { f in files.contains { $0 != f && f.first <= $0.first && f.last >= $0.last } }
            .sorted { ($0.count, $1.first) > ($1.count, $0.first) }
        return out
    }

    /// Merges this device's batches on the remote into larger ones and removes what they
    /// replace (once the remote is verified; `listed` are its batches there). Each range of
    /// `compactionRanges` that holds two or more of the files left whole (or one, when a
    /// batch of exactly that range is there) is written create-only from the journal (a
    /// range's bytes are always the same, so a retry is an ack), read back and checked to
    /// hold the same operations, and only then are the files it holds removed; a range whose
    /// file would be larger than a reader takes is passed over. Like a binary counter, a
    /// device then keeps at most one file a level, up to three recent ones, and the few that
    /// straddle a range's end, and each operation is written again at most once a level. Then,
    /// when more than `mostFiles` are left (a history whose length has many levels in use),
    /// the newest are merged into one (`cappingRange`). A file no range holds whole is never
    /// removed, nor another device's. A stop at any step leaves batches that overlap, which
    /// readers skip, and the next compaction finishes.
    private func compact(_ remote: any Remote, _ listed: [BatchName]) async throws {
        guard state.migratedTo == state.target, state.ackedSeq > 0 else { return }
        let acked = state.ackedSeq
        var files = Set(listed).filter { $0.last <= acked }
        let largest = min(SyncEngine.largestCompaction, learnt?.maxBatchOperations.map(UInt64.init) ?? .max)
        for range in SyncEngine.compactionRanges(files: files, acked: acked, largest: largest) {
            guard try await merge(range, into: &files, remote) else { return }
        }
        if let range = SyncEngine.cappingRange(files: files, acked: acked, largest: largest) {
            _ = try await merge(range, into: &files, remote)
        }
    }

    /// Writes `range` as one batch in place of the files of `files` it holds whole, when it
    /// holds two or more (or one and a file of that very range): create-only from the
    /// journal, read back and compared, and only then the files it holds removed. Returns
    /// false when compacting must stop for this round (the journal lacks the range, or the
    /// server refused its size, which later rounds remember).
    private func merge(_ range: BatchName, into files: inout Set<BatchName>, _ remote: any Remote) async throws -> Bool {
        let me = repository.device, account = state.account
        let covered = files.filter { $0 != range && $0.first >= range.first && $0.last <= range.last }
        guard covered.count >= (files.contains(range) ? 1 : 2) else { return true }
        guard let ops = try await journalOperations(range) else { return false }
        let bytes = BatchFile.encode(ops)
        guard bytes.count <= BatchFile.maxBytes else { return true }
        do {
            _ = try await call { try await remote.create(account: account, device: me, batch: range, bytes: bytes) }
        } catch let e as RemoteError where e.tooLarge && range.count > 1 {
            // Refused for its size and not written: later compactions use half the size.
            learn(remote, maxBatchOperations: Int(range.count / 2))
            return false
        }
        let back = try await call { try await remote.read(account: account, device: me, batch: range, maxBytes: BatchFile.maxBytes) }
        guard BatchFile.holdsSame(back, as: bytes, device: me, name: range) else {
            throw RemoteError.permanent("batch \(range) of this device read back from the remote differs from what was written; the batches it covers were left alone")
        }
        for old in covered.sorted() {
            try await call { try await remote.remove(account: account, device: me, batch: old) }
        }
        files.subtract(covered)
        files.insert(range)
        return true
    }

    /// The most batch files a device keeps on the remote after a compaction (as long as its
    /// newest ones together hold at most the largest compaction): a new device's join then
    /// reads at most this many files of it, however long its history.
    public static let mostFiles = 12

    /// When `files` are more than `mostFiles`, the range that merges the newest of them into
    /// one so that `mostFiles` are left: from the first operation of the newest
    /// `count - mostFiles + 1` files to `acked`; nil when there are not too many, or when that
    /// range would be larger than `largest`.
    static func cappingRange(files: Set<BatchName>, acked: UInt64, largest: UInt64) -> BatchName? {
        guard files.count > mostFiles, let first = files.sorted().suffix(files.count - mostFiles + 1).first?.first,
              let range = BatchName(first: first, last: acked), range.count <= largest else { return nil }
        return range
    }

    /// This device's operations `range` from the journal, read from where the last
    /// compaction's range started when that is at or before it (from the start otherwise,
    /// or when the journal does not hold them there); nil when the journal lacks any.
    private func journalOperations(_ range: BatchName) async throws -> [HabitOperation]? {
        let mark = state.compactedFrom.flatMap { $0.seq <= range.first ? $0.offset : nil }
        for from in mark.map({ $0 > 0 ? [$0, 0] : [0] }) ?? [0] {
            let (ops, offset) = try await repository.localOperations(afterSeq: range.first - 1, fromOffset: from, limit: Int(range.count))
            guard ops.count == Int(range.count), ops.first?.id.seq == range.first, ops.last?.id.seq == range.last else { continue }
            if let offset { state.compactedFrom = SyncState.JournalMark(seq: range.first, offset: offset) }
            return ops
        }
        return nil
    }

    /// Before the first push to a remote and account not yet verified (a new remote, or
    /// `sync.json` lost with the cursor in it): this device's batches the remote already
    /// holds, contiguous from the cursor on and within the journal's operations, are taken
    /// as acknowledged, so the push sends only the rest and never a batch overlapping them.
    /// The verification after the push then reads them back.
    private func skipWhatRemoteHas(_ remote: any Remote, listed: [BatchName]? = nil) async throws {
        let me = repository.device
        let written = await repository.state.seen[me] ?? 0
        // A device that has written nothing (a new device joining) has nothing to skip.
        guard written > 0 else { return }
        let account = state.account
        var held = listed ?? []
        if listed == nil { held = try await call { try await remote.batches(account: account, device: me) } }
        held = held.filter { $0.last <= written }
        let end = held.contiguousEnd(from: state.ackedSeq)
        guard end > state.ackedSeq else { return }
        state.ackedSeq = end
        try saveProgress()
    }

    /// Writes this device's version marker when its `ops` folder lacks the one for this
    /// release (`markers`: the versions its listing names), and removes its others, so other
    /// devices see which version each device last ran from the listings they read anyway.
    private func markVersion(_ remote: any Remote, _ markers: [String]) async throws {
        let me = repository.device, account = state.account, current = HabittoVersion.current
        if !markers.contains(current) {
            try await call { try await remote.markVersion(account: account, device: me, version: current) }
        }
        for old in markers where old != current {
            try await call { try await remote.unmarkVersion(account: account, device: me, version: old) }
        }
    }

    /// Records the remote's identity from the format `prepare` read (nil: not read this
    /// round). Another identity than the one recorded means the layout was made again: the
    /// remote lost what it had, and this device sends all of it again.
    private func noticeIdentity(_ format: RemoteFormat?, _ report: inout SyncReport) async throws {
        guard let format, let id = format.id, id != state.remoteID else { return }
        if state.remoteID != nil && !report.refilled { try sendAllAgain(&report) }
        state.remoteID = id
        state.remoteRecipient = format.recipient
        try saveProgress()
    }

    /// Prepares the remote (its layout made when missing, with a format file naming this
    /// device's recipient when it is set to encrypt) and checks, before anything else is
    /// written, that the remote's encryption and this device's agree: an encrypted remote
    /// needs this device's key, and a device set to encrypt needs an encrypted remote. Each
    /// disagreement is a permanent error in one line saying what to do; nothing local is
    /// changed. Returns the remote to use (an `EncryptedRemote` over `plain` when encrypted)
    /// and the format read (nil: known from an earlier round, see `noticeIdentity`).
    private func prepared(_ plain: any Remote) async throws -> (any Remote, RemoteFormat?) {
        let account = state.account, spec = state.remote ?? "SPEC"
        var key: RemoteKey?
        var tool: AgeTool?
        if state.encrypt != nil { (key, tool) = try EncryptedRemote.keyAndTool(paths, spec: spec) }
        let recipient = key?.recipient
        var format = try await call { try await plain.prepare(account: account, recipient: recipient) }
        if format == nil && state.remoteID == nil {
            // Known to exist, but not read by this device (or its record was lost): read it.
            plain.forgetExisting()
            format = try await call { try await plain.prepare(account: account, recipient: recipient) }
        }
        let encryptedFor = format != nil ? format?.recipient : state.remoteRecipient
        switch (encryptedFor, key) {
        case (nil, nil):
            return (plain, format)
        case (nil, _?):
            throw RemoteError.permanent("this remote is not encrypted, and this device is set to encrypt: to move to encryption, set a new, empty remote with --encrypt (everything is pushed again and verified; this one is left alone); to use this one as it is, run habitto remote set \(spec) without --key or --encrypt")
        case (_?, nil):
            throw RemoteError.permanent("this remote is encrypted: join with --key FILE (habitto remote key on a device that has it)")
        case (let wanted?, let key?):
            guard wanted == key.recipient, let tool else {
                throw RemoteError.permanent("wrong key: this remote is encrypted for \(RemoteKey.shown(wanted)), and this device's key is for \(RemoteKey.shown(key.recipient)); join with the remote's key: habitto remote set \(spec) --key FILE (habitto remote key on a device that has it)")
            }
            return (EncryptedRemote(plain, key: key, tool: tool), format)
        }
    }

    /// Forgets what the remote acknowledged, so this round sends again (and then reads back
    /// and verifies, as after `remote set`) every operation the remote lacks.
    private func sendAllAgain(_ report: inout SyncReport) throws {
        state.ackedSeq = 0
        state.scanOffset = 0
        state.migratedTo = nil
        try saveProgress()
        report.refilled = true
    }

    /// The most skipped remote entries kept in the status (then a count).
    static let maxRemoteProblems = 50
    /// The most other devices kept in `sync.json` and shown by `status`: more device
    /// folders with batches than one person's devices can be is a remote filled by mistake or
    /// on purpose. Every listed device is still read; only the record is bounded.
    public static let maxDevices = 200

    /// `present` (devices with batches) cut to `maxDevices`: those this device has
    /// operations of first, then in name order.
    private func devicesKept(_ present: Set<String>, problems: inout [String]) async -> Set<String> {
        guard present.count > SyncEngine.maxDevices else { return present }
        let seen = await repository.state.seen
        let known = present.filter { DeviceID($0).map { seen[$0] != nil } ?? false }.sorted()
        let rest = present.subtracting(known).sorted()
        problems.append("\(present.count - SyncEngine.maxDevices) more devices with batches are not kept in the status (at most \(SyncEngine.maxDevices))")
        return Set((known + rest).prefix(SyncEngine.maxDevices))
    }

    private func pull(_ remote: any Remote, _ report: inout SyncReport) async throws {
        var problems: [String] = []
        let account = state.account
        try checkNotStopped()
        pulling = true
        await publish()
        let devices = try await call { try await remote.listDevices(account: account) }
        var skipped = devices.skipped
        // Devices that are on the remote with a batch, or were known and could not be read
        // this round; the others are forgotten (a folder with no batch is not a device yet).
        var present = Set<String>()
        for device in devices.items where device != repository.device {
            let wasSeen = state.devicesSeen[device.rawValue] != nil
            do {
                var newest: Int64 = 0
                var listing = try await call { try await remote.listBatches(account: account, device: device) }
                do {
                    try await pullBatches(of: device, listed: listing.items, from: remote, newest: &newest, report: &report)
                } catch let e as RemoteError where e.missing {
                    // Removed since it was listed: that device compacted, and a listing now
                    // shows the batch covering it. Operations already applied are skipped.
                    listing = try await call { try await remote.listBatches(account: account, device: device) }
                    try await pullBatches(of: device, listed: listing.items, from: remote, newest: &newest, report: &report)
                }
                skipped += listing.skipped
                guard !listing.items.isEmpty else { continue }
                present.insert(device.rawValue)
                state.devicesSeen[device.rawValue] = clock.now()
                if let version = listing.versions.last { state.devicesVersion = (state.devicesVersion ?? [:]).merging([device.rawValue: version]) { $1 } }
                let ahead = Double(newest) / 1000 - clock.now().timeIntervalSince1970
                if ahead > 60 { state.clockAhead[device.rawValue] = ahead } else if newest > 0 { state.clockAhead[device.rawValue] = nil }
            } catch let e as RemoteError where e.kind == .permanent {
                // One bad device never blocks the others.
                problems.append(e.message)
                if wasSeen { present.insert(device.rawValue) }
            }
        }
        let kept = await devicesKept(present, problems: &skipped)
        state.devicesSeen = state.devicesSeen.filter { kept.contains($0.key) }
        state.clockAhead = state.clockAhead.filter { kept.contains($0.key) }
        state.devicesVersion = state.devicesVersion?.filter { kept.contains($0.key) }
        // One snapshot after the whole pull, however many batches it folded in.
        if report.pulled > 0 { try? await repository.snapshotIfDue() }
        if !problems.isEmpty { report.error = problems.joined(separator: "; ") }
        // Skipped entries are a list of what is there now, not an error of every round.
        if skipped.count > SyncEngine.maxRemoteProblems {
            skipped = Array(skipped.prefix(SyncEngine.maxRemoteProblems)) + ["\(skipped.count - SyncEngine.maxRemoteProblems) more entries skipped"]
        }
        let before = Set(state.remoteProblems ?? [])
        report.remoteProblems = skipped
        report.newRemoteProblems = skipped.filter { !before.contains($0) }
        state.remoteProblems = skipped.isEmpty ? nil : skipped
    }

    /// Reads and applies `device`'s batches beyond what this device has of it, from a listing
    /// of them (sorted; ranges may overlap after a compaction): each time the batch that
    /// continues from the next operation and reaches furthest, so a compacted range is one
    /// read, and an operation that arrives twice is applied once.
    private func pullBatches(of device: DeviceID, listed: [BatchName], from remote: any Remote,
                             newest: inout Int64, report: inout SyncReport) async throws {
        let account = state.account
        var seen = await repository.state.seen[device] ?? 0
        while let next = listed.first(where: { $0.last > seen }) {
            guard let batch = listed.filter({ $0.first <= seen + 1 && $0.last > seen }).max(by: { $0.last < $1.last }) else {
                throw RemoteError.permanent("device \(device.rawValue.prefix(8)) has no batch with operation \(seen + 1) (next is \(next)); waiting for it")
            }
            let bytes = try await call { try await remote.read(account: account, device: device, batch: batch, maxBytes: BatchFile.maxBytes) }
            let ops = try BatchFile.decode(bytes, device: device, name: batch)
            report.pulled += try await repository.applyRemote(ops)
            seen = batch.last
            newest = max(newest, ops.map(\.hlc.wallMillis).max() ?? 0)
        }
    }

    /// After the first full push to a remote: read this device's batches back and check
    /// they hold every operation up to the acked cursor, then record it as done. Returns the
    /// version markers the listing named (nil when this device has sent nothing).
    private func verifyMigration(_ remote: any Remote) async throws -> [String]? {
        let me = repository.device
        guard state.ackedSeq > 0 else {
            state.migratedTo = state.target
            return nil
        }
        var next: UInt64 = 1
        let account = state.account
        let listing = try await call { try await remote.listBatches(account: account, device: me) }
        for batch in listing.items where batch.last >= next {
            guard batch.first <= next else { break }
            let bytes = try await call { try await remote.read(account: account, device: me, batch: batch, maxBytes: BatchFile.maxBytes) }
            _ = try BatchFile.decode(bytes, device: me, name: batch)
            next = batch.last + 1
        }
        guard next > state.ackedSeq else {
            throw RemoteError.permanent("verification failed: the remote lacks this device's operations from \(next); run 'habitto sync' again")
        }
        state.migratedTo = state.target
        return listing.versions
    }

    // MARK: Remote calls

    /// The round was stopped by going offline.
    struct RoundStopped: Error {}

    /// Throws `RoundStopped` when the user went offline, here or in another process. Reads
    /// only the small settings file (`remote`), whatever `sync.json` has grown to.
    private func checkNotStopped() throws {
        if stopRequested || (try? RemoteSettings.load(paths))??.offline == true {
            stopRequested = true
            throw RoundStopped()
        }
    }

    /// Runs one remote call unless the user went offline; it ends when the call does, when
    /// `callLimit` passes (a transient error: the round ends as `unreachable`), or when the
    /// user goes offline (`RoundStopped`; the call is cancelled and its answer ignored).
    private func call<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try checkNotStopped()
        let answer = OneAnswer<T>()
        let work = Task { answer.give(await Result(catching: { try await body() })) }
        let limit = callLimit, clock = clock
        let timer = Task {
            do { try await clock.sleep(seconds: limit) } catch { return }
            answer.give(.failure(RemoteError.transient("the remote did not answer within \(Int(limit.rounded(.up))) s")))
            work.cancel()
        }
        abandonCall = {
            answer.give(.failure(RoundStopped()))
            work.cancel()
        }
        defer {
            timer.cancel()
            abandonCall = nil
        }
        return try await withCheckedThrowingContinuation { answer.wait($0) }
    }

    // MARK: Background

    /// Wakes the background loop soon (after a local write, or going online).
    public func poke() {
        wakeRequested = true
        wake?.continuation.resume()
        wake = nil
    }

    /// Clears a permanent failure and syncs now.
    public func retryNow() async {
        if let s = try? SyncState.update(paths, { s in
            s.failed = false
            s.attempts = 0
            s.nextRetryAt = nil
        }) { state = s }
        poke()
    }

    /// Runs until cancelled: a round after each poke (debounced), when a retry is due, and
    /// every `pullInterval` seconds; nothing while offline or failed.
    public func run() async {
        wakeRequested = true // a first round at once, so the status is fresh when the UI opens
        while !Task.isCancelled {
            let now = clock.now()
            var due: Double = pullEvery
            if let next = state.nextRetryAt { due = min(due, max(0, next.timeIntervalSince(now))) }
            if !wakeRequested { await sleep(seconds: due) }
            if Task.isCancelled { return }
            let poked = wakeRequested
            wakeRequested = false
            if poked { try? await clock.sleep(seconds: SyncEngine.gatherWrites) }
            state = (try? SyncState.load(paths)) ?? state
            if state.remote == nil || state.offline || (state.failed && !poked) { continue }
            if let next = state.nextRetryAt, next > clock.now(), !poked { continue }
            // Another process is syncing: try again shortly, so the round asked for (and the
            // "Syncing…" waiting for it) ends soon after theirs, not a pull interval later.
            if await syncOnce().skipped == .anotherProcessSyncing { wakeRequested = true }
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
