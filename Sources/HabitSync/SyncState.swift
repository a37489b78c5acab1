import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// What the sync engine keeps in the data directory, written atomically and fsync'd: the
/// settings the user chose (remote, account, user, offline switch) in the small text file
/// `remote` (see `RemoteSettings`), and the cursor and status in `sync.json`. Losing
/// `sync.json` loses only the cursor and the status: the next push lists what the remote
/// already has of this device and sends the rest (`SyncEngine`).
public struct SyncState: Codable, Equatable, Sendable {
    /// `dir:/path` (or nil: local only).
    public var remote: String?
    public var account = "default"
    /// The WebDAV user (the password is never stored here).
    public var user: String?
    /// The user's offline switch (pauses sync).
    public var offline = false
    /// `age` when the remote is encrypted (a setting, kept in `remote`, never in `sync.json`).
    public var encrypt: String?
    /// The highest sequence number of this device the remote has durably.
    public var ackedSeq: UInt64 = 0
    /// A journal offset at or before the first record with an unacked operation.
    public var scanOffset = 0
    public var lastSyncAt: Date?
    public var lastAttemptAt: Date?
    public var lastError: String?
    /// A permanent failure: no automatic retry until the user asks or the remote changes.
    public var failed = false
    /// Consecutive transient failures (for the backoff).
    public var attempts = 0
    public var nextRetryAt: Date?
    /// Devices seen on the remote (hex id) and when their operations were last seen.
    public var devicesSeen: [DeviceID: Date] = [:]
    /// How far ahead of this machine's clock the newest operation of a device was (seconds),
    /// when more than a minute.
    public var clockAhead: [DeviceID: Double] = [:]
    /// The remote and account a first full push was verified for (the migration is done).
    public var migratedTo: SyncTarget?
    /// Recent rounds, newest last (for the sync screen).
    public var history: [Attempt] = []
    /// Entries of the remote the last complete pull skipped (a batch that is a FIFO, a
    /// folder or a link, a device folder whose name is not a device id, `0-0.batch`…), one
    /// sanitised line each. Replaced by each complete pull, so it lists what is there now,
    /// once, however many rounds see it. Absent (nil) when there are none.
    public var remoteProblems: [String]?
    /// What was learnt about the remote it names (`target`): ignored for any other.
    public var learnt: Learnt?
    /// Where the last range compaction read starts: its first operation, and the journal
    /// offset of the record holding it, so the next compaction of that range or a later
    /// one does not read the journal from its start (a hint: a read that does not find the
    /// range there reads from the start).
    public var compactedFrom: JournalMark?
    /// The identity in the remote's `format` file when this device last read it: another
    /// identity there means the layout was made again (the remote was emptied or replaced),
    /// and this device sends what the remote lacks again.
    public var remoteID: String?
    /// The age recipient the remote's `format` file named when this device last read it (with
    /// `remoteID`); nil: not encrypted.
    public var remoteRecipient: String?
    /// The remotes and accounts this device has used encrypted: it never writes to them
    /// unencrypted (kept when the remote setting changes, so a remote set again without the
    /// key is refused, whatever its `format` says now).
    public var encryptedTargets: [SyncTarget]?
    /// Whether that format said ` age` with no recipient: encrypted, the recipient off the
    /// remote, and a keycheck vouching for the format (`Keycheck`).
    public var remoteKeychecked: Bool?
    /// The version of Habitto each device last ran, from its marker in its `ops` folder.
    public var devicesVersion: [DeviceID: String]?
    /// When each other device made the newest of its changes this device holds (the wall
    /// clock of that operation's stamp, as that device's clock read it). Absent (nil) before
    /// any was pulled.
    public var devicesLastChange: [DeviceID: Date]?
    /// For each other device, the most of it that another device's batch said it had seen
    /// (kept from round to round, as each batch is read once): a listing of that device that
    /// ends before it is reported. Absent (nil) when no batch said so.
    public var claims: [DeviceID: PullPlan.Claim]?

