import FoundationEssentials
import HabitCore
import HabitStore
import HabitImport
#if canImport(Glibc)
import Glibc
#endif

// Wiring only: parse, run, turn every error into one line and an exit code.
signal(SIGPIPE, SIG_IGN)

// On the main actor: what needs no awaiting (parsing, --version, --help, the environment)
// runs on the main thread, and the concurrency runtime starts its worker threads only when
// a command awaits the repository or the network, which keeps a short command's start-up
// small; each awaited call below still runs off the main thread.
@MainActor
func runMain() async -> Int32 {
    let args = Array(CommandLine.arguments.dropFirst())
    Output.ascii = ASCIIText.wanted(arguments: args)
    do {
        // Arguments must be UTF-8: anything else would silently become U+FFFD in a name.
        for i in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[i], String(validatingCString: raw) != nil else {
                throw CLIError.usage("argument \(i) is not valid UTF-8 text; check your terminal's character encoding")
            }
        }
        let inv = try ArgumentParser.parse(args, specs: Specs.all)
        if inv.wantsVersion { Output.line("habitto \(habittoVersion)"); return ExitCode.ok }
        if inv.wantsHelp {
            Output.text(inv.command.flatMap { c in Specs.all.first { $0.name == c } }?.help ?? Specs.overview)
            return ExitCode.ok
        }
        // Completion scripts and the man page read no data and no config (make install runs them).
        if let document = try Specs.document(inv) { Output.raw(document); return ExitCode.ok }
        let env = try AppEnvironment.resolve(home: inv.home, env: ProcessEnvironment.value,
                                             configProblemsAllowed: inv.command == "doctor")
        // The prompt segment, when its cache holds the count: no repository, no async runtime.
        if let line = try Segment.cachedLine(env: env, invocation: inv) { Output.line(line); return ExitCode.ok }
        if inv.command == "demo" {
            return try await Demo.run(env: env, homeGiven: inv.home != nil, options: .init(theme: inv.theme, ascii: inv.ascii))
        }
        guard inv.command != nil else {
            return try await TerminalApp.run(env: env, options: .init(theme: inv.theme, ascii: inv.ascii))
        }
        let runner = Runner(env: env, invocation: inv)
        // Kept until exit(3): freeing the state a repository holds took longer than the
        // system's closing of its files and mappings (a repository's deinit does nothing else).
        Runner.keptUntilExit = runner
        try await runner.run()
        return ExitCode.ok
    } catch let e as CLIError {
        Output.err("habitto: \(e.message)")
        return e.code
    } catch let e as ImportError {
        Output.err("habitto: \(e.message)")
        return ExitCode.invalid
    } catch let e as CoreError {
        Output.err("habitto: \(e.description)")
        return ExitCode.invalid
    } catch let e as StoreError {
        Output.err("habitto: \(e.description)")
        if case .config = e { return ExitCode.invalid }
        return ExitCode.storage
    } catch {
        Output.err("habitto: \(error)")
        return ExitCode.storage
    }
}

let code = await runMain()
exit(code)
