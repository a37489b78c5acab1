import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// What a backup file says about itself.
public struct BackupInfo: Sendable, Equatable {
    /// The file name without `.hbk` (`20261121-183005-import`): what `backup restore` takes.
    public let id: String
    public let path: String
    public let created: Date
    /// Why it was made: `manual`, `before-import`, `before-restore`, `before-remote`, `before-repair`.
    public let reason: String
    public let note: String?
    /// The device that made it.
    public let device: String
    public let operations: Int
    public let habits: Int
    public let bytes: Int
}

/// A backup read back and verified: its operations and the state they fold to.
public struct LoadedBackup: Sendable {
    public let info: BackupInfo
    public let operations: [HabitOperation]
    public let state: HabitState
}

/// Backups: single self-verifying files in the data directory's `backups` folder, each a
/// copy of every journal record at one moment (so it holds every operation, with its
/// identity, and can be merged without double counting).
///
/// Layout: magic, `u32 headerLength`, header (JSON: created, reason, note, device, counts,
/// state digest), the journal records as the journal frames them, then a trailer:
/// `u64 length of everything before it`, `u32 CRC-32C of everything before it`.
public enum Backups {
    /// Version 2 holds journal records with amounts in thousandths; version 1 backups,
    /// written before amounts had decimals, are read as well (each record's operations say
    /// how their amounts are stored).
    static let magic = Array("HABITTO-BACKUP\u{2}".utf8)
    /// The version of the backup format written (its magic's last byte).
    static var formatVersion: Int { Int(magic[magic.count - 1]) }
    static let wholeUnitMagic = Array("HABITTO-BACKUP\u{1}".utf8)
    static let trailerSize = 12
    public static let fileExtension = ".hbk"

    /// The backup folder of a data directory.
    public static func directory(_ paths: DataPaths) -> String { paths.directory + "/backups" }

    /// Writes a backup of `records` (journal record bytes, starting at the journal's first
    /// record), durably and atomically, and returns what it wrote. Every record is checked
    /// first as a restore checks it (checksum, decoding, sequence) and the header describes
    /// their fold, so a backup that would not restore is never made: a damaged record throws
    /// `StoreError.corrupt` with its offset in the journal. `fieldCount` (see
    /// `StateFormat.fieldCount`) writes the header an older version wrote, for tests.
    static func write(paths: DataPaths, records: [UInt8], device: DeviceID,
                      reason: String, note: String?, now: Date, fieldCount: Int = FieldValue.count) throws -> BackupInfo {
        let state: HabitState
        do {
            state = try fold(records, base: Journal.headerSize).state
        } catch let e as RecordProblem {
            throw StoreError.corrupt(path: paths.journal, offset: e.offset, detail: e.detail + "; no backup was made")
        }
        let dir = directory(paths)
        // A real folder of the data directory: a link there is refused, never written through.
        try Sys.makeOwnFolder(dir)
        let stamp = UTCTime.compact(now)
        var id = "\(stamp)-\(reason)"
        var n = 2
        while try Sys.entryStatus("\(dir)/\(id)\(fileExtension)") != nil { id = "\(stamp)-\(reason)-\(n)"; n += 1 }
        let habits = state.habits.count
        let ops = Int(state.operationCount)
        // A backup of this version's format says that its digest's encoding ends with the
        // dated registers; one written as an older version wrote it does not.
        let definitions = fieldCount == FieldValue.count
        var members: [String: JSON] = [
            "created": .int(Int(now.timeIntervalSince1970 * 1000)), "reason": .string(reason), "note": .optional(note),
            "device": .string(device.rawValue), "operations": .int(ops), "habits": .int(habits),
            "stateDigest": .int(Int(CRC32C.checksum(state.encoded(as: StateFormat(fieldCount: fieldCount, datedRegisters: definitions))))),
            "habitFields": .int(fieldCount),
        ]
        if definitions { members["definitions"] = .bool(true) }
        let header: JSON = .object(members)
        let headerBytes = Array(header.serialized().utf8)
        var w = ByteWriter(capacity: magic.count + 4 + headerBytes.count + records.count + trailerSize)
        w.raw(magic)
        w.u32le(UInt32(headerBytes.count))
        w.raw(headerBytes)
        w.raw(records)
        let body = w.bytes
        w.u64le(UInt64(body.count))
        w.u32le(CRC32C.checksum(body))
        let path = "\(dir)/\(id)\(fileExtension)"
        try Sys.writeAtomically(w.bytes, to: path)
        return BackupInfo(id: id, path: path, created: now, reason: reason, note: note, device: device.rawValue,
                          operations: ops, habits: habits, bytes: w.bytes.count)
    }

