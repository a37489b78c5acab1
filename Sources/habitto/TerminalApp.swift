import FoundationEssentials
import HabitCore
import HabitStore
import HabitSync
import HabitTUI
import HabitTerminal
import HabittoCLI
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// Actions arriving from other threads (repository events, finished writes), waking the
/// UI loop through the pipe it polls.
final class Inbox: @unchecked Sendable {
    private let lock = Lock()
    private var actions: [Action] = []
    let pipe: WakePipe

    init(pipe: WakePipe) { self.pipe = pipe }

    func post(_ action: Action) {
        lock.lock()
        actions.append(action)
        lock.unlock()
        pipe.wake()
    }

    func drain() -> [Action] {
        lock.lock()
        defer { lock.unlock() }
        let out = actions
        actions = []
        return out
    }
}

/// The full-screen UI: wiring between the terminal driver, the pure reducer and renderer,
/// and the repository.
enum TerminalApp {
    struct Options {
        var theme: String?
        var ascii: Bool
        /// Faults injected into this session's remote (the demo's latency).
        var faults: FaultPlan? = nil
        /// Seconds between background pulls.
        var pullEvery: Double? = nil
        /// A message shown on the first frame.
        var hint: String? = nil
        /// Runs beside the UI until it closes (the demo's second device).
        var companion: (@Sendable () async -> Void)? = nil
    }

    static func run(env: AppEnvironment, options: Options) async throws -> Int32 {
        guard Terminal.isInteractive() else {
            throw CLIError.usage(.uiNeedsTerminal)
        }
        // The screen redraws from each habit's day columns, which stay decoded; a habit's
        // full day records are decoded for a write and not kept (see DayColumns).
        let repo = try HabitRepository(directory: env.home, now: env.clock, keepDecodedDays: false)
        var startMessages = repo.openingWarnings.map { Message($0.description, .warning) }

        let timerClock = try TimerClock.fromEnvironment()
        let (catalog, theme, keyMap, lookProblems) = look(env: env, options: options)
        startMessages += lookProblems

        let pipe = try WakePipe()
        pipe.routeTerminationSignals()
        let inbox = Inbox(pipe: pipe)
        let terminal: Terminal
        do {
            terminal = try Terminal(theme: theme, mouse: env.config.mouse)
        } catch let e as TerminalError where e.isUnsuitableTerminal {
            // TERM names a terminal that cannot run the UI: a usage error (exit 2), not storage.
            throw CLIError.usage(.unsuitableTerminal(e.message))
        }
        defer { terminal.shutdown() }

        var state = AppState(
            habits: await repo.state, today: env.today, settings: env.config.rules,
            width: terminal.width, height: terminal.height,
            glyphs: options.ascii || !terminal.isUTF8 ? .ascii : .unicode,
            keyMap: keyMap, themeName: theme.name, themeNames: catalog.names,
            location: abbreviate(env.home))
        state.themeDirectories = (catalog.userDirectory.map { [$0] } ?? []) + catalog.bundledDirectories
        state.show(startMessages.isEmpty ? options.hint.map { [Message($0)] } ?? [] : startMessages)
        // HABITTO_FIRST_KEYS ("O", "enter tab"): keys pressed before the first frame, so the
        // benchmark measures another screen's first frame (with HABITTO_EXIT_AFTER_FIRST_FRAME).
        // Only screen moves: what the keys ask of the repository is not done.
        for name in (ProcessEnvironment.value("HABITTO_FIRST_KEYS") ?? "").split(separator: " ") {
            if let key = Key(name: String(name)) { _ = reduce(&state, .key(key)) }
        }

        // Sync runs in the background while the UI is open.
        let faults = try options.faults ?? env.faultPlan()
        let engine = try SyncEngine(repository: repo, clock: LiveClock(now: env.clock), faults: faults, access: env.remoteAccess())
        if let every = options.pullEvery { await engine.setPullInterval(every) }
        let syncLoop = Task { await engine.run() }
        defer { syncLoop.cancel() }
        let companion = options.companion.map { work in Task { await work() } }
        defer { companion?.cancel() }
        let syncEvents = Task {
            for await status in await engine.updates() {
                inbox.post(.syncChanged(await syncInfo(status, repo: repo)))
            }
        }
        defer { syncEvents.cancel() }

        let events = forwardEvents(of: repo, to: inbox, waking: engine)
        defer { events.cancel() }
        let runner = EffectRunner(repo: repo, engine: engine, env: env, inbox: inbox, terminal: terminal, catalog: catalog)
        defer { runner.stop() }
        // This machine's auto habits, marked on the today screen with their last results: read
        // at start and again whenever the data changes (the timer's 'remind' records results).
        let autoResults = Task {
            for await _ in await repo.events() { inbox.post(.autoChanged(await AutoHabitsView.results(env: env, repo: repo))) }
        }
        defer { autoResults.cancel() }

        let loop = UILoop(state: state, terminal: terminal, pipe: pipe, inbox: inbox, runner: runner, env: env, timerClock: timerClock,
                          exitAfterFirstFrame: ProcessEnvironment.value("HABITTO_EXIT_AFTER_FIRST_FRAME") == "1")
        let code: Int32 = await withCheckedContinuation { done in
            let started = ProcessEnvironment.startThread(stackSize: 8 << 20) {
                let code = loop.run(refresh: { Task { try? await repo.refresh() } })
                done.resume(returning: code)
            }
            if !started { done.resume(returning: loop.run(refresh: { Task { try? await repo.refresh() } })) }
        }
        terminal.shutdown()
        for w in repo.warnings.drain() { Output.warn(w) }
        return code
    }

