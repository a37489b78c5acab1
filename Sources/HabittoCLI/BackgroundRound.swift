import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitStore
import HabitSync
import HabitSys

/// A command that changed something sends it at once: when it ends it starts
/// `habitto sync --background` as a detached child (its own session, no terminal, its
/// output to /dev/null), which outlives it, so the command itself never waits for the network.
/// Nothing starts on a local-only setup, while offline, with `sync_after_change = false` (or
/// `HABITTO_SYNC_AFTER_CHANGE=false`), or where there is no binary to run. One round at a
/// time per data directory: the child waits for another process's round to end (the UI's, or
/// an earlier child's), then runs its own, all within `TimeLimits` `.backgroundRound`; the
/// round's outcome is kept as any round's, for `status`.
enum BackgroundRound {
    /// The environment variable that wins over the config's `sync_after_change`.
    static let variable = "HABITTO_SYNC_AFTER_CHANGE"

    /// Whether changes are sent after a command: the variable when it holds a switch's value,
    /// else the config.
    static func wanted(_ config: Config) -> Bool {
        if let text = ProcessEnvironment.value(variable), let on = Config.switchValue(text) { return on }
        return config.syncAfterChange
    }

    /// Starts the child when the command wrote a change of this device's and a remote waits
    /// for it. Never throws and never waits: a child that cannot start leaves the change
    /// queued, for the next round.
    @MainActor static func startIfWanted(_ context: Context) async {
        guard let program = context.ui.backgroundProgram, wanted(context.env.config) else { return }
        var wrote = false
        for repo in context.opened.all where await repo.localWrites > 0 { wrote = true }
        guard wrote, let settings = try? SyncState.loadSettings(DataPaths(directory: context.env.home)),
              settings.remote != nil, !settings.offline else { return }
        let environment = ProcessEnvironment.current.map { "\($0.key)=\($0.value)" }
        _ = Sys.spawn(program, ["habitto", "--home", context.env.home, "sync", "--background"], environment: environment,
                      newSession: true) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
    }

    /// The child's work: one round, after waiting for another process's, ended at the limit.
    @MainActor static func run(_ engine: SyncEngine) async {
        let limit = TimeLimits.current[.backgroundRound]
        let watchdog = Task.detached {
            try await Task.sleep(nanoseconds: UInt64(limit * 1e9))
            exit(ExitCode.syncFailed.rawValue)
        }
        await engine.syncOnce(waitingForOthers: limit)
        watchdog.cancel()
    }
}
