import HabitCore
import HabitImport
import HabitStore
import HabitSync
import HabitTUI

/// An error the command line reports: one line (`message`, worded here), with an exit code.
public enum CLIError: Error {
    // The command line itself (exit 2).
    case unknownCommand(String, nearest: String?)
    /// `command`: the command it was given to, if one was named before it.
    case unknownOption(String, command: String?, nearest: String?)
    case needsValue(option: String, command: String?)
    case givenTwice(option: String)
    case takesNoValue(option: String)
    case missingArgument(String, usage: String)
    case unexpectedArgument(String, usage: String)
    /// Argument `index` is not UTF-8.
    case notUTF8(index: Int)
    /// A command's own usage error (`Usage`: its data, worded below).
    case usage(Usage)

    // Values (exit 1).
    case invalidDate(String)
    case notAWholeNumber(option: OptionName, text: String, range: ClosedRange<Int>)
    /// A negative `--amount` (`text`) to `check` or `uncheck`; `opposite` does what it means.
    case negativeAmount(text: String, opposite: CommandName)
    /// A negative `--goal` (`text`): a number, but a goal counts up from 0.
    case negativeGoal(text: String)
    /// An amount option's text is not an amount.
    case notAnAmount(option: OptionName, CoreError)
    /// An amount option outside `minimum`…`maximum` (thousandths).
    case amountOutOfRange(option: OptionName, text: String, minimum: Int, maximum: Int)
    /// `orClear`: the command (`rate`) also takes `clear`.
    case invalidDifficulty(String, orClear: Bool)
    /// A command's own refusal of input (`Refusal`: its data, worded below).
    case invalid(Refusal)

    // Outcomes that end a command with their own status.
    /// A sync failed or was not made (exit 4).
    case syncFailed(SyncFailure)
    /// The doctor found `count` problems (exit 5).
    case problemsFound(count: Int)
    /// `ask` was interrupted by `signal` after `answered` answers (exit 128 + signal).
    case interrupted(answered: Int, signal: Int32)

    /// The one line the error is reported as (after "habitto: ").
    public var message: String {
        switch self {
        case .unknownCommand(let name, let nearest):
            let hint = nearest.map { "did you mean '\($0)'? Run" } ?? "run"
            return "unknown command '\(Sanitize.display(name))'; \(hint) 'habitto --help' for the list of commands"
        case .unknownOption(let name, let command, let nearest):
            let see = command.map { "see 'habitto \($0) --help'" } ?? "see 'habitto --help'"
            let hint = nearest.map { "; did you mean '\($0)'? S" + see.dropFirst() } ?? "; " + see
            return "unknown option '\(Sanitize.display(name))'" + (command.map { " for 'habitto \($0)'" } ?? "") + hint
        case .needsValue(let option, let command): return "\(option) needs a value\(command.map { "; see 'habitto \($0) --help'" } ?? "")"
        case .givenTwice(let option): return "\(option) is given twice"
        case .takesNoValue(let option): return "\(option) takes no value"
        case .missingArgument(let name, let usage): return "missing \(name): usage: \(usage)"
        case .unexpectedArgument(let argument, let usage):
            return "unexpected argument '\(Sanitize.display(argument))': usage: \(usage) (quote names that contain spaces)"
        case .notUTF8(let i): return "argument \(i) is not valid UTF-8 text; check your terminal's character encoding"
        case .invalidDate(let text):
            return "invalid date '\(Sanitize.display(text))': use \(TypedDay.forms)"
        case .notAWholeNumber(let option, let text, let range):
            return "\(option.rawValue) '\(Sanitize.display(text))' must be a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .negativeAmount(let text, let opposite):
            return "--amount '\(Sanitize.display(text))' must be positive: '\(opposite.rawValue) --amount \(text.dropFirst())' does the opposite"
        case .negativeGoal(let text):
            return "--goal '\(Sanitize.display(text))' must be positive: a goal is how much a day asks for, such as 8 (a limit habit may have 0)"
        case .notAnAmount(let option, let error): return "\(option.rawValue): \(error.description)"
        case .amountOutOfRange(let option, let text, let minimum, let maximum):
            return "\(option.rawValue) '\(Sanitize.display(text))' must be from \(Amount.format(minimum)) to \(Amount.format(maximum))"
        case .invalidDifficulty(let text, let orClear):
            return "\(CoreError.difficultyOutOfRange(given: text).description)\(orClear ? " or clear" : "")"
        case .problemsFound(let count): return "doctor found \(Plural.count(count, "problem"))"
        case .interrupted(let answered, _): return "interrupted: \(Plural.count(answered, "answer")) kept"
        case .usage(let u): return u.text
        case .invalid(let r): return r.text
        case .syncFailed(let f): return f.text
        }
    }

