import FoundationEssentials
import HabittoCLI
import HabitTerminal
#if canImport(Glibc)
import Glibc
#endif

// Wiring only: the command line (HabittoCLI) runs everything but the full-screen UI, which
// it opens through `TerminalUI` (the terminal driver stays out of the library).
signal(SIGPIPE, SIG_IGN)

/// The full-screen UI on the terminal, for the command line to open.
struct TerminalUI: UserInterface {
    func open(_ env: AppEnvironment, _ options: UIOptions) async throws -> Int32 {
        try await TerminalApp.run(env: env, options: .init(theme: options.theme, ascii: options.ascii))
    }

    func demo(_ env: AppEnvironment, homeGiven: Bool, _ options: UIOptions) async throws -> Int32 {
        try await Demo.run(env: env, homeGiven: homeGiven, options: .init(theme: options.theme, ascii: options.ascii))
    }

    /// The running binary itself (the kernel's link to it, whatever its path or name).
    var backgroundProgram: String? { "/proc/self/exe" }

    func watchSignals() throws -> any SignalWatch {
        let pipe = try WakePipe()
        pipe.routeTerminationSignals()
        return SignalPipe(pipe: pipe)
    }
}

/// The terminal driver's wake pipe, as the command line's `SignalWatch`.
struct SignalPipe: SignalWatch {
    let pipe: WakePipe
    var readFD: Int32 { pipe.readFD }
    var pendingSignal: Int32? { pipe.pendingSignal }
}

let code = await CLI.main(ui: TerminalUI())
exit(code)
