import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// A problem the doctor found: what is wrong and what to do about it.
public struct Finding: Sendable, Equatable {
    /// The check that found it (`journal`, `snapshot`, `config`, `permissions`, `remote`).
    public let check: String
    public let problem: String
    /// What the user (or `--repair`) should do.
    public let fix: String
    /// True when `doctor --repair` fixes it safely.
    public let repairable: Bool
    /// What kind of repair (`truncate-tail`, `rebuild-snapshot`, `rebuild-from-snapshot`, `requeue:N`,
    /// `move-aside:NAME`, `remove-batch:NAME`).
    public let repair: String?
    public init(check: String, problem: String, fix: String, repair: String? = nil) {
        self.check = check; self.problem = problem; self.fix = fix; self.repairable = repair != nil; self.repair = repair
    }
    /// One line: the problem and what to do.
    public var line: String { "\(check): \(problem); \(fix)" }
}

/// What the local checks saw.
public struct LocalCheck: Sendable {
    /// One line per check that passed or was informative.
    public var passed: [String] = []
    public var findings: [Finding] = []
    /// The journal's valid records (up to any damage) and their fold, when readable.
    public var validRecords: Int = 0
    public var operations: Int = 0
    public var state: HabitState?
    /// This device's id, when its file is readable.
    public var device: DeviceID?
    /// The valid records' bytes (what a backup made before a repair holds).
    var validBytes: [UInt8] = []
}

/// Integrity checks of a data directory that read but never write.
public enum Doctor {
    /// Checks the journal (checksums, record decoding, sequence gaps), the snapshot against
    /// a full replay, the config file and file permissions.
    public static func checkLocal(paths: DataPaths, configPath: String?) -> LocalCheck {
        var out = LocalCheck()
        do { out.device = try LocalStore.readDevice(paths) } catch {
            out.findings.append(Finding(check: "device", problem: "\(error)",
                                        fix: "nothing recorded is lost (the operations made so far keep the old id, like another device's)"))
        }
        checkFileKinds(paths, &out)
        checkJournal(paths, &out)
        checkSnapshot(paths, &out)
        checkFiles(paths, configPath: configPath, &out)
        checkNames(&out)
        return out
    }

    /// Habits that share a name (two devices that each added "Walk" merge into two habits
    /// so named): commands refuse that name, so each is named with a rename that parts them.
    static func checkNames(_ out: inout LocalCheck) {
        guard let state = out.state else { return }
        let groups = Edits.namesakes(state.habits)
        guard !groups.isEmpty else { out.passed.append("names: every habit has a name of its own"); return }
        for group in groups {
            let name = Sanitize.display(group[0].name)
            let which = group.map { "\($0.id) \(Edits.whereAndWhen($0))" }.joined(separator: ", ")
            let renames = group.dropFirst().enumerated().map { i, h in
                "habitto edit \(h.id) --name \(shellQuoted(Sanitize.display(h.name) + " \(i + 2)"))"
            }.joined(separator: "; ")
            out.findings.append(Finding(check: "names", problem: "\(group.count) habits are named '\(name)' (\(which)), so commands refuse that name",
                                        fix: "rename all but one: \(renames)"))
        }
    }

