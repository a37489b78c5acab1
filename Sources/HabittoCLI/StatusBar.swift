import FoundationEssentials
import HabitCore
import HabitStore
import HabitSync
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// `habitto status --waybar`, `--i3blocks` and `--watch`: today's count for a desktop's
/// status bar, in waybar's custom-module JSON, in i3blocks' three lines, or as the prompt
/// segment's line; with `--watch`, again whenever the data or the sync state change.
enum StatusBar {
    /// What is printed: the segment's line, waybar's JSON or i3blocks' lines (each with the
    /// `--format` of its text).
    enum Kind: Equatable {
        case line(String), waybar(String), i3blocks(String)
    }

    /// What a bar shows of today: the segment's values, the labels of the habits due and not
    /// done and of those done (in listing order), and the last sync error.
    struct Reading: Equatable {
        var values = Segment.Values()
        var left: [String] = [], completed: [String] = []
        var lastError: String?
    }

    /// i3blocks' colours: green when every due habit is done, red when the last sync failed
    /// (the bar's own colour otherwise).
    static let doneColour = "#8AE234", failedColour = "#EF2929"

    /// The kind asked for; a usage error for two bars at once or with `--json`.
    static func kind(_ invocation: Invocation) throws -> Kind {
        let waybar = invocation.flag(.waybar), i3blocks = invocation.flag(.i3blocks)
        if waybar && i3blocks { throw CLIError.usage(.contradict([.waybar, .i3blocks])) }
        if invocation.flag(.json) && (waybar || i3blocks || invocation.flag(.watch)) {
            throw CLIError.usage(.contradict([.json, waybar ? .waybar : i3blocks ? .i3blocks : .watch]))
        }
        // Checks the format (and a --json with --short) before anything is read.
        let format = try Segment.format(invocation)
        return waybar ? .waybar(format) : i3blocks ? .i3blocks(format) : .line(format)
    }

    /// The text printed for `reading`: one line (waybar: one JSON object), or i3blocks' three
    /// lines (one JSON object in i3blocks' own format while watching, for `format=json`).
    static func output(_ kind: Kind, _ r: Reading, watching: Bool) -> String {
        switch kind {
        case .line(let format):
            return Segment.line(format, r.values) + "\n"
        case .waybar(let format):
            var classes = [r.values.done == r.values.due ? "done" : "due"]
            if r.values.failed { classes.append("failed") }
            return JSON.object([
                "text": .string(pango(Segment.line(format, r.values))),
                "tooltip": .string(tooltip(r).map(pango).joined(separator: "\n")),
                "class": .array(classes.map(JSON.string)),
                "percentage": .int(percentage(r.values)),
            ]).line()
        case .i3blocks(let format):
            let full = Segment.line(format, r.values), short = "\(r.values.done)/\(r.values.due)"
            let colour = r.values.failed ? failedColour : r.values.done == r.values.due ? doneColour : ""
            if watching {
                var block: [String: JSON] = ["full_text": .string(full), "short_text": .string(short)]
                if !colour.isEmpty { block["color"] = .string(colour) }
                return JSON.object(block).line()
            }
            return full + "\n" + short + "\n" + colour + "\n"
        }
    }

    /// The share of today's due habits done, 0–100 (100 when nothing is due).
    static func percentage(_ v: Segment.Values) -> Int { v.due == 0 ? 100 : v.done * 100 / v.due }

    /// The tooltip's lines: what is due, what is done, and the sync state.
    static func tooltip(_ r: Reading) -> [String] {
        var lines: [String] = []
        if r.values.due == 0 {
            lines.append("Nothing due today")
        } else if r.left.isEmpty {
            lines.append("All \(r.values.due) done today")
        } else {
            lines.append("Due: " + r.left.joined(separator: ", "))
            if !r.completed.isEmpty { lines.append("Done: " + r.completed.joined(separator: ", ")) }
        }
        if let q = r.values.queue {
            if r.values.failed {
                lines.append("Sync failed" + (r.lastError.map { ": " + $0 } ?? ""))
            } else {
                lines.append(q > 0 ? "Sync: \(Plural.count(q, "operation")) waiting to be sent" : "Sync: all sent")
            }
        }
        return lines.map(Sanitize.display)
    }

    /// `s` with Pango markup's special characters escaped (waybar reads its text and tooltip
    /// as markup): a habit named `<b>` shows as itself.
    static func pango(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }
}

extension StatusCommand {
    /// What the bar shows now: read without writing anything, on the day of the clock's
    /// reading now (a watch goes on past midnight); the sync state read again from disk.
    @MainActor func barReading(_ repo: HabitRepository) async throws -> StatusBar.Reading {
        let day = AppEnvironment.localDay(env.clock(), dayStartHour: env.config.dayStartHour)
        let state = await repo.state
        let tally = state.tally(on: day, settings: settings)
        let tags = Edits.namesakeTags(state.habits)
        func labels(_ ids: [HabitID]) -> [String] {
            let wanted = Set(ids)
            return state.listed.filter { wanted.contains($0.id) }.map { Edits.label($0, tags: tags) }
        }
        var r = StatusBar.Reading(values: Segment.Values(done: tally.done, due: tally.due),
                                  left: labels(tally.left), completed: labels(tally.completed))
        let paths = DataPaths(directory: env.home)
        if FileManager.default.fileExists(atPath: paths.directory + "/remote")
            || FileManager.default.fileExists(atPath: paths.directory + "/sync.json") {
            let st = await (try engine(repo)).status()
            if st.remote != nil {
                r.values.queue = st.pending
                r.values.failed = st.mode == .failed || st.mode == .unreachable
                r.lastError = st.lastError
            }
        }
        return r
    }

    /// `--waybar`, `--i3blocks` and `--watch`. Once: the reading now. Watching: a new output
    /// whenever it differs from the last, woken by the data directory's journal, sync state
    /// and remote setting changing (inotify, as the UI's sync learns of a folder's changes:
    /// nothing polls), and once a minute for the day rolling over. It ends when the bar
    /// closes its end of the pipe, or on a signal.
    @MainActor func statusBar() async throws {
        let kind = try StatusBar.kind(invocation)
        guard invocation.flag(.watch) else {
            // No data yet: nothing due, and nothing created (a bar asks every few seconds).
            let exists = FileManager.default.fileExists(atPath: DataPaths(directory: env.home).journal)
            let reading = exists ? try await barReading(try openRepository()) : StatusBar.Reading()
            Output.raw(StatusBar.output(kind, reading, watching: false))
            return
        }
        let repo = try openRepository()
        let (changes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let names: Set<String> = ["journal.hbj", "sync.json", "remote"]
        let watch: FolderWatch
        do {
            watch = try FolderWatch { event in if event.overflow || names.contains(event.name) { wake.yield() } }
            try watch.add(env.home, modifications: true)
        } catch {
            throw CLIError.invalid(.cannotWatch(path: env.home, reason: error.description))
        }
        let minutes = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 60_000_000_000)
                wake.yield()
            }
        }
        defer { minutes.cancel(); watch.stop() }
        var events = changes.makeAsyncIterator()
        var last: String?
        while true {
            _ = try? await repo.refresh()
            let out = StatusBar.output(kind, try await barReading(repo), watching: true)
            if out != last {
                Output.raw(out)
                guard Output.flush() else { return }
                last = out
            }
            guard await events.next() != nil else { return }
            // A change is often several writes (the journal, then the sync state): one output.
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
    }
}