    /// The theme and the key map from the config directory, and the problems found in them
    /// (shown on the first frame; the defaults are used instead).
    static func look(env: AppEnvironment, options: Options) -> (ThemeCatalog, Theme, KeyMap, [Message]) {
        let configDir = env.configPath.pathParent
        let catalog = ThemeCatalog(
            userDirectory: configDir + "/themes",
            bundledDirectories: ThemeCatalog.bundledDirectories(executablePath: ProcessEnvironment.executablePath, environment: ProcessEnvironment.current),
            listFiles: ThemeCatalog.live.listFiles, readFile: ThemeCatalog.live.readFile)
        let themeName = options.theme ?? env.config.theme ?? "default"
        let (theme, themeProblems) = catalog.load(themeName)
        var messages = themeProblems.map { Message(shortenThemePaths($0, catalog), .warning) }
        var keyMap = KeyMap.defaults
        if let text = ThemeCatalog.live.readFile(configDir + "/keys") {
            let (map, problems) = keyMap.applying(text, file: configDir + "/keys")
            keyMap = map
            messages += problems.map { Message($0, .warning) }
        }
        return (catalog, theme, keyMap, messages)
    }

    /// Repository events become actions in `inbox`; the sync engine hears of each change (a
    /// local write wakes it; a pulled one does not, see `SyncEngine.repositoryChanged`).
    static func forwardEvents(of repo: HabitRepository, to inbox: Inbox, waking engine: SyncEngine) -> Task<Void, Never> {
        Task {
            for await event in await repo.events() {
                switch event {
                case .changed(let s):
                    inbox.post(.stateChanged(s))
                    // Through the engine's one ordered stream: a status made before this
                    // change can never arrive after one made after it.
                    await engine.repositoryChanged(s)
                case .warning(let w): inbox.post(.warning(w.description))
                }
            }
        }
    }

    /// The UI's view of the sync engine's status.
    static func syncInfo(_ st: SyncStatus, repo: HabitRepository) async -> SyncInfo {
        var statuses: [HabitID: SyncInfo.HabitStatus] = [:]
        for h in st.pendingHabits.union(st.syncingHabits) { statuses[h] = SyncInfo.HabitStatus(st.habitStatus(h)) }
        let state = await repo.state
        let queue = st.queued.map { op in
            SyncInfo.QueueItem(habit: state.entries[op.change.habit].map { Sanitize.display($0.fields.name) } ?? "a habit",
                               kind: kindName(op.change),
                               madeAt: Date(timeIntervalSince1970: Double(op.hlc.wallMillis) / 1000))
        }
        let ahead = Dictionary(uniqueKeysWithValues: st.clockAhead.map { ($0.id, $0.seconds) })
        return SyncInfo(mode: SyncInfo.Mode(st.mode), remote: st.remote, pending: st.pending, inFlight: st.inFlight, pulling: st.pulling,
                        roundsEnded: st.roundsEnded,
                        lastSyncAt: st.lastCheckedAt ?? st.lastSyncAt, nextRetryAt: st.nextRetryAt, lastError: st.lastError,
                        habitStatus: statuses, queue: queue, attempts: st.attempts,
                        history: st.history.map { SyncInfo.Attempt(at: $0.at, pushed: $0.pushed, pulled: $0.pulled, error: $0.error) },
                        devices: st.devices.map { SyncInfo.Device(id: $0.id.rawValue, lastSeen: $0.lastSeen, aheadSeconds: ahead[$0.id],
                                                                      lastChange: $0.lastChange) },
                        remoteProblems: st.remoteProblems.map(Sanitize.display))
    }