    /// The exit status.
    public var code: Int32 {
        switch self {
        case .unknownCommand, .unknownOption, .needsValue, .givenTwice, .takesNoValue, .missingArgument, .unexpectedArgument,
             .notUTF8, .usage:
            return ExitCode.usage.rawValue
        case .invalidDate, .notAWholeNumber, .negativeAmount, .negativeGoal, .notAnAmount, .amountOutOfRange, .invalidDifficulty, .invalid:
            return ExitCode.invalid.rawValue
        case .syncFailed: return ExitCode.syncFailed.rawValue
        case .problemsFound: return ExitCode.problemsFound.rawValue
        case .interrupted(_, let signal): return ExitCode.interrupted(by: signal)
        }
    }
}

/// The documented exit statuses: the man page's and the reference's table is made from
/// `meaning`, and the help's line names them too (a test compares the docs with this table).
public enum ExitCode: Int32, CaseIterable, Sendable {
    case ok = 0
    /// Invalid input or an unknown habit (for `remind`: a reminder that could not be shown).
    case invalid = 1
    /// A usage error, including starting the UI where it cannot run.
    case usage = 2
    case storage = 3
    /// A sync failed, or was not made (offline, another process's round).
    case syncFailed = 4
    /// `doctor` found problems.
    case problemsFound = 5

    /// The status the process exits with when interrupted by `signal` (Ctrl-C: 130).
    public static func interrupted(by signal: Int32) -> Int32 { 128 + signal }

    /// What the status means, as the man page and the reference list it.
    var meaning: String {
        switch self {
        case .ok: return "success"
        case .invalid: return "invalid input or an unknown habit, or (remind) a reminder that could not be shown"
        case .usage: return "a usage error"
        case .storage: return "a storage error"
        case .syncFailed: return "sync failed (or offline, for sync)"
        case .problemsFound: return "the doctor found problems"
        }
    }
}


extension CLIError {
    /// A usage error of one command (exit 2), with what it is about; `text` words it.
    public enum Usage: Sendable {
        // Options that do not go together, or go only with others.
        /// `options` contradict each other: one of them, or none, is given.
        case contradict([OptionName])
        /// `move` with no place, or with several (`given`).
        case movePlace(given: [OptionName])
        case fromWithoutRuleChange
        case spanOrByWithoutChart
        case byWithoutHistory
        case jsonWithTimer
        case jsonWithOneLine
        case encryptionWithoutRemote
        case restoreNeedsOneWay
        case editNeedsOption
        case deleteNeedsYes
        /// `pause` naming none or several of HABIT, `--group`, `--all` (`given`: how many).
        case pauseWhich(given: Int)
        /// `pause` without `--to` (and without `--end`).
        case pauseNeedsTo
        /// `pause --end` with `--from`, `--to` or `--reason`.
        case pauseEndTakesNoRange

        // A command's arguments.
        /// `backup ACTION ID` for an action other than restore.
        case backupTakesNoID(action: String)
        case backupAction
        case restoreNeedsID
        /// `auto --list`/`--run` (`mode`) with a habit.
        case autoModeTakesNoHabit(OptionName)
        case autoClearTakesOneHabit
        /// `auto` without `--list`, `--run` or `--clear`, and not a habit and a command (`habitGiven`: one habit).
        case autoNeedsCommand(habitGiven: Bool)
        case noteTextAndClear
        case noteNeedsText
        case remoteKeyTakesNoArgument
        case remoteSetNeedsRemote
        case remoteAction
        case offlineValue
        case completeWhat

