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

    /// The commands that fit Habitto into a shell: completion scripts, and the hidden
    /// commands the scripts and the build call.
    static let shellSpecs: [CommandSpec] = [
        CommandSpec(name: "completions", arguments: ["bash|zsh|fish"],
                    summary: "Print a shell completion script (commands, options, their values, habit names).",
                    options: [],
                    notes: "bash: source <(habitto completions bash) in ~/.bashrc; zsh: save it as _habitto in a directory of $fpath;\nfish: save it as ~/.config/fish/completions/habitto.fish. See docs/shell.md."),
        CommandSpec(name: "__complete", arguments: ["habits|themes"], summary: "Print habit or theme names, one a line (for completion).",
                    options: [], hidden: true),
        CommandSpec(name: "__man", arguments: [], summary: "Print the man page habitto.1 (roff).", options: [], hidden: true),
        CommandSpec(name: "__reference", arguments: [], summary: "Print the command and key reference (Markdown, docs/reference.md).",
                    options: [], hidden: true),
    ]
}

extension Specs {
    /// What `completions SHELL`, `__man` and `__reference` print (nil for other commands): documents made
    /// from the command table alone, without reading data or config.
    static func document(_ inv: Invocation) throws -> String? {
        switch inv.command {
        case "completions":
            let shell = inv.arguments[0]
            guard let script = Completions.script(shell, specs: all, globals: globalOptions) else {
                throw CLIError.usage("completions for '\(Sanitize.display(shell))' are not available: use bash, zsh or fish")
            }
            return script
        case "__man": return ManPage.render(all)
        case "__reference": return Reference.render(all)
        default: return nil
        }
    }
}

extension Runner {
    /// `__complete habits|themes`: names one a line, reading nothing but what they need
    /// (no data directory yet: no names, and nothing is created).
    func complete() async throws {
        switch invocation.arguments[0] {
        case "habits":
            guard FileManager.default.fileExists(atPath: DataPaths(directory: env.home).journal) else { return }
            let repo = try openRepository()
            for habit in await repo.state.habits { Output.line(habit.name) }
        case "themes":
            let configDir = env.configPath.pathParent
            let catalog = ThemeCatalog(
                userDirectory: configDir + "/themes",
                bundledDirectories: ThemeCatalog.bundledDirectories(executablePath: TerminalApp.executablePath(),
                                                                    environment: ProcessEnvironment.current),
                listFiles: ThemeCatalog.live.listFiles, readFile: ThemeCatalog.live.readFile)
            for name in catalog.names { Output.line(name) }
        default:
            throw CLIError.usage("__complete takes habits or themes")
        }
    }
}
