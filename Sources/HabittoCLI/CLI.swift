import FoundationEssentials
import HabitCore
import HabitStore
import HabitImport
import HabitSync
#if canImport(Glibc)
import Glibc
#endif

/// How the command line opens the full-screen UI: the `habitto` executable gives its terminal
/// driver, so that this library needs no terminal library.
public protocol UserInterface: Sendable {
    /// The UI on the data of `env` (no command given).
    func open(_ env: AppEnvironment, _ options: UIOptions) async throws -> Int32
    /// `habitto demo`: the UI on throwaway demo data (`homeGiven`: in `env.home`).
    func demo(_ env: AppEnvironment, homeGiven: Bool, _ options: UIOptions) async throws -> Int32
    /// The termination signals (Ctrl-C) from now on, as a descriptor to poll (`ask`).
    func watchSignals() throws -> any SignalWatch
    /// The program a background round runs as (`habitto sync --background`): this very
    /// binary, nil where there is none to run (the tests' in-process runs).
    var backgroundProgram: String? { get }
}

extension UserInterface {
    public var backgroundProgram: String? { nil }
}

/// Termination signals received, and a descriptor that becomes readable when one is.
public protocol SignalWatch: Sendable {
    var readFD: Int32 { get }
    /// The first termination signal received, if any.
    var pendingSignal: Int32? { get }
}

/// The UI's global options (`--theme`, `--ascii`).
public struct UIOptions: Sendable {
    public var theme: String?
    public var ascii: Bool
}

/// The command line: parse, run, turn every error into one line and an exit code.
public enum CLI {
    /// Runs the process's command line; the exit status.
    @MainActor
    public static func main(ui: any UserInterface) async -> Int32 {
        await run(Array(CommandLine.arguments.dropFirst()), ui: ui, rawArguments: true)
    }

    // On the main actor: what needs no awaiting (parsing, --version, --help, the environment)
    // runs on the main thread, and the concurrency runtime starts its worker threads only when
    // a command awaits the repository or the network, which keeps a short command's start-up
    // small; each awaited call below still runs off the main thread.
    /// Runs the command line `args`; `rawArguments`: they are the process's, whose bytes are
    /// checked to be UTF-8 text.
    @MainActor
    static func run(_ args: [String], ui: any UserInterface, rawArguments: Bool) async -> Int32 {
        Output.ascii = ASCIIText.wanted(arguments: args)
        do {
            if rawArguments { try checkArgumentEncoding() }
            let inv = try ArgumentParser.parse(args, specs: Specs.all)
            if inv.wantsVersion { Output.text(versionText); return ExitCode.ok.rawValue }
            let command = inv.commandName.flatMap(Specs.command(named:))
            if inv.wantsHelp {
                Output.text(command?.spec.help ?? Specs.overview)
                return ExitCode.ok.rawValue
            }
            // Completion scripts and the man page read no data and no config (make install runs them).
            if let document = try command?.document(inv) { Output.raw(document); return ExitCode.ok.rawValue }
            let env = try AppEnvironment.resolve(home: inv.home, env: ProcessEnvironment.value,
                                                 configProblemsAllowed: command?.allowsConfigProblems ?? false)
            guard let command else {
                return try await ui.open(env, UIOptions(theme: inv.theme, ascii: inv.ascii))
            }
            let context = Context(env: env, invocation: inv, ui: ui)
            // Kept until exit(3): freeing the state a repository holds took longer than the
            // system's closing of its files and mappings (a repository's deinit does nothing else).
            Context.keptUntilExit = context
            return try await context.run(command)
        } catch {
            return report(error)
        }
    }

    /// Arguments must be UTF-8: anything else would silently become U+FFFD in a name.
    static func checkArgumentEncoding() throws {
        for i in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[i], String(validatingCString: raw) != nil else {
                throw CLIError.notUTF8(index: i)
            }
        }
    }

    /// Prints `error` as one line on standard error; its exit status.
    static func report(_ error: any Error) -> Int32 {
        switch error {
        case let e as CLIError:
            Output.err("habitto: \(e.message)")
            return e.code
        case let e as ImportError:
            Output.err("habitto: \(e.message)")
            return ExitCode.invalid.rawValue
        case let e as CoreError:
            Output.err("habitto: \(e.description)")
            return ExitCode.invalid.rawValue
        case let e as SyncSettingError:
            Output.err("habitto: \(e.description)")
            return ExitCode.invalid.rawValue
        case let e as StoreError:
            Output.err("habitto: \(e.description)")
            return e.isRefusal ? ExitCode.invalid.rawValue : ExitCode.storage.rawValue
        default:
            Output.err("habitto: \(error)")
            return ExitCode.storage.rawValue
        }
    }
}

/// `habitto demo`: the UI on throwaway demo data with a second device and a slow remote.
struct DemoCommand: Command {
    let context: Context
    static var sendsChangesAfter: Bool { false }

    static var spec: CommandSpec {
        CommandSpec(name: "demo", arguments: [],
                    summary: "Open the UI on throwaway demo data with a second device and a slow remote, to watch sync.",
                    options: [])
    }

    @MainActor func run() async throws {
        let options = UIOptions(theme: invocation.theme, ascii: invocation.ascii)
        context.status = try await context.ui.demo(env, homeGiven: invocation.home != nil, options)
    }
}

/// `habitto --version`: the release and the formats it writes and reads.
let versionText = """
    habitto \(habittoVersion)
    writes: journal \(StoreFormats.journal), snapshot \(StoreFormats.snapshot), backup \(StoreFormats.backup), export \(Export.version), \
    sync batch \(BatchFile.formatVersion), remote format \(RemoteFormat.current)
    reads: those, sync batches 1 and 2 and remote format 1 (older snapshots are rebuilt from the journal)

    """
