import Foundation
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// What the sync engine keeps in `sync.json` in the data directory, written atomically and
/// fsync'd. Losing it loses nothing: with the acked cursor at 0 everything is sent again,
/// and a batch that is already on the remote with the same bytes counts as an ack.
public struct SyncState: Codable, Equatable, Sendable {
    /// `dir:/path` (or nil: local only).
    public var remote: String?
    public var account = "default"
    /// The WebDAV user (the password is never stored here).
    public var user: String?
    /// The user's offline switch (pauses sync).
    public var offline = false
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
    public var devicesSeen: [String: Date] = [:]
    /// How far ahead of this machine's clock the newest operation of a device was (seconds),
    /// when more than a minute.
    public var clockAhead: [String: Double] = [:]
    /// The remote and account a first full push was verified for (the migration is done).
    public var migratedTo: String?
    /// Recent rounds, newest last (for the sync screen).
    public var history: [Attempt] = []
    /// Entries of the remote the last complete pull skipped (a batch that is a FIFO, a
    /// folder or a link, a device folder whose name is not a device id, `0-0.batch`…), one
    /// sanitised line each. Replaced by each complete pull, so it lists what is there now,
    /// once, however many rounds see it. Absent (nil) when there are none.
    public var remoteProblems: [String]?

    /// One sync round as it ended.
    public struct Attempt: Codable, Equatable, Sendable {
        public var at: Date
        public var pushed: Int
        public var pulled: Int
        public var error: String?
    }

    public init() {}

    static func path(_ paths: DataPaths) -> String { paths.directory + "/sync.json" }

    /// Reads the state; a missing file is the default, a damaged one an error saying what to do.
    public static func load(_ paths: DataPaths) throws -> SyncState {
        guard let bytes = try Sys.readFile(path(paths), limit: 4 << 20) else { return SyncState() }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(SyncState.self, from: Data(bytes))
        } catch {
            throw StoreError.unreadable(path: path(paths),
                                        detail: "is damaged; delete it to start sync over (nothing is lost: what the remote already has is recognised)")
        }
    }

    /// Writes the state durably (temp file, fsync, rename, fsync directory).
    public func save(_ paths: DataPaths) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try Sys.writeAtomically(Array(try encoder.encode(self)), to: SyncState.path(paths))
    }

    /// Runs `body` with the settings lock held: every read-modify-write of `sync.json`
    /// (by the engine or a command, in any process) goes through it, so none is lost.
    public static func withLock<T>(_ paths: DataPaths, _ body: () throws -> T) throws -> T {
        try Sys.withLock(paths.directory + "/sync.json.lock", body)
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
        try update(paths) { s in s.ackedSeq = 0; s.scanOffset = 0; s.migratedTo = nil }
    }

    /// "remote/account", identifying where the data goes.
    public var target: String? { remote.map { "\($0)#\(account)" } }
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

/// Builds a remote from its text form: `dir:/abs/path`, `file:///abs/path`, or an
/// `https://` (or loopback `http://`) WebDAV URL.
public func makeRemote(_ spec: String, user: String? = nil, access: RemoteAccess = RemoteAccess()) throws -> any Remote {
    if spec.hasPrefix("https://") || spec.hasPrefix("http://") {
        guard let url = URL(string: spec) else { throw CoreError.invalid("remote '\(Sanitize.display(spec))' is not a valid URL") }
        do {
            return try WebDAVRemote(url: url, user: user, password: user == nil ? nil : try access.password(), caFile: access.caFile)
        } catch let e as RemoteError {
            throw CoreError.invalid(e.message)
        }
    }
    if spec.hasPrefix("dir:") {
        let path = String(spec.dropFirst(4))
        guard path.hasPrefix("/") else { throw CoreError.invalid("remote '\(Sanitize.display(spec))': use an absolute path, like dir:/mnt/sync/habitto") }
        return DirectoryRemote(root: path)
    }
    if spec.hasPrefix("file://") {
        let path = String(spec.dropFirst(7))
        guard path.hasPrefix("/") else { throw CoreError.invalid("remote '\(Sanitize.display(spec))': use file:///absolute/path") }
        return DirectoryRemote(root: path.removingPercentEncoding ?? path)
    }
    throw CoreError.invalid("remote '\(Sanitize.display(spec))' not understood: use dir:/path/to/folder, file:///path/to/folder, https://server/path or none")
}
