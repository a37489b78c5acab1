import FoundationEssentials
import HabitCore
import HabitStore
import HabitSync
import HabitTUI

/// `habitto remote set SPEC|show|key`: connects a sync remote (encrypted with `--encrypt`
/// or `--key`), shows it, or prints its key.
struct RemoteCommand: Command {
    let context: Context
    static var sendsChangesAfter: Bool { false }

    static var spec: CommandSpec {
        CommandSpec(name: "remote", arguments: ["set|show|key"],
                    summary: "Connect a sync remote (remote set dir:/path [--account NAME] [--encrypt | --key FILE], remote set none), show it, or print its key (remote key).",
                    options: [OptionSpec(name: "--account", value: "NAME", help: "the account on the remote (default: default)"),
                              OptionSpec(name: "--user", value: "USER", help: "the WebDAV user (password: HABITTO_WEBDAV_PASSWORD, password_command or password_file)")]
                        + encryptionOptions,
                    optionalArguments: ["SPEC"])
    }

    @MainActor func run() async throws {
        let repo = try openRepository()
        let engine = try engine(repo)
        switch invocation.arguments[0] {
        case "show":
            let st = await engine.status()
            let state = await engine.state
            guard let remote = st.remote else { Output.line("No remote: data stays on this machine ('habitto remote set dir:/path' connects one)"); return }
            Output.line("Remote \(remote), account \(st.account); this device is \(st.device)")
            Output.line(state.migratedTo == state.target ? "All of this device's data was pushed and verified." : "The first full push has not been verified yet: run 'habitto sync'.")
            if let line = encryptionLine(state, repo.paths) { Output.line(line) }
        case "key":
            guard invocation.arguments.count == 1 else { throw CLIError.usage(.remoteKeyTakesNoArgument) }
            try printKey(repo.paths)
        case "set":
            guard invocation.arguments.count == 2 else { throw CLIError.usage(.remoteSetNeedsRemote) }
            var spec: String? = invocation.arguments[1]
            if spec == "none" { spec = nil }
            if let s = spec, s.hasPrefix("dir:"), !s.dropFirst(4).hasPrefix("/") {
                spec = "dir:" + FileManager.default.currentDirectoryPath + "/" + s.dropFirst(4)
            }
            if let s = spec, s.hasPrefix("/") { spec = "dir:" + s }
            let account = invocation.value(.account) ?? "default"
            var user = invocation.value(.user)
            // A password never goes in the URL (it would be stored and shown); a user may.
            if let s = spec, s.hasPrefix("http://") || s.hasPrefix("https://"), var c = URLComponents(string: s) {
                if c.password != nil {
                    throw CLIError.invalid(.passwordInURL)
                }
                if let u = c.user { user = user ?? u.percentDecoded ?? u; c.user = nil; spec = c.string }
            }
            if let s = spec, s.hasPrefix("http://") {
                Output.warn(Warning.plainHTTP)
            }
            if let spec {
                // Checked before a key is made or stored.
                do { _ = try makeRemote(spec, user: user, access: RemoteAccess(caFile: env.config.caFile)) } catch let e as SyncSettingError { throw CLIError.invalid(.setting(e)) }
            }
            let (encrypt, made) = try keyForRemoteSet(repo.paths, removing: spec == nil)
            do { try await engine.setRemote(spec, account: account, user: user, encrypt: encrypt) } catch let e as SyncSettingError { throw CLIError.invalid(.setting(e)) }
            guard let spec else { Output.line("Remote removed: data stays on this machine"); return }
            // Connecting is a migration: back up, push everything, read it back, record it done.
            if await repo.state.operationCount > 0 { _ = try await repo.backup(reason: "before-remote") }
            let report = await engine.syncOnce()
            warnNewRemoteProblems(report)
            if let skipped = report.skipped {
                Output.line("Remote set to \(Sanitize.display(spec)) (account \(account)); not synced yet: \(skipped). \(skipped == .offline ? "Run 'habitto offline off'" : "Run 'habitto sync'") to push and verify")
                if encrypt != nil { Output.line(keyAdvice(repo.paths, made: made, spec: Sanitize.display(spec))) }
                return
            }
            if let error = report.error {
                throw CLIError.syncFailed(.firstSync(spec: spec, account: account, error: error))
            }
            Output.line("Remote set to \(Sanitize.display(spec)) (account \(account))\(encrypt != nil ? ", encrypted with age" : ""): pushed \(Plural.count(report.pushed, "operation")), pulled \(report.pulled); verified")
            // Where the key is and how to bring it to the other devices, once it opened the remote.
            if encrypt != nil { Output.line(keyAdvice(repo.paths, made: made, spec: Sanitize.display(spec))) }
        default:
            throw CLIError.usage(.remoteAction)
        }
    }
}
/// `habitto sync`: pushes and pulls now.
struct SyncCommand: Command {
    let context: Context
    static var sendsChangesAfter: Bool { false }