    /// Reads and verifies a backup completely: checksum, every record, the fold and its
    /// digest. Throws `StoreError.unreadable` saying what is wrong.
    public static func load(path: String) throws -> LoadedBackup {
        let (info, records) = try verifiedFile(path)
        let ops: [HabitOperation], state: HabitState
        do { (ops, state) = try fold(records, base: 0) } catch let e as RecordProblem {
            throw StoreError.unreadable(path: path, detail: "\(e.detail) inside the backup; use another backup")
        }
        guard ops.count == info.operations, state.habits.count == info.habits,
              Int(CRC32C.checksum(state.encoded(as: info.format))) == info.digest
        else { throw StoreError.unreadable(path: path, detail: "its contents do not match its header; use another backup") }
        return LoadedBackup(info: info.info, operations: ops, state: state)
    }

    /// Why journal record bytes cannot be restored: the record's offset and what is wrong.
    struct RecordProblem: Error { let offset: Int; let detail: String }

    /// Checks and folds journal record bytes (which start at offset `base`) as a restore
    /// does: every record's checksum, that it decodes, and that every operation follows on
    /// from its device's previous one. The one check shared by writing and reading backups.
    static func fold(_ records: [UInt8], base: Int) throws -> (ops: [HabitOperation], state: HabitState) {
        var state = HabitState()
        var ops: [HabitOperation] = []
        let scan = Journal.scan(records, base: base)
        for rec in scan.records {
            guard let entry = try? JournalEntry(decoding: rec.payload) else {
                throw RecordProblem(offset: rec.offset, detail: "the record at byte \(rec.offset) cannot be read")
            }
            for op in entry.ops {
                guard state.apply(op) == .applied else {
                    throw RecordProblem(offset: rec.offset, detail: "operation \(op.id) at byte \(rec.offset) is out of sequence")
                }
                ops.append(op)
            }
        }
        switch scan.status {
        case .clean: return (ops, state)
        case .torn(let offset): throw RecordProblem(offset: offset, detail: "the record at byte \(offset) is damaged")
        case .corrupt(let offset, let detail): throw RecordProblem(offset: offset, detail: "the record at byte \(offset) is damaged (\(detail))")
        }
    }

    /// Checks a backup's framing, its checksum and every record's checksum, and reads its
    /// header (no fold: `load` does that).
    public static func verify(path: String) throws -> BackupInfo {
        let (header, records) = try verifiedFile(path)
        guard Journal.scan(records, base: 0).status == .clean else {
            throw StoreError.unreadable(path: path, detail: "a record inside the backup is damaged; this backup cannot be used (other backups: habitto backup list)")
        }
        return header.info
    }

    /// `amountScale`: `Amount.scale` for a version 1 backup, whose digest was taken of a
    /// state encoded in whole units; else 1. `fieldCount`: how many field registers the
    /// digest's encoding has (backups written before the order key existed have no
    /// `habitFields` and eleven; those written before reminder times twelve).
    private struct Header {
        let info: BackupInfo; let operations: Int; let habits: Int; let digest: Int; let amountScale: Int; let fieldCount: Int
        /// Whether the digest's encoding ends with the dated registers (backups written since
        /// they exist say so; see `StateFormat.datedRegisters`).
        let definitions: Bool
        /// The format of the state the digest was taken of.
        var format: StateFormat { StateFormat(amountScale: amountScale, fieldCount: fieldCount, datedRegisters: definitions) }
    }

