import FoundationEssentials
import HabitCore
import HabitStore

/// Where an import (a migration from another tracker) stands. Recorded in `imports.json`
/// before each step, so an interrupted import is resumed and a finished one not repeated.
public enum ImportPhase: String, Codable, Sendable {
    case notStarted = "not started"
    case backingUp = "backing up"
    case importing
    case verifying
    case completed
    case failed
    case rolledBack = "rolled back"
}

/// One import's record in `imports.json`.
public struct ImportRecord: Codable, Equatable, Sendable {
    public var format: String
    public var digest: String
    public var source: String
    public var phase: ImportPhase
    public var started: Date
    public var updated: Date
    public var backup: String?
    public var changes: Int?
    public var error: String?
}

/// The import log: `imports.json` in the data directory, written atomically.
public struct ImportLog: Codable, Equatable, Sendable {
    public var imports: [ImportRecord] = []
    public init() {}

    static func path(_ paths: DataPaths) -> String { paths.directory + "/imports.json" }

    /// Reads the log; a missing file is empty, a damaged one an error saying what to do.
    public static func load(_ paths: DataPaths) throws -> ImportLog {
        guard let bytes = try Sys.readFile(path(paths), limit: 16 << 20) else { return ImportLog() }
        do {
            let d = JSONDecoder()
            d.dateDecodingStrategy = .iso8601
            return try d.decode(ImportLog.self, from: Data(bytes))
        } catch {
            throw StoreError.unreadable(path: path(paths), detail: "is damaged; move it away (it only records which imports ran; importing again changes nothing already imported)")
        }
    }

    func save(_ paths: DataPaths) throws {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.sortedKeys, .prettyPrinted]
        try Sys.writeAtomically(Array(try e.encode(self)), to: ImportLog.path(paths))
    }

    /// The record of an import of these exact source bytes in this format.
    public func record(format: ImportFormat, digest: String) -> ImportRecord? {
        imports.last { $0.format == format.rawValue && $0.digest == digest }
    }

    mutating func set(_ r: ImportRecord) {
        if let i = imports.lastIndex(where: { $0.format == r.format && $0.digest == r.digest }) { imports[i] = r } else { imports.append(r) }
    }
}

/// What an import did (or, with `--dry-run`, would do).
public struct ImportReport: Sendable {
    public var format: ImportFormat
    public var files: [String]
    public var dryRun: Bool
    /// The same source was imported before: nothing was done.
    public var alreadyDone: ImportRecord?
    /// An interrupted import of the same source was finished.
    public var resumed: Bool = false
    public var phase: ImportPhase
    public var backup: String?
    public var habitsInSource: Int
    public var daysInSource: Int
    public var reconciliation: Reconciliation
    public var skipped: [ImportNote]
    public var disagreements: [ImportNote]
    /// The source's stored XP, level and streaks against what the imported data gives.
    public var comparisons: [String]
    /// The habits the source gives no day for (`ImportedHabit.startsOnImportDay`).
    var withoutDays: [(id: HabitID, name: String)] = []
    /// The habits this import creates that the source gives no day for, by name: they start
    /// on the day of the import.
    public var startingToday: [String] {
        withoutDays.filter { habit in
            reconciliation.changes.contains { if case .create(let id, _) = $0 { id == habit.id } else { false } }
        }.map(\.name)
    }
    /// The day of the import (the program's clock).
    public var today: LocalDay

    /// Changes by kind, for the report.
    public var checkIns: Int { reconciliation.changes.filter { if case .progress = $0 { return true } else { return false } }.count }
    public var skips: Int { reconciliation.changes.filter { if case .skip = $0 { return true } else { return false } }.count }
    public var ratings: Int { reconciliation.changes.filter { if case .rate = $0 { return true } else { return false } }.count }
    public var notes: Int { reconciliation.changes.filter { if case .note = $0 { return true } else { return false } }.count }
}

/// Imports a plan: back up, write everything as one journal append, verify by reading the
/// journal back, and record each step; idempotent (ids derived from the source, and only
/// what the state lacks is written).
public enum Importer {
    /// Reads a source in a format; throws `ImportError` naming the file and line or key.
    public static func read(_ format: ImportFormat, path: String) throws -> ImportPlan {
        switch format {
        case .habittoLegacy: return try LegacyReader.read(path: path)
        case .loopCSV: return try LoopCSVReader.read(path: path)
        case .harsh: return try HarshReader.read(path: path)
        case .json: return try JSONExportReader.read(path: path)
        }
    }

