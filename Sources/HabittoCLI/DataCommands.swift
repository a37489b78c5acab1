import FoundationEssentials
import HabitCore
import HabitStore
import HabitImport
import HabitSync
#if canImport(Glibc)
import Glibc
#endif


// The data-safety commands: backup, import, export, doctor.

/// `habitto backup create|list|restore|prune`.
struct BackupCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "backup", arguments: ["create|list|restore|prune"],
                    summary: "Make, list, restore (--replace or --merge) and prune backups.",
                    options: [OptionSpec(name: "--note", value: "TEXT", help: "create: a note kept with the backup"),
                              OptionSpec(name: "--replace", value: nil, help: "restore: make the data exactly the backup's"),
                              OptionSpec(name: "--merge", value: nil, help: "restore: add what the backup has and the data lacks"),
                              OptionSpec(name: "--keep-days", value: "N", help: "prune: keep backups of the last N days (default: backup_keep_days, 30)"),
                              Specs.json],
                    notes: """
                    Backups are single self-checking files in the data directory's backups/ folder.
                    One is made before every import, restore, repair and remote change; they are kept
                    backup_keep_days days (the newest is always kept). 'backup restore ID' takes an id
                    from 'backup list'; the restore is written as ordinary operations, so it syncs and
                    'habitto undo' takes it back. A backup holds the journal only: never the key of an
                    encrypted remote (remote-key), which stays in the data directory ('habitto remote key').
                    """,
                    optionalArguments: ["ID"])
    }

    @MainActor func run() async throws {
        let action = invocation.arguments[0]
        let id = invocation.arguments.count > 1 ? invocation.arguments[1] : nil
        if action != "restore", id != nil { throw CLIError.usage(.backupTakesNoID(action: action)) }
        let paths = DataPaths(directory: env.home)
        switch action {
        case "create":
            let repo = try openRepository()
            let info = try await repo.backup(reason: "manual", note: invocation.value(.note))
            Output.line("Backup \(info.id) made: \(Plural.count(info.habits, "habit")), \(Plural.count(info.operations, "operation")), \(Self.size(info.bytes)) (\(info.path))")
            try autoPrune(paths)
        case "list":
            let all = try Backups.list(paths)
            if invocation.flag(.json) {
                Output.raw(JSON.array(all.map { id, result in
                    switch result {
                    case .success(let i):
                        return .object(["id": .string(i.id), "created": .string(Self.iso(i.created)), "reason": .string(i.reason),
                                        "note": .optional(i.note), "habits": .int(i.habits), "operations": .int(i.operations),
                                        "bytes": .int(i.bytes), "valid": .bool(true), "path": .string(i.path)])
                    case .failure(let e):
                        return .object(["id": .string(id), "valid": .bool(false), "problem": .string(e.description)])
                    }
                }).serialized())
                return
            }
            guard !all.isEmpty else { Output.line("No backups yet: 'habitto backup create' makes one"); return }
            for (id, result) in all {
                switch result {
                case .success(let i):
                    Output.line("\(i.id)  \(Self.iso(i.created))  \(i.reason)  \(Plural.count(i.habits, "habit")), \(Plural.count(i.operations, "op")), \(Self.size(i.bytes))"
                                + (i.note.map { "  \"\(Sanitize.display($0))\"" } ?? ""))
                case .failure(let e):
                    Output.line("\(Sanitize.display(id))  DAMAGED: \(e.description)")
                }
            }
        case "restore":
            try await restore(paths: paths, id: id)
        case "prune":
            let keep = try invocation.value(.keepDays).map { try wholeNumber($0, .keepDays, 1...36_500) } ?? env.config.backupKeepDays
            let removed = try Backups.prune(paths, keepDays: keep, now: env.now)
            Output.line(removed.isEmpty ? "Nothing to prune: every backup is newer than \(keep) days (or the newest)"
                                        : "Deleted \(Plural.count(removed.count, "backup")) older than \(Plural.count(keep, "day")): \(removed.joined(separator: ", "))")
        default:
            throw CLIError.usage(.backupAction)
        }
    }

    @MainActor func restore(paths: DataPaths, id: String?) async throws {
        guard let id else { throw CLIError.usage(.restoreNeedsID) }
        let replace = invocation.flag(.replace), merge = invocation.flag(.merge)
        guard replace != merge else { throw CLIError.usage(.restoreNeedsOneWay) }
        let path = try Backups.path(of: id, in: paths)
        // Validate the whole backup before touching anything.
        let loaded = try Backups.load(path: path)
        let repo: HabitRepository
        var recoveredTo: String?
        do {
            repo = try openRepository()
        } catch StoreError.corrupt(let journal, let offset, _) where replace {
            // The journal is damaged in the middle: set it aside and start over from the backup.
            let saved = try Backups.replaceDamagedJournal(paths: paths, backup: loaded, now: env.now)
            try SyncState.startOver(paths)
            recoveredTo = saved
            Output.err("habitto: the journal \(journal) was damaged at byte \(offset); it was copied to \(saved) and the journal started over from backup \(loaded.info.id) under a new device id")
            repo = try openRepository()
        }
        let before = recoveredTo == nil ? try await repo.backup(reason: "before-restore") : nil
        let (result, plan) = try await repo.restore(loaded, mode: replace ? .replace : .merge)
        var parts: [String] = []
        if plan.created > 0 { parts.append("\(Plural.count(plan.created, "habit")) added") }
        if plan.restored > 0 { parts.append("\(plan.restored) brought back") }
        if plan.deleted > 0 { parts.append("\(plan.deleted) deleted") }
        if plan.fieldsChanged > 0 { parts.append("\(Plural.count(plan.fieldsChanged, "field")) changed") }
        if plan.daysChanged > 0 { parts.append("\(Plural.count(plan.daysChanged, "day")) changed") }
        let what = result.operations.isEmpty ? "nothing to change: the data already \(replace ? "is" : "has everything in") the backup's"
                                             : parts.joined(separator: ", ") + " (\(Plural.count(result.operations.count, "operation")))"
        Output.line("Restored backup \(loaded.info.id) (\(replace ? "replace" : "merge")): \(what)"
                    + (before.map { "; the data before is in backup \($0.id)" } ?? ""))
        for k in plan.kept { Output.line("  kept: " + k) }
        for r in plan.renamed { Output.line("  renamed: " + r) }
        try autoPrune(paths)
    }

    /// Applies the retention setting after a backup was made (never fatal).
    func autoPrune(_ paths: DataPaths) throws {
        if let removed = try? Backups.prune(paths, keepDays: env.config.backupKeepDays, now: env.now), !removed.isEmpty {
            Output.err("habitto: deleted \(Plural.count(removed.count, "backup")) older than \(Plural.count(env.config.backupKeepDays, "day"))")
        }
    }

    static func size(_ bytes: Int) -> String {
        bytes < 10_240 ? "\(bytes) bytes" : bytes < 10 << 20 ? "\(bytes >> 10) KB" : "\(bytes >> 20) MB"
    }

    static func iso(_ d: Date) -> String { UTCTime.iso8601(d) }
}
/// `habitto import PATH --from FORMAT`: another tracker's data, or an export.
struct ImportCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "import", arguments: ["PATH"],
                    summary: "Import from the legacy Habitto app, Loop, harsh or a Habitto JSON export.",
                    options: [OptionSpec(name: "--from", value: "FORMAT", help: "habitto-legacy, loop-csv, harsh or json",
                                         completes: .words(ImportFormat.allCases.map(\.rawValue))),
                              OptionSpec(name: "--dry-run", value: nil, help: "report what would be imported; write nothing"),
                              Specs.json],
                    notes: """
                    A backup is made first; everything is read and checked before anything is written, and
                    the result is written in one step (all or nothing), then read back and verified.
                    Importing the same files again changes nothing. loop-csv takes the folder of Loop's
                    CSV export (or its zip); harsh takes the folder holding 'habits' and 'log'.
                    """)
    }

    @MainActor func run() async throws {
        guard let name = invocation.value(.from) else {
            throw CLIError.usage(.importNeedsFormat)
        }
        guard let format = ImportFormat(rawValue: name) else {
            throw CLIError.usage(.unknownImportFormat(name))
        }
        var path = invocation.arguments[0]
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        let plan: ImportPlan
        do { plan = try Importer.read(format, path: path) } catch let e as ImportError { throw CLIError.invalid(.importFailed(e, nothingWritten: true)) }
        let repo = try openRepository()
        let dryRun = invocation.flag(.dryRun)
        let fault = ProcessEnvironment.value("HABITTO_IMPORT_FAULT") == "verify"
        let report: ImportReport
        do {
            report = try await Importer.run(plan, repo: repo, today: today, dryRun: dryRun, settings: settings, failVerification: fault)
        } catch let e as ImportError { throw CLIError.invalid(.importFailed(e, nothingWritten: false)) }
        if invocation.flag(.json) { Output.raw(Self.json(report).serialized()); return }
        for line in Self.text(report) { Output.line(line) }
    }

    static func text(_ r: ImportReport) -> [String] {
        let source = r.files.first.map { $0.pathLastComponent } ?? ""
        if let done = r.alreadyDone {
            return ["Already imported: \(r.format.rawValue) \(source) was imported on \(BackupCommand.iso(done.updated))"
                    + (done.backup.map { " (backup before it: \($0))" } ?? "") + "; nothing to do"]
        }
        let rec = r.reconciliation
        var out: [String] = []
        let verb = r.dryRun ? "Would import" : r.resumed ? "Resumed an interrupted import and imported" : "Imported"
        if rec.changes.isEmpty {
            out.append("\(r.dryRun ? "Would change" : "Changed") nothing: everything in \(source) is already here")
        } else {
            out.append("\(verb) from \(r.format.rawValue) \(source): \(Plural.count(rec.created, "habit")) new, "
                       + (rec.restored > 0 ? "\(rec.restored) brought back, " : "")
                       + "\(r.habitsInSource - rec.created - rec.restored) already here; "
                       + "\(Plural.count(rec.daysChanged, "day")) (\(Plural.count(r.checkIns, "check-in")), \(Plural.count(r.skips, "skip")), "
                       + "\(Plural.count(r.ratings, "rating")), \(Plural.count(r.notes, "note")))")
        }
        if let line = startingTodayLine(r) { out.append(line) }
        if r.dryRun { out.append("Dry run: nothing was written") } else if let b = r.backup { out.append("Backup before the import: \(b) ('habitto backup restore \(b) --replace' undoes it; so does 'habitto undo')") }
        func section(_ title: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            out.append("\(title) (\(items.count)):")
            for i in items { out.append("  " + Sanitize.display(i)) }
        }
        section("Skipped", r.skipped.map(\.text))
        section("Disagreements in the source", r.disagreements.map(\.text))
        section("Kept as they are here", rec.kept + rec.renamed)
        section("Stored figures, not imported as truth", r.comparisons)
        return out
    }

    /// The line naming the new habits without a day in the source, which start on the day
    /// of the import (the first 20 names; `--json` lists them all).
    static func startingTodayLine(_ r: ImportReport) -> String? {
        let names = r.startingToday.map { "'\(Sanitize.display($0))'" }
        let start = "\(r.dryRun ? "would start" : "start\(names.count == 1 ? "s" : "")") today, \(r.today)"
        switch names.count {
        case 0: return nil
        case 1: return "\(names[0]) has no days in the source: it \(start)"
        default:
            let more = names.count > 20 ? ", and \(names.count - 20) more (--json lists them)" : ""
            return "\(names.count) habits have no days in the source: they \(start): " + names.prefix(20).joined(separator: ", ") + more
        }
    }

    static func json(_ r: ImportReport) -> JSON {
        let rec = r.reconciliation
        func notes(_ n: [ImportNote]) -> JSON { .array(n.map { .object(["location": .string($0.location), "message": .string($0.message)]) }) }
        return .object([
            "format": .string(r.format.rawValue), "files": .array(r.files.map(JSON.string)), "dryRun": .bool(r.dryRun),
            "alreadyImported": .bool(r.alreadyDone != nil), "resumed": .bool(r.resumed), "phase": .string(r.phase.rawValue),
            "backup": .optional(r.backup), "habitsInSource": .int(r.habitsInSource), "daysInSource": .int(r.daysInSource),
            "habitsCreated": .int(rec.created), "habitsRestored": .int(rec.restored), "daysChanged": .int(rec.daysChanged), "checkIns": .int(r.checkIns),
            "skips": .int(r.skips), "ratings": .int(r.ratings), "notes": .int(r.notes), "operations": .int(rec.changes.count),
            "skipped": notes(r.skipped), "disagreements": notes(r.disagreements),
            "kept": .array((rec.kept + rec.renamed).map(JSON.string)), "comparisons": .array(r.comparisons.map(JSON.string)),
            "startingToday": .array(r.startingToday.map(JSON.string)), "today": .string(r.today.description),
        ])
    }
}
/// `habitto export`: all data as JSON or CSV.
struct ExportCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "export", arguments: [], summary: "Export all data; the same data on the same day gives the same bytes.",
                    options: [OptionSpec(name: "--format", value: "FORMAT", help: "json (default) or csv", completes: .words(["json", "csv"])),
                              OptionSpec(name: "--output", value: "PATH", help: "json: write to a file; csv: write habits.csv and checkins.csv into a folder",
                                         completes: .file)],
                    notes: "Without --output, csv prints habits.csv, a blank line, then checkins.csv.")
    }

    @MainActor func run() async throws {
        let format = invocation.value(.format) ?? "json"
        guard format == "json" || format == "csv" else {
            throw CLIError.usage(.exportFormat(format))
        }
        let repo = try openRepository()
        if format == "csv" { try exportCSV(await repo.state); return }
        let text = Export.document(await repo.state, today: today).serialized()
        if let path = invocation.value(.output) {
            guard !path.isEmpty else { throw CLIError.usage(.outputNeedsName(folder: false)) }
            let full = try outputPath(path)
            try Sys.writeAtomically(Array(text.utf8), to: full, mode: 0o600)
            Output.err("Exported \(Plural.count(await repo.state.habits.count, "habit")) to \(full)")
        } else {
            Output.raw(text)
        }
    }

    func exportCSV(_ state: HabitState) throws {
        let habits = state.habits
        let (h, c) = Export.csv(state)
        if let out = invocation.value(.output) {
            guard !out.isEmpty else { throw CLIError.usage(.outputNeedsName(folder: true)) }
            let dir = try outputPath(out)
            try Sys.makeDirectories(dir)
            try Sys.writeAtomically(Array(h.utf8), to: dir + "/habits.csv", mode: 0o600)
            try Sys.writeAtomically(Array(c.utf8), to: dir + "/checkins.csv", mode: 0o600)
            Output.err("Exported \(Plural.count(habits.count, "habit")) to \(dir)/habits.csv and \(dir)/checkins.csv")
        } else {
            Output.raw(h + "\r\n" + c)
        }
    }

    /// An export's `--output` as an absolute path. A path inside the data directory (after
    /// resolving links, `.` and `..`) is refused: an export there could replace the journal
    /// or any other of Habitto's files.
    func outputPath(_ path: String) throws -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if Sys.isInside(full, folder: env.home) {
            throw CLIError.invalid(.exportInsideData(output: full, home: env.home))
        }
        return full
    }
}
/// `habitto doctor [--repair]`: checks the data, config and remote.
struct DoctorCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "doctor", arguments: [],
                    summary: "Check the journal, snapshot, config, permissions and remote (exit 5 on problems).",
                    options: [OptionSpec(name: "--repair", value: nil, help: "make the safe fixes (after a backup); never deletes data"),
                              Specs.json])
    }

    @MainActor func run() async throws {
        let paths = DataPaths(directory: env.home)
        let repair = invocation.flag(.repair)
        var check = Doctor.checkLocal(paths: paths, configPath: env.configPath)
        var passed = check.passed
        var findings = check.findings
        var repaired: [String] = []
        var backupID: String?
        let remote = await remoteFindings(paths: paths, check: check)
        passed += remote.passed
        findings += remote.findings
        if repair && findings.contains(where: \.repairable) {
            if let b = try Doctor.backupBeforeRepair(paths: paths, check: check, now: env.now) {
                backupID = b.id
            }
            for f in findings where f.repairable {
                switch f.repair {
                case "truncate-tail"?:
                    // Opening the repository cuts the torn tail off and saves its bytes.
                    let repo = try HabitRepository(directory: paths.directory, now: env.clock)
                    repaired.append("journal: the incomplete tail was cut off" + (repo.openingWarnings.first.map { " (\($0.text))" } ?? ""))
                case "rebuild-from-snapshot"?:
                    let (saved, count) = try await Doctor.rebuildFromSnapshot(paths: paths, check: check, now: env.clock)
                    try SyncState.startOver(paths)
                    repaired.append("journal: rebuilt from the snapshot under a new device id (\(count) operations written after the \(check.validRecords) intact records before the damage); the damaged journal, snapshot and device id are kept in \(saved)")
                case "rebuild-snapshot"?:
                    try await Doctor.rebuildSnapshot(paths: paths, now: env.clock)
                    repaired.append("snapshot: rebuilt from the journal")
                case let r? where r.hasPrefix("move-aside:"):
                    repaired.append("files: " + (try await Doctor.moveAside(paths: paths, repair: r, now: env.now)))
                case let r? where r.hasPrefix("remove-batch:"):
                    repaired.append(try await removeDamagedBatch(String(r.dropFirst("remove-batch:".count)), paths: paths, device: check.device))
                case let r? where r.hasPrefix("requeue:"):
                    let to = f.repair.flatMap { UInt64($0.dropFirst("requeue:".count)) } ?? 0
                    try SyncState.update(paths) { s in s.ackedSeq = min(s.ackedSeq, to); s.scanOffset = 0; s.failed = false }
                    repaired.append("remote: operations after #\(to) re-queued; the next sync pushes them again")
                default: break
                }
            }
            // Check again: what is left is what a repair could not fix.
            check = Doctor.checkLocal(paths: paths, configPath: env.configPath)
            let again = await remoteFindings(paths: paths, check: check)
            passed = check.passed + again.passed
            findings = check.findings + again.findings
        }
        if invocation.flag(.json) {
            Output.raw(JSON.object([
                "healthy": .bool(findings.isEmpty), "passed": .array(passed.map(JSON.string)),
                "problems": .array(findings.map { .object(["check": .string($0.check), "problem": .string($0.problem),
                                                          "fix": .string($0.fix), "repairable": .bool($0.repairable)]) }),
                "repaired": .array(repaired.map(JSON.string)), "backup": .optional(backupID),
            ]).serialized())
        } else {
            for p in passed { Output.line("ok: " + p) }
            if let backupID { Output.line("backup: \(backupID) made before repairing") }
            for r in repaired { Output.line("repaired: " + r) }
            for f in findings { Output.line("problem: " + f.line) }
            Output.line(findings.isEmpty ? "Healthy" : "\(Plural.count(findings.count, "problem")) found"
                        + (findings.contains(where: \.repairable) && !repair ? "; 'habitto doctor --repair' fixes the ones marked so" : ""))
        }
        if !findings.isEmpty { throw CLIError.problemsFound(count: findings.count) }
    }

    static var allowsConfigProblems: Bool { true }

    /// The remote the settings name, as a round reads it (decrypting, when encrypted).
    @MainActor func doctorRemote(paths: DataPaths, state st: SyncState, spec: String) throws -> any Remote {
        let remote = try makeRemote(spec, user: st.user, access: env.remoteAccess())
        guard st.encrypt != nil else { return remote }
        let (key, tool) = try EncryptedRemote.keyAndTool(paths, spec: spec)
        // On a remote made with a keycheck, each batch's sealed line is checked, as a round does.
        let binding = st.remoteKeychecked == true ? st.remoteID.map { EncryptedRemote.Binding(remoteID: $0, account: st.account) } : nil
        return EncryptedRemote(remote, key: key, tool: tool, binding: binding)
    }

    /// Removes this device's batch `name` (one no device can apply; the journal holds its
    /// operations) from the remote, and re-queues its operations; returns what was done.
    @MainActor func removeDamagedBatch(_ name: String, paths: DataPaths, device: DeviceID?) async throws -> String {
        let st = try SyncState.load(paths)
        guard let spec = st.remote, let batch = BatchName(fileName: name), let device else {
            return "remote: nothing removed (no remote or device)"
        }
        let remote = try doctorRemote(paths: paths, state: st, spec: spec)
        try await remote.remove(account: st.account, device: device, batch: batch)
        try SyncState.update(paths) { s in s.ackedSeq = min(s.ackedSeq, batch.first - 1); s.scanOffset = 0; s.failed = false }
        return "remote: this device's damaged batch \(batch) was removed from the remote and operations after #\(batch.first - 1) re-queued; the next sync pushes them again"
    }

    /// What this device has that the remote lacks, and the other way round.
    @MainActor func remoteFindings(paths: DataPaths, check: LocalCheck) async -> (passed: [String], findings: [Finding]) {
        let st: SyncState
        do { st = try SyncState.load(paths) } catch StoreError.config(let message) {
            return ([], [Finding(check: "sync", problem: "\(message), so sync, status, offline and remote fail",
                                 fix: "fix that line, or delete the file and connect the remote again with habitto remote set")])
        } catch StoreError.link(let path) {
            // A link in the place of sync.json or remote: the link is the cause, not damage.
            return ([], [Finding(check: "sync", problem: "\(path) is a symbolic link, which Habitto never follows, so sync, status, offline and remote fail",
                                 fix: "replace the link with a copy of the file itself (or remove it and connect the remote again with habitto remote set)")])
        } catch {
            return ([], [Finding(check: "sync", problem: "\(paths.directory)/sync.json is damaged (not sync settings), so sync, status, offline and remote fail",
                                 fix: "delete it: the remote setting is kept in \(paths.directory)/remote, and the next sync skips what the remote already has")])
        }
        guard let spec = st.remote else { return (["remote: none set (local only)"], []) }
        var cursorLost: [String] = []
        if !SyncState.cursorFileExists(paths) {
            cursorLost.append("sync: no sync.json (the cursor is lost): the next sync lists what the remote holds of this device and sends only the rest")
        }
        if st.offline { return (cursorLost + ["remote: not checked (offline switch is on)"], []) }
        guard let state = check.state, let me = check.device else { return (cursorLost + ["remote: not checked (the journal needs attention first)"], []) }
        do {
            let remote = try doctorRemote(paths: paths, state: st, spec: spec)
            var passed = cursorLost
            var findings: [Finding] = []
            if st.encrypt != nil && st.remoteRecipient != nil {
                findings.append(Finding(check: "remote", problem: EncryptedRemote.clearRecipient,
                                        fix: "set a new, empty remote with habitto remote set NEW --encrypt, and join each other device to it with --key"))
            }
            let mine = try await remote.batches(account: st.account, device: me).contiguousEnd()
            let localSeq = state.seen[me] ?? 0
            if mine < st.ackedSeq {
                findings.append(Finding(check: "remote", problem: "the remote lacks this device's operations \(mine + 1)–\(st.ackedSeq), which it had acknowledged (a batch was removed)",
                                        fix: "run habitto doctor --repair to re-queue them", repair: "requeue:\(mine)"))
            }
            for difference in try await BatchCheck.differences(remote: remote, account: st.account, device: me,
                                                              local: Doctor.operations(of: me, in: check)) {
                let batch = difference.batch
                findings.append(difference.unreadable
                    ? Finding(check: "remote", problem: difference.line,
                              fix: "run habitto doctor --repair to remove it from the remote and push operations \(batch.first)–\(batch.last) again (the journal holds them)",
                              repair: "remove-batch:\(batch.fileName)")
                    : Finding(check: "remote", problem: difference.line,
                              fix: "remove that batch file from the remote, then run habitto doctor --repair to push it again"))
            }
            let unpushed = localSeq > mine ? localSeq - mine : 0
            passed.append("remote: has \(mine) of this device's \(Plural.count(localSeq, "operation"))" + (unpushed > 0 ? " (\(unpushed) wait to be pushed: habitto sync)" : ""))
            let (others, missingHere) = try await otherDevices(remote: remote, sync: st, state: state, me: me)
            findings += others
            passed.append(missingHere == 0 ? "remote: this device has every operation the remote holds"
                                           : "remote: holds \(Plural.count(missingHere, "operation")) of other devices not pulled here yet (habitto sync)")
            return (passed, findings)
        } catch {
            return ([], [Finding(check: "remote", problem: "\(Sanitize.display(spec)) could not be checked (\(error))", fix: "check the network and the remote settings (habitto status), then run the doctor again")])
        }
    }

    /// What the remote shows of every other device: each batch read (a refused one is reported
    /// as in a round), gaps in a device's batches, and what this device or another one's batch
    /// saw beyond it; with how many of their operations this device has not pulled yet.
    @MainActor func otherDevices(remote: any Remote, sync st: SyncState, state: HabitState,
                                 me: DeviceID) async throws -> (findings: [Finding], missingHere: UInt64) {
        var found: [Finding] = []
        var missingHere: UInt64 = 0
        let listedDevices = try await remote.devices(account: st.account)
        var ends: [DeviceID: [BatchName]] = [:]
        for device in listedDevices where device != me {
            let batches = try await remote.batches(account: st.account, device: device)
            ends[device] = batches
            let end = batches.contiguousEnd()
            if let last = batches.map(\.last).max(), last > end {
                found.append(Finding(check: "remote", problem: "device \(device.rawValue.prefix(8))'s batches on the remote stop at #\(end) but go on to #\(last): a batch is missing",
                                        fix: "run habitto doctor --repair on that device so it pushes them again"))
            }
            // Every batch is read, so a batch refused (not authentic, damaged) is reported
            // here as in a round.
            for batch in batches {
                do {
                    let bytes = try await remote.read(account: st.account, device: device, batch: batch, maxBytes: BatchFile.maxBytes)
                    _ = try BatchFile.decode(bytes, device: device, name: batch)
                } catch let e as RemoteError where e.isDamaged {
                    found.append(Finding(check: "remote", problem: e.message,
                                            fix: "remove that file from the remote (when it was that device's own, 'habitto doctor --repair' there pushes it again)"))
                }
            }
            missingHere += end > (state.seen[device] ?? 0) ? end - (state.seen[device] ?? 0) : 0
        }
        // What this device holds of another one, or another device's batch said it saw,
        // beyond what the remote shows of it: withheld, or lost (a restore from an old copy).
        for device in Set(state.seen.keys).union(Set((st.claims ?? [:]).keys)).sorted() where device != me {
            let batches = ends[device] ?? []
            let holds = PullPlan.Claim(seq: state.seen[device] ?? 0, by: me)
            if let line = PullPlan.shortfall(of: device, listed: batches, claim: holds, me: me) {
                found.append(Finding(check: "remote", problem: line,
                                        fix: "run habitto sync: this device sends them again"))
            } else if let line = PullPlan.shortfall(of: device, listed: batches, claim: st.claims?[device]) {
                found.append(Finding(check: "remote", problem: line,
                                        fix: "run habitto sync on device \(st.claims?[device]?.by.rawValue.prefix(8) ?? "") or another that holds them, which sends them again; if none holds them, they are lost"))
            }
        }
        return (found, missingHere)
    }
}