        // Values not among their choices, or missing.
        case importNeedsFormat
        case unknownImportFormat(String)
        case exportFormat(String)
        case completionsShell(String)
        /// `option`'s `text` is not one of `choices`; `nearest`: the one close to it.
        case notAChoice(option: OptionName, text: String, choices: [String], nearest: String?)
        /// `--output` empty (`folder`: for csv, a folder).
        case outputNeedsName(folder: Bool)
        case homeNeedsDirectory
        case invalidFrom(String)
        case fromInFuture(LocalDay, today: LocalDay)
        case formatLonePercent
        /// `placeholder` after a % in `--format`; `known`: the placeholders there are.
        case unknownPlaceholder(Character, known: [String])

        // Where the command runs.
        case timeLimits(TimeLimits.Problem)
        case nowNotUnderstood(String)
        /// `HABITTO_TIMER_SPEED` is not a number from 1 to 100000.
        case timerSpeed(String)
        /// `ask` without a terminal, with `items` habit-days to catch up.
        case askNeedsTerminal(items: Int)
        case uiNeedsTerminal
        /// TERM names a terminal the UI cannot run on: the words of the terminal library's
        /// error (HabitTerminal, which this module does not link), so text from outside.
        case unsuitableTerminal(String)

        var text: String {
            switch self {
            case .contradict(let options): return "\(Self.and(options)) contradict each other; give one"
            case .movePlace(let given):
                let why = given.isEmpty ? "move needs where to" : "\(Self.and(given)) contradict each other"
                return "\(why): give exactly one of --before OTHER, --after OTHER, --top, --bottom"
            case .fromWithoutRuleChange: return "--from goes with --goal, --unit, --limit, --build or --schedule: it says from which day they count"
            case .spanOrByWithoutChart: return "--span and --by go with --chart; e.g. 'habitto show HABIT --chart history --by month'"
            case .byWithoutHistory: return "--by goes with --chart history"
            case .jsonWithTimer: return "--json is for reminders, not with --install or --uninstall"
            case .jsonWithOneLine: return "--short and --format print one line; leave out --json"
            case .encryptionWithoutRemote: return "remote set none takes no --encrypt or --key"
            case .restoreNeedsOneWay: return "backup restore needs exactly one of --replace (make the data the backup's) or --merge (add what it has)"
            case .pauseWhich(let given):
                return "\(given == 0 ? "pause needs the habits to pause" : "HABIT, --group and --all contradict each other"): give one of HABIT, --group NAME or --all"
            case .pauseNeedsTo: return "pause needs --to DATE, its last day (--from is today unless given); 'habitto pause HABIT --end' ends one"
            case .pauseEndTakesNoRange: return "--end ends the current or next pause as it is: give no --from, --to or --reason with it"
            case .editNeedsOption: return "edit needs at least one option to change; see 'habitto edit --help'"
            case .deleteNeedsYes: return "delete removes a habit and all its history: add --yes to confirm ('habitto undo' brings it back)"
            case .backupTakesNoID(let action): return "'backup \(Sanitize.display(action))' takes no ID"
            case .backupAction: return "backup takes create, list, restore ID (--replace | --merge) or prune"
            case .restoreNeedsID: return "backup restore needs an ID: 'habitto backup list' shows them"
            case .autoModeTakesNoHabit(let mode):
                return "\(mode.rawValue) takes no habit: 'habitto auto \(mode.rawValue)'\(mode == .run ? " runs them all" : "")"
            case .autoClearTakesOneHabit: return "--clear takes one habit: 'habitto auto HABIT --clear'"
            case .autoNeedsCommand(true): return "give the command too: habitto auto HABIT 'COMMAND' (or --clear)"
            case .autoNeedsCommand(false): return "habitto auto HABIT 'COMMAND', or auto HABIT --clear, auto --list, auto --run"
            case .noteTextAndClear: return "note takes TEXT or --clear, not both"
            case .noteNeedsText: return "missing TEXT: usage: habitto note HABIT TEXT, or habitto note HABIT --clear"
            case .remoteKeyTakesNoArgument: return "remote key takes no argument"
            case .remoteSetNeedsRemote: return "remote set needs a remote: dir:/path/to/folder, file:///path or none"
            case .remoteAction: return "remote takes 'set SPEC', 'show' or 'key'"
            case .offlineValue: return "offline takes on or off"
            case .completeWhat: return "__complete takes habits, themes or devices"
            default: return valueText
            }
        }

