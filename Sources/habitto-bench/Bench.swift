import Foundation
import HabitCore
import HabitStore
import HabitSys
import HabitSync
import WebDAVHarness
#if canImport(Glibc)
import Glibc
#endif

/// One row of the result table.
struct Figure {
    let name: String
    let value: String
    let goal: String
    /// nil when the figure has no goal (or in --quick mode, where nothing is judged).
    let met: Bool?
}

/// The benchmark: data sets made through the repository in a temporary folder, the
/// product measured as whole processes and in process, and ratios of things measured
/// alternately in the same run.
final class Bench {
    let quick: Bool
    let habitto: String
    let root: String
    let today = LocalDay(year: 2026, month: 11, day: 21)!
    let nowText = "2026-11-21T12:00:00"
    var figures: [Figure] = []
    var notes: [String] = []

    init(quick: Bool, habitto: String) throws {
        self.quick = quick
        self.habitto = habitto
        var template = Array((NSTemporaryDirectory() + "habitto-bench-XXXXXX").utf8CString)
        guard let dir = try? sysCall("mkdtemp", { mkdtemp(&template) }) else { throw BenchError("cannot make a temporary folder") }
        root = String(cString: dir)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Days of history in the large set: with nine days in ten checked in, 100 habits give
    /// about 365,000 check-ins (eleven years).
    static let yearsDays = 4_056

    /// How many times each measured process runs.
    var runs: Int { quick ? 3 : 21 }

    func env(_ home: String, _ extra: [String: String] = [:]) -> [String: String] {
        var e = ["HABITTO_HOME": home, "HABITTO_NOW": nowText, "TZ": "UTC", "PATH": "/usr/bin:/bin",
                 "XDG_CONFIG_HOME": root + "/config", "LANG": "C.UTF-8", "TERM": "xterm-256color"]
        for (k, v) in extra { e[k] = v }
        return e
    }

    func record(_ name: String, _ value: String, goal: String = "", met: Bool? = nil) {
        figures.append(Figure(name: name, value: value, goal: goal, met: quick ? nil : met))
        FileHandle.standardError.write(Data("  \(name): \(value)\n".utf8))
    }

    /// Writes back everything the benchmark wrote to make its data sets before a timed part:
    /// both `habitto check` and Taskwarrior's `task add` call fdatasync, and a disk still
    /// writing back a freshly made data set slows each of those by a varying amount.
    func settle() { Glibc.sync() }

    // MARK: Data sets

    /// A data directory with `habits` daily habits and `days` days of history each (about
    /// nine in ten days checked in), written through the repository in large commits, with
    /// a snapshot at the end. Returns its path and the number of operations.
    func dataSet(_ name: String, habits: Int, days: Int) async throws -> (String, Int) {
        let dir = root + "/" + name
        let repo = try HabitRepository(directory: dir, now: { Date(timeIntervalSince1970: 1_795_000_000) })
        let start = today.adding(-(days - 1))
        var rng = SplitMix64(seed: UInt64(habits * 1_000_003 + days))
        let ids = (0..<habits).map { _ in HabitID.random(using: &rng) }
        // Habit 001, the one checked in, counts (a unit): each check-in adds one and is
        // written, where checking a yes/no habit already done today writes nothing.
        let creates: [Change] = ids.enumerated().map { i, id in
            var fields = HabitFields(name: String(format: "Habit %03d", i + 1), startDate: start)
            if i == 0 { fields.unit = "times" }
            return .create(id, fields)
        }
        try await repo.commit(label: "bench") { _, _ in creates }
        var pending: [Change] = []
        pending.reserveCapacity(20_000)
        // Today stays open for the check-ins being measured.
        for d in 0..<(days - 1) {
            for id in ids where UInt64.random(in: 0..<10, using: &rng) != 0 {
                pending.append(.progress(id, start.adding(d), delta: Amount.scale))
            }
            if pending.count >= 20_000 {
                let batch = pending
                try await repo.commit(label: "bench") { _, _ in batch }
                pending.removeAll(keepingCapacity: true)
            }
        }
        if !pending.isEmpty {
            let batch = pending
            try await repo.commit(label: "bench") { _, _ in batch }
        }
        try await repo.writeSnapshot()
        return (dir, Int(await repo.state.operationCount))
    }

    // MARK: 1. Check-in cost against history

    func checkInCost() async throws {
        let sets = try await checkInSets()
        let (floor, noFloor) = floorProgram()
        settle()
        let times = try measureCheckIns(sets, floor: floor)
        let lateChecks = try await lateCheckIns(sets)
        let v = median(times.version), small = median(times.checks[0]), large = median(times.checks[sets.count - 1])
        record("`habitto --version` (median of \(runs))", ms(v))
        for (i, set) in sets.enumerated() {
            record("`habitto check`, \(count(set.1)) operations", ms(median(times.checks[i])))
        }
        record("check at \(count(sets.last!.1)) ÷ check at \(count(sets[0].1)) ops", ratio(large / small), goal: "≤ 1.3", met: large / small <= 1.3)
        record("check ÷ `--version` (at \(count(sets.last!.1)))", ratio(large / v), goal: "≤ 1.5", met: large / v <= 1.5)
        let since = HabitRepository.snapshotInterval - runs - 5
        record("`habitto check`, \(count(sets.last!.1)) operations, \(since)–\(since + runs - 1) records after the snapshot (one is written every \(HabitRepository.snapshotInterval))",
               ms(median(lateChecks)))
        record("that check ÷ check at \(count(sets.last!.1)) just after the snapshot", ratio(median(lateChecks) / large))
        record("`habitto list --json`, 10 habits", ms(median(times.lists)))
        let short = median(times.warmSegment), cold = median(times.segment)
        record("`habitto status --short` (prompt segment), \(count(sets.last!.1)) operations, from its cache", ms(short))
        record("`status --short` ÷ `--version`", ratio(short / v), goal: "≤ 1.2", met: short / v <= 1.2)
        record("`habitto status --short` after a change (counts, writes its cache)", ms(cold))
        record("`status --short` after a change ÷ `--version`", ratio(cold / v))
        guard floor != nil else {
            record("floor: a Swift program that only prints", "not measured: \(noFloor)")
            return
        }
        let f = median(times.floors), sync = median(times.syncs), list = median(times.lists)
        record("floor: a Swift program that only prints (`swiftc -O -static-stdlib`)", ms(f))
        record("one append + fdatasync (102 bytes)", ms(sync))
        record("`--version` ÷ floor", ratio(v / f), goal: "≤ 1.5", met: v / f <= 1.5)
        record("check at \(count(sets.last!.1)) ÷ (floor + one fdatasync)", ratio(large / (f + sync)), goal: "≤ 2", met: large / (f + sync) <= 2)
        record("`list --json`, 10 habits ÷ floor", ratio(list / f), goal: "≤ 2.5", met: list / f <= 2.5)
        record("shared libraries `habitto` loads (`ldd`)", sharedLibraries(habitto) + "; the floor: " + sharedLibraries(floor!))
    }

    /// The data sets the check-in is measured on: about 1,000, 100,000 and 1,000,000
    /// operations (nine days in ten are checked in), each as its path and operation count.
    func checkInSets() async throws -> [(String, Int)] {
        let sizes = quick ? [(10, 100), (10, 1_000), (20, 1_000)] : [(10, 112), (100, 1_112), (100, 11_112)]
        var sets: [(String, Int)] = []
        for (h, d) in sizes {
            let t = now()
            let set = try await dataSet("check-\(h)x\(d)", habits: h, days: d)
            FileHandle.standardError.write(Data("  made \(set.1) operations in \(String(format: "%.1f", now() - t)) s\n".utf8))
            sets.append(set)
        }
        return sets
    }

    /// The seconds each run took: of the floor program, `--version`, a check-in on each data
    /// set, `list --json`, one fdatasync, and the prompt segment without and with its cache.
    struct CheckInTimes {
        var version: [Double] = [], floors: [Double] = [], syncs: [Double] = [], lists: [Double] = []
        var segment: [Double] = [], warmSegment: [Double] = []
        var checks: [[Double]]
    }

    /// Runs each measured process `runs` times, in turn, so that what the ratios compare is
    /// measured alternately in the same run.
    func measureCheckIns(_ sets: [(String, Int)], floor: String?) throws -> CheckInTimes {
        let syncFile = root + "/fdatasync.bin"
        let syncFD = try Sys.open(syncFile, O_WRONLY | O_CREAT | O_APPEND)
        defer { Sys.close(syncFD); Sys.removeFile(syncFile) }
        var times = CheckInTimes(checks: [[Double]](repeating: [], count: sets.count))
        let record102 = [UInt8](repeating: 0x2A, count: 102)
        for _ in 0..<runs {
            if let floor {
                let f = spawn(floor, [], env: env(root + "/none"))
                guard f.status == 0 else { throw BenchError("the floor program failed") }
                times.floors.append(f.seconds)
            }
            let v = spawn(habitto, ["--version"], env: env(root + "/none"))
            guard v.status == 0 else { throw BenchError("habitto --version failed") }
            times.version.append(v.seconds)
            for (i, set) in sets.enumerated() {
                let r = spawn(habitto, ["check", "Habit 001"], env: env(set.0))
                guard r.status == 0, r.output.contains(" times, done") else {
                    throw BenchError("habitto check did not check in on \(set.1) operations: \(r.output)")
                }
                times.checks[i].append(r.seconds)
            }
            let l = spawn(habitto, ["list", "--json"], env: env(sets[0].0))
            guard l.status == 0, l.output.hasPrefix("[") else { throw BenchError("habitto list --json failed: \(l.output.prefix(200))") }
            times.lists.append(l.seconds)
            // One fdatasync of a check-in's size, on the same file system as the data sets.
            let t = now()
            _ = try? record102.withUnsafeBytes { raw in try sysCall("write") { write(syncFD, raw.baseAddress, raw.count) } }
            guard (try? sysCall("fdatasync") { fdatasync(syncFD) }) != nil else { throw BenchError("fdatasync failed") }
            times.syncs.append(now() - t)
            // The prompt segment, run at every prompt: on the largest history, first without
            // its cache, as after a change to the data (it counts, and keeps the count in its
            // cache; the check-in above may have changed nothing: a yes/no habit done today),
            // then again, as at every prompt until the data, the day or the week start change.
            Sys.removeFile(sets[sets.count - 1].0 + "/segment")
            let s = spawn(habitto, ["status", "--short"], env: env(sets[sets.count - 1].0))
            guard s.status == 0 else { throw BenchError("habitto status --short failed: \(s.output)") }
            times.segment.append(s.seconds)
            let w = spawn(habitto, ["status", "--short"], env: env(sets[sets.count - 1].0))
            guard w.status == 0, w.output == s.output else {
                throw BenchError("habitto status --short from its cache gave '\(w.output)', not '\(s.output)'")
            }
            times.warmSegment.append(w.seconds)
        }
        return times
    }

    /// The same check-in on the largest set when the records since the snapshot, which
    /// every command replays, are near the most there can be
    /// (`HabitRepository.snapshotInterval`; the measures before replay at most one per run).
    func lateCheckIns(_ sets: [(String, Int)]) async throws -> [Double] {
        let largest = sets[sets.count - 1].0
        do {
            let repo = try HabitRepository(directory: largest, now: { Date(timeIntervalSince1970: 1_795_000_000) })
            let habit = try Edits.find("Habit 001", in: await repo.state).id
            let yesterday = today.adding(-1)
            for _ in 0..<(HabitRepository.snapshotInterval - 2 * runs - 5) {
                try await repo.commit(label: "bench") { _, _ in [.progress(habit, yesterday, delta: Amount.scale)] }
            }
        }
        var lateChecks: [Double] = []
        for _ in 0..<runs {
            let r = spawn(habitto, ["check", "Habit 001"], env: env(largest))
            guard r.status == 0, r.output.contains(" times, done") else {
                throw BenchError("habitto check did not check in on \(sets.last!.1) operations: \(r.output)")
            }
            lateChecks.append(r.seconds)
        }
        return lateChecks
    }

    /// The shared libraries `ldd` lists for `binary`, by name, without the kernel's vDSO and
    /// the loader.
    func sharedLibraries(_ binary: String) -> String {
        let r = spawn("/usr/bin/ldd", [binary], env: ["PATH": "/usr/bin:/bin", "LANG": "C"])
        guard r.status == 0 else { return "ldd failed" }
        let names = r.output.split(separator: "\n").compactMap { line -> String? in
            guard let name = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init),
                  !name.hasPrefix("linux-vdso"), !name.contains("ld-linux") else { return nil }
            return name.hasSuffix(".so.6") || name.hasSuffix(".so.1") ? String(name.prefix { $0 != "." }) : name
        }
        return names.joined(separator: ", ")
    }

