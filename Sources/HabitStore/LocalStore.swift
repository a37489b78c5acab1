import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// The repository's files and folded state, confined to the actor.
final class LocalStore {
    let paths: DataPaths
    let journal: Journal
    let lockFD: Int32
    let device: DeviceID
    let snapshotEvery: Int
    var state = HabitState()
    var undo = UndoHistory()
    var lastRecord: (offset: Int, crc: UInt32)?
    /// How far the journal's records are known to pass their checksums as they are on
    /// disk now (see `Snapshot.verifiedOffset`); the next snapshot checks the rest.
    var verifiedOffset = Journal.headerSize
    /// Where warnings found after opening go (a damaged record found by a snapshot write).
    let sink: WarningSink
    var recordsSinceSnapshot = 0
    /// Operations folded since the snapshot: a few records can hold very many (an import,
    /// a first pull), and replaying them at every start must not wait for 1,000 records.
    var operationsSinceSnapshot = 0
    static let snapshotAfterOperations = 10_000
    var snapshotIsDue: Bool {
        recordsSinceSnapshot >= snapshotEvery || operationsSinceSnapshot >= LocalStore.snapshotAfterOperations
    }
    /// The undo history kept: at most this many commands, and this many changes in all,
    /// so that a huge command (an import) cannot make every start-up slow.
    static let undoLimit = 1000
    static let undoChangeLimit = 10_000

    /// The program's clock (for the names of saved torn tails).
    let now: @Sendable () -> Date

    init(paths: DataPaths, journal: Journal, lockFD: Int32, device: DeviceID, snapshotEvery: Int, sink: WarningSink,
         now: @escaping @Sendable () -> Date) {
        self.paths = paths; self.journal = journal; self.lockFD = lockFD; self.device = device
        self.snapshotEvery = snapshotEvery; self.sink = sink; self.now = now
    }

    deinit { Sys.close(lockFD) }

    static func open(paths: DataPaths, io: FileIO, snapshotEvery: Int, sink: WarningSink,
                     keepDecodedDays: Bool = true, now: @escaping @Sendable () -> Date) throws -> (LocalStore, DeviceID, [Warning]) {
        try Sys.makeDirectories(paths.directory)
        let lockFD = try lockedDescriptor(paths)
        // From here the lock is held; on failure it is released before the descriptor closes.
        let device: DeviceID
        let journal: Journal
        do {
            device = try readOrCreateDevice(paths)
            journal = try Journal(path: paths.journal, io: io)
        } catch {
            Sys.unlock(lockFD)
            Sys.close(lockFD)
            throw error
        }
        // The store owns the descriptor now and closes it when it goes away.
        let store = LocalStore(paths: paths, journal: journal, lockFD: lockFD, device: device, snapshotEvery: snapshotEvery,
                               sink: sink, now: now)
        // Unlock before the store (which owns the descriptor) can be released.
        defer { withExtendedLifetime(store) { Sys.unlock(lockFD) } }
        // What a process killed with kill -9 left behind (its process is gone).
        Leftovers.removeStale(paths)
        let start = store.loadSnapshot(keepDecodedDays: keepDecodedDays)
        var warnings = start.warnings
        let replayedAll = journal.endOffset == Journal.headerSize
        warnings += try store.catchUp(locked: true)
        // A replay from the start has just checked every record.
        if replayedAll { store.verifiedOffset = journal.endOffset }
        if let notAFile = start.notAFile {
            warnings.append(.snapshotNotAFile(path: paths.snapshot, kind: notAFile))
        } else if store.snapshotIsDue || (start.rebuild && journal.readOnlyReason == nil) {
            try? store.writeSnapshot()
        }
        return (store, device, warnings)
    }

    /// The data directory's lock file, opened and locked (opened read-only where it cannot
    /// be written); the descriptor is closed when the lock cannot be taken.
    private static func lockedDescriptor(_ paths: DataPaths) throws -> Int32 {
        let lockFD: Int32
        do {
            lockFD = try Sys.open(paths.lock, O_RDWR | O_CREAT)
        } catch StoreError.io(_, _, let e) where (e == EROFS || e == EACCES || e == EPERM)
                    && FileManager.default.fileExists(atPath: paths.lock) {
            // Reading stays possible; writes report why not. Never waits to open (a FIFO there).
            lockFD = try Sys.open(paths.lock, O_RDONLY | O_NONBLOCK)
        }
        do {
            try Sys.lock(lockFD, path: paths.lock, name: DataPaths.lockName)
        } catch {
            Sys.close(lockFD)
            throw error
        }
        return lockFD
    }

