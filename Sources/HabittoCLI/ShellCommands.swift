import FoundationEssentials
import HabitCore
import HabitStore
import HabitTUI

extension Specs {
    /// The options every command takes, and those of the UI (for completion and the man page).
    static let globalOptions: [OptionSpec] = [
        OptionSpec(name: "--home", value: "DIR", help: "the data directory (default $HABITTO_HOME, else $XDG_DATA_HOME/habitto)",
                   completes: .directory),
        OptionSpec(name: "--theme", value: "NAME", help: "the UI's theme (see Themes in docs/ui.md)", completes: .theme),
        OptionSpec(name: "--ascii", value: nil, help: "ASCII output only (also under a locale that is not UTF-8)"),
        OptionSpec(name: "--help", value: nil, help: "the commands, or a command's options"),
        OptionSpec(name: "--version", value: nil, help: "print the version"),
    ]
}

/// A command that prints a document made from the command table alone (`document`).
protocol DocumentCommand: Command {}

extension DocumentCommand {
    @MainActor func run() async throws { try Output.raw(Self.document(invocation) ?? "") }
}

/// `habitto completions bash|zsh|fish`: a shell completion script.
struct CompletionsCommand: DocumentCommand {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "completions", arguments: ["bash|zsh|fish"],
                    summary: "Print a shell completion script (commands, options, their values, habit names).",
                    options: [],
                    notes: "bash: source <(habitto completions bash) in ~/.bashrc; zsh: save it as _habitto in a directory of $fpath;\nfish: save it as ~/.config/fish/completions/habitto.fish. See docs/shell.md.")
    }

    static func document(_ invocation: Invocation) throws -> String? {
        let shell = invocation.arguments[0]
        guard let script = Completions.script(shell, specs: Specs.all, globals: Specs.globalOptions) else {
            throw CLIError.usage(.completionsShell(shell))
        }
        return script
    }
}

/// `habitto __complete habits|themes`: names one a line, reading nothing but what they need
/// (no data directory yet: no names, and nothing is created).
struct CompleteCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "__complete", arguments: ["habits|themes|devices"], summary: "Print habit or theme names, or the starts of device ids, one a line (for completion).",
                    options: [], hidden: true)
    }

    @MainActor func run() async throws {
        switch invocation.arguments[0] {
        case "habits":
            guard FileManager.default.fileExists(atPath: DataPaths(directory: env.home).journal) else { return }
            let repo = try openRepository()
            for habit in await repo.state.habits { Output.line(habit.name) }
        case "devices":
            // The first 8 hex digits of each device's id, as `status` and `log` name devices.
            guard FileManager.default.fileExists(atPath: DataPaths(directory: env.home).journal) else { return }
            let repo = try openRepository()
            let devices = Set(await repo.state.seen.keys).union([repo.device]).sorted()
            for d in devices { Output.line(String(d.rawValue.prefix(8))) }
        case "themes":
            let configDir = env.configPath.pathParent
            let catalog = ThemeCatalog(
                userDirectory: configDir + "/themes",
                bundledDirectories: ThemeCatalog.bundledDirectories(executablePath: ProcessEnvironment.executablePath,
                                                                    environment: ProcessEnvironment.current),
                listFiles: ThemeCatalog.live.listFiles, readFile: ThemeCatalog.live.readFile)
            for name in catalog.names { Output.line(name) }
        default:
            throw CLIError.usage(.completeWhat)
        }
    }
}

/// `habitto __man`: the man page (make install writes it).
struct ManCommand: DocumentCommand {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "__man", arguments: [], summary: "Print the man page habitto.1 (roff).", options: [], hidden: true)
    }

    static func document(_ invocation: Invocation) throws -> String? { ManPage.render(Specs.all) }
}

/// `habitto __reference`: the command and key reference (docs/reference.md).
struct ReferenceCommand: DocumentCommand {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "__reference", arguments: [], summary: "Print the command and key reference (Markdown, docs/reference.md).",
                    options: [], hidden: true)
    }

    static func document(_ invocation: Invocation) throws -> String? { Reference.render(Specs.all) }
}