    /// The habits a plan asks for, with their ids. Days after `today` are left out and
    /// listed, but for Habitto's own export, which is read as if typed: a check-in, rating or
    /// note after `today` refuses the whole file (a skip may be in the future).
    public static func targets(_ plan: ImportPlan, today: LocalDay) throws -> ([TargetHabit], [ImportNote]) {
        var notes: [ImportNote] = []
        let targets = try plan.habits.map { h -> TargetHabit in
            var days: [LocalDay: TargetDay] = [:]
            var fields = h.fields
            if fields.group == nil { fields.group = h.group }
            if h.startsOnImportDay {
                // No day in the source: it starts on the day of the import, archived (if the
                // source archived it) from that day, so none of its days is a miss.
                fields.startDate = today
                if fields.archivedFrom != nil { fields.archivedFrom = today }
            }
            for (day, d) in h.days.sorted(by: { $0.key < $1.key }) {
                if day > today && plan.format == .json && (d.progress > 0 || d.difficulty != nil || d.note != nil) {
                    throw ImportError("\(plan.files.first.map(Sanitize.display) ?? "the export"): \(h.location): \(day) is in the future (today is \(today)) and holds a check-in, rating or note; nothing was imported: import it on or after \(day), or remove that day")
                }
                if day > today && !(plan.format == .json && d.progress == 0 && d.difficulty == nil && d.note == nil) {
                    notes.append(ImportNote(location: h.location, message: "\(day) is in the future; not imported"))
                    continue
                }
                if d.progress > Limits.maxDayProgress {
                    notes.append(ImportNote(location: h.location, message: "\(day): \(Amount.format(d.progress)) is more than a day holds (\(Amount.format(Limits.maxDayProgress))); not imported"))
                    continue
                }
                if !d.isEmpty { days[day] = d }
            }
            if let first = days.keys.min(), first < fields.startDate, plan.format != .json {
                fields.startDate = first
            }
            return TargetHabit(id: h.id ?? ImportSupport.habitID(format: plan.format, sourceKey: h.sourceKey),
                               fields: fields, days: days, definitions: h.definitions)
        }
        return (targets, notes.sorted { $0.text < $1.text })
    }

