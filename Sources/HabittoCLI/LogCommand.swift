import FoundationEssentials
import HabitCore
import HabitStore
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// `habitto log [HABIT]`: the journal in words, newest first, every device's changes merged.
struct LogCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "log", arguments: [], summary: "List the changes of every device, newest first, with the device that made each.",
                    options: [
                        OptionSpec(name: "--device", value: "ID", help: "only this device's changes: the start of its id, as 'habitto status' shows it",
                                   completes: .device),
                        OptionSpec(name: "--since", value: "DATE", help: "only changes made on or after DATE: \(Specs.dateForms)", completes: Specs.dayWords),
                        OptionSpec(name: "--until", value: "DATE", help: "only changes made on or before DATE", completes: Specs.dayWords),
                        Specs.json,
                    ],
                    notes: """
                    One line a change: when it was made (local time), the device that made it, and what it did, in the words
                    'habitto undo' uses. A change undone on this device says when; a field or a day's skip, rating or note
                    that a later write of another device replaced (last writer wins) names that write. Changes are in the
                    order this device received them (a change pulled later comes later, with the time it was made). On a
                    terminal the text goes through $PAGER (else less -FRX); only what is shown is read from the journal.
                    --json prints an array with one object per operation: its id, device, seq, clock, time and change.
                    """,
                    optionalArguments: ["HABIT"])
    }

    /// Journal entries read at first, and at most at a time: the first screen needs few, a
    /// reader that goes on reads larger pages (each page reads a window again from its start).
    static let firstPage = 32, largestPage = 1024

    @MainActor func run() async throws {
        let repo = try openRepository()
        let state = await repo.state
        let habit = try invocation.arguments.first.map { try Edits.find($0, in: state).id }
        let since = try invocation.value(.since).map { try day($0) }
        let until = try invocation.value(.until).map { try day($0) }
        if let since, let until, since > until { throw CLIError.invalid(.sinceAfterUntil(since: since, until: until)) }
        let device = try invocation.value(.device).map { try Self.device($0, among: Array(state.seen.keys) + [repo.device]) }
        let me = repo.device
        let json = invocation.flag(.json)
        let out = LogOutput(paged: !json)
        defer { out.finish() }
        func name(_ d: DeviceID) -> String { d == me ? "this device" : "device " + d.rawValue.prefix(8) }
        // This device's undos, by the first sequence number of the entry each reverts: an undo
        // is always later in the journal than what it reverts, so it is read first.
        var undoneAt: [UInt64: HLC] = [:]
        var shown = 0
        var before: Int?
        var pageSize = Self.firstPage
        reading: while true {
            let page = try await repo.journalPage(before: before, limit: pageSize)
            pageSize = min(pageSize * 2, Self.largestPage)
            for item in page.entries {
                let entry = item.entry
                guard let first = entry.ops.first else { continue }
                let mine = first.id.device == me
                if mine, let reverted = entry.undoes { undoneAt[reverted] = first.hlc }
                let undone = mine && entry.undoes == nil ? undoneAt[first.id.seq] : nil
                for op in entry.ops.reversed() {
                    let made = Self.localTime(op.hlc)
                    // This device's clock passes every operation folded before its own: one of
                    // its changes made before --since means every earlier record is older too.
                    if let since, made.day < since {
                        if op.id.device == me { break reading }
                        continue
                    }
                    if let until, made.day > until { continue }
                    if let habit, op.change.habit != habit { continue }
                    if let device, op.id.device != device { continue }
                    let beforeValue = Self.valueBefore(op, inverse: entry.inverse)
                    let words = LogWording.change(op, in: state, before: beforeValue, device: name)
                    var text = "\(made.day) \(made.clock) · \(name(op.id.device)) · \(words)"
                    if entry.undoes != nil { text += " (an undo)" }
                    if let undone {
                        let at = Self.localTime(undone)
                        text += " (undone at \(at.day == made.day ? "" : "\(at.day) ")\(at.clock))"
                    }
                    let written: String
                    if json {
                        written = (shown == 0 ? "[\n" : ",\n") + Self.json(op, text: words, undo: entry.undoes != nil, undoneAt: undone)
                    } else {
                        written = Output.lineText(text)
                    }
                    shown += 1
                    guard out.write(written) else { break reading }
                }
            }
            guard let next = page.next else { break }
            before = next
        }
        if json {
            _ = out.write(shown == 0 ? "[]\n" : "\n]\n")
        } else if shown == 0 {
            _ = out.write(Output.lineText(state.seen.isEmpty ? "No changes yet" : "No changes match"))
        }
    }

    /// The device whose id starts with `prefix` (any case), among `devices`.
    static func device(_ prefix: String, among devices: [DeviceID]) throws -> DeviceID {
        let p = prefix.lowercased()
        let matches = Set(devices).filter { $0.rawValue.hasPrefix(p) }.sorted()
        guard !p.isEmpty, let only = matches.first else { throw CLIError.invalid(.noSuchDevice(prefix)) }
        guard matches.count == 1 else { throw CLIError.invalid(.ambiguousDevice(prefix, matches: matches.map { String($0.rawValue.prefix(8)) })) }
        return only
    }

    /// A field's value before `op` wrote it, from the entry's undo record (what the device that
    /// made it saw); nil when the entry has none (a pulled one) or the change is no field's.
    static func valueBefore(_ op: HabitOperation, inverse: [Change]) -> FieldValue? {
        switch op.change {
        case .set(let h, let value):
            for case .set(h, let old) in inverse where old.index == value.index { return old }
        case .setFrom(let h, let d, let value):
            // A dated register the edit wrote over (one it made anew is cleared by its undo).
            for case .setFrom(h, d, let old) in inverse where old.index == value.index { return old }
        default: break
        }
        return nil
    }

    /// The local day and "HH:MM" of a clock reading's wall time (the process's time zone).
    static func localTime(_ hlc: HLC) -> (day: LocalDay, clock: String) {
        var t = time_t(hlc.wallMillis / 1000), parts = tm()
        let two = { (n: Int32) in n < 10 ? "0\(n)" : "\(n)" }
        guard localtime_r(&t, &parts) != nil,
              let day = LocalDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday)) else {
            let iso = UTCTime.iso8601(Date(timeIntervalSince1970: Double(hlc.wallMillis) / 1000))
            return (AppEnvironment.localDay(Date(timeIntervalSince1970: Double(hlc.wallMillis) / 1000), dayStartHour: 0),
                    String(iso.dropFirst(11).prefix(5)))
        }
        return (day, two(parts.tm_hour) + ":" + two(parts.tm_min))
    }

    /// One operation as an element of the `--json` array (indented as `JSON.serialized` indents one).
    static func json(_ op: HabitOperation, text: String, undo: Bool, undoneAt: HLC?) -> String {
        let object = JSON.object([
            "id": .string("\(op.id.device.rawValue)#\(op.id.seq)"), "device": .string(op.id.device.rawValue), "seq": .int(Int(op.id.seq)),
            "clock": .string(op.hlc.description), "time": .string(UTCTime.iso8601(Self.date(op.hlc))),
            "change": change(op.change), "text": .string(text), "undo": .bool(undo),
            "undoneAt": .optional(undoneAt.map { UTCTime.iso8601(Self.date($0)) }),
        ])
        let lines = object.serialized().dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { "  " + $0 }.joined(separator: "\n")
    }

    static func date(_ hlc: HLC) -> Date { Date(timeIntervalSince1970: Double(hlc.wallMillis) / 1000) }

    /// The JSON keys of the fields, in register order (`FieldValue.index`), as the export names them.
    static let fieldKeys = ["name", "icon", "color", "kind", "goal", "unit", "schedule", "startDate", "archivedFrom", "notes",
                            "group", "position", "reminders"]

    /// A field's value as the export writes it.
    static func value(_ v: FieldValue, of h: HabitID) -> JSON {
        var fields = HabitFields(name: "", startDate: .earliest)
        v.apply(to: &fields)
        if case .reminders = v { return .array(fields.reminders.map { .string($0.description) }) }
        return Export.fields(Habit(id: h, fields: fields))[fieldKeys[v.index]] ?? .null
    }

    /// A change as data: its type, habit and what it holds.
    static func change(_ c: Change) -> JSON {
        var o: [String: JSON] = ["habit": .string(c.habit.rawValue)]
        switch c {
        case .create(let h, let f):
            o["type"] = .string("create"); o["fields"] = .object(Export.fields(Habit(id: h, fields: f)))
        case .set(let h, let v):
            o["type"] = .string("set"); o["field"] = .string(fieldKeys[v.index]); o["value"] = value(v, of: h)
        case .setFrom(let h, let d, let v):
            o["type"] = .string("setFrom"); o["day"] = .string(d.description); o["field"] = .string(fieldKeys[v.index]); o["value"] = value(v, of: h)
        case .clearFrom(_, let d, let index):
            o["type"] = .string("clearFrom"); o["day"] = .string(d.description); o["field"] = .string(fieldKeys[max(0, min(index, fieldKeys.count - 1))])
        case .delete: o["type"] = .string("delete")
        case .restore(_, let op): o["type"] = .string("restore"); o["deleteOp"] = .string("\(op.device.rawValue)#\(op.seq)")
        case .progress(_, let d, let delta): o["type"] = .string("progress"); o["day"] = .string(d.description); o["delta"] = .amount(delta)
        case .setProgress(_, let d, let total): o["type"] = .string("setProgress"); o["day"] = .string(d.description); o["total"] = .amount(total)
        case .skip(_, let d, let on): o["type"] = .string("skip"); o["day"] = .string(d.description); o["skipped"] = .bool(on)
        case .rate(_, let d, let r): o["type"] = .string("rate"); o["day"] = .string(d.description); o["difficulty"] = .optional(r)
        case .note(_, let d, let n): o["type"] = .string("note"); o["day"] = .string(d.description); o["note"] = .optional(n)
        case .notDone(_, let d, let on): o["type"] = .string("notDone"); o["day"] = .string(d.description); o["notDone"] = .bool(on)
        case .pause(_, let from, let to, let reason):
            o["type"] = .string("pause"); o["from"] = .string(from.description); o["to"] = .string(to.description); o["reason"] = .optional(reason)
        }
        return .object(o)
    }
}

