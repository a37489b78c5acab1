import Foundation
import HabitStore
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// A `habitto` UI running on a pseudo-terminal until stopped (`stop`): keys are typed into
/// the master side; what it draws is read and thrown away so it never blocks.
final class OpenUI {
    let pid: pid_t
    private let master: Int32
    private let drain: Thread

    init?(_ path: String, env: [String: String]) {
        let (master, slave) = openPTY()
        guard master >= 0, slave >= 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_adddup2(&actions, slave, fd) }
        let argv = [strdup(path), nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let started = (try? sysCallReturningError("posix_spawn") { posix_spawn(&pid, path, &actions, nil, argv, envp) }) != nil
        Sys.close(slave)
        guard started else { Sys.close(master); return nil }
        self.pid = pid
        self.master = master
        drain = Thread {
            var buf = [UInt8](repeating: 0, count: 65_536)
            while let n = try? sysCall("read", { read(master, &buf, buf.count) }), n > 0 {}
        }
        drain.start()
    }

    /// Types `text` (a space: the first row's check-in).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = try? sysCall("write") { bytes.withUnsafeBytes { write(master, $0.baseAddress, bytes.count) } }
    }

    /// Ends the UI (SIGTERM, as a closed terminal would) and waits for it.
    func stop() {
        _ = try? sysCall("kill") { kill(pid, SIGTERM) }
        var status: Int32 = 0
        _ = try? sysCall("waitpid") { waitpid(pid, &status, 0) }
        Sys.close(master)
    }
}

extension Bench {
    // MARK: 9. Live sync: from a check-in on A to B's open UI (issue 40)

    /// Two data directories on one folder remote, B's UI open: how long a check-in made on
    /// A, by a command and by a key in A's own open UI, takes to reach B's state (B's journal
    /// grows when its UI pulls the batch). Median and 95th percentile over 20 changes each
    /// (4 with --quick).
    func propagation() throws {
        let base = root + "/live", remote = base + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        func envOf(_ name: String) -> [String: String] {
            // The real clock: the UI's rounds and the background round after a command are timed by it.
            var e = env(base + "/" + name, ["XDG_CONFIG_HOME": base + "/config-" + name])
            e["HABITTO_NOW"] = nil
            return e
        }
        let a = envOf("a"), b = envOf("b")
        for (e, args) in [(a, ["remote", "set", "dir:" + remote]), (b, ["remote", "set", "dir:" + remote]),
                          (a, ["add", "Walk"])] {
            let r = spawn(habitto, args, env: e)
            guard r.status == 0 else { throw BenchError("habitto \(args.joined(separator: " ")) failed (exit \(r.status)): \(r.output)") }
        }
        guard let uiB = OpenUI(habitto, env: b) else { throw BenchError("B's UI did not start") }
        defer { uiB.stop() }
        let journal = base + "/b/journal.hbj"
        func size() -> Int { Sys.status(followingLinks: journal).map { Int($0.st_size) } ?? 0 }
        /// The seconds from `change` until B's journal grows (nil: not within 10 s).
        func reach(_ change: () throws -> Void) throws -> Double? {
            let before = size(), start = now()
            try change()
            while now() - start < 10 {
                if size() > before { return now() - start }
                usleep(2_000)
            }
            return nil
        }
        // A's add goes by its background round; B's UI has drawn and run its first round once
        // a first change reaches it.
        _ = try reach {
            let r = spawn(habitto, ["check", "Walk"], env: a)
            guard r.status == 0 else { throw BenchError("habitto check failed: \(r.output)") }
        }
        let n = quick ? 4 : 20
        var byCommand: [Double] = []
        for i in 0..<n {
            if let t = try reach({ _ = spawn(habitto, [i % 2 == 0 ? "uncheck" : "check", "Walk"], env: a) }) { byCommand.append(t) }
        }
        guard let uiA = OpenUI(habitto, env: a) else { throw BenchError("A's UI did not start") }
        defer { uiA.stop() }
        _ = try reach { uiA.type(" ") }
        var byKey: [Double] = []
        for _ in 0..<n {
            if let t = try reach({ uiA.type(" ") }) { byKey.append(t) }
        }
        func figure(_ xs: [Double]) -> String {
            let lost = n - xs.count
            return "median \(ms(median(xs))), 95th percentile \(ms(percentile(xs, 95)))" + (lost > 0 ? ", \(lost) of \(n) not within 10 s" : "")
        }
        record("folder remote: `habitto check` on A to B's open UI (\(n) changes)", figure(byCommand),
               goal: "≤ 5 s", met: byCommand.count == n && percentile(byCommand, 95) <= 5)
        record("folder remote: `space` in A's UI to B's open UI (\(n) changes)", figure(byKey),
               goal: "median ≤ 1 s, 95th ≤ 2 s", met: byKey.count == n && median(byKey) <= 1 && percentile(byKey, 95) <= 2)
    }
}