    static var spec: CommandSpec {
        CommandSpec(name: "sync", arguments: [], summary: "Push and pull now (exit 4 when the remote is unreachable or failed, while offline, or while another process syncs).",
                    options: [OptionSpec(name: "--background", value: nil,
                                         help: "a command's round after a change: waits for another process's round, prints nothing")])
    }

    @MainActor func run() async throws {
        let repo = try openRepository()
        let engine = try engine(repo)
        if invocation.flag(.background) { await BackgroundRound.run(engine); return }
        let report = await engine.syncOnce()
        if let skipped = report.skipped {
            if report.error == nil && skipped == .noRemote { throw CLIError.invalid(.notSynced(skipped)) }
            if skipped == .offline { throw CLIError.syncFailed(.offline) }
            // Not synced by this process: a script must not read it as done.
            if skipped == .anotherProcessSyncing {
                throw CLIError.syncFailed(.notSynced(skipped))
            }
            Output.line("Not synced: \(skipped)")
            return
        }
        warnNewRemoteProblems(report)
        if let error = report.error { throw CLIError.syncFailed(.round(error: error, report)) }
        Output.line("Synced: \(report.counts)")
    }
}
/// `habitto status`: the sync state, or one short line for a prompt.
struct StatusCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "status", arguments: [], summary: "Show the sync state: mode, queue, last sync, errors, devices; or one short line for a prompt (--short).",
                    options: [Specs.json, OptionSpec(name: "--short", value: nil, help: "one line for a shell prompt or a status bar, e.g. ✓3/5 ↑2"),
                              OptionSpec(name: "--format", value: "FORMAT", help: "the short line's format (implies --short; default \(Segment.defaultFormat))"),
                              OptionSpec(name: "--waybar", value: nil, help: "one JSON line for a waybar custom module (text, tooltip, class, percentage)"),
                              OptionSpec(name: "--i3blocks", value: nil, help: "i3blocks' three lines: the short line, done/due, a colour"),
                              OptionSpec(name: "--watch", value: nil, help: "keep printing a new line (or object) whenever the data or the sync state change")],
                    notes: "Placeholders of --format:\n" + Segment.placeholders.map { "  \($0.0)  \($0.1)" }.joined(separator: "\n")
                        + "\nThe short line reads today's records and, with a remote, the sync state; it never syncs."
                        + "\nIt keeps its count in the data directory's file segment until the data, the day or the week start change."
                        + "\n--waybar, --i3blocks and --watch read the data each time (no cache); --watch ends when the bar closes its pipe.")
    }

    /// A time since, in the largest whole unit: "0 s ago", "5 min ago", "3 h ago", "2 d ago".
    static func ago(_ seconds: Double) -> String {
        let s = Int(max(0, seconds))
        switch s {
        case ..<60: return "\(s) s ago"
        case ..<3600: return "\(s / 60) min ago"
        case ..<86_400: return "\(s / 3600) h ago"
        default: return "\(s / 86_400) d ago"
        }
    }

    /// How an open UI learns of other devices' changes, in `status`'s words (nil without a remote).
    static func liveLine(_ mode: WatchMode) -> String? {
        let every = "pulled every \(Int(SyncScheduler.pullInterval)) s while the UI is open"
        switch mode {
        case .off: return nil
        case .watching: return "Other devices' changes: seen at once while the UI is open (the folder is watched)"
        case .timer(let why) where why.isEmpty: return "Other devices' changes: \(every)"
        case .timer(let why): return "Other devices' changes: \(every) (\(why))"
        }
    }

    /// `status --json`'s `live`: "watched", "timer" or "off".
    static func liveWord(_ mode: WatchMode) -> String {
        switch mode {
        case .off: "off"
        case .watching: "watched"
        case .timer: "timer"
        }
    }

    /// Whether a device that last ran `version` (nil: a version before markers) cannot read
    /// what this release writes.
    static func tooOld(_ version: String?) -> Bool {
        guard let version else { return true }
        return HabittoVersion.isOlder(version, than: HabittoVersion.oldestReader)
    }

    @MainActor func run() async throws {
        // The prompt segment, when its cache holds the count: no repository, no async runtime.
        if invocation.flag(.waybar) || invocation.flag(.i3blocks) || invocation.flag(.watch) { try await statusBar(); return }
        if let line = try Segment.cachedLine(env: env, invocation: invocation) { Output.line(line); return }
        if invocation.flag(.short) || invocation.value(.format) != nil { try await statusShort(); return }
        let repo = try openRepository()
        let engine = try engine(repo)
        let st = await engine.status(), live = await engine.liveMode()
        func date(_ d: Date?) -> JSON { d.map { .string(UTCTime.iso8601($0)) } ?? .null }
        let autoProblems = try await AutoRun(env: env, repo: repo).problems()
        if invocation.flag(.json) {
            Output.raw(JSON.object([
                "mode": .string(st.mode.rawValue), "remote": .optional(st.remote), "account": .string(st.account),
                "device": .string(st.device.rawValue), "pending": .int(st.pending), "inFlight": .int(st.inFlight),
                "lastSyncAt": date(st.lastSyncAt), "lastError": .optional(st.lastError), "nextRetryAt": date(st.nextRetryAt),
                "version": .string(HabittoVersion.current), "live": .string(Self.liveWord(live)),
                "devices": .array(st.devices.map {
                    .object(["id": .string($0.id.rawValue), "lastSeen": date($0.lastSeen), "lastChange": date($0.lastChange), "version": .optional($0.version),
                             "tooOld": .bool(Self.tooOld($0.version))])
                }),
                "clockAhead": .array(st.clockAhead.map { .object(["id": .string($0.id.rawValue), "seconds": .double(JSON.rounded($0.seconds, 0))]) }),
                "remoteProblems": .array(st.remoteProblems.map(JSON.string)), "autoProblems": .array(autoProblems.map(JSON.string)),
            ]).serialized())
            return
        }
        Output.line("Sync: \(st.mode.rawValue)\(st.remote.map { " · \($0) · account \(st.account)" } ?? " (no remote)")")
        Output.line("This device: \(st.device) · \(Plural.count(st.pending, "operation")) waiting to be sent")
        // When this device last heard from the remote (the end of its last round that reached it).
        if let last = st.lastSyncAt { Output.line("Last checked: \(UTCTime.iso8601(last)) (\(Self.ago(env.clock().timeIntervalSince(last))))") }
        if let line = Self.liveLine(live) { Output.line(line) }
        if let e = st.lastError { Output.line("Last error: \(Sanitize.display(e))") }
        if let next = st.nextRetryAt { Output.line("Next retry: \(UTCTime.iso8601(next))") }
        for d in st.devices {
            let ran = d.version.map { ", ran habitto \($0)" } ?? ", ran habitto before 0.2.0"
            let old = Self.tooOld(d.version) ? " (too old to read this device's changes: update habitto there)" : ""
            let change = d.lastChange.map { "last change \(UTCTime.iso8601($0)), " } ?? ""
            Output.line("Device \(d.id.rawValue.prefix(8)): \(change)last seen \(UTCTime.iso8601(d.lastSeen))\(ran)\(old)")
        }
        for a in st.clockAhead { Output.line("Clock skew: device \(a.id.rawValue.prefix(8)) is \(Plural.count(Int(a.seconds / 60), "minute")) ahead of this machine") }
        if !st.remoteProblems.isEmpty {
            Output.line("Skipped on the remote (remove or fix these in the remote folder):")
            for p in st.remoteProblems { Output.line("  " + Sanitize.display(p)) }
        }
        autoProblems.forEach(Output.line)
    }
}
/// `habitto offline on|off`: pauses or resumes sync.
struct OfflineCommand: Command {
    let context: Context
    static var sendsChangesAfter: Bool { false }