    private static func verifiedFile(_ path: String) throws -> (Header, [UInt8]) {
        func bad(_ why: String) -> StoreError { .unreadable(path: path, detail: "\(why); this backup cannot be used (other backups: habitto backup list)") }
        // A link or anything but a regular file is refused unread (a FIFO would block).
        guard let bytes = try Sys.readFile(path, limit: 1 << 32, followLinks: false) else { throw bad("does not exist") }
        guard bytes.count >= magic.count + 4 + trailerSize,
              [magic, wholeUnitMagic].contains(Array(bytes.prefix(magic.count))) else {
            throw bad("is not a Habitto backup")
        }
        var t = ByteReader(Array(bytes.suffix(trailerSize)))
        let length = try t.u64le(), crc = try t.u32le()
        guard length == UInt64(bytes.count - trailerSize) else { throw bad("is cut short or has bytes added") }
        guard CRC32C.checksum(bytes, 0..<(bytes.count - trailerSize)) == crc else { throw bad("fails its checksum (damaged)") }
        var r = ByteReader(Array(bytes[magic.count..<(magic.count + 4)]))
        let headerLength = Int(try r.u32le())
        let headerStart = magic.count + 4
        guard headerLength <= bytes.count - trailerSize - headerStart else { throw bad("has a damaged header") }
        let headerBytes = Array(bytes[headerStart..<(headerStart + headerLength)])
        guard case .object(let o)? = try? JSON.parse(headerBytes),
              case .int(let created)? = o["created"], case .string(let reason)? = o["reason"], case .string(let device)? = o["device"],
              case .int(let ops)? = o["operations"], case .int(let habits)? = o["habits"], case .int(let digest)? = o["stateDigest"]
        else { throw bad("has a damaged header") }
        let id = path.pathLastComponent.pathDroppingExtension
        let info = BackupInfo(id: id, path: path, created: Date(timeIntervalSince1970: Double(created) / 1000),
                              reason: reason, note: o["note"]?.stringValue, device: device, operations: ops, habits: habits,
                              bytes: bytes.count)
        let records = Array(bytes[(headerStart + headerLength)..<(bytes.count - trailerSize)])
        let amountScale = Array(bytes.prefix(magic.count)) == magic ? 1 : Amount.scale
        let fieldCount = o["habitFields"]?.intValue ?? FieldValue.countBeforePosition
        guard FieldValue.storedCounts.contains(fieldCount) else { throw bad("has a damaged header") }
        return (Header(info: info, operations: ops, habits: habits, digest: digest, amountScale: amountScale,
                       fieldCount: fieldCount, definitions: o["definitions"] == .bool(true)), records)
    }

    /// Every backup file, newest first, each verified (checksum) or with why it cannot be used.
    /// Throws when the backup folder is a symbolic link or not a folder (it is not followed).
    public static func list(_ paths: DataPaths) throws -> [(id: String, result: Result<BackupInfo, StoreError>)] {
        let dir = directory(paths)
        let names = try Sys.folderEntries(dir, followLinks: false) ?? []
        return names.filter { $0.hasSuffix(fileExtension) }.sorted(by: >).map { name in
            let id = String(name.dropLast(fileExtension.count))
            do { return (id, .success(try verify(path: "\(dir)/\(name)"))) }
            catch let e as StoreError { return (id, .failure(e)) }
            catch { return (id, .failure(.unreadable(path: "\(dir)/\(name)", detail: "\(error)"))) }
        }
    }

