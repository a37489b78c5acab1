import HabitCore

/// What a value (an option's or a positional argument's) completes to in a shell.
enum ValueKind: Equatable {
    /// Anything (typed by hand).
    case free
    /// One of these words (examples of a grammar, such as schedules, included).
    case words([String])
    /// A habit's name.
    case habit
    /// A theme's name.
    case theme
    case file, directory

    /// The kind a positional argument's placeholder implies: `HABIT` and `OTHER` are habits,
    /// `PATH` a file, and `a|b|c` its lowercase words (`1-5` stands for 1 to 5).
    static func of(placeholder: String) -> ValueKind {
        switch placeholder {
        case "HABIT", "OTHER": return .habit
        case "PATH": return .file
        case "DIR": return .directory
        case "DURATION": return .words(["5m", "10m", "15m", "25m", "45m", "1h"])
        default:
            guard placeholder.contains("|") else { return .free }
            let words = placeholder.split(separator: "|").flatMap { part -> [String] in
                if part == "1-5" { return Limits.difficulty.map(String.init) }
                return part == part.lowercased() ? [String(part)] : []
            }
            return .words(words)
        }
    }
}

/// One option of a command.
///
/// The help texts are built when read, not when the table is: every command parses its
/// arguments against the table, and building every text (joined lists, interpolations)
/// would cost every command's start-up.
struct OptionSpec {
    let name: String
    /// The placeholder of its value (`N`, `DATE`), or nil for a flag.
    let value: String?
    private let helpText: @Sendable () -> String
    var help: String { helpText() }
    /// What its value completes to in a shell (see `Completions`).
    var completes: ValueKind = .free

    init(name: String, value: String?, help: @autoclosure @escaping @Sendable () -> String, completes: ValueKind = .free) {
        self.name = name; self.value = value; helpText = help; self.completes = completes
    }
}

/// A command: its positional arguments, options and help, as data.
struct CommandSpec {
    let name: String
    let arguments: [String]
    let summary: String
    let options: [OptionSpec]
    private let notesText: @Sendable () -> String
    var notes: String { notesText() }
    /// Positional arguments that may be left out (after the required ones).
    var optionalArguments: [String] = []
    /// Left out of the help's list of commands, the man page and completion (internal
    /// commands the completion scripts call).
    var hidden = false

    init(name: String, arguments: [String], summary: String, options: [OptionSpec],
         notes: @autoclosure @escaping @Sendable () -> String = "", optionalArguments: [String] = [], hidden: Bool = false) {
        self.name = name; self.arguments = arguments; self.summary = summary; self.options = options
        notesText = notes; self.optionalArguments = optionalArguments; self.hidden = hidden
    }

    var usageLine: String {
        var parts = ["habitto", name] + arguments + optionalArguments.map { "[\($0)]" }
        for o in options { parts.append(o.value.map { "[\(o.name) \($0)]" } ?? "[\(o.name)]") }
        return parts.joined(separator: " ")
    }

    var help: String {
        var s = "\(summary)\n\nUsage: \(usageLine)\n"
        if !options.isEmpty {
            s += "\nOptions:\n"
            let width = options.map { $0.name.count + ($0.value.map { $0.count + 1 } ?? 0) }.max()! + 2
            for o in options {
                let left = o.name + (o.value.map { " " + $0 } ?? "")
                s += "  " + left + String(repeating: " ", count: width - left.count) + o.help + "\n"
            }
        }
        s += "\nGlobal: --home DIR (data directory; default $HABITTO_HOME, else $XDG_DATA_HOME/habitto)\n"
        if !notes.isEmpty { s += "\n" + notes + "\n" }
        return s
    }
}

/// A parsed command line.
struct Invocation {
    /// The command's name as given: one of the command table's (which tests extend).
    var commandName: String?
    /// The command, when it is one of this release's.
    var command: CommandName? { commandName.flatMap(CommandName.init(rawValue:)) }
    var arguments: [String] = []
    var values: [String: String] = [:]
    /// The flags given (a few at most: an array, whose type every command has built
    /// already, where a `Set<String>` would be the process's first and cost its metadata).
    var flags: [String] = []
    var home: String?
    /// The UI's theme and ASCII switch (global options).
    var theme: String?
    var ascii = false
    var wantsHelp = false
    var wantsVersion = false

    /// The value given to option `name`, if it was.
    func value(_ name: OptionName) -> String? { values[name.rawValue] }
    /// Whether flag `name` was given.
    func flag(_ name: OptionName) -> Bool { flags.contains(name.rawValue) }
    /// Whether option or flag `name` was given.
    func given(_ name: OptionName) -> Bool { value(name) != nil || flag(name) }
    /// Whether any option or flag was given (the global ones aside).
    var hasOptions: Bool { !values.isEmpty || !flags.isEmpty }
}

enum ArgumentParser {
    /// Splits arguments into command, positionals and options, checking them against the
    /// command's spec. Throws usage errors (exit code 2).
    static func parse(_ args: [String], specs: [CommandSpec]) throws -> Invocation {
        var inv = Invocation()
        var i = 0
        var onlyPositionals = false
        var spec: CommandSpec?
        func next(_ name: String) throws -> String {
            i += 1
            guard i < args.count else { throw CLIError.needsValue(option: name, command: spec?.name) }
            return args[i]
        }
        while i < args.count {
            let arg = args[i]
            defer { i += 1 }
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                if inv.commandName == nil && !onlyPositionals {
                    guard let s = specs.first(where: { $0.name == arg }) else {
                        throw CLIError.unknownCommand(arg, nearest: Suggest.nearest(arg, among: specs.filter { !$0.hidden }.map(\.name)))
                    }
                    inv.commandName = arg
                    spec = s
                } else {
                    inv.arguments.append(arg)
                }
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            if arg == "-h" || arg == "--help" { inv.wantsHelp = true; continue }
            if arg == "--version" && inv.commandName == nil { inv.wantsVersion = true; continue }
            var name = arg, inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq]); inline = String(arg[arg.index(after: eq)...])
            }
            if name == "--home" {
                guard inv.home == nil else { throw CLIError.givenTwice(option: name) }
                inv.home = try inline ?? next(name)
                continue
            }
            if name == "--theme" && spec == nil {
                guard inv.theme == nil else { throw CLIError.givenTwice(option: name) }
                inv.theme = try inline ?? next(name)
                continue
            }
            if name == "--ascii" && inline == nil && spec?.options.contains(where: { $0.name == name }) != true {
                inv.ascii = true // global, before or after the command
                continue
            }
            guard let spec, let option = spec.options.first(where: { $0.name == name }) else {
                let known = spec.map { $0.options.map(\.name) } ?? ["--home", "--theme", "--ascii", "--help", "--version"]
                throw CLIError.unknownOption(name, command: spec?.name, nearest: Suggest.nearest(name, among: known))
            }
            if option.value != nil {
                guard inv.values[name] == nil else { throw CLIError.givenTwice(option: name) }
                inv.values[name] = try inline ?? next(name)
            } else {
                guard inline == nil else { throw CLIError.takesNoValue(option: name) }
                if !inv.flags.contains(name) { inv.flags.append(name) }
            }
        }
        if let spec, !inv.wantsHelp {
            if inv.arguments.count < spec.arguments.count {
                throw CLIError.missingArgument(spec.arguments[inv.arguments.count], usage: spec.usageLine)
            }
            let most = spec.arguments.count + spec.optionalArguments.count
            if inv.arguments.count > most {
                throw CLIError.unexpectedArgument(inv.arguments[most], usage: spec.usageLine)
            }
        }
        return inv
    }
}