    static func checkJournal(_ paths: DataPaths, _ out: inout LocalCheck) {
        let path = paths.journal
        // A link is not followed (checkFileKinds reports it).
        if let st = try? Sys.entryStatus(path), st.st_mode & S_IFMT == S_IFLNK { return }
        let bytes: [UInt8]
        do {
            guard let b = try withDirectoryLock(paths, { try Sys.readFile(path, followLinks: false) }) else {
                out.passed.append("journal: none yet (nothing recorded)")
                out.state = HabitState()
                return
            }
            bytes = b
        } catch let busy as StoreError where busy.isLockBusy {
            out.findings.append(Finding(check: "journal", problem: "not checked: \(busy)", fix: "then run habitto doctor again"))
            return
        } catch {
            out.findings.append(Finding(check: "journal", problem: "cannot be read (\(error))", fix: "check the file's permissions"))
            return
        }
        guard bytes.count >= Journal.headerSize, Array(bytes.prefix(Journal.headerSize)) == Journal.magic else {
            out.findings.append(Finding(check: "journal", problem: "\(path) is not a Habitto journal (unknown header)",
                                        fix: "move it away and restore a backup: habitto backup list, then habitto backup restore ID --replace"))
            return
        }
        let scan = Journal.scan(Array(bytes[Journal.headerSize...]), base: Journal.headerSize)
        var state = HabitState()
        var ops = 0
        /// A damaged record: repairable from the snapshot when a valid one covers it.
        func damaged(at offset: Int, _ problem: String) {
            out.validBytes = Array(bytes[Journal.headerSize..<offset])
            out.validRecords = scan.records.prefix { $0.offset < offset }.count
            if let covered = snapshotCovering(paths, offset) {
                out.findings.append(Finding(check: "journal", problem: problem + "; the snapshot (up to byte \(covered)) holds the data it covers, so every command still works",
                                            fix: "run habitto doctor --repair to rebuild the journal from the snapshot (new journal, new device id; the damaged files are kept in recovered/)",
                                            repair: "rebuild-from-snapshot"))
            } else {
                out.findings.append(Finding(check: "journal", problem: problem, fix: restoreAdvice(paths)))
            }
        }
        for rec in scan.records {
            guard let entry = try? JournalEntry(decoding: rec.payload) else {
                damaged(at: rec.offset, "the record at byte \(rec.offset) passes its checksum but cannot be read")
                return
            }
            for op in entry.ops {
                if case .outOfOrder(let expected) = state.apply(op) {
                    damaged(at: rec.offset, "sequence gap at byte \(rec.offset): operation \(op.id) follows \(op.id.device.rawValue.prefix(8))#\(expected - 1)")
                    return
                }
                ops += 1
            }
        }
        out.validRecords = scan.records.count
        out.operations = ops
        out.validBytes = Array(bytes[Journal.headerSize..<scan.end])
        switch scan.status {
        case .clean:
            out.passed.append("journal: \(Plural.count(scan.records.count, "record")), \(Plural.count(ops, "operation")) from \(Plural.count(state.seen.count, "device")); every checksum and sequence is intact")
            out.state = state
        case .torn(let offset) where snapshotCovering(paths, offset) != nil:
            // Not a torn write: the snapshot covers records after this point.
            damaged(at: offset, "damaged at byte \(offset) (a record that fails its checksum)")
        case .torn(let offset):
            out.findings.append(Finding(check: "journal", problem: "ends in an incomplete record at byte \(offset) (\(bytes.count - offset) bytes), left by an interrupted write; nothing acknowledged is in it",
                                        fix: "run habitto doctor --repair to cut it off (its bytes are saved to recovered/)", repair: "truncate-tail"))
            out.state = state
        case .corrupt(let offset, let detail):
            damaged(at: offset, "damaged at byte \(offset) (\(detail)) with valid records after it; \(Plural.count(scan.records.count, "record")) before it \(Plural.noun(scan.records.count, "is", "are")) intact")
        }
    }

    /// The offset a valid snapshot covers when it covers the journal's byte `offset` (a
    /// damaged record whose data the snapshot still holds); nil otherwise.
    static func snapshotCovering(_ paths: DataPaths, _ offset: Int) -> Int? {
        guard let file = try? MappedFile(path: paths.snapshot), let journal = try? Journal(path: paths.journal) else { return nil }
        let (snap, _) = Snapshot.load(from: file, journal: journal, repair: { _, _ in [:] })
        guard let snap, snap.coveredOffset > offset else { return nil }
        return snap.coveredOffset
    }

    /// `device`'s operations among the records the checks read, oldest first (what this
    /// device's batches on a remote must hold).
    public static func operations(of device: DeviceID, in check: LocalCheck) -> [HabitOperation] {
        Journal.scan(check.validBytes, base: Journal.headerSize).records.flatMap { rec in
            ((try? JournalEntry(decoding: rec.payload))?.ops ?? []).filter { $0.id.device == device }
        }
    }

    /// What to do about a journal no command can open: the newest usable backup, by id.
    static func restoreAdvice(_ paths: DataPaths) -> String {
        // Only a backup that restores: checked completely, as the restore will check it.
        let newest = ((try? Backups.list(paths)) ?? []).first {
            guard case .success(let info) = $0.result else { return false }
            return (try? Backups.load(path: info.path)) != nil
        }
        if let id = newest?.id {
            return "restore the newest backup with habitto backup restore \(id) --replace (the damaged journal is kept in recovered/)"
        }
        return "there is no backup: copy the data directory somewhere safe; if this device syncs, a new data directory connected to the same remote gets back what was pushed"
    }