    /// Takes the state, undo history and journal position from the snapshot when it can be
    /// used. Returns the warnings, whether the snapshot is to be rebuilt, and what stands in
    /// its place when that is not a regular file.
    private func loadSnapshot(keepDecodedDays: Bool) -> (warnings: [Warning], rebuild: Bool, notAFile: String?) {
        var warnings: [Warning] = []
        // A snapshot that could not be used is rebuilt at once (it is only a cache), so that
        // the warning is given once, not by every later command replaying the whole journal.
        var rebuild = false
        let snapshotFile: MappedFile?
        // Something other than a file there (a folder, a FIFO, a link) is neither read nor
        // replaced: `doctor --repair` moves it aside (see `Doctor.caches`).
        var notAFile: String?
        do {
            snapshotFile = try MappedFile(path: paths.snapshot)
        } catch {
            snapshotFile = nil
            rebuild = true
            notAFile = Doctor.notRegular(paths.snapshot)
            if notAFile == nil {
                warnings.append(.snapshotUnreadable(path: paths.snapshot, error: "\(error)"))
            }
        }
        if let file = snapshotFile {
            let (loaded, why) = Snapshot.load(from: file, journal: journal, repair: Self.repairDays(paths, sink: sink),
                                              keepDecodedDays: keepDecodedDays)
            if var snap = consume loaded {
                // Swapped in, not copied: the store is then the only owner of the state's
                // storage, and its first change (the journal's tail, a check-in) does not
                // copy every habit's entry first.
                swap(&state, &snap.state)
                swap(&undo, &snap.undo)
                lastRecord = snap.lastRecord
                verifiedOffset = snap.verifiedOffset
                journal.advance(to: snap.coveredOffset)
            } else {
                rebuild = true
                warnings.append(.snapshotIgnored(path: paths.snapshot, why: why ?? "unreadable"))
            }
        }
        return (warnings, rebuild, notAFile)
    }

    /// What a damaged snapshot block falls back to: the habit's days folded from the
    /// journal up to the offset the snapshot covers. The damaged snapshot is removed (it is
    /// only a cache, rebuilt on a later start) and a warning is left in `sink`.
    static func repairDays(_ paths: DataPaths, sink: WarningSink) -> SnapshotBlock.Repair {
        { habit, covered in
            Sys.removeFile(paths.snapshot)
            do {
                let fd = try Sys.open(paths.journal, O_RDONLY)
                defer { Sys.close(fd) }
                let bytes = try Sys.pread(fd, count: covered - Journal.headerSize, offset: Journal.headerSize, path: paths.journal)
                var state = HabitState()
                for rec in Journal.scan(bytes, base: Journal.headerSize).records {
                    for op in try JournalEntry(decoding: rec.payload).ops { state.apply(op) }
                }
                sink.add(.snapshotPartDamaged(path: paths.snapshot))
                return state.entries[habit]?.days ?? [:]
            } catch {
                sink.add(.snapshotPartDamagedJournalUnreadable(path: paths.snapshot, error: "\(error)"))
                return [:]
            }
        }
    }

    /// This device's id from its file; nil when there is none yet. A file that is not an id
    /// (damaged, empty, a directory) throws, saying what to do: the one check of that file,
    /// used by every command and by the doctor.
    static func readDevice(_ paths: DataPaths) throws -> DeviceID? {
        let bytes: [UInt8]?
        do { bytes = try Sys.readFile(paths.device, limit: 4096) } catch StoreError.io(_, _, let e) where e == EISDIR {
            throw StoreError.unreadable(path: paths.device, detail: "is a directory, not this device's id; move it away and Habitto will create a new device id")
        }
        guard let bytes else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
        guard let id = DeviceID(text) else {
            throw StoreError.unreadable(path: paths.device,
                                        detail: "is damaged (expected 32 hex characters); delete it and Habitto will create a new device id")
        }
        return id
    }

    static func readOrCreateDevice(_ paths: DataPaths) throws -> DeviceID {
        if let id = try readDevice(paths) { return id }
        var rng = SystemRandomNumberGenerator()
        let id = DeviceID.random(using: &rng)
        try Sys.writeAtomically(Array((id.rawValue + "\n").utf8), to: paths.device)
        return id
    }

    func withLock<T>(_ body: () throws -> T) throws -> T {
        try Sys.lock(lockFD, path: paths.lock, name: DataPaths.lockName)
        defer { Sys.unlock(lockFD) }
        return try body()
    }