    /// Runs the import against `repo` (see the type's summary). With `dryRun` nothing is
    /// written. `failVerification` injects a verification failure (tests of the rollback).
    public static func run(_ plan: ImportPlan, repo: HabitRepository, today: LocalDay, dryRun: Bool,
                           settings: RuleSettings = .init(), failVerification: Bool = false) async throws -> ImportReport {
        let paths = repo.paths
        let (targets, futureNotes) = try self.targets(plan, today: today)
        var log = try ImportLog.load(paths)
        let previous = log.record(format: plan.format, digest: plan.digest)
        let state = await repo.state
        var report = ImportReport(format: plan.format, files: plan.files, dryRun: dryRun, alreadyDone: nil,
                                  phase: previous?.phase ?? .notStarted, backup: previous?.backup,
                                  habitsInSource: plan.habits.count,
                                  daysInSource: plan.habits.reduce(0) { $0 + $1.days.count },
                                  reconciliation: Reconcile.plan(current: state, targets: targets,
                                                                 mode: previous?.phase == .rolledBack ? .merge : .importing),
                                  skipped: plan.skipped + futureNotes, disagreements: plan.disagreements,
                                  comparisons: comparisons(plan, targets: targets, settings: settings), today: today)
        report.withoutDays = plan.habits.filter(\.startsOnImportDay).map {
            ($0.id ?? ImportSupport.habitID(format: plan.format, sourceKey: $0.sourceKey), $0.fields.name)
        }
        if let previous, previous.phase == .completed {
            report.alreadyDone = previous
            report.reconciliation = Reconciliation()
            return report
        }
        if dryRun { return report }
        report.resumed = previous.map { [.backingUp, .importing, .verifying].contains($0.phase) } ?? false

        // The program's clock (HABITTO_NOW when set), as the backup's id and the operations use.
        let now = repo.clock()
        var record = ImportRecord(format: plan.format.rawValue, digest: plan.digest, source: plan.files.first ?? "",
                                  phase: .backingUp, started: previous?.started ?? now, updated: now,
                                  backup: previous?.backup, changes: nil, error: nil)
        func step(_ phase: ImportPhase, error: String? = nil) throws {
            record.phase = phase; record.updated = repo.clock(); record.error = error
            log.set(record)
            try log.save(paths)
            report.phase = phase
        }
        try step(.backingUp)
        let backup = try await repo.backup(reason: "before-import")
        record.backup = backup.id
        report.backup = backup.id
        try step(.importing)
        // After a rollback (which deleted what the import had added) a retry brings the
        // habits back; otherwise a habit deleted here stays deleted.
        let mode: ReconcileMode = previous?.phase == .rolledBack ? .merge : .importing
        do {
            let label = "import \(plan.format.rawValue) \((plan.files.first ?? "").pathLastComponent)"
            report.reconciliation = try await repo.reconcile(to: targets, mode: mode, label: label).1
        } catch {
            try? step(.failed, error: "\(error)")
            throw error
        }
        record.changes = report.reconciliation.changes.count
        try step(.verifying)
        // Read the journal back from disk, as a new process would, and check that nothing is
        // left to write.
        let fresh = try HabitRepository(directory: paths.directory, now: repo.clock)
        let left = Reconcile.plan(current: await fresh.state, targets: targets, mode: mode).changes.count
        if left != 0 || failVerification {
            let why = failVerification ? "verification failed (injected fault)" : "verification failed: \(left) changes did not read back"
            do {
                let loaded = try Backups.load(path: backup.path)
                _ = try await repo.restore(loaded, mode: .replace)
            } catch {
                try? step(.failed, error: "\(why); rolling back to backup \(backup.id) failed too: \(error)")
                throw ImportError("\(why); rolling back to backup \(backup.id) failed too (\(error)): restore it with 'habitto backup restore \(backup.id) --replace'")
            }
            try step(.rolledBack, error: why)
            throw ImportError("\(why); the data was rolled back to backup \(backup.id) and is as it was before the import")
        }
        try step(.completed)
        return report
    }

    /// The source's stored figures (XP, level, streaks) against those the imported data
    /// gives, as of the last day the source has data for. Never imported as truth.
    static func comparisons(_ plan: ImportPlan, targets: [TargetHabit], settings: RuleSettings) -> [String] {
        guard plan.storedXP != nil || plan.storedLevel != nil || !plan.storedStreaks.isEmpty else { return [] }
        let device = DeviceID(hi: 1, lo: 1)
        var state = HabitState()
        var seq: UInt64 = 0
        func add(_ c: Change) {
            seq += 1
            state.apply(HabitOperation(id: OpID(device: device, seq: seq), hlc: HLC(wallMillis: Int64(seq), counter: 0), change: c))
        }
        for t in targets {
            add(.create(t.id, t.fields))
            for (day, d) in t.days {
                if d.progress > 0 { add(.progress(t.id, day, delta: d.progress)) }
                if d.skipped { add(.skip(t.id, day, true)) }
                if let p = d.paused { add(.pause(t.id, from: day, to: day, reason: p)) }
            }
        }
        guard let last = targets.flatMap({ $0.days.keys }).max() else { return [] }
        var out: [String] = []
        let stats = state.stats(today: last, settings: settings)
        if let xp = plan.storedXP {
            out.append("XP: the source stored \(xp) XP\(plan.storedLevel.map { " (level \($0))" } ?? ""); its completions give \(stats.xp) XP (level \(stats.level.level)) as of \(last). Habitto derives XP from completions and shows the derived figure")
        } else if let level = plan.storedLevel {
            out.append("level: the source stored level \(level); its completions give level \(stats.level.level) as of \(last)")
        }
        for h in plan.habits {
            guard let stored = plan.storedStreaks[h.sourceKey],
                  let t = targets.first(where: { $0.id == (h.id ?? ImportSupport.habitID(format: plan.format, sourceKey: h.sourceKey)) }),
                  let habit = state.habit(t.id) else { continue }
            let s = state.streaks(habit, asOf: last, today: last, settings: settings)
            if s.current != stored {
                out.append("'\(Sanitize.display(h.fields.name))': the source stored a streak of \(stored); its completions give \(s.current) as of \(last)")
            }
        }
        return out
    }
}