    static func checkSnapshot(_ paths: DataPaths, _ out: inout LocalCheck) {
        guard out.state != nil, notRegular(paths.snapshot) == nil else { return } // not a file: see checkFileKinds
        guard (try? Sys.entryStatus(paths.snapshot)) != nil else {
            out.passed.append("snapshot: none (start-up replays the journal; one is written as it grows)")
            return
        }
        let rebuild = "run habitto doctor --repair to rebuild it from the journal (it is only a cache)"
        do {
            guard let file = try MappedFile(path: paths.snapshot) else { return }
            let journal = try Journal(path: paths.journal)
            let damaged = DamageFlag()
            let (snap, why) = Snapshot.load(from: file, journal: journal, repair: { _, _ in damaged.set(); return [:] })
            guard let snap else {
                out.findings.append(Finding(check: "snapshot", problem: "\(paths.snapshot) does not match the journal (\(why ?? "unreadable"))", fix: rebuild, repair: "rebuild-snapshot"))
                return
            }
            // Replay the journal up to what the snapshot covers, and compare digests.
            let bytes = try Sys.pread(journal.fd, count: snap.coveredOffset - Journal.headerSize, offset: Journal.headerSize, path: paths.journal)
            var replay = HabitState()
            for rec in Journal.scan(bytes, base: Journal.headerSize).records {
                for op in try JournalEntry(decoding: rec.payload).ops { replay.apply(op) }
            }
            let a = CRC32C.checksum(snap.state.encoded()), b = CRC32C.checksum(replay.encoded())
            if damaged.isSet {
                out.findings.append(Finding(check: "snapshot", problem: "part of \(paths.snapshot) fails its checksum", fix: rebuild, repair: "rebuild-snapshot"))
            } else if a != b {
                out.findings.append(Finding(check: "snapshot", problem: "\(paths.snapshot) is stale: its state (digest \(hex(a))) differs from a full replay of the journal (digest \(hex(b)))", fix: rebuild, repair: "rebuild-snapshot"))
            } else {
                out.passed.append("snapshot: matches a full replay of the journal (digest \(hex(a)))")
            }
        } catch {
            out.findings.append(Finding(check: "snapshot", problem: "\(paths.snapshot) cannot be read (\(error))", fix: rebuild, repair: "rebuild-snapshot"))
        }
    }

    /// The data directory's files must be files (and its folders folders) for any command
    /// to open them: a directory named `lock` stops every command. A cache that is not a
    /// regular file (see `caches`) is moved aside by the repair when it can be.
    static func checkFileKinds(_ paths: DataPaths, _ out: inout LocalCheck) {
        for cache in caches(paths) {
            guard let kind = notRegular(cache) else { continue }
            let problem = "\(cache) is \(kind), not a regular file, so Habitto cannot use it as its cache"
            if let refused = moveAsideRefused(paths) {
                out.findings.append(Finding(check: "files", problem: problem,
                                            fix: "the repair cannot move it (\(refused)); move it out of the data directory: mv -- \(shellQuoted(cache)) \(shellQuoted(cache + ".aside"))"))
            } else {
                out.findings.append(Finding(check: "files", problem: problem,
                                            fix: "run habitto doctor --repair to move it to recovered/ (Habitto makes the cache again)",
                                            repair: moveAsidePrefix + cache.pathLastComponent))
            }
        }
        let files = [paths.journal, paths.lock, paths.directory + "/sync.json", paths.directory + "/remote",
                     paths.directory + "/sync.json.lock", paths.directory + "/imports.json"]
        // lstat: what a link points to is outside the doctor's business, and never checked.
        for file in files {
            guard let st = try? Sys.entryStatus(file), st.st_mode & S_IFMT != S_IFREG else { continue }
            if st.st_mode & S_IFMT == S_IFLNK {
                out.findings.append(Finding(check: "files", problem: "\(file) is a symbolic link; the doctor follows no link inside the data directory, so it was not checked",
                                            fix: "replace the link with a copy of the file itself"))
                continue
            }
            let kind = st.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            out.findings.append(Finding(check: "files", problem: "\(file) is \(kind), so commands that use it fail",
                                        fix: "move it out of the data directory; Habitto creates what it needs again"))
        }
        for dir in [paths.recovered, Backups.directory(paths)] {
            guard let st = try? Sys.entryStatus(dir), st.st_mode & S_IFMT != S_IFDIR && st.st_mode & S_IFMT != S_IFLNK else { continue }
            out.findings.append(Finding(check: "files", problem: "\(dir) is not a directory, so repairs and backups cannot be written",
                                        fix: "move it out of the data directory"))
        }
    }