        /// The words of a value's and a place's usage errors.
        private var valueText: String {
            switch self {
            case .importNeedsFormat: return "import needs --from: \(Self.importFormats)"
            case .unknownImportFormat(let name): return "unknown import format '\(Sanitize.display(name))': use \(Self.importFormats)"
            case .exportFormat(let format): return "export format '\(Sanitize.display(format))' is not supported: use --format json or csv"
            case .completionsShell(let shell): return "completions for '\(Sanitize.display(shell))' are not available: use bash, zsh or fish"
            case .notAChoice(let option, let text, let choices, let nearest):
                let hint = nearest.map { " (did you mean '\($0)'?)" } ?? ""
                return "\(option.rawValue) '\(Sanitize.display(text))' is not one of \(choices.joined(separator: ", "))\(hint)"
            case .outputNeedsName(let folder): return "--output needs a \(folder ? "folder" : "file") name"
            case .homeNeedsDirectory: return "--home needs a directory"
            case .invalidFrom(let text):
                return "invalid --from '\(Sanitize.display(text))': use start (the habit's first day), \(TypedDay.forms)"
            case .fromInFuture(let day, let today):
                return "--from \(day) is in the future (today is \(today)): a change counts from today or an earlier day"
            case .formatLonePercent: return "--format ends with a lone %: write %% for a percent sign"
            case .unknownPlaceholder(let p, let known):
                return "unknown placeholder '%\(Sanitize.display(String(p)))' in --format: use \(known.joined(separator: " "))"
            case .timeLimits(let problem): return problem.description
            case .nowNotUnderstood(let text):
                return "HABITTO_NOW='\(Sanitize.display(text))' is not an ISO-8601 date-time such as 2026-11-21T09:30:00; unset it to use the clock"
            case .timerSpeed(let text):
                return "\(TimerClock.variable)='\(Sanitize.display(text))' is not a number from 1 to 100000 (timer seconds a second); unset it for real time"
            case .askNeedsTerminal(let items):
                return "ask needs a terminal to answer on (\(Plural.count(items, "habit-day")) to catch up); from a script use 'habitto check|skip HABIT --date DATE'"
            case .uiNeedsTerminal: return "the full-screen UI needs a terminal (standard input and output are not one); try 'habitto list'"
            case .unsuitableTerminal(let message): return message
            default: return "" // not reached: `text` words the others
            }
        }

        private static func and(_ options: [OptionName]) -> String { options.map(\.rawValue).joined(separator: " and ") }
        private static var importFormats: String { ImportFormat.allCases.map(\.rawValue).joined(separator: ", ") }
    }

    /// A refusal of a command's input (exit 1), with what it is about; `text` words it.
    public enum Refusal: Sendable {
        /// An import that failed (`nothingWritten`: while reading, before any write).
        case importFailed(ImportError, nothingWritten: Bool)
        /// An export's `output` (absolute) inside the data directory `home`.
        case exportInsideData(output: String, home: String)
        /// The fault list `text` (`HABITTO_FAULTS` or the config's `faults`) is not understood.
        case faults(text: String, SyncSettingError)
        case notAnAutoHabit(Habit)
        case passwordInURL
        /// A sync setting `remote set` cannot use.
        case setting(SyncSettingError)
        /// `sync` with nothing to sync with (`skip`: `.noRemote`).
        case notSynced(SyncReport.Skip)
        /// `--key` or `--encrypt` (`option`) without the age program.
        case ageMissing(OptionName)
        case age(AgeError)
        case keyInputTooLarge
        /// `--key FILE` names no file.
        case keyFileMissing(String)
        case keyFileUnreadable(String, StoreError)
        case noRemoteKey
        /// Reminders notify-send could not show: `count` of them, the first and its problem.
        case remindersNotShown(first: DueReminder, problem: String, count: Int)
        case dataPathHasLineBreak
        /// `pause --group NAME` with no habit in that group.
        case noHabitInGroup(String)
        /// `status --watch` could not watch the data directory `path` (inotify's `reason`).
        case cannotWatch(path: String, reason: String)
        /// `log --since` a day after its `--until`.
        case sinceAfterUntil(since: LocalDay, until: LocalDay)
        /// `log --device` names no device whose changes this one holds.
        case noSuchDevice(String)
        /// `log --device` names the start of several devices' ids (`matches`, shortened).
        case ambiguousDevice(String, matches: [String])

