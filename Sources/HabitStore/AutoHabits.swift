import FoundationEssentials
import HabitCore

/// Auto habits: habits whose check-in a command measures. The commands live only in this
/// machine's configuration directory (file `auto`, mode 0600), never in the journal, a
/// batch, an export or a backup: a command that arrived from another device would run
/// anything that device's owner wrote. Each habit's last result is kept in the data
/// directory (file `auto-results`), without its command.
public enum AutoHabits {
    /// The longest a command may run, in seconds.
    public static var timeLimit: Double { TimeLimits.current[.auto] }
    /// The longest command kept, in bytes.
    public static let maxCommandBytes = 4096

    /// The file of this machine's commands, beside the config file at `configPath`.
    public static func commandsPath(configPath: String) -> String { configPath.pathParent + "/auto" }

    // MARK: Commands

    /// Throws a `CoreError` unless `command` is one line of at most `maxCommandBytes`
    /// bytes with something in it.
    public static func validate(_ command: String) throws {
        if command.trimmingBlanks.isEmpty { throw CoreError.emptyCommand }
        if command.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) {
            throw CoreError.multilineCommand
        }
        if command.utf8.count > maxCommandBytes {
            throw CoreError.commandTooLong(maxBytes: maxCommandBytes)
        }
    }

    /// This machine's commands, by habit: lines `HABITID COMMAND` in the file at `path`
    /// (none when it does not exist). Throws `StoreError.config` naming a line that is not so,
    /// and `StoreError.untrusted` for a file that another user owns or can write
    /// (`LocalTrust`): none of its commands is run.
    public static func commands(path: String) throws -> [HabitID: String] {
        guard let bytes = try LocalTrust.read(path, what: "the auto file", holds: .commands, limit: 4 << 20) else { return [:] }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StoreError.config("\(path): not UTF-8 text; fix it, or delete it and set the commands again with 'habitto auto'")
        }
        var out: [HabitID: String] = [:]
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let id = HabitID(String(parts[0])), (try? validate(String(parts[1]))) != nil else {
                throw StoreError.config("\(path) line \(n + 1): expected a habit id, a space and a command; fix it, or delete the line")
            }
            out[id] = String(parts[1])
        }
        return out
    }

    /// Writes `commands` to the file at `path`, durably and atomically, readable by this user
    /// only (a command can name private paths); the folder is made when missing.
    public static func save(_ commands: [HabitID: String], path: String) throws {
        try Sys.makeDirectories(path.pathParent)
        let text = commands.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)\n" }.joined()
        try Sys.writeAtomically(Array(text.utf8), to: path, mode: 0o600)
    }

    // MARK: Running

    /// Runs `command` for `habit` through `/bin/sh -c`: no standard input, Habitto's secrets
    /// left out of its environment, at most `timeLimit` seconds. A yes/no habit: exit status
    /// 0 is done, 1 not done; a counted habit: exit status 0 with a number on the first line
    /// of its output (the day's total). Anything else is a problem, in words that follow
    /// "the command " ("failed (exit status 2: …)").
    public static func run(_ command: String, for habit: Habit, timeLimit: Double = timeLimit) -> Result<AutoMeasure, AutoProblem> {
        let result = OutsideProgram("/bin/sh", ["-c", command], timeLimit: timeLimit, errors: .collect).run()
        if habit.isYesNo {
            switch result.outcome {
            case .exited(0): return .success(.done)
            case .exited(1): return .success(.notDone)
            default: return .failure(AutoProblem(result.problem ?? "failed"))
            }
        }
        if let problem = result.problem { return .failure(AutoProblem(problem)) }
        do {
            return .success(.total(try AutoCheck.total(fromOutput: String(decoding: result.output.prefix(4096), as: UTF8.self))))
        } catch {
            return .failure(AutoProblem("\(error)"))
        }
    }

    // MARK: Last results

    /// Each habit's last result, from the data directory's `auto-results` (none when it is
    /// missing; a damaged line is left out: it is a record of what was shown, rebuilt by the
    /// next run).
    static func results(_ paths: DataPaths) -> [HabitID: AutoResult] {
        guard let bytes = try? Sys.readFile(paths.autoResults, limit: 4 << 20, followLinks: false),
              let text = String(validating: bytes, as: UTF8.self) else { return [:] }
        var out: [HabitID: AutoResult] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3, let id = HabitID(String(parts[0])), let day = LocalDay(String(parts[1])) else { continue }
            let rest = parts.count == 4 ? String(parts[3]) : ""
            let outcome: AutoResult.Outcome
            switch parts[2] {
            case "done": outcome = .measured(.done)
            case "not-done": outcome = .measured(.notDone)
            case "total":
                guard let t = Int(rest), (0...Limits.maxDayProgress).contains(t) else { continue }
                outcome = .measured(.total(t))
            case "error": outcome = .failed(rest)
            default: continue
            }
            out[id] = AutoResult(day: day, outcome: outcome)
        }
        return out
    }

    static func encode(_ results: [HabitID: AutoResult]) -> [UInt8] {
        let lines = results.sorted { $0.key.rawValue < $1.key.rawValue }.map { id, r -> String in
            let tail: String
            switch r.outcome {
            case .measured(.done): tail = "done"
            case .measured(.notDone): tail = "not-done"
            case .measured(.total(let t)): tail = "total \(t)"
            case .failed(let why): tail = "error " + String(why.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : Character($0) })
            }
            return "\(id.rawValue) \(r.day) \(tail)\n"
        }
        return Array(lines.joined().utf8)
    }
}

/// Why an auto habit's command gave no result, in words that follow "the command ".
public struct AutoProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// An auto habit's last result: the day it was for and what the command said.
public struct AutoResult: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        case measured(AutoMeasure)
        /// Why the command gave no result (see `AutoProblem`).
        case failed(String)
    }
    public let day: LocalDay
    public let outcome: Outcome
    public init(day: LocalDay, outcome: Outcome) { self.day = day; self.outcome = outcome }

    /// How a screen or a command shows it: "done", "not done", "3.5", "error: failed (…)".
    public var summary: String {
        switch outcome {
        case .measured(let m): m.summary
        case .failed(let why): "error: " + Sanitize.display(why)
        }
    }
}

extension DataPaths {
    /// The last result of each auto habit's command (see `AutoHabits`).
    public var autoResults: String { directory + "/auto-results" }
}

extension HabitRepository {
    /// Each auto habit's last result (see `AutoHabits`).
    public func autoResults() throws -> [HabitID: AutoResult] {
        try withStore { store, _, _ in AutoHabits.results(store.paths) }
    }

    /// Records the last results of some habits (the others' are kept), durably and
    /// atomically, with the data directory's lock held; `keep` are the habits that still
    /// have a command (the others' results are dropped).
    public func recordAutoResults(_ results: [HabitID: AutoResult], keep: Set<HabitID>) throws {
        try withStore { store, _, _ in
            var all = AutoHabits.results(store.paths).filter { keep.contains($0.key) }
            all.merge(results) { $1 }
            try Sys.writeAtomically(AutoHabits.encode(all), to: store.paths.autoResults)
        }
    }
}