    static func checkFiles(_ paths: DataPaths, configPath: String?, _ out: inout LocalCheck) {
        // The files whose commands or secrets are used only when they are this user's own.
        var refused: [LocalTrust.Refusal] = []
        if let configPath {
            do { _ = try Config.load(path: configPath); out.passed.append("config: \(FileManager.default.fileExists(atPath: configPath) ? configPath + " is valid" : "none (defaults)")") }
            catch StoreError.untrusted(let refusal) { refused.append(refusal) }
            catch { out.findings.append(Finding(check: "config", problem: "\(error)", fix: "edit the file as the message says")) }
            refused += [LocalTrust.refusal(AutoHabits.commandsPath(configPath: configPath), what: "the auto file", holds: .commands)].compactMap { $0 }
        }
        refused += [LocalTrust.refusal(paths.directory + "/remote-key", what: "the key file", holds: .secret, inDataDirectory: true)].compactMap { $0 }
        for refusal in refused { out.findings.append(Finding(check: "permissions", problem: refusal.statement, fix: refusal.fix)) }
        if let st = Sys.status(followingLinks: paths.directory) {
            if st.st_mode & 0o022 != 0 {
                out.findings.append(Finding(check: "permissions", problem: "the data directory \(paths.directory) can be written by other users (mode \(String(st.st_mode & 0o777, radix: 8)))",
                                            fix: "run chmod go-w '\(paths.directory)'"))
            }
            if let e = Sys.accessError(paths.directory, W_OK) {
                // A read-only file system: no owner or mode makes it writable.
                out.findings.append(e == EROFS
                    ? Finding(check: "permissions", problem: "the data directory \(paths.directory) is on a read-only file system, so nothing can be recorded",
                              fix: "remount that file system read-write (mount -o remount,rw), or use another --home")
                    : Finding(check: "permissions", problem: "the data directory \(paths.directory) is not writable", fix: "fix its owner or permissions, or use another --home"))
            }
        }
        // lstat: a link is never followed for a check or an advice (a chmod would change what
        // it points to); one that is not a regular file is reported by checkFileKinds.
        for file in [paths.journal, paths.snapshot, paths.device, paths.directory + "/sync.json", paths.directory + "/remote"] {
            guard let st = try? Sys.entryStatus(file), st.st_mode & S_IFMT == S_IFREG else { continue }
            if st.st_mode & 0o022 != 0 {
                out.findings.append(Finding(check: "permissions", problem: "\(file) can be written by other users (mode \(String(st.st_mode & 0o777, radix: 8)))", fix: "run chmod 600 '\(file)'"))
            } else if !Sys.canAccess(file, R_OK) {
                out.findings.append(Finding(check: "permissions", problem: "\(file) cannot be read", fix: "fix its owner or permissions"))
            }
        }
        if !out.findings.contains(where: { $0.check == "permissions" }) { out.passed.append("permissions: the data files are private to their owner") }
        // Habitto's own folders are never followed elsewhere: a link there stops backups and recovery.
        for folder in [Backups.directory(paths), paths.recovered] {
            guard let st = try? Sys.entryStatus(folder), st.st_mode & S_IFMT != S_IFDIR else { continue }
            out.findings.append(Finding(check: "folders", problem: "\(folder) is \(Sys.kind(st.st_mode)), not a folder; Habitto does not follow or write through it",
                                        fix: "replace it with a real folder (move what it points to into its place, or remove it)"))
        }
    }

    /// Runs `body` with the directory lock held, so that no append is read half written. The
    /// doctor only reads: the lock file is opened read-only, and not created (a read-only
    /// data directory can still be checked).
    static func withDirectoryLock<T>(_ paths: DataPaths, _ body: () throws -> T) throws -> T {
        // Never waits to open (a FIFO there would wait for a writer).
        guard let fd = try? Sys.open(paths.lock, O_RDONLY | O_NONBLOCK) else { return try body() }
        defer { Sys.close(fd) }
        try Sys.lock(fd, path: paths.lock, name: DataPaths.lockName)
        defer { Sys.unlock(fd) }
        return try body()
    }

    // MARK: Caches that are not regular files

    /// The files of the data directory that Habitto makes again when they are missing: the
    /// snapshot, the prompt segment's cache and what `remind` has sent. One that is not a
    /// regular file (a folder, a FIFO, a socket, a device, a symbolic link: links are never
    /// followed inside the data directory) is never read or written through, and commands do
    /// not replace it; the doctor reports it, and the repair moves it to `recovered/`.
    public static func caches(_ paths: DataPaths) -> [String] {
        [paths.snapshot, SegmentCache.path(paths), paths.remindersSent]
    }

    /// What the entry at `path` is, in words ("a folder"), when there is one and it is not a
    /// regular file (a link is not followed); nil otherwise.
    public static func notRegular(_ path: String) -> String? {
        guard let st = try? Sys.entryStatus(path), st.st_mode & S_IFMT != S_IFREG else { return nil }
        return Sys.kind(st.st_mode)
    }