    /// Folds every complete record after the read position. With the lock held a torn
    /// tail is saved aside and cut off; without it, an incomplete tail is left for later.
    func catchUp(locked: Bool) throws -> [Warning] {
        let (records, end, status) = try journal.read(from: journal.endOffset)
        for rec in records {
            let entry: JournalEntry
            do { entry = try JournalEntry(decoding: rec.payload) } catch {
                throw StoreError.corrupt(path: journal.path, offset: rec.offset, detail: "record cannot be read: \(error)")
            }
            try absorb(entry, offset: rec.offset, crc: CRC32C.checksum(rec.payload))
        }
        journal.advance(to: end)
        switch status {
        case .clean:
            return []
        case .corrupt(let offset, let detail):
            throw StoreError.corrupt(path: journal.path, offset: offset, detail: detail)
        case .torn(let offset):
            guard locked else { return [] }
            if journal.readOnlyReason != nil {
                return [.tornTailKept(journal: journal.path, offset: offset)]
            }
            let size = try journal.fileSize()
            var saved: (bytes: Int, file: String)?
            if size > offset {
                let fd = journal.fd
                let bytes = try Sys.pread(fd, count: size - offset, offset: offset, path: journal.path)
                // A real folder of the data directory: a link there is refused, never written through.
                try Sys.makeOwnFolder(paths.recovered)
                // Never replace an earlier saved tail (same offset, same second): the lock is held.
                let stem = "\(paths.recovered)/torn-at-\(offset)-\(Int(now().timeIntervalSince1970))"
                var name = stem + ".bin"
                var n = 1
                while try Sys.entryStatus(name) != nil { n += 1; name = "\(stem)-\(n).bin" }
                try Sys.writeAtomically(bytes, to: name)
                saved = (bytes.count, name)
            }
            try journal.truncate(to: offset)
            return [.tornTailRemoved(journal: journal.path, offset: offset, savedBytes: saved?.bytes ?? 0, savedTo: saved?.file)]
        }
    }

    func absorb(_ entry: JournalEntry, offset: Int, crc: UInt32) throws {
        for op in entry.ops {
            if case .outOfOrder(let expected) = state.apply(op) {
                throw StoreError.corrupt(path: journal.path, offset: offset,
                                         detail: "operation \(op.id) arrived before \(op.id.device.rawValue.prefix(8))#\(expected)")
            }
        }
        if let first = entry.ops.first, first.id.device == device {
            if let undone = entry.undoes {
                undo.remove(firstSeq: undone)
            } else if !entry.inverse.isEmpty && entry.inverse.count <= LocalStore.undoChangeLimit {
                undo.append(UndoItem(firstSeq: first.id.seq, inverse: entry.inverse, label: entry.label))
                undo.trim(limit: LocalStore.undoLimit, changeLimit: LocalStore.undoChangeLimit)
            }
        }
        lastRecord = (offset, crc)
        recordsSinceSnapshot += 1
        operationsSinceSnapshot += entry.ops.count
    }

    /// Gives changes this device's next sequence numbers and HLC readings.
    func stamp(_ changes: [Change], device: DeviceID, nowMillis: Int64) -> [HabitOperation] {
        var seq = state.seen[device] ?? 0
        var clock = state.clock
        return changes.map { change in
            seq += 1
            clock = clock.tick(nowMillis: nowMillis)
            return HabitOperation(id: OpID(device: device, seq: seq), hlc: clock, change: change)
        }
    }

    /// The changes that revert `ops`, computed against the current (pre-write) state.
    func inverse(of ops: [HabitOperation]) -> [Change] {
        // A progress change moves the day's running total by what it really added or took
        // (the total stays within 0…max), so its inverse gives back exactly that; the
        // command's changes are walked in order, as they will apply. A change that moved
        // nothing has no inverse.
        var running: [HabitID: [LocalDay: Int]] = [:]
        var moved: [Int: Int] = [:]
        for (i, op) in ops.enumerated() {
            let step: DayOp, h: HabitID, d: LocalDay
            switch op.change {
            case .progress(let habit, let day, let delta): (step, h, d) = (DayOp(stamp: op.stamp, delta: delta), habit, day)
            case .setProgress(let habit, let day, let total): (step, h, d) = (DayOp(stamp: op.stamp, total: total), habit, day)
            default: continue
            }
            let before = running[h]?[d] ?? state.progress(h, d)
            let after = step.total(after: before)
            running[h, default: [:]][d] = after
            moved[i] = after - before
        }
        var inv: [Change] = []
        for (i, op) in ops.enumerated().reversed() {
            switch op.change {
            case .create(let h, _): inv.append(.delete(h))
            case .set(let h, let value):
                if let e = state.entries[h] { inv.append(.set(h, FieldValue.current(index: value.index, of: e.fields))) }
            case .setFrom(let h, let d, let value):
                inv.append(Self.restoring(h, DatedField(day: d, index: value.index), in: state))
            case .clearFrom(let h, let d, let index):
                inv.append(Self.restoring(h, DatedField(day: d, index: index), in: state))
            case .delete(let h): inv.append(.restore(h, deleteOp: op.id))
            case .restore(let h, _): inv.append(.delete(h))
            case .progress(let h, let d, _), .setProgress(let h, let d, _):
                // An uncheck gives back what it took (a yes/no "not done" takes the whole day);
                // a "set" step, what it moved the total by.
                if let m = moved[i], m != 0 { inv.append(.progress(h, d, delta: -m)) }
            case .skip(let h, let d, _): inv.append(.skip(h, d, state.record(h, d)?.isSkipRegisterOn ?? false))
            case .rate(let h, let d, _): inv.append(.rate(h, d, state.difficulty(h, d)))
            case .note(let h, let d, _): inv.append(.note(h, d, state.note(h, d)))
            case .notDone(let h, let d, _): inv.append(.notDone(h, d, state.record(h, d)?.notDoneRegister?.value ?? false))
            case .pause(let h, let from, let to, _): inv += Self.restoringPause(h, from: from, to: to, in: state)
            }
        }
        return inv
    }