    /// An operation of this device and a journal offset at or before the record holding it.
    public struct JournalMark: Codable, Equatable, Sendable {
        public var seq: UInt64
        public var offset: Int
    }

    /// What rounds learnt about one remote, so that later rounds (in any process) need fewer
    /// requests: the largest batch it accepted after refusing a larger one, and what it is
    /// known to have (folders, a checked format file).
    public struct Learnt: Codable, Equatable, Sendable {
        /// The remote and account (`SyncState.target`) this is about.
        public var target: SyncTarget
        /// At most this many operations a batch (nil: the remote's own maximum).
        public var maxBatchOperations: Int?
        /// Opaque keys of `Remote.knownToExist`, sorted.
        public var existing: [String] = []
    }

    /// One sync round as it ended.
    public struct Attempt: Codable, Equatable, Sendable {
        public var at: Date
        public var pushed: Int
        public var pulled: Int
        public var error: String?
    }

    public init() {}

    static func path(_ paths: DataPaths) -> String { paths.directory + "/sync.json" }

    /// Whether `sync.json` (the cursor and status) exists; without it the next push first
    /// lists what the remote holds of this device.
    public static func cursorFileExists(_ paths: DataPaths) -> Bool { Sys.canAccess(path(paths), F_OK) }

    /// The settings kept in the `remote` file, not in `sync.json`.
    var settings: RemoteSettings {
        get { RemoteSettings(remote: remote, account: account, user: user, offline: offline, encrypt: encrypt) }
        set {
            remote = newValue.remote; account = newValue.account; user = newValue.user; offline = newValue.offline
            encrypt = newValue.encrypt
        }
    }

    /// Reads the state: the cursor and status from `sync.json` and the settings from
    /// `remote`. A missing file is the default; a damaged one an error saying what to do.
    /// A data directory of an older version has its settings only in `sync.json`: they are
    /// used from there until the next save writes them to `remote`.
    public static func load(_ paths: DataPaths) throws -> SyncState {
        var state = SyncState()
        if let bytes = try Sys.readFile(path(paths), limit: 4 << 20) {
            do {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                // The settings are not in it (they are in `remote`): their defaults stand in.
                guard case .object(var fields) = try JSON.parse(bytes) else {
                    throw StoreError.unreadable(path: path(paths), detail: "is not a JSON object")
                }
                fields["account"] = fields["account"] ?? .string("default")
                fields["offline"] = fields["offline"] ?? .bool(false)
                state = try decoder.decode(SyncState.self, from: Data(JSON.object(fields).serialized().utf8))
            } catch {
                throw StoreError.unreadable(path: path(paths),
                                            detail: "is damaged; delete it to start sync over (the remote setting is kept in \(RemoteSettings.path(paths)); the next sync skips what the remote already has)")
            }
        }
        if let settings = try RemoteSettings.load(paths) { state.settings = settings }
        return state
    }

    /// Writes the state durably (temp file, fsync, rename, fsync directory): the settings to
    /// `remote` (only when they changed; removed when there are none), then the rest to
    /// `sync.json`.
    public func save(_ paths: DataPaths) throws {
        try settings.save(paths)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Every field but the settings, whatever fields the state gains.
        guard case .object(var fields) = try JSON.parse(Array(try encoder.encode(self))) else {
            throw StoreError.unreadable(path: SyncState.path(paths), detail: "could not be encoded")
        }
        for key in RemoteSettings.fieldNames { fields[key] = nil }
        try Sys.writeAtomically(Array(JSON.object(fields).serialized().utf8), to: SyncState.path(paths))
    }

    /// Moves the settings of an older version's `sync.json` to the `remote` file (once: after
    /// that the file exists), so that losing `sync.json` no longer loses them.
    public static func moveSettingsOutOfSyncJSON(_ paths: DataPaths) throws {
        guard !RemoteSettings.exists(paths) else { return }
        try withLock(paths) {
            let state = try load(paths)
            if !RemoteSettings.exists(paths) && state.settings != RemoteSettings() { try state.save(paths) }
        }
    }