    /// The `Finding.repair` of a cache to move aside: this, then the file's name.
    static let moveAsidePrefix = "move-aside:"

    /// Why the repair cannot move a cache aside (`recovered/` is not a real folder, or the data
    /// directory is not writable); nil when it can.
    static func moveAsideRefused(_ paths: DataPaths) -> String? {
        if let kind = notFolder(paths.recovered) { return "\(paths.recovered) is \(kind), not a folder" }
        if !Sys.canAccess(paths.directory, W_OK) { return "the data directory is not writable" }
        return nil
    }

    /// What the entry at `path` is, in words, when there is one and it is not a real folder.
    static func notFolder(_ path: String) -> String? {
        guard let st = try? Sys.entryStatus(path), st.st_mode & S_IFMT != S_IFDIR else { return nil }
        return Sys.kind(st.st_mode)
    }

    /// `text` as one word for a POSIX shell (single-quoted).
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "'\\''") + "'"
    }

    /// The repair of a `move-aside:` finding (`repair` is the finding's `repair`): moves the
    /// cache, whatever it is (a link itself, never what it points to), to `recovered/` (see
    /// `Sys.setAside`) with the data lock held, then rebuilds the snapshot when it was the
    /// snapshot. Returns what was done, in one line.
    public static func moveAside(paths: DataPaths, repair: String, now: Date) async throws -> String {
        let name = String(repair.dropFirst(moveAsidePrefix.count))
        guard repair.hasPrefix(moveAsidePrefix), let cache = caches(paths).first(where: { $0.pathLastComponent == name }) else {
            throw StoreError.unreadable(path: name, detail: "is not a cache of the data directory; nothing was moved")
        }
        let moved = try Sys.withLock(paths.lock, name: DataPaths.lockName) { () throws -> String? in
            guard let kind = notRegular(cache) else { return nil } // replaced meanwhile: nothing to do
            return "\(kind) moved to " + (try Sys.setAside(cache, into: paths.recovered, now: now))
        }
        guard let moved else { return "\(name): already a regular file" }
        if cache == paths.snapshot {
            try await rebuildSnapshot(paths: paths, now: { now })
            return "\(name): \(moved); the snapshot was rebuilt from the journal"
        }
        return "\(name): \(moved); Habitto makes it again when needed"
    }

    static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }

    /// Rebuilds the snapshot from the journal (the repository replays it when the snapshot
    /// is gone, then writes a new one).
    public static func rebuildSnapshot(paths: DataPaths, now: @escaping @Sendable () -> Date) async throws {
        try Sys.removeIfPresent(paths.snapshot)
        let repo = try HabitRepository(directory: paths.directory, now: now)
        try await repo.writeSnapshot()
    }

    /// Rebuilds a journal damaged where a valid snapshot covers it, as a restore from a backup
    /// does: the damaged journal, snapshot and device id are copied into
    /// `recovered/damaged-…/`, the journal starts over from the intact records before the
    /// damage under a new device id (no sequence number is ever reused), and one commit
    /// brings every habit to what the snapshot and the records after it hold. Returns the
    /// folder with the damaged files and the operations written. The caller resets its sync
    /// cursor (it belonged to the old id).
    public static func rebuildFromSnapshot(paths: DataPaths, check: LocalCheck,
                                           now: @escaping @Sendable () -> Date) async throws -> (saved: String, operations: Int) {
        let targets: [TargetHabit]
        do {
            // Opening loads the snapshot and replays only the intact records after it.
            let damaged = try HabitRepository(directory: paths.directory, now: now)
            targets = TargetHabit.all(of: await damaged.state)
        }
        let saved = try Backups.startOver(paths: paths, records: check.validBytes, now: now())
        let repo = try HabitRepository(directory: paths.directory, now: now)
        let result = try await repo.commit(label: "rebuild from the snapshot") { state, _ in
            Reconcile.plan(current: state, targets: targets, mode: .replace).changes
        }
        return (saved, result.operations.count)
    }

    /// A backup of the journal's valid records as the checks read them, made before any
    /// repair touches a file. Needs a readable journal (not one damaged in the middle).
    public static func backupBeforeRepair(paths: DataPaths, check: LocalCheck, now: Date) throws -> BackupInfo? {
        guard check.state != nil else { return nil }
        let device = try LocalStore.readOrCreateDevice(paths)
        return try Backups.write(paths: paths, records: check.validBytes, device: device,
                                 reason: "before-repair", note: nil, now: now)
    }
}

/// Set by a damaged snapshot block when it is read.
final class DamageFlag: @unchecked Sendable {
    private let lock = Lock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
