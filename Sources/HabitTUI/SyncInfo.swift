import FoundationEssentials
import HabitCore

/// What the UI knows about sync, as plain values (the executable fills it from the sync
/// engine; HabitTUI does not depend on it).
public struct SyncInfo: Hashable, Sendable {
    /// How sync stands.
    public enum Mode: Hashable, Sendable {
        /// No remote is set.
        case local
        /// The last round pushed and pulled everything.
        case online
        /// The offline switch is on: nothing is sent.
        case offline
        /// The last round could not reach the remote; it is retried.
        case unreachable
        /// The last round was refused; it waits for the user.
        case failed
    }

    /// A habit's part in sync, when it is not simply synced.
    public enum HabitStatus: Hashable, Sendable {
        /// It has operations not yet on the remote.
        case pending
        /// It has operations in the batch being sent.
        case syncing
        /// It has operations not yet on the remote, and sync failed.
        case failed
    }

    public var mode: Mode
    public var remote: String?
    public var pending: Int
    public var inFlight: Int
    /// A round is reading other devices' batches now.
    public var pulling: Bool
    /// Rounds ended so far (the last one is `history.last`): a change means a round ended.
    public var roundsEnded: Int
    public var lastSyncAt: Date?
    public var nextRetryAt: Date?
    public var lastError: String?
    /// Habits with operations not yet on the remote (absent: synced, or local without a remote).
    public var habitStatus: [HabitID: HabitStatus]
    /// The queue, oldest first.
    public var queue: [QueueItem]
    public var attempts: Int
    public var history: [Attempt]
    public var devices: [Device]
    /// Entries of the remote the last pull skipped, one sanitised line each.
    public var remoteProblems: [String]

    public struct QueueItem: Hashable, Sendable {
        public var habit: String
        public var kind: String
        public var madeAt: Date
        public init(habit: String, kind: String, madeAt: Date) { self.habit = habit; self.kind = kind; self.madeAt = madeAt }
    }
    public struct Attempt: Hashable, Sendable {
        public var at: Date
        public var pushed: Int
        public var pulled: Int
        public var error: String?
        public init(at: Date, pushed: Int, pulled: Int, error: String?) { self.at = at; self.pushed = pushed; self.pulled = pulled; self.error = error }
    }
    public struct Device: Hashable, Sendable {
        public var id: String
        public var lastSeen: Date
        public var aheadSeconds: Double?
        /// When the device made its newest change this device holds (nil before any).
        public var lastChange: Date?
        public init(id: String, lastSeen: Date, aheadSeconds: Double?, lastChange: Date? = nil) {
            self.id = id; self.lastSeen = lastSeen; self.aheadSeconds = aheadSeconds; self.lastChange = lastChange
        }
    }

    /// What `S` (and `habitto sync`) says while offline.
    public static let offlineHint = "offline: press o to go online"

    public init(mode: Mode = .local, remote: String? = nil, pending: Int = 0, inFlight: Int = 0, pulling: Bool = false,
                roundsEnded: Int = 0, lastSyncAt: Date? = nil,
                nextRetryAt: Date? = nil, lastError: String? = nil, habitStatus: [HabitID: HabitStatus] = [:],
                queue: [QueueItem] = [], attempts: Int = 0, history: [Attempt] = [], devices: [Device] = [],
                remoteProblems: [String] = []) {
        self.mode = mode; self.remote = remote; self.pending = pending; self.inFlight = inFlight
        self.pulling = pulling
        self.roundsEnded = roundsEnded
        self.lastSyncAt = lastSyncAt; self.nextRetryAt = nextRetryAt; self.lastError = lastError
        self.habitStatus = habitStatus; self.queue = queue; self.attempts = attempts; self.history = history
        self.devices = devices
        self.remoteProblems = remoteProblems
    }
}
