import Foundation
import HabitStore
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// One finished child process: wall time, peak resident memory, exit status, output.
struct Run {
    let seconds: Double
    let peakKB: Int
    let status: Int32
    let output: String
}

/// A monotonic clock reading in seconds.
func now() -> Double { SystemClock.monotonicSeconds() }

/// Runs a program under GNU time, which reports its peak resident memory. (wait4's own
/// figure is useless here: a child started by posix_spawn shares this process's memory
/// until it execs, and Linux keeps that high-water mark across the exec.)
func measured(_ path: String, _ args: [String], env: [String: String], pty: Bool = false) -> Run {
    guard Sys.canAccess("/usr/bin/time", X_OK) else { return spawn(path, args, env: env, pty: pty) }
    let out = NSTemporaryDirectory() + "habitto-bench-rss-\(getpid())"
    defer { Sys.removeFile(out) }
    let r = spawn("/usr/bin/time", ["-f", "%M", "-o", out, path] + args, env: env, pty: pty)
    let kb = Int(((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").last ?? "") ?? 0
    return Run(seconds: r.seconds, peakKB: kb, status: r.status, output: r.output)
}

/// Runs a program to completion with posix_spawn and wait4. Standard output goes to a file that is read back; with `pty` the child
/// gets a pseudo-terminal of 100×30 as its standard input, output and error (for the UI).
func spawn(_ path: String, _ args: [String], env: [String: String], pty: Bool = false) -> Run {
    let outPath = NSTemporaryDirectory() + "habitto-bench-out-\(getpid())"
    let outFD = (try? Sys.open(outPath, O_WRONLY | O_CREAT | O_TRUNC)) ?? -1
    defer { Sys.close(outFD); Sys.removeFile(outPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var master: Int32 = -1, slave: Int32 = -1
    if pty {
        (master, slave) = openPTY()
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_adddup2(&actions, slave, fd) }
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outFD, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    let argv = ([path] + args).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
    // The UI's output is drained so it never blocks on a full pseudo-terminal.
    let masterFD = master
    let drain: Thread? = pty ? Thread {
        var buf = [UInt8](repeating: 0, count: 65_536)
        while let n = try? sysCall("read", { read(masterFD, &buf, buf.count) }), n > 0 {}
    } : nil
    drain?.start()
    var pid: pid_t = 0
    let start = now()
    guard (try? sysCallReturningError("posix_spawn") { posix_spawn(&pid, path, &actions, nil, argv, envp) }) != nil else {
        return Run(seconds: 0, peakKB: 0, status: -1, output: "cannot start \(path)")
    }
    var status: Int32 = 0
    var usage = rusage()
    _ = try? sysCall("wait4") { wait4(pid, &status, 0, &usage) }
    let seconds = now() - start
    if pty { Sys.close(slave); Sys.close(master) }
    let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return Run(seconds: seconds, peakKB: Int(usage.ru_maxrss), status: code, output: output)
}

/// A pseudo-terminal of 100×30: /dev/ptmx, unlocked, and its pts (Linux ioctls TIOCSPTLCK
/// and TIOCGPTN): the master and the slave's descriptors (-1 when it could not be opened).
func openPTY() -> (master: Int32, slave: Int32) {
    let master = (try? Sys.open("/dev/ptmx", O_RDWR | O_NOCTTY)) ?? -1
    var unlock: Int32 = 0, number: UInt32 = 0
    _ = try? sysCall("ioctl") { ioctl(master, 0x4004_5431, &unlock) }
    _ = try? sysCall("ioctl") { ioctl(master, 0x8004_5430, &number) }
    let slave = (try? Sys.open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)) ?? -1
    var size = winsize(ws_row: 30, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
    _ = try? sysCall("ioctl") { ioctl(slave, UInt(TIOCSWINSZ), &size) }
    return (master, slave)
}

/// Whether a program is on the PATH.
func which(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let p = "\(dir)/\(name)"
        if Sys.canAccess(p, X_OK) { return p }
    }
    return nil
}

/// The median of some numbers (0 when there are none).
func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return 0 }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The p-th percentile (nearest rank) of some numbers.
func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return 0 }
    let rank = Int((p / 100 * Double(s.count)).rounded(.up)) - 1
    return s[max(0, min(s.count - 1, rank))]
}