    static func kindName(_ c: Change) -> String {
        switch c {
        case .create: "new habit"
        case .set, .setFrom, .clearFrom: "edit"
        case .delete: "delete"
        case .restore: "restore"
        case .progress(_, _, let d): d > 0 ? "check-in" : "take back"
        case .setProgress: "auto check-in"
        case .skip: "skip"
        case .rate: "rating"
        case .note: "note"
        case .notDone: "not done"
        case .pause(_, _, _, let reason): reason == nil ? "end of pause" : "pause"
        }
    }

    /// Theme messages name the file relative to its themes folder, so "line N" fits on
    /// the message line ("broken.theme line 2: …").
    static func shortenThemePaths(_ message: String, _ catalog: ThemeCatalog) -> String {
        var m = message
        for dir in [catalog.userDirectory].compactMap({ $0 }) + catalog.bundledDirectories {
            m = m.replacingAll(dir.hasSuffix("/") ? dir : dir + "/", with: "")
        }
        return m
    }

    static func abbreviate(_ path: String) -> String {
        let home = ProcessEnvironment.homeDirectory
        return !home.isEmpty && home != "/" && path.hasPrefix(home + "/") ? "~" + path.dropFirst(home.count) : path
    }
}

extension SyncInfo.Mode {
    /// The UI's name for the engine's mode.
    init(_ mode: SyncStatus.Mode) {
        switch mode {
        case .local: self = .local
        case .online: self = .online
        case .offline: self = .offline
        case .unreachable: self = .unreachable
        case .failed: self = .failed
        }
    }
}

extension SyncInfo.HabitStatus {
    /// The UI's name for a habit's sync status; nil for one the UI shows as synced or local.
    init?(_ status: SyncStatus.HabitStatus) {
        switch status {
        case .pending: self = .pending
        case .syncing: self = .syncing
        case .failed: self = .failed
        case .local, .synced: return nil
        }
    }
}

/// The loop that owns the terminal and the app state: wait for input or a wake-up,
/// reduce, run effects, draw. Runs on its own thread; it never waits on the repository.
final class UILoop: @unchecked Sendable {
    /// Touched only by the loop's thread once it runs.
    var state: AppState
    let terminal: Terminal
    let pipe: WakePipe
    let inbox: Inbox
    let runner: EffectRunner
    let env: AppEnvironment
    /// The clock a timer counts down by (`Action.timerClock`).
    let timerClock: TimerClock
    let exitAfterFirstFrame: Bool

    init(state: AppState, terminal: Terminal, pipe: WakePipe, inbox: Inbox, runner: EffectRunner, env: AppEnvironment,
         timerClock: TimerClock, exitAfterFirstFrame: Bool) {
        self.state = state
        self.terminal = terminal; self.pipe = pipe; self.inbox = inbox; self.runner = runner
        self.env = env; self.timerClock = timerClock; self.exitAfterFirstFrame = exitAfterFirstFrame
    }

    func run(refresh: () -> Void) -> Int32 {
        // The program's one clock (HABITTO_NOW when set), as sync stamps its rounds with.
        state.now = env.clock()
        state.timerNow = timerClock.now()
        terminal.draw(render(state))
        if exitAfterFirstFrame { return ExitCode.ok.rawValue }
        // The pause between refreshes is measured on the monotonic clock.
        var lastRefresh = SystemClock.monotonicSeconds()
        while true {
            // A running timer's seconds show as they pass (a wait of at most a quarter second);
            // a paused one changes nothing on the screen.
            let timing = state.timer.map { !$0.isPaused } ?? false
            _ = terminal.wait(timeoutMilliseconds: timing ? 250 : 500, wakeFD: pipe.readFD)
            if let signal = pipe.pendingSignal { return ExitCode.interrupted(by: signal) }
            var actions: [Action] = terminal.readEvents().map { event in
                switch event {
                case .key(let k): return .key(k)
                case .click(let x, let y): return .click(x: x, y: y)
                case .resize(let w, let h): return .resized(width: w, height: h)
                }
            }
            actions += inbox.drain()
            // Other processes' writes, and the day rolling over, at least twice a second.
            let now = env.clock(), elapsed = SystemClock.monotonicSeconds()
            if elapsed - lastRefresh >= 0.5 {
                lastRefresh = elapsed
                refresh()
                let today = AppEnvironment.localDay(now, dayStartHour: env.config.dayStartHour)
                if today != state.today { actions.append(.dayChanged(today)) }
            }
            actions.append(.tick(now))
            guard actions.count > 1 || state.sync.nextRetryAt != nil || state.sync.lastSyncAt != nil || timing else { continue }
            // First, so a key that starts or pauses a timer does so at this reading.
            actions.insert(.timerClock(timerClock.now()), at: 0)
            // The runner's immediate results (a theme loaded) are reduced after the others.
            while !actions.isEmpty {
                for effect in reduce(&state, actions.removeFirst()) {
                    guard let results = runner.run(effect) else { return ExitCode.ok.rawValue }
                    actions += results
                }
            }
            terminal.draw(render(state))
        }
    }
}

