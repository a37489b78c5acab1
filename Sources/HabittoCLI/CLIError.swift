import HabitCore

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
    /// Another usage error, worded where it is found.
    case usage(String)

    // Values (exit 1).
    case invalidDate(String)
    case notAWholeNumber(option: OptionName, text: String, range: ClosedRange<Int>)
    /// A negative `--amount` (`text`) to `check` or `uncheck`; `opposite` does what it means.
    case negativeAmount(text: String, opposite: CommandName)
    /// An amount option's text is not an amount.
    case notAnAmount(option: OptionName, CoreError)
    /// An amount option outside `minimum`…`maximum` (thousandths).
    case amountOutOfRange(option: OptionName, text: String, minimum: Int, maximum: Int)
    /// `orClear`: the command (`rate`) also takes `clear`.
    case invalidDifficulty(String, orClear: Bool)
    /// Another refusal of input, worded where it is found.
    case invalid(String)

    // Outcomes that end a command with their own status.
    /// A sync failed or was not made (exit 4).
    case syncFailed(String)
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
        case .notAnAmount(let option, let error): return "\(option.rawValue): \(error.description)"
        case .amountOutOfRange(let option, let text, let minimum, let maximum):
            return "\(option.rawValue) '\(Sanitize.display(text))' must be from \(Amount.format(minimum)) to \(Amount.format(maximum))"
        case .invalidDifficulty(let text, let orClear):
            return "\(CoreError.difficultyOutOfRange(given: text).description)\(orClear ? " or clear" : "")"
        case .problemsFound(let count): return "doctor found \(Plural.count(count, "problem"))"
        case .interrupted(let answered, _): return "interrupted: \(Plural.count(answered, "answer")) kept"
        case .usage(let m), .invalid(let m), .syncFailed(let m): return m
        }
    }

    /// The exit status.
    public var code: Int32 {
        switch self {
        case .unknownCommand, .unknownOption, .needsValue, .givenTwice, .takesNoValue, .missingArgument, .unexpectedArgument,
             .notUTF8, .usage:
            return ExitCode.usage.rawValue
        case .invalidDate, .notAWholeNumber, .negativeAmount, .notAnAmount, .amountOutOfRange, .invalidDifficulty, .invalid:
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

