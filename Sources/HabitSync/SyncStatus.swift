import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// What the status bar and `habitto status` show. Derived from durable state, except
/// what is in flight right now.
public struct SyncStatus: Equatable, Sendable {
    public enum Mode: String, Sendable {
        case local, online, offline, unreachable, failed
    }
    public var mode: Mode
    public var remote: String?
    public var account: String
    public var device: DeviceID
    /// Operations of this device not yet acknowledged by the remote.
    public var pending: Int
    /// Operations in the batch being sent now.
    public var inFlight: Int
    /// A round is reading other devices' batches now.
    public var pulling = false
    /// Rounds this engine has ended with an outcome (the last one is `history.last`), so a
    /// watcher tells a new round from an identical one.
    public var roundsEnded = 0
    public var lastSyncAt: Date?
    /// When this device last heard from the remote: its last round that reached it, or a
    /// probe it answered (`SyncEngine.probe`), whichever is later.
    public var lastCheckedAt: Date?
    public var lastError: String?
    public var nextRetryAt: Date?
    /// Other devices: when they were last seen, and the version of Habitto each last ran
    /// (nil when it left no marker: an earlier version).
    /// `lastChange`: when the device made its newest change this device holds (nil before any).
    public var devices: [(id: DeviceID, lastSeen: Date, version: String?, lastChange: Date?)]
    /// Habits with unacknowledged operations, and those in the batch being sent.
    public var pendingHabits: Set<HabitID>
    public var syncingHabits: Set<HabitID>
    /// Devices whose operations came from a clock more than a minute ahead (seconds).
    public var clockAhead: [(id: DeviceID, seconds: Double)]
    public var history: [SyncState.Attempt]
    /// Entries of the remote the last complete pull skipped, one line each (see `SyncState`).
    public var remoteProblems: [String]
    /// How the loop learns of other devices' changes (watched, or on its timer).
    public var watch = WatchMode.off
    /// The oldest operations waiting to be sent (at most `queueShown`), for the sync screen.
    public var queued: [HabitOperation] = []
    /// Consecutive rounds that could not reach the remote (the backoff's step).
    public var attempts = 0

    /// The most waiting operations a status lists (`queued`).
    public static let queueShown = 50

    public static func == (a: SyncStatus, b: SyncStatus) -> Bool {
        a.mode == b.mode && a.remote == b.remote && a.account == b.account && a.device == b.device
            && a.pending == b.pending && a.inFlight == b.inFlight && a.pulling == b.pulling && a.roundsEnded == b.roundsEnded && a.lastSyncAt == b.lastSyncAt
            && a.lastError == b.lastError && a.nextRetryAt == b.nextRetryAt
            && a.devices.map(\.id) == b.devices.map(\.id) && a.devices.map(\.lastSeen) == b.devices.map(\.lastSeen)
            && a.devices.map(\.version) == b.devices.map(\.version) && a.devices.map(\.lastChange) == b.devices.map(\.lastChange)
            && a.pendingHabits == b.pendingHabits && a.syncingHabits == b.syncingHabits
            && a.clockAhead.map(\.id) == b.clockAhead.map(\.id) && a.history == b.history
            && a.remoteProblems == b.remoteProblems && a.queued.map(\.id) == b.queued.map(\.id) && a.attempts == b.attempts
            && a.watch == b.watch && a.lastCheckedAt == b.lastCheckedAt
    }

    /// A habit's part in sync; the raw value is the word `list --json` shows.
    public enum HabitStatus: String, Sendable {
        /// No remote is set.
        case local
        /// Every operation of it is on the remote.
        case synced
        /// It has operations not yet on the remote.
        case pending
        /// It has operations in the batch being sent.
        case syncing
        /// It has operations not yet on the remote, and sync failed.
        case failed
    }

    /// A habit's sync status: `local` without a remote, else `syncing`, `failed`, `pending`
    /// or `synced`.
    public func habitStatus(_ id: HabitID) -> HabitStatus {
        if remote == nil { return .local }
        if syncingHabits.contains(id) { return .syncing }
        if pendingHabits.contains(id) { return mode == .failed ? .failed : .pending }
        return .synced
    }
}

extension SyncStatus {
    /// The status `state` shows, with what waits to be sent (`queue`) and what a round is
    /// doing now (`activity`): made from them alone.
    init(state: SyncState, device: DeviceID, queue: QueueSummary, activity: RoundActivity) {
        self.init(mode: state.mode, remote: state.remote, account: state.account, device: device, pending: queue.count,
                  inFlight: activity.inFlight.count, pulling: activity.pulling, roundsEnded: activity.roundsEnded,
                  lastSyncAt: state.lastSyncAt, lastError: state.lastError, nextRetryAt: state.nextRetryAt,
                  devices: state.devicesSeen.map { (id: $0.key, lastSeen: $0.value, version: state.devicesVersion?[$0.key],
                                                    lastChange: state.devicesLastChange?[$0.key]) }
                      .sorted { $0.id < $1.id },
                  pendingHabits: queue.habits, syncingHabits: Set(activity.inFlight.map(\.change.habit)),
                  clockAhead: state.clockAhead.map { (id: $0.key, seconds: $0.value) }.sorted { $0.id < $1.id },
                  history: state.history, remoteProblems: state.remoteProblems ?? [])
        queued = queue.oldest
        attempts = state.attempts
    }
}

/// What waits to be sent, as last counted from the journal (from the scan offset: only the
/// records that hold the queue are read), and what it was counted for.
struct QueueSummary: Equatable, Sendable {
    var count = 0
    var habits = Set<HabitID>()
    /// The oldest of them, at most `SyncStatus.queueShown`.
    var oldest: [HabitOperation] = []
    /// The acknowledged cursor and this device's last operation when it was counted: the
    /// queue is the operations between them, so while neither moves it is what it was.
    var acked: UInt64 = 0
    var written: UInt64 = 0
}

/// What the round in progress is doing, for the status.
struct RoundActivity: Equatable, Sendable {
    /// The operations of the batch being sent.
    var inFlight: [HabitOperation] = []
    /// Other devices' batches are being read.
    var pulling = false
    /// Rounds this engine ended with an outcome.
    var roundsEnded = 0
    /// A round holds the state now (it may have changes not saved yet).
    var running = false
}

/// What one round did.
public struct SyncReport: Equatable, Sendable {
    public var pushed = 0
    public var batches = 0
    public var pulled = 0
    public var error: String?
    /// The remote had lost operations of this device it had acknowledged (emptied, restored
    /// from an old backup, re-created): this round sent them again.
    public var refilled = false
    /// Operations of other devices this round wrote again into their folders, which the
    /// remote had lost (or never had) while this device holds them.
    public var refilledOthers = 0
    /// Why the round did not run, or stopped before the end.
    public var skipped: Skip?
    /// Entries of the remote this round's pull skipped (every one, as in the status).
    public var remoteProblems: [String] = []
    /// Those of them the previous complete pull had not reported.
    public var newRemoteProblems: [String] = []

    /// Why a round did not run or stopped; `description` is what the commands print.
    public enum Skip: Equatable, Sendable, CustomStringConvertible {
        /// No remote is set.
        case noRemote
        /// The offline switch is on, or went on during the round.
        case offline
        /// Another process holds this data directory's sync lock.
        case anotherProcessSyncing

        public var description: String {
            switch self {
            case .noRemote: "no remote is set (habitto remote set dir:/path)"
            case .offline: "offline"
            case .anotherProcessSyncing: "another process is syncing this data directory"
            }
        }
    }
}