    /// The changes that give the pause registers of `from`…`to` back as `state` holds them:
    /// one change a run of days with the same value (a day never paused gets nil, not paused).
    static func restoringPause(_ h: HabitID, from: LocalDay, to: LocalDay, in state: HabitState) -> [Change] {
        var out: [Change] = []
        var start = from, value = state.record(h, from)?.pauseRegister?.value
        var day = from.adding(1)
        while day <= to.adding(1) {
            let v = day <= to ? state.record(h, day)?.pauseRegister?.value : nil
            if day > to || v != value {
                out.append(.pause(h, from: start, to: day.adding(-1), reason: value))
                start = day; value = v
            }
            day = day.adding(1)
        }
        return out
    }

    /// The change that gives a dated register back as `state` holds it: its value, or a clear
    /// when it is cleared or was never written (a cleared register reads as none).
    static func restoring(_ h: HabitID, _ key: DatedField, in state: HabitState) -> Change {
        if let value = state.entries[h]?.dated[key]?.value { return .setFrom(h, key.day, value) }
        return .clearFrom(h, key.day, index: key.index)
    }

    /// Appends and fsyncs one entry, then folds it in. Nothing changes in memory on failure.
    /// A `bulk` write (one batch of a pull) leaves a snapshot due by operation count to the
    /// end of the pull (`HabitRepository.snapshotIfDue`), so that catching up on a long
    /// history writes one snapshot rather than one per 10,000 operations.
    func write(_ entry: JournalEntry, device: DeviceID, bulk: Bool = false) throws {
        let payload = entry.encoded()
        let offset = try journal.append(payload)
        try absorb(entry, offset: offset, crc: CRC32C.checksum(payload))
        if bulk ? recordsSinceSnapshot >= snapshotEvery : snapshotIsDue { try? writeSnapshot() }
    }

    /// Writes a snapshot of everything folded so far. First the journal's records from
    /// `verifiedOffset` on are read back and their checksums checked (a sequential read of
    /// what no snapshot checked before), so that damage under the snapshot is found when it is
    /// written, not when a restore needs the record. A damaged record does not stop the
    /// snapshot (the state came from records that were intact when read, and is what a repair
    /// rebuilds from); it leaves a warning in `sink`, and is checked again by the next one.
    func writeSnapshot() throws {
        // Never in the place of something that is not a file (`Doctor.caches`).
        if let kind = Doctor.notRegular(paths.snapshot) {
            throw StoreError.unreadable(path: paths.snapshot, detail: "is \(kind), not a regular file; run habitto doctor --repair to move it to recovered/")
        }
        var verified = verifiedOffset
        var damage: Warning?
        do {
            try journal.forEachRecord(from: verified, to: journal.endOffset) { rec in
                verified = rec.offset + Journal.frameOverhead + rec.payload.count
                return true
            }
        } catch StoreError.corrupt(let path, let offset, _) {
            damage = .journalDamaged(path: path, offset: offset)
        }
        let snap = Snapshot(coveredOffset: journal.endOffset, lastRecord: lastRecord, state: state, undo: undo,
                            verifiedOffset: verified)
        try Sys.writeAtomically(snap.encoded(), to: paths.snapshot)
        verifiedOffset = verified
        recordsSinceSnapshot = 0
        operationsSinceSnapshot = 0
        if let damage { sink.add(damage) }
    }
}