        var text: String {
            switch self {
            case .noHabitInGroup(let name): return "no habit is in the group '\(Sanitize.display(name))'; 'habitto list --all' shows the groups"
            case .importFailed(let e, let before): return e.message + (before ? "; nothing was written" : "")
            case .exportInsideData(let output, let home):
                return "--output \(Sanitize.display(output)) is inside the data directory \(Sanitize.display(home)), where an export could replace Habitto's own files (such as the journal); write it somewhere else"
            case .faults(let text, let e): return "faults '\(Sanitize.display(text))': \(e.description)"
            case .notAnAutoHabit(let habit): return "\(Output.title(habit)) is not an auto habit on this machine; 'habitto auto --list' shows them"
            case .passwordInURL:
                return "the remote URL contains a password: remove it, and supply the password with HABITTO_WEBDAV_PASSWORD, password_command or password_file"
            case .setting(let e): return e.description
            case .notSynced(let skip): return skip.description
            case .ageMissing(let option):
                return "\(option.rawValue) needs the age program (age and age-keygen), which is not installed: \(AgeTool.install)"
            case .age(let e): return e.description
            case .keyInputTooLarge: return "standard input holds more than 64 KiB, which no age identity is; give the identity 'habitto remote key' printed"
            case .keyFileMissing(let file):
                return "--key \(Sanitize.display(file)): no such file; give the file holding what 'habitto remote key' printed on a device that has the key"
            case .keyFileUnreadable(let file, let e): return "--key \(Sanitize.display(file)): \(e)"
            case .noRemoteKey:
                return "this device has no remote key: 'habitto remote set SPEC --encrypt' makes one, 'habitto remote set SPEC --key FILE' brings one from another device"
            case .remindersNotShown(let first, let problem, let count):
                let which = "the \(first.time) reminder for \(Output.title(first.habit))"
                return count == 1
                    ? "remind: \(which) was not shown: notify-send \(problem); it is tried again at the next run"
                    : "remind: \(Plural.count(count, "reminder")) \(Plural.noun(count, "was", "were")) not shown (\(which), first: notify-send \(problem)); they are tried again at the next run"
            case .dataPathHasLineBreak: return "the data directory's path contains a line break; a timer cannot name it"
            case .cannotWatch(let path, let reason):
                return "cannot watch \(Sanitize.display(path)) for changes (\(Sanitize.display(reason))); run the status command without --watch on the bar's interval instead"
            case .sinceAfterUntil(let since, let until): return "--since \(since) is after --until \(until); give the earlier day to --since"
            case .noSuchDevice(let prefix):
                return "no device's id starts with '\(Sanitize.display(prefix))'; 'habitto status' lists the devices (this one and those synced with)"
            case .ambiguousDevice(let prefix, let matches):
                return "'\(Sanitize.display(prefix))' starts the ids of \(matches.count) devices (\(matches.joined(separator: ", "))); give more of the id"
            }
        }
    }

    /// A sync that failed or was not made (exit 4); `text` words it. `error`: the round's
    /// report of what failed (`SyncReport.error`, worded by the sync engine).
    public enum SyncFailure: Sendable {
        /// `remote set`'s first sync, to `spec` and `account`.
        case firstSync(spec: String, account: String, error: String)
        case offline
        /// Not synced by this process (`skip`: another process's round).
        case notSynced(SyncReport.Skip)
        /// `sync`'s round, with what it did before it failed.
        case round(error: String, SyncReport)
        /// `offline off`'s sync.
        case afterOnline(error: String)

        var text: String {
            switch self {
            case .firstSync(let spec, let account, let error):
                return "remote set to \(Sanitize.display(spec)) (account \(account)), but the first sync failed: \(error); it resumes with 'habitto sync', nothing local was changed"
            case .offline: return SyncInfo.offlineHint + " ('habitto offline off' from a shell)"
            case .notSynced(let skip): return "not synced: \(skip); run 'habitto sync' again when it is done"
            case .round(let error, let report): return "sync: \(error) (\(report.counts)); 'habitto status' shows the details"
            case .afterOnline(let error): return "online, but the sync failed: \(error)"
            }
        }
    }
}

extension SyncReport {
    /// What a round sent and read: "pushed 3 operations in 1 batch, pulled 2".
    var counts: String { "pushed \(Plural.count(pushed, "operation")) in \(Plural.count(batches, "batch")), pulled \(pulled)" }
}