    /// Runs `body` with the settings lock held: every read-modify-write of `sync.json`
    /// (by the engine or a command, in any process) goes through it, so none is lost.
    public static func withLock<T>(_ paths: DataPaths, _ body: () throws -> T) throws -> T {
        try Sys.withLock(paths.directory + "/sync.json.lock", name: "the sync state lock", body)
    }

    /// Changes the stored state under the lock and returns the result.
    @discardableResult
    public static func update(_ paths: DataPaths, _ change: (inout SyncState) throws -> Void) throws -> SyncState {
        try withLock(paths) {
            var s = try load(paths)
            try change(&s)
            try s.save(paths)
            return s
        }
    }

    /// Starts sync over for a journal that started over under a new device id (a restore or
    /// repair of a damaged journal): the acked cursor belonged to the old id.
    public static func startOver(_ paths: DataPaths) throws {
        try update(paths) { s in s.ackedSeq = 0; s.scanOffset = 0; s.migratedTo = nil; s.compactedFrom = nil }
    }

    /// What earlier rounds learnt about the current remote (nil if nothing, or if it was
    /// about another remote).
    var learntNow: Learnt? {
        guard let target, let learnt, learnt.target == target else { return nil }
        return learnt
    }

    /// Records what a round learnt about the current remote: what it knows exists, and the
    /// largest batch it takes when that is below its own maximum.
    mutating func learn(_ existing: Set<String>, maxBatchOperations: Int? = nil) {
        guard let target else { return }
        var l = learntNow ?? Learnt(target: target)
        if let maxBatchOperations { l.maxBatchOperations = maxBatchOperations }
        l.existing = existing.sorted()
        learnt = l
    }

    /// The settings alone: the `remote` file, or `sync.json` where an older version kept them.
    public static func loadSettings(_ paths: DataPaths) throws -> RemoteSettings {
        try RemoteSettings.load(paths) ?? load(paths).settings
    }

    /// Where the data goes (nil: local only).
    public var target: SyncTarget? { remote.map { SyncTarget(remote: $0, account: account) } }

    /// The remote the settings name, typed (nil: local only); throws `SyncSettingError` for
    /// a setting that names none.
    public func remoteSpec() throws -> RemoteSpec? {
        try remote.map { try RemoteSpec($0, user: user, encrypted: encrypt != nil) }
    }
}

/// How a sync round ended, as far as the mode is concerned. A round stopped by going
/// offline has no outcome: it changes nothing here.
public enum RoundOutcome: Equatable, Sendable {
    /// Everything pending was pushed and the pull completed (`note`: a device's bad batches,
    /// reported without blocking anything).
    case synced(note: String?)
    /// The remote did not answer, or asked to wait: retried with backoff.
    case unreachable(String, retryAfter: Double?)
    /// The remote refused in a way retrying will not fix: waits for the user.
    case failed(String)
}

extension SyncState {
    /// The mode shown everywhere: a pure function of the settings and of the last round's
    /// outcome as recorded by `record`.
    public var mode: SyncStatus.Mode {
        if remote == nil { return .local }
        if offline { return .offline }
        if failed { return .failed }
        return attempts > 0 ? .unreachable : .online
    }

    /// Records a round's outcome; each outcome sets every field the mode depends on, so the
    /// mode after a round never depends on the one before it (only the backoff's length
    /// does). `jitter` (0–1) picks the retry delay within the backoff ceiling.
    public mutating func record(_ outcome: RoundOutcome, at now: Date, jitter: Double) {
        switch outcome {
        case .synced(let note):
            failed = false
            attempts = 0
            nextRetryAt = nil
            lastSyncAt = now
            lastError = note
        case .unreachable(let message, let retryAfter):
            failed = false
            attempts += 1
            let ceiling = min(SyncEngine.backoffCap, SyncEngine.backoffBase * pow(2, Double(min(attempts, 20))))
            nextRetryAt = now.addingTimeInterval(max(retryAfter ?? 0, min(1, max(0, jitter)) * ceiling))
            lastError = message
        case .failed(let message):
            failed = true
            attempts = 0
            nextRetryAt = nil
            lastError = message
        }
    }
}
