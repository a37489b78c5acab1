import FoundationEssentials
import HabitCore
import HabitStore
import HabitSync
import HabitTUI
import HabitTerminal
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
            throw CLIError.usage("the full-screen UI needs a terminal (standard input and output are not one); try 'habitto list'")
        }
        // The screen redraws from each habit's day columns, which stay decoded; a habit's
        // full day records are decoded for a write and not kept (see DayColumns).
        let repo = try HabitRepository(directory: env.home, now: env.clock, keepDecodedDays: false)
        var startMessages = repo.openingWarnings.map { Message($0, .warning) }

        // Themes and keys from the config directory (problems are shown, defaults used).
        let configDir = env.configPath.pathParent
        let catalog = ThemeCatalog(
            userDirectory: configDir + "/themes",
            bundledDirectories: ThemeCatalog.bundledDirectories(executablePath: executablePath(), environment: ProcessEnvironment.current),
            listFiles: ThemeCatalog.live.listFiles, readFile: ThemeCatalog.live.readFile)
        let themeName = options.theme ?? env.config.theme ?? "default"
        let (theme, themeProblems) = catalog.load(themeName)
        startMessages += themeProblems.map { Message(shortenThemePaths($0, catalog), .warning) }
        var keyMap = KeyMap.defaults
        if let text = ThemeCatalog.live.readFile(configDir + "/keys") {
            let (map, problems) = keyMap.applying(text, file: configDir + "/keys")
            keyMap = map
            startMessages += problems.map { Message($0, .warning) }
        }

        let pipe = try WakePipe()
        pipe.routeTerminationSignals()
        let inbox = Inbox(pipe: pipe)
        let terminal = try Terminal(theme: theme)
        defer { terminal.shutdown() }

        var state = AppState(
            habits: await repo.state, today: env.today, settings: env.config.rules,
            width: terminal.width, height: terminal.height,
            glyphs: options.ascii || !terminal.isUTF8 ? .ascii : .unicode,
            keyMap: keyMap, themeName: theme.name, themeNames: catalog.names,
            location: abbreviate(env.home))
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
                inbox.post(.syncChanged(await syncInfo(status, engine: engine, repo: repo)))
            }
        }
        defer { syncEvents.cancel() }

        // Repository events become actions; a local write wakes the sync engine.
        let events = Task {
            var first = true
            for await event in await repo.events() {
                switch event {
                case .changed(let s):
                    inbox.post(.stateChanged(s))
                    if !first {
                        await engine.poke()
                        // Through the engine's one ordered stream (below): a status computed
                        // before this write can never arrive after one computed after it.
                        await engine.publishNow()
                    }
                    first = false
                case .warning(let w): inbox.post(.warning(w))
                }
            }
        }
        defer { events.cancel() }
        // Writes run one after another, in the order the keys asked for them.
        let (writes, writer) = AsyncStream.makeStream(of: Effect.self)
        let worker = Task {
            for await effect in writes {
                switch effect {
                case .setOffline(let on):
                    do { try await engine.setOffline(on) } catch { inbox.post(.failed("\(error)")) }
                case .syncNow:
                    await engine.retryNow()
                default:
                    inbox.post(await perform(effect, repo: repo, env: env))
                }
            }
        }
        defer { writer.finish(); worker.cancel() }

        let loop = UILoop(state: state, terminal: terminal, pipe: pipe, inbox: inbox, catalog: catalog, env: env,
                          exitAfterFirstFrame: ProcessEnvironment.value("HABITTO_EXIT_AFTER_FIRST_FRAME") == "1")
        let code: Int32 = await withCheckedContinuation { done in
            let started = ProcessEnvironment.startThread(stackSize: 8 << 20) {
                let code = loop.run(writes: writer, refresh: { Task { try? await repo.refresh() } })
                done.resume(returning: code)
            }
            if !started { done.resume(returning: loop.run(writes: writer, refresh: { Task { try? await repo.refresh() } })) }
        }
        terminal.shutdown()
        for w in repo.warnings.drain() { Output.warn(w) }
        return code
    }

    /// The UI's view of the sync engine's status.
    static func syncInfo(_ st: SyncStatus, engine: SyncEngine, repo: HabitRepository) async -> SyncInfo {
        var statuses: [HabitID: SyncInfo.HabitStatus] = [:]
        for h in st.pendingHabits.union(st.syncingHabits) { statuses[h] = SyncInfo.HabitStatus(st.habitStatus(h)) }
        let state = await repo.state
        let queue = await engine.pendingOperations(limit: 50).map { op in
            SyncInfo.QueueItem(habit: state.entries[op.change.habit].map { Sanitize.display($0.fields.name) } ?? "a habit",
                               kind: kindName(op.change),
                               madeAt: Date(timeIntervalSince1970: Double(op.hlc.wallMillis) / 1000))
        }
        let engineState = await engine.state
        let ahead = Dictionary(uniqueKeysWithValues: st.clockAhead.map { ($0.id, $0.seconds) })
        return SyncInfo(mode: SyncInfo.Mode(st.mode), remote: st.remote, pending: st.pending, inFlight: st.inFlight, pulling: st.pulling,
                        roundsEnded: st.roundsEnded,
                        lastSyncAt: st.lastSyncAt, nextRetryAt: st.nextRetryAt, lastError: st.lastError,
                        habitStatus: statuses, queue: queue, attempts: engineState.attempts,
                        history: st.history.map { SyncInfo.Attempt(at: $0.at, pushed: $0.pushed, pulled: $0.pulled, error: $0.error) },
                        devices: st.devices.map { SyncInfo.Device(id: $0.id.rawValue, lastSeen: $0.lastSeen, aheadSeconds: ahead[$0.id]) },
                        remoteProblems: st.remoteProblems.map(Sanitize.display))
    }

    static func kindName(_ c: Change) -> String {
        switch c {
        case .create: "new habit"
        case .set: "edit"
        case .delete: "delete"
        case .restore: "restore"
        case .progress(_, _, let d): d > 0 ? "check-in" : "take back"
        case .skip: "skip"
        case .rate: "rating"
        case .note: "note"
        }
    }

    /// Runs one write or undo against the repository; returns the action reporting it.
    static func perform(_ effect: Effect, repo: HabitRepository, env: AppEnvironment) async -> Action {
        do {
            let today = env.today
            switch effect {
            case .undo:
                guard let item = try await repo.undo() else { return .done("Nothing to undo on this device") }
                return .done("Undid: \(item.label)")
            case .write(let w):
                var rng = SystemRandomNumberGenerator()
                let newID = HabitID.random(using: &rng)
                let result = try await repo.commit { state, _ in
                    try changes(for: w, newID: newID, today: today, state: state)
                }
                // Another process may have made the same move first.
                if case .move = w, result.operations.isEmpty { return .done("Already there: nothing changed") }
                return .done(describe(w, newID: newID, state: result.state, today: today, settings: env.config.rules))
            default:
                return .done("")
            }
        } catch let e as CoreError {
            return .failed(e.description)
        } catch let e as StoreError {
            return .failed(e.description)
        } catch {
            return .failed("\(error)")
        }
    }

    /// The changes a write asks for, by the shared rules (checked again under the lock).
    static func changes(for w: Write, newID: HabitID, today: LocalDay, state: HabitState) throws -> [Change] {
        func habit(_ id: HabitID) throws -> Habit {
            guard let h = state.habit(id) else { throw CoreError.invalid("that habit no longer exists (deleted elsewhere?)") }
            return h
        }
        switch w {
        case .progress(let id, let day, let delta):
            let h = try habit(id)
            return delta > 0 ? try Edits.checkIn(h, on: day, amount: delta, today: today, in: state)
                             : try Edits.uncheck(h, on: day, amount: -delta, today: today, in: state)
        case .setTotal(let id, let day, let total): return try Edits.setTotal(try habit(id), on: day, total, today: today, in: state)
        case .skip(let id, let day, let on): return try Edits.setSkipped(try habit(id), on: day, on, today: today, in: state)
        case .rate(let id, let day, let r): return try Edits.rate(try habit(id), on: day, r, today: today, in: state)
        case .add(let fields): return try Edits.add(newID, fields, in: state)
        case .edit(let id, let fields): return try Edits.update(try habit(id), to: fields, in: state)
        case .archive(let id): return try Edits.archive(try habit(id), today: today, in: state)
        case .unarchive(let id): return try Edits.unarchive(try habit(id))
        case .move(let id, let target): return try Edits.move(try habit(id).id, to: target, in: state)
        case .delete(let id): return Edits.delete(try habit(id))
        case .answer(let id, let day, let answer):
            return try CatchUp.changes(answer, for: CatchUpItem(habit: try habit(id), day: day), today: today, in: state)
        case .note(let id, let day, let text): return try Edits.note(try habit(id), on: day, text, today: today, in: state)
        }
    }

    /// The confirmation shown after a write.
    static func describe(_ w: Write, newID: HabitID, state: HabitState, today: LocalDay, settings: RuleSettings) -> String {
        func name(_ id: HabitID) -> String { state.habit(id).map { "'\(Sanitize.display($0.name))'" } ?? "the habit" }
        switch w {
        case .progress(let id, let day, _), .setTotal(let id, let day, _):
            guard let h = state.habit(id) else { return "Done" }
            let s = state.summary(h, on: day, today: today, settings: settings)
            let unit = h.fields.unit.map { " " + $0 } ?? ""
            let progress = Amount.format(s.progress), goal = Amount.format(h.goal)
            let amount = h.kind == .build ? "\(progress)/\(goal)\(unit)" : "\(progress) (at most \(goal))\(unit)"
            if case .progress(_, _, let d) = w, d < 0, h.isYesNo { return "Marked \(name(id)) not done\(day == today ? "" : " on \(day)")" }
            let verb: String
            switch w {
            case .progress(_, _, Amount.scale): verb = "Checked in"
            case .progress(_, _, -Amount.scale): verb = "Took back one from"
            case .progress(_, _, let d) where d > 0: verb = "Added \(Amount.format(d)) to"
            case .progress(_, _, let d): verb = "Took back \(Amount.format(-d)) from"
            default: verb = "Set"
            }
            let extra = h.kind == .build && s.completed ? " — done! streak \(s.streak)" : s.exceeded ? " — over the limit" : ""
            return "\(verb) \(name(id)): \(amount)\(day == today ? "" : " on \(day)")\(extra)"
        case .skip(let id, let day, let on): return on ? "Skipped \(name(id)) on \(day): the streak is safe" : "Unskipped \(name(id)) on \(day)"
        case .rate(let id, _, let r): return r.map { "Rated \(name(id)) \($0) of 5" } ?? "Cleared the rating of \(name(id))"
        case .add: return "Added \(name(newID))"
        case .edit(let id, _): return "Saved \(name(id))"
        case .archive(let id): return "Archived \(name(id)); its history stays (u undoes)"
        case .unarchive(let id): return "Unarchived \(name(id)) (u undoes)"
        case .move(let id, let target):
            switch target {
            case .before: return "Moved \(name(id)) up"
            case .after: return "Moved \(name(id)) down"
            case .top: return "Moved \(name(id)) to the top"
            case .bottom: return "Moved \(name(id)) to the bottom"
            }
        case .delete: return "Deleted the habit and its history (u undoes)"
        case .note(let id, let day, let text):
            return text == nil ? "Cleared the note of \(name(id)) on \(day) (u undoes)" : "Noted on \(name(id)) on \(day) (u undoes)"
        case .answer(let id, let day, _):
            guard let h = state.habit(id) else { return "Done" }
            let s = state.summary(h, on: day, today: today, settings: settings)
            let unit = h.fields.unit.map { " " + $0 } ?? ""
            let what = s.skipped ? "skipped" : "\(Amount.format(s.progress))/\(Amount.format(h.goal))\(unit)\(s.completed ? ", done" : "")"
            return "Recorded \(name(id)) on \(day): \(what)\(s.difficulty.map { ", difficulty \($0)" } ?? "")"
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

    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
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
    let catalog: ThemeCatalog
    let env: AppEnvironment
    let exitAfterFirstFrame: Bool

    init(state: AppState, terminal: Terminal, pipe: WakePipe, inbox: Inbox, catalog: ThemeCatalog, env: AppEnvironment,
         exitAfterFirstFrame: Bool) {
        self.state = state
        self.terminal = terminal; self.pipe = pipe; self.inbox = inbox; self.catalog = catalog
        self.env = env; self.exitAfterFirstFrame = exitAfterFirstFrame
    }

    func run(writes: AsyncStream<Effect>.Continuation, refresh: () -> Void) -> Int32 {
        state.now = Date()
        terminal.draw(render(state))
        if exitAfterFirstFrame { return 0 }
        var lastRefresh = Date()
        while true {
            _ = terminal.wait(timeoutMilliseconds: 500, wakeFD: pipe.readFD)
            if let signal = pipe.pendingSignal { return 128 + signal }
            var actions: [Action] = terminal.readEvents().map { event in
                switch event {
                case .key(let k): return .key(k)
                case .resize(let w, let h): return .resized(width: w, height: h)
                }
            }
            actions += inbox.drain()
            // Other processes' writes, and the day rolling over, at least twice a second.
            let now = Date()
            if now.timeIntervalSince(lastRefresh) >= 0.5 {
                lastRefresh = now
                refresh()
                let today = AppEnvironment.localDay(env.clock(), dayStartHour: env.config.dayStartHour)
                if today != state.today { actions.append(.dayChanged(today)) }
            }
            actions.append(.tick(now))
            guard actions.count > 1 || state.sync.nextRetryAt != nil || state.sync.lastSyncAt != nil else { continue }
            for action in actions {
                for effect in reduce(&state, action) {
                    switch effect {
                    case .quit:
                        return 0
                    case .loadTheme(let name):
                        let (theme, problems) = catalog.load(name)
                        terminal.setTheme(theme)
                        _ = reduce(&state, .themeLoaded(theme.name, problems: problems.map { TerminalApp.shortenThemePaths($0, catalog) }))
                        // The choice is kept: `theme = NAME` in the config, the user's other lines untouched.
                        do { try Config.saveTheme(theme.name, path: env.configPath) } catch {
                            _ = reduce(&state, .warning("Theme \(theme.name) not saved to the config: \(error)"))
                        }
                    case .write, .undo, .setOffline, .syncNow:
                        writes.yield(effect)
                    }
                }
            }
            terminal.draw(render(state))
        }
    }
}