    static var spec: CommandSpec {
        CommandSpec(name: "offline", arguments: ["on|off"], summary: "Pause sync (on) or resume it and sync at once (off).", options: [])
    }

    @MainActor func run() async throws {
        let value = invocation.arguments[0].lowercased()
        guard value == "on" || value == "off" else { throw CLIError.usage(.offlineValue) }
        let repo = try openRepository()
        let engine = try engine(repo)
        try await engine.setOffline(value == "on")
        if value == "on" {
            Output.line("Offline: changes are kept here and sent when you go online again")
        } else {
            let report = await engine.syncOnce()
            warnNewRemoteProblems(report)
            if let skipped = report.skipped {
                Output.line("Online; not synced now: \(skipped)")
            } else if let error = report.error {
                throw CLIError.syncFailed(.afterOnline(error: error))
            } else {
                Output.line("Online: pushed \(report.pushed), pulled \(report.pulled)")
            }
        }
    }
}
extension Command {
    func engine(_ repo: HabitRepository) throws -> SyncEngine {
        return try SyncEngine(repository: repo, clock: LiveClock(now: env.clock), faults: try env.faultPlan(), access: env.remoteAccess(),
                              onMainThread: true)
    }

    @MainActor func syncStatus(_ repo: HabitRepository) async throws -> SyncStatus {
        await (try engine(repo)).status()
    }

    func warnNewRemoteProblems(_ report: SyncReport) {
        for p in report.newRemoteProblems { Output.warn("skipped on the remote: " + Sanitize.display(p)) }
    }
}