    /// The floor every command is held to: a Swift program that only prints, linked
    /// statically like the release build (`swiftc -O -static-stdlib`); or why there is none.
    func floorProgram() -> (String?, String) {
        guard let swiftc = which("swiftc") else { return (nil, "no swiftc on the PATH") }
        let source = root + "/floor.swift", binary = root + "/floor"
        guard (try? "print(\"habitto 0.0.0\")\n".write(toFile: source, atomically: true, encoding: .utf8)) != nil else {
            return (nil, "cannot write \(source)")
        }
        let built = spawn(swiftc, ["-O", "-static-stdlib", source, "-o", binary, "-module-cache-path", root + "/module-cache"],
                          env: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": root])
        guard built.status == 0, Sys.canAccess(binary, X_OK) else { return (nil, "swiftc -static-stdlib failed (exit \(built.status))") }
        return (binary, "")
    }

    // MARK: 2 and 5. Cold start and memory on years of history

    func coldStart() async throws -> String {
        let (h, d) = quick ? (10, 365) : (100, Bench.yearsDays)
        let (dir, ops) = try await dataSet("years-\(h)x\(d)", habits: h, days: d)
        var list: [Double] = [], tui: [Double] = [], listKB = 0, tuiKB = 0
        for _ in 0..<(quick ? 2 : 11) {
            let l = spawn(habitto, ["list", "--json"], env: env(dir))
            let lm = measured(habitto, ["list", "--json"], env: env(dir))
            guard l.status == 0, l.output.hasPrefix("[") else { throw BenchError("habitto list --json failed: \(l.output.prefix(200))") }
            list.append(l.seconds); listKB = max(listKB, lm.peakKB)
            let t = spawn(habitto, [], env: env(dir, ["HABITTO_EXIT_AFTER_FIRST_FRAME": "1"]), pty: true)
            let tm = measured(habitto, [], env: env(dir, ["HABITTO_EXIT_AFTER_FIRST_FRAME": "1"]), pty: true)
            guard t.status == 0 else { throw BenchError("the UI's first frame failed (exit \(t.status))") }
            tui.append(t.seconds); tuiKB = max(tuiKB, tm.peakKB)
        }
        let checkIns = ops - h
        record("cold `list --json`, \(count(checkIns)) check-ins", ms(median(list)), goal: "≤ 100 ms", met: median(list) <= 0.1)
        record("UI first frame, \(count(checkIns)) check-ins", ms(median(tui)), goal: "≤ 150 ms", met: median(tui) <= 0.15)
        if listKB == 0 { notes.append("Peak memory needs GNU time (/usr/bin/time, Debian's `time`).") }
        record("peak memory, `list --json`", mb(listKB), goal: "≤ 64 MB", met: listKB <= 64 * 1024)
        record("peak memory, UI", mb(tuiKB), goal: "≤ 64 MB", met: tuiKB <= 64 * 1024)
        return dir
    }

    // MARK: 2b. Charts on years of history

    /// `graph` (the overview of every habit) and a score chart over all of a habit's
    /// history, as new processes on the cold-start data set.
    func charts(on dir: String, habits: Int) throws {
        let cases: [(String, [String])] = [("`graph`", ["graph"]),
                                           ("`show --chart score --span all`", ["show", "Habit 001", "--chart", "score", "--span", "all"])]
        // The UI's first frame of the overview (O) and of the first habit's score page (enter tab).
        for (name, keys) in [("overview", "O"), ("score page", "enter tab")] {
            var times: [Double] = [], peakKB = 0
            let e = env(dir, ["HABITTO_EXIT_AFTER_FIRST_FRAME": "1", "HABITTO_FIRST_KEYS": keys])
            for _ in 0..<(quick ? 2 : 11) {
                let t = spawn(habitto, [], env: e, pty: true)
                guard t.status == 0 else { throw BenchError("the UI's first frame of the \(name) failed (exit \(t.status))") }
                times.append(t.seconds)
                peakKB = max(peakKB, measured(habitto, [], env: e, pty: true).peakKB)
            }
            record("UI first frame, \(name), \(habits) habits × \(quick ? "1 year" : "11 years")", ms(median(times)), goal: "≤ 150 ms",
                   met: median(times) <= 0.15)
            record("peak memory, UI \(name)", mb(peakKB), goal: "≤ 64 MB", met: peakKB <= 64 * 1024)
        }
        for (name, args) in cases {
            var times: [Double] = [], peakKB = 0
            for _ in 0..<(quick ? 2 : 11) {
                let r = spawn(habitto, args, env: env(dir))
                guard r.status == 0, r.output.contains("┤") else { throw BenchError("habitto \(args.joined(separator: " ")) failed: \(r.output.prefix(200))") }
                times.append(r.seconds)
                peakKB = max(peakKB, measured(habitto, args, env: env(dir)).peakKB)
            }
            record("\(name), \(habits) habits × \(quick ? "1 year" : "11 years")", ms(median(times)), goal: "≤ 150 ms", met: median(times) <= 0.15)
            record("peak memory, \(name)", mb(peakKB), goal: "≤ 64 MB", met: peakKB <= 64 * 1024)
        }
    }

    // MARK: 3. The local write against the disk

    func localWrite(on dir: String) async throws {
        settle()
        let repo = try HabitRepository(directory: dir, now: SystemClock.now)
        let habit = try unwrap(await repo.state.habits.first, "no habit in the data set")
        // The record one check-in writes, for the bare loop.
        let sample = JournalEntry(ops: [HabitOperation(id: OpID(device: repo.device, seq: 1), hlc: HLC(wallMillis: 1_795_000_000_000, counter: 0),
                                                       change: .progress(habit.id, today, delta: 1))],
                                  inverse: [.progress(habit.id, today, delta: -Amount.scale)], label: "check 'Habit 001' +1 on \(today)")
        let frame = Journal.frame(sample.encoded())
        let barePath = dir + "/bare.bin"
        let fd = try Sys.open(barePath, O_WRONLY | O_CREAT | O_APPEND)
        defer { Sys.close(fd); Sys.removeFile(barePath) }
        var inProcess: [Double] = [], bare: [Double] = []
        let day = today
        let rounds = quick ? 2 : 20
        for _ in 0..<rounds {
            for _ in 0..<10 {
                let t = now()
                try await repo.commit { _, _ in [.progress(habit.id, day, delta: 1)] }
                inProcess.append(now() - t)
            }
            for _ in 0..<10 {
                let t = now()
                _ = try? frame.withUnsafeBytes { raw in try sysCall("write") { write(fd, raw.baseAddress, raw.count) } }
                guard (try? sysCall("fdatasync") { fdatasync(fd) }) != nil else { throw BenchError("fdatasync failed") }
                bare.append(now() - t)
            }
        }
        let p99 = percentile(inProcess, 99), bare99 = percentile(bare, 99)
        record("in-process check-in p50 / p99 (\(inProcess.count) each)", "\(ms(median(inProcess))) / \(ms(p99))")
        record("bare append + fdatasync p50 / p99 (\(frame.count) bytes)", "\(ms(median(bare))) / \(ms(bare99))")
        record("check-in p99 ÷ bare fdatasync p99", ratio(p99 / bare99), goal: "≤ 2 (+0.5 ms)", met: p99 <= 2 * bare99 + 0.0005)
    }

    // MARK: 4. Sync

    /// A connected device that went offline and made `backlog` changes: returns its engine,
    /// ready to drain them (the remote's folders, format and first push are done).
    func backlogged(_ name: String, spec: String, user: String? = nil, password: String? = nil, backlog: Int) async throws -> SyncEngine {
        let (dir, _) = try await dataSet(name, habits: 10, days: 1)
        let repo = try HabitRepository(directory: dir)
        let engine = try SyncEngine(repository: repo, access: RemoteAccess(password: { password }))
        try await engine.setRemote(spec, account: name, user: user)
        let first = await engine.syncOnce()
        guard first.error == nil else { throw BenchError("connecting \(spec) failed: \(first)") }
        let ids = await repo.state.habits.map(\.id)
        var left = backlog, day = today.adding(-1)
        while left > 0 {
            // Check-ins on past days, a hundred changes per command.
            let n = min(100, left)
            let d = day
            try await repo.commit { _, _ in (0..<n).map { .progress(ids[$0 % ids.count], d, delta: 1) } }
            left -= n
            day = day.adding(-1)
        }
        return engine
    }

    func sync(fullSet: String) async throws {
        let backlog = quick ? 1_000 : 10_000
        let remote = root + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let engine = try await backlogged("drain", spec: "dir:" + remote, backlog: backlog)
        var t = now()
        let report = await engine.syncOnce()
        let drain = now() - t
        guard report.error == nil, report.pushed == backlog else { throw BenchError("drain failed: \(report)") }
        record("drain \(count(backlog)) pending ops to a directory remote", "\(ms(drain)), \(report.batches) files", goal: "≤ 1 s, ≤ 10 requests",
               met: drain <= 1 && report.batches <= 10)
        try await drainToWebDAV(backlog: backlog)

        // A fresh device catching up on years of history from the directory remote.
        let source = try HabitRepository(directory: fullSet)
        let pusher = try SyncEngine(repository: source)
        try await pusher.setRemote("dir:" + remote, account: "years")
        let pushed = await pusher.syncOnce()
        guard pushed.error == nil else { throw BenchError("push of the large set failed: \(pushed)") }
        let fresh = try HabitRepository(directory: root + "/fresh")
        let puller = try SyncEngine(repository: fresh)
        try await puller.setRemote("dir:" + remote, account: "years")
        t = now()
        let pulled = await puller.syncOnce()
        let catchUp = now() - t
        guard pulled.error == nil, pulled.pulled == pushed.pushed else { throw BenchError("catch-up failed: \(pulled)") }
        record("fresh device catch-up, \(count(pulled.pulled)) ops from a directory", ms(catchUp), goal: "≤ 3 s", met: catchUp <= 3)
    }

    /// The same backlog drained to Apache mod_dav on loopback (started here, like the tests).
    func drainToWebDAV(backlog: Int) async throws {
        if let missing = WebDAVServer.missingTools {
            record("drain to WebDAV on loopback", "not measured: \(missing)")
            return
        }
        let server = try WebDAVServer()
        let engine = try await backlogged("webdav", spec: server.baseURL.absoluteString, user: server.user,
                                          password: server.password, backlog: backlog)
        let before = server.requests().count
        let t = now()
        let report = await engine.syncOnce()
        let seconds = now() - t
        guard report.error == nil, report.pushed == backlog else { throw BenchError("WebDAV drain failed: \(report)") }
        let all = server.requests().dropFirst(before)
        if ProcessInfo.processInfo.environment["HABITTO_BENCH_VERBOSE"] != nil {
            FileHandle.standardError.write(Data(all.map { "    \($0)\n" }.joined().utf8))
        }
        record("drain \(count(backlog)) pending ops to WebDAV (Apache, loopback)", "\(ms(seconds)), \(all.count) requests",
               goal: "≤ 3 s, ≤ 10 requests", met: seconds <= 3 && all.count <= 10)
    }

    // MARK: 6. A peer: Taskwarrior

    func taskwarrior() async throws {
        if which("task") == nil { installTaskwarrior() }
        guard let task = which("task") else {
            record("Taskwarrior `task add` at 10k pending", "not available (apt-get install taskwarrior failed)")
            return
        }
        let (h, d) = quick ? (10, 50) : (10, 1_000)
        let (dir, ops) = try await dataSet("peer-\(h)x\(d)", habits: h, days: d)
        let version = spawn(task, ["--version"], env: ["PATH": "/usr/bin:/bin"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        // What a typical user has, and a heavy list.
        for n in quick ? [300] : [300, 10_000] {
            let data = root + "/task-\(n)", rc = root + "/taskrc-\(n)"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            try "data.location=\(data)\nconfirmation=off\nverbose=nothing\nrecurrence=off\n".write(toFile: rc, atomically: true, encoding: .utf8)
            let json = "[" + (0..<n).map { #"{"description":"task \#($0)","status":"pending","entry":"20261101T000000Z","uuid":"\#(UUID().uuidString.lowercased())"}"# }.joined(separator: ",") + "]"
            try json.write(toFile: root + "/tasks-\(n).json", atomically: true, encoding: .utf8)
            let taskEnv = ["TASKRC": rc, "TASKDATA": data, "PATH": "/usr/bin:/bin", "HOME": root]
            let imported = spawn("/bin/sh", ["-c", "'\(task)' import '\(root)/tasks-\(n).json'"], env: taskEnv)
            guard imported.status == 0 else { throw BenchError("task import failed") }
            settle()
            var adds: [Double] = [], checks: [Double] = []
            for i in 0..<runs {
                let a = spawn(task, ["add", "bench \(i)"], env: taskEnv)
                guard a.status == 0 else { throw BenchError("task add failed") }
                adds.append(a.seconds)
                let c = spawn(habitto, ["check", "Habit 001"], env: env(dir))
                guard c.status == 0, c.output.contains(" times, done") else { throw BenchError("habitto check did not check in: \(c.output)") }
                checks.append(c.seconds)
            }
            record("Taskwarrior \(version) `task add`, \(count(n)) pending", ms(median(adds)))
            record("`habitto check`, \(count(ops)) operations (alternated)", ms(median(checks)))
            let r = median(checks) / median(adds)
            record("check ÷ `task add` at \(count(n)) pending", ratio(r), goal: "≤ 0.5", met: r <= 0.5)
        }
    }

    func installTaskwarrior() {
        FileHandle.standardError.write(Data("  installing taskwarrior from Debian's packages\n".utf8))
        let sudo = getuid() == 0 ? "" : "sudo -n "
        _ = spawn("/bin/sh", ["-c", "\(sudo)apt-get install -y -qq taskwarrior >/dev/null 2>&1 || (\(sudo)apt-get update -qq >/dev/null 2>&1 && \(sudo)apt-get install -y -qq taskwarrior >/dev/null 2>&1)"],
                  env: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive"])
    }

    // MARK: Formatting

    func ms(_ s: Double) -> String { s < 0.01 ? String(format: "%.2f ms", s * 1000) : String(format: "%.1f ms", s * 1000) }
    func mb(_ kb: Int) -> String { String(format: "%.1f MB", Double(kb) / 1024) }
    func ratio(_ r: Double) -> String { String(format: "%.2f", r) }
    func count(_ n: Int) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.locale = Locale(identifier: "en_US")
        return f.string(from: NSNumber(value: n)) ?? String(n)
    }

    /// The Markdown table.
    func table() -> String {
        var out = "| figure | measured | goal | met |\n|---|---|---|---|\n"
        for f in figures {
            out += "| \(f.name) | \(f.value) | \(f.goal) | \(f.met.map { $0 ? "yes" : "**no**" } ?? "") |\n"
        }
        for n in notes { out += "\n\(n)\n" }
        return out
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func unwrap<T>(_ v: T?, _ why: String) throws -> T {
    guard let v else { throw BenchError(why) }
    return v
}