/// Where `habitto log` writes: through a pager when standard output is a terminal (and the
/// text is for reading), else standard output itself, a write at a time, so that a reader
/// that stops (`habitto log | head`, quitting the pager) stops the reading of the journal.
final class LogOutput {
    private var fd: Int32 = 1
    private var pager: pid_t?
    private var failed = false

    init(paged: Bool) {
        guard paged, Output.capture == nil, isatty(1) == 1, let (path, arguments) = Self.pagerCommand() else { return }
        var ends: [Int32] = [-1, -1]
        guard (try? sysCall("pipe") { pipe(&ends) }) != nil else { return }
        // Close-on-exec at once, so that no other child (nor the pager itself) holds the write end.
        for end in ends { _ = try? sysCall("fcntl") { fcntl(end, F_SETFD, FD_CLOEXEC) } }
        // The pager shares the terminal (this session and process group); it reads the list
        // on its standard input and gets Habitto's environment without its secrets. No shell
        // reads $PAGER: its words are the program and its arguments.
        var environment = OutsideProgram.inheritedEnvironment(withSecrets: false)
        if ProcessEnvironment.value("LESS") == nil { environment.append("LESS=FRX") }
        let started = Sys.spawn(path, [path] + arguments, environment: environment, newSession: false) { actions in
            posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        }
        Sys.close(ends[0])
        guard case .success(let pid) = started else { Sys.close(ends[1]); return }
        pager = pid
        fd = ends[1]
    }

    /// The pager's program and arguments: $PAGER's words (nothing, or `cat`: no pager), else less.
    static func pagerCommand() -> (String, [String])? {
        let words = (ProcessEnvironment.value("PAGER") ?? "less").split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let name = words.first, name != "cat" else { return nil }
        let path = name.contains("/") ? name : OutsideProgram.find(name, searchPath: ProcessEnvironment.value("PATH"))
        return path.map { ($0, Array(words.dropFirst())) }
    }

    /// Writes `text`; false once the reader has gone (nothing more needs making).
    func write(_ text: String) -> Bool {
        if let capture = Output.capture { capture.write(text, error: false); return true }
        guard !failed else { return false }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = try? bytes[done...].withUnsafeBytes { raw in try sysCall("write") { Glibc.write(fd, raw.baseAddress, raw.count) } }
            guard let n, n > 0 else { failed = true; return false }
            done += n
        }
        return true
    }

    /// Ends the list: the pager gets its end of input, and is waited for (the user quits it).
    func finish() {
        guard let pager else { return }
        Sys.close(fd)
        var status: Int32 = 0
        _ = try? sysCall("waitpid") { waitpid(pager, &status, 0) }
        self.pager = nil
    }
}
