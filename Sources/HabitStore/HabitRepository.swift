import FoundationEssentials
import HabitCore
import HabitSys

/// What the repository tells its subscribers.
public enum RepositoryEvent: Sendable {
    /// The state changed (a local write, or records appended by another process).
    case changed(HabitState)
    /// Something the user should know about (a torn tail removed, a snapshot rebuilt).
    case warning(Warning)
}

/// The result of a successful, durable write.
public struct CommitResult: Sendable {
    /// The state after the write.
    public let state: HabitState
    /// The stamped operations that were written (empty when there was nothing to do).
    public let operations: [HabitOperation]
}

/// A page of the journal, newest first (`HabitRepository.journalPage`).
public struct JournalPage: Sendable {
    /// An entry and the offset of its record.
    public struct Item: Sendable {
        public let offset: Int
        public let entry: JournalEntry
    }
    public let entries: [Item]
    /// What to pass as `before` for the next page; nil when the journal's start was reached.
    public let next: Int?
}

/// The only writer of local data. Every change is stamped (device, seq, HLC), appended to
/// the journal and fsync'd before it is acknowledged; then folded into the state and
/// published. Appends from several processes on one directory are serialised by a file
/// lock, and each process reads what the others appended before it writes.
public actor HabitRepository {
    public nonisolated let paths: DataPaths
    public nonisolated let device: DeviceID
    /// Warnings gathered while opening (torn tail removed, snapshot rebuilt).
    public nonisolated let openingWarnings: [Warning]
    /// Warnings that arise later (a damaged snapshot block found when first read).
    public nonisolated let warnings: WarningSink

    /// Records between snapshots. Every command replays the records after the snapshot, and
    /// a snapshot costs a rewrite: 250 keeps both small on average (docs/performance.md).
    public static let snapshotInterval = 250

    /// The default actor whose executor the repository shares (its own, in effect), or nil
    /// when it runs on the main thread's (see `init`).
    private nonisolated let home: ExecutorHome?

    /// Where the repository's work runs: like any actor's (the shared thread pool), or the
    /// main thread's executor when opened with `onMainThread`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        home?.unownedExecutor ?? MainActor.sharedUnownedExecutor
    }

    private let store: LocalStore
    private let now: @Sendable () -> Date
    /// The clock the repository stamps its operations with (the program's one clock).
    public nonisolated var clock: @Sendable () -> Date { now }
    /// The UI's event streams (a command has none): a list, whose empty value costs a
    /// command nothing, where a dictionary's type was set up at every start.
    private var subscribers: [(id: UUID, continuation: AsyncStream<RepositoryEvent>.Continuation)] = []

    /// Opens (creating when needed) the data directory. Throws `StoreError` when the
    /// directory cannot be used or the journal is corrupt in the middle.
    /// With `keepDecodedDays` false, a habit's full day records are decoded from the
    /// snapshot each time they are needed and not kept; the rules' columns always are.
    /// With `onMainThread`, its work runs on the main thread's executor: a one-shot command
    /// that runs on the main actor then never starts the thread pool. The main thread must
    /// not block while it awaits.
    public init(directory: String, now: @escaping @Sendable () -> Date = SystemClock.now, io: FileIO = .live,
                snapshotEvery: Int = HabitRepository.snapshotInterval, keepDecodedDays: Bool = true,
                onMainThread: Bool = false) throws {
        home = onMainThread ? nil : ExecutorHome()
        paths = DataPaths(directory: directory)
        self.now = now
        let sink = WarningSink()
        let (store, device, warnings) = try LocalStore.open(paths: paths, io: io, snapshotEvery: snapshotEvery, sink: sink,
                                                            keepDecodedDays: keepDecodedDays, now: now)
        self.warnings = sink
        self.store = store
        self.device = device
        openingWarnings = warnings
    }

    /// The current state.
    public var state: HabitState { store.state }

    /// This device's undoable changes, oldest first.
    public var undoStack: [UndoItem] { (try? store.undo.items()) ?? [] }

    /// Journal entries of this device's own changes (commits and undos) this repository wrote:
    /// a command that made some has something to send (`habitto sync --background`).
    public private(set) var localWrites = 0

    /// Validates and writes one change made of several operations, atomically. `build`
    /// runs with the lock held, on the state that includes every other process's writes,
    /// and returns the changes (or throws to write nothing). `label` describes the change
    /// for undo; by default it is derived from the changes.
    @discardableResult
    public func commit(label: String? = nil,
                       _ build: @Sendable (HabitState, DeviceID) throws -> [Change]) throws -> CommitResult {
        let result = try store.withLock { () throws -> CommitResult in
            let warnings = try store.catchUp(locked: true)
            warnings.forEach(publishWarning)
            let changes = try build(store.state, device)
            for change in changes { try change.validate() }
            guard !changes.isEmpty else { return CommitResult(state: store.state, operations: []) }
            let ops = store.stamp(changes, device: device, nowMillis: millis())
            let inverse = store.inverse(of: ops)
            let text = label ?? changes.describe(in: store.state)
            try store.write(JournalEntry(ops: ops, inverse: inverse, label: text), device: device)
            localWrites += 1
            return CommitResult(state: store.state, operations: ops)
        }
        if !result.operations.isEmpty { publish() }
        return result
    }

    /// Reverts the newest change made on this device that is not yet undone, by writing
    /// its inverse. Returns what was undone, or nil when there is nothing to undo.
    public func undo() throws -> UndoItem? {
        let item = try store.withLock { () throws -> UndoItem? in
            let warnings = try store.catchUp(locked: true)
            warnings.forEach(publishWarning)
            guard let item = try store.undo.last() else { return nil }
            let ops = store.stamp(item.inverse, device: device, nowMillis: millis())
            try store.write(JournalEntry(ops: ops, undoes: item.firstSeq, label: "undo " + item.label), device: device)
            localWrites += 1
            return item
        }
        if item != nil { publish() }
        return item
    }

    /// Applies operations pulled from a remote, through the journal like local ones (one
    /// record, fsync'd). Already-seen operations are skipped; each device's operations must
    /// follow on from what was seen (a gap throws and nothing is written). Returns how many
    /// operations were new.
    @discardableResult
    public func applyRemote(_ ops: [HabitOperation]) throws -> Int {
        let count = try store.withLock { () throws -> Int in
            let warnings = try store.catchUp(locked: true)
            warnings.forEach(publishWarning)
            var next = store.state.seen
            var fresh: [HabitOperation] = []
            for op in ops {
                let last = next[op.id.device] ?? 0
                if op.id.seq <= last { continue }
                guard op.id.seq == last + 1 else {
                    throw StoreError.unreadable(path: "remote operations",
                                                detail: "operation \(op.id) arrived before \(op.id.device.rawValue.prefix(8))#\(last + 1); nothing was applied")
                }
                next[op.id.device] = op.id.seq
                fresh.append(op)
            }
            guard !fresh.isEmpty else { return 0 }
            try store.write(JournalEntry(ops: fresh, label: "pulled"), device: device, bulk: true)
            return fresh.count
        }
        if count > 0 { publish() }
        return count
    }

    /// This device's operations with a sequence number above `afterSeq`, oldest first, at
    /// most `limit`, read from the journal starting at `fromOffset` (a hint: a record offset
    /// at or before the first such operation; 0 reads from the start). Also returns the
    /// offset of the first record holding one of them, the hint for next time.
    public func localOperations(afterSeq: UInt64, fromOffset: Int, limit: Int) throws -> (ops: [HabitOperation], firstOffset: Int?) {
        var ops: [HabitOperation] = []
        var firstOffset: Int?
        try forEachLocalOperation(afterSeq: afterSeq, fromOffset: fromOffset) { op, offset in
            if firstOffset == nil { firstOffset = offset }
            guard ops.count < limit else { return false }
            ops.append(op)
            return true
        }
        return (ops, firstOffset)
    }

    /// Operations of any `device` (this one or another whose operations were pulled) with a
    /// sequence number above `afterSeq`, oldest first and consecutive, at most `limit` (at
    /// most `maxOperationsRead`), read from the journal's start: what this device holds of
    /// it, to send again to a remote that lost them. Stops at the first gap.
    public func operations(of device: DeviceID, afterSeq: UInt64, limit: Int) throws -> [HabitOperation] {
        let most = min(max(limit, 0), Self.maxOperationsRead)
        var ops: [HabitOperation] = []
        guard most > 0 else { return ops }
        try forEachOperation(of: device, afterSeq: afterSeq, fromOffset: 0) { op, _ in
            guard op.id.seq == afterSeq + UInt64(ops.count) + 1 else { return false }
            ops.append(op)
            return ops.count < most
        }
        return ops
    }

    /// The most operations `operations(of:afterSeq:limit:)` returns at once.
    public static let maxOperationsRead = 10_000

    /// As `localOperations`, with the offset the read covered (`scannedTo`): when no operation
    /// is found, nothing before it needs reading again. It is the journal's end as known
    /// before the read, taken in the same call, so a record appended meanwhile (by this
    /// process or another) is never passed over.
    public func pendingOperations(afterSeq: UInt64, fromOffset: Int, limit: Int) throws
        -> (ops: [HabitOperation], firstOffset: Int?, scannedTo: Int)
    {
        let end = store.journal.endOffset
        let (ops, first) = try localOperations(afterSeq: afterSeq, fromOffset: fromOffset, limit: limit)
        return (ops, first, max(fromOffset, end))
    }

    /// How many of this device's operations have a sequence number above `afterSeq`, which
    /// habits they touch, and the oldest `keep` of them, read from `fromOffset` (as
    /// `localOperations`) without keeping the others.
    public func pendingSummary(afterSeq: UInt64, fromOffset: Int, keep: Int = 0) throws
        -> (count: Int, habits: Set<HabitID>, oldest: [HabitOperation])
    {
        var count = 0
        var habits = Set<HabitID>()
        var oldest: [HabitOperation] = []
        try forEachLocalOperation(afterSeq: afterSeq, fromOffset: fromOffset) { op, _ in
            count += 1
            habits.insert(op.change.habit)
            if oldest.count < keep { oldest.append(op) }
            return true
        }
        return (count, habits, oldest)
    }

    /// The bytes of journal records read to find this device's operations (by
    /// `localOperations`, `pendingOperations` and `pendingSummary`) since the repository was
    /// opened: what looking for the queue has cost.
    public private(set) var localScanBytes = 0

    /// Walks this device's operations above `afterSeq` in the records folded so far, from
    /// `fromOffset`, reading the journal a window at a time; `body` returns false to stop.
    private func forEachLocalOperation(afterSeq: UInt64, fromOffset: Int,
                                       _ body: (HabitOperation, _ recordOffset: Int) throws -> Bool) throws {
        try forEachOperation(of: device, afterSeq: afterSeq, fromOffset: fromOffset, body)
    }

    /// Walks `device`'s operations above `afterSeq` as `forEachLocalOperation` walks this one's.
    private func forEachOperation(of device: DeviceID, afterSeq: UInt64, fromOffset: Int,
                                  _ body: (HabitOperation, _ recordOffset: Int) throws -> Bool) throws {
        let journal = store.journal
        try journal.forEachRecord(from: max(Journal.headerSize, fromOffset), to: journal.endOffset) { rec in
            localScanBytes += rec.payload.count
            let entry: JournalEntry
            do { entry = try JournalEntry(decoding: rec.payload) } catch {
                throw StoreError.corrupt(path: journal.path, offset: rec.offset, detail: "record cannot be read: \(error)")
            }
            for op in entry.ops where op.id.device == device && op.id.seq > afterSeq {
                guard try body(op, rec.offset) else { return false }
            }
            return true
        }
    }

    /// At most `limit` journal entries (one a command or a pull), newest first, of the records
    /// folded so far that start before `before` (a page's `next`; nil: from the newest), read
    /// backwards from there a window at a time: a page costs what its records hold, however long
    /// the journal is (`historyReadBytes`). Every device's operations are in it, in the order
    /// this device received them.
    public func journalPage(before: Int?, limit: Int) throws -> JournalPage {
        let journal = store.journal
        let end = min(before ?? journal.endOffset, journal.endOffset)
        var entries: [JournalPage.Item] = []
        var next: Int? = end > Journal.headerSize ? end : nil
        guard limit > 0, end > Journal.headerSize else { return JournalPage(entries: entries, next: next) }
        historyReadBytes += try journal.forEachRecordBackward(from: end) { rec in
            do { entries.append(JournalPage.Item(offset: rec.offset, entry: try JournalEntry(decoding: rec.payload))) } catch {
                throw StoreError.corrupt(path: journal.path, offset: rec.offset, detail: "record cannot be read: \(error)")
            }
            historyReadRecords += 1
            next = rec.offset > Journal.headerSize ? rec.offset : nil
            return entries.count < limit
        }
        return JournalPage(entries: entries, next: next)
    }

    /// The bytes of the journal `journalPage` has read since the repository was opened.
    public private(set) var historyReadBytes = 0
    /// The records `journalPage` has decoded since the repository was opened.
    public private(set) var historyReadRecords = 0

    /// The journal offset up to which this process has read (a hint for `localOperations`).
    public var journalEnd: Int { store.journal.endOffset }

    /// Reads records appended by other processes. Returns true when the state changed.
    @discardableResult
    public func refresh() throws -> Bool {
        let before = store.journal.endOffset
        let warnings = try store.catchUp(locked: false)
        warnings.forEach(publishWarning)
        let changed = store.journal.endOffset != before
        if changed { publish() }
        return changed
    }

    /// Runs `body` with the directory lock held, on the store, the clock's reading and this
    /// device (for the other files of this module: backups).
    func withStore<T>(_ body: (LocalStore, Date, DeviceID) throws -> T) throws -> T {
        try store.withLock { try body(store, now(), device) }
    }

    /// Writes a snapshot of everything read so far (a cache for fast start-up).
    public func writeSnapshot() throws { try store.writeSnapshot() }

    /// Writes a snapshot when many records or operations were folded since the last one
    /// (after a pull: see `LocalStore.write`'s `bulk`).
    public func snapshotIfDue() throws { if store.snapshotIsDue { try store.writeSnapshot() } }

    /// A stream of state changes and warnings, starting with the current state.
    public func events() -> AsyncStream<RepositoryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RepositoryEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        subscribers.append((id, continuation))
        continuation.yield(.changed(store.state))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UUID) { subscribers.removeAll { $0.id == id } }

    private func publish() {
        // A command has no subscriber: it then does not build the event type's metadata.
        guard !subscribers.isEmpty else { return }
        for s in subscribers { s.continuation.yield(.changed(store.state)) }
    }

    private func publishWarning(_ w: Warning) {
        for s in subscribers { s.continuation.yield(.warning(w)) }
    }

    private func millis() -> Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// An actor with nothing in it, whose default executor an actor that can also run on the
/// main thread (`HabitRepository`, `SyncEngine`) uses as its own when it does not.
public actor ExecutorHome {
    public init() {}
}