/// Carries out the reducer's effects and only that: quitting and a theme at once, on the UI
/// loop's thread (they touch the terminal); writes, undo and the sync switches one after
/// another on a worker, in the order the keys asked for them, each reporting its typed
/// result back through the inbox as an action (`.written(Outcome)`, `.refused(CoreError)`,
/// `.undone`), which the reducer words.
final class EffectRunner: @unchecked Sendable {
    let repo: HabitRepository
    let engine: SyncEngine
    let env: AppEnvironment
    let inbox: Inbox
    /// Touched only by the UI loop's thread.
    let terminal: Terminal
    let catalog: ThemeCatalog
    private let jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    private let worker: Task<Void, Never>

    init(repo: HabitRepository, engine: SyncEngine, env: AppEnvironment, inbox: Inbox, terminal: Terminal, catalog: ThemeCatalog) {
        self.repo = repo; self.engine = engine; self.env = env; self.inbox = inbox
        self.terminal = terminal; self.catalog = catalog
        let (stream, jobs) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.jobs = jobs
        worker = Task { for await job in stream { await job() } }
    }

    /// Carries out one effect: the actions it results in at once (a theme's), nil for `.quit`.
    func run(_ effect: Effect) -> [Action]? {
        switch effect {
        case .quit:
            return nil
        case .loadTheme(let name):
            return loadTheme(name)
        case .write(let w):
            later { [self] in inbox.post(await write(w)) }
        case .undo:
            later { [self] in inbox.post(await undo()) }
        case .setOffline(let on):
            later { [self] in
                do { try await engine.setOffline(on) } catch { inbox.post(.failed("\(error)")) }
            }
        case .syncNow:
            later { [self] in await engine.retryNow() }
        case .notify(let title, let body):
            later { [self] in
                if let problem = timerNotification(title: title, body: body) { inbox.post(.warning(problem)) }
            }
        case .runAuto(let id):
            later { [self] in
                do {
                    let report = try await AutoHabitsView.run(id, env: env, repo: repo)
                    inbox.post(.autoChanged(await AutoHabitsView.results(env: env, repo: repo)))
                    inbox.post(.autoRan(report))
                } catch {
                    inbox.post(failure(error))
                }
            }
        }
        return []
    }

    /// Stops the worker; jobs not started are dropped.
    func stop() {
        jobs.finish()
        worker.cancel()
    }

    private func later(_ job: @escaping @Sendable () async -> Void) { jobs.yield(job) }

    /// Loads a theme into the terminal and keeps the choice: `theme = NAME` in the config,
    /// the user's other lines untouched.
    private func loadTheme(_ name: String) -> [Action] {
        let (theme, problems) = catalog.load(name)
        terminal.setTheme(theme)
        let loaded = Action.themeLoaded(theme.name, problems: problems.map { TerminalApp.shortenThemePaths($0, catalog) })
        do { try Config.saveTheme(theme.name, path: env.configPath) } catch {
            return [loaded, .warning("Theme \(theme.name) not saved to the config: \(error)")]
        }
        return [loaded]
    }

    /// Commits an intent (its changes by the shared rules, checked again under the lock) and
    /// returns its outcome; another process may have made it so first.
    private func write(_ intent: Intent) async -> Action {
        let today = env.today
        var rng = SystemRandomNumberGenerator()
        let newID = HabitID.random(using: &rng)
        do {
            let result = try await repo.commit { state, _ in try intent.changes(newID: newID, today: today, in: state) }
            return .written(intent.outcome(newID: newID, changed: !result.operations.isEmpty, state: result.state, today: today,
                                           settings: env.config.rules))
        } catch {
            return failure(error)
        }
    }

    private func undo() async -> Action {
        do { return .undone(try await repo.undo()?.label) } catch { return failure(error) }
    }

    private func failure(_ error: any Error) -> Action {
        switch error {
        case let e as CoreError: .refused(e)
        case let e as StoreError: .failed(e.description)
        default: .failed("\(error)")
        }
    }
}