    /// The path of backup `id` (a file name in the backup folder, with or without `.hbk`).
    public static func path(of id: String, in paths: DataPaths) throws -> String {
        let name = id.hasSuffix(fileExtension) ? String(id.dropLast(fileExtension.count)) : id
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw StoreError.noSuchBackup(id: Sanitize.display(id), malformed: true)
        }
        if let st = try Sys.entryStatus(directory(paths)), st.st_mode & S_IFMT != S_IFDIR {
            if st.st_mode & S_IFMT == S_IFLNK { throw StoreError.link(path: directory(paths)) }
            throw StoreError.unreadable(path: directory(paths), detail: "is not a folder; move it away")
        }
        let path = "\(directory(paths))/\(name)\(fileExtension)"
        guard try Sys.entryStatus(path) != nil else {
            throw StoreError.noSuchBackup(id: Sanitize.display(name), malformed: false)
        }
        return path
    }

    /// Deletes backups older than `keepDays` days, always keeping the newest valid one, and
    /// leftovers of interrupted writes. Returns the ids deleted.
    public static func prune(_ paths: DataPaths, keepDays: Int, now: Date) throws -> [String] {
        let dir = directory(paths)
        let cutoff = now.addingTimeInterval(-Double(keepDays) * 86_400)
        let all = try list(paths)
        let newestValid = all.first { if case .success = $0.result { return true } else { return false } }?.id
        var removed: [String] = []
        for (id, result) in all where id != newestValid {
            guard case .success(let info) = result, info.created < cutoff else { continue }
            try Sys.call("unlink", "delete", info.path) { unlink(info.path) }
            removed.append(id)
        }
        // Temp files of writes that were interrupted (a crash mid-backup), by processes that are gone.
        Leftovers.removeStaleTemporaries(in: dir)
        if !removed.isEmpty { try Sys.syncDirectory(dir) }
        return removed
    }

    /// For a journal damaged in the middle (no command can open it): copies the damaged
    /// journal, snapshot and device id into `recovered/damaged-…/`, then starts the journal
    /// over from the backup's records under a new device id (operations this device made
    /// after the backup may exist on a remote under the old id: a sync pulls them like any
    /// other device's, so no sequence number is ever reused). Returns the folder with the
    /// damaged files. The caller resets its sync cursor (it belonged to the old id).
    public static func replaceDamagedJournal(paths: DataPaths, backup: LoadedBackup, now: Date) throws -> String {
        // `backup` was verified completely by `load`; its framing is checked again as read.
        let (_, records) = try verifiedFile(backup.info.path)
        return try startOver(paths: paths, records: records, now: now)
    }

    /// Sets the damaged files aside and starts the journal over from `records` under a new
    /// device id, with the directory lock held (see `replaceDamagedJournal`).
    static func startOver(paths: DataPaths, records: [UInt8], now: Date) throws -> String {
        try Sys.withLock(paths.lock, name: DataPaths.lockName) { try startOverLocked(paths: paths, records: records, now: now) }
    }

    private static func startOverLocked(paths: DataPaths, records: [UInt8], now: Date) throws -> String {
        let saved = "\(paths.recovered)/damaged-\(UTCTime.compact(now))-\(getpid())"
        try Sys.makeOwnFolder(paths.recovered)
        try Sys.makeOwnFolder(saved)
        for file in [paths.journal, paths.snapshot, paths.device] {
            if Doctor.notRegular(file) != nil {
                // A folder, a FIFO, a link: moved there as it is, never read or followed.
                _ = try Sys.setAside(file, into: saved, now: now)
            } else if let bytes = try Sys.readFile(file) {
                try Sys.writeAtomically(bytes, to: saved + "/" + file.pathLastComponent)
            }
        }
        // A new identity first: should this stop half way, the damaged journal is still in
        // place and the restore can simply be run again.
        var rng = SystemRandomNumberGenerator()
        try Sys.writeAtomically(Array((DeviceID.random(using: &rng).rawValue + "\n").utf8), to: paths.device)
        try Sys.removeIfPresent(paths.snapshot)
        SegmentCache.remove(paths)
        try Sys.writeAtomically(Journal.magic + records, to: paths.journal)
        return saved
    }
}

extension HabitRepository {
    /// Writes a backup of everything in the journal now (with the lock held, after reading
    /// what other processes appended).
    public func backup(reason: String, note: String? = nil) throws -> BackupInfo {
        try withStore { store, now, device in
            _ = try store.catchUp(locked: true)
            let end = store.journal.endOffset
            let records = try Sys.pread(store.journal.fd, count: end - Journal.headerSize, offset: Journal.headerSize,
                                        path: store.journal.path)
            return try Backups.write(paths: store.paths, records: records, device: device,
                                     reason: reason, note: note, now: now)
        }
    }

    /// Brings the state to a backup's (`.replace`) or adds what it has that the state lacks
    /// (`.merge`), as one journal append of ordinary operations, so it syncs and undoes.
    public func restore(_ backup: LoadedBackup, mode: ReconcileMode) throws -> (CommitResult, Reconciliation) {
        try reconcile(to: TargetHabit.all(of: backup.state), mode: mode, label: "restore backup \(backup.info.id)")
    }

    /// Writes what `Reconcile.plan` asks for to bring the state to `targets` in `mode` (a
    /// restore, an import), as one journal append of ordinary operations labelled `label`.
    /// The plan is made with the lock held, on the state that includes every other
    /// process's writes; returns the write and that plan.
    public func reconcile(to targets: [TargetHabit], mode: ReconcileMode, label: String) throws
        -> (CommitResult, Reconciliation)
    {
        let box = ReconcileBox()
        let result = try commit(label: label) { state, _ in
            let plan = Reconcile.plan(current: state, targets: targets, mode: mode)
            box.set(plan)
            return plan.changes
        }
        return (result, box.get() ?? Reconciliation())
    }
}

/// Carries a value out of a `@Sendable` closure that runs synchronously.
final class ReconcileBox: @unchecked Sendable {
    private let lock = Lock()
    private var value: Reconciliation?
    func set(_ v: Reconciliation) { lock.lock(); value = v; lock.unlock() }
    func get() -> Reconciliation? { lock.lock(); defer { lock.unlock() }; return value }
}
