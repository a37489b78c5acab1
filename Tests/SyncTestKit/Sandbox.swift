import Foundation
import XCTest
@testable import HabittoCLI
#if canImport(Glibc)
import Glibc
#endif

/// What one run of the `habitto` binary produced.
public struct RunResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let killed: Bool

    /// A result as a run gave it.
    public init(status: Int32, stdout: String, stderr: String, killed: Bool) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.killed = killed
    }
}

/// The test process ignores SIGPIPE, as Foundation's own tests do: a write to a pipe or
/// socket whose reader has gone (a child killed on purpose) then fails with EPIPE where
/// it happens instead of killing the whole test run with signal 13.
public let brokenPipesFailInPlace: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// A fresh data and config directory, and a way to run the real `habitto` binary on it.
public final class Sandbox {
    public let root: String
    public var home: String { root + "/data" }
    public var config: String { root + "/config" }
    public var now = "2026-11-21T09:00:00"
    public var extraEnv: [String: String] = [:]
    /// `run` runs the command in this process (`runInProcess`), not the binary.
    public let inProcess: Bool

    /// A fresh sandbox in the temporary folder, removed when it goes away.
    public init(inProcess: Bool = false) {
        self.inProcess = inProcess
        brokenPipesFailInPlace
        root = NSTemporaryDirectory() + "habitto-cli-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: root + "/config/habitto", withIntermediateDirectories: true)
    }

    /// File systems this sandbox mounted, unmounted when it goes away.
    public private(set) var mounts: [String] = []

    deinit {
        for m in mounts.reversed() { Sandbox.asRoot("/bin/umount", ["-l", m]) }
        try? FileManager.default.removeItem(atPath: root)
    }

    @discardableResult
    public static func shell(_ tool: String, _ args: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// Runs a tool as root: directly when the tests run as root, else through `sudo -n`.
    @discardableResult
    public static func asRoot(_ tool: String, _ args: [String]) -> Int32 {
        getuid() == 0 ? shell(tool, args) : shell("/usr/bin/sudo", ["-n", tool] + args)
    }

    /// Mounts a small tmpfs (a real file system that really fills up). Needs root, which
    /// the development machines and CI have; a failure to mount fails the test.
    public func mountTmpfs(sizeKB: Int, file: StaticString = #filePath, line: UInt = #line) -> String? {
        let dir = root + "/mnt-\(mounts.count)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let status = Sandbox.asRoot("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKB)k", "tmpfs", dir])
        guard status == 0 else {
            XCTFail("could not mount a tmpfs at \(dir) (status \(status)); this test needs root or passwordless sudo", file: file, line: line)
            return nil
        }
        mounts.append(dir)
        return dir
    }

    /// Fills the file system holding `dir` until a write fails.
    public func fill(_ dir: String) {
        let fd = open(dir + "/filler", O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(fd, block, block.count) > 0 {}
        close(fd)
    }

    /// The `habitto` built beside the test bundle (or in `.build/debug`).
    public static var binary: String {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("habitto").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        let build = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/habitto").path
        return build
    }

    /// The binary this sandbox runs (a test may run a copy elsewhere).
    public var binaryPath = Sandbox.binary

    /// The environment a run gets: this process's, with the sandbox's data and config
    /// directories, clock, time zone and locale, and `extraEnv` over them.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HABITTO_HOME"] = home
        env["XDG_CONFIG_HOME"] = config
        env["HABITTO_NOW"] = now
        // A change made by a command is sent by a background round only where a test asks for
        // it (extraEnv), so that a test's own `habitto sync` sees what it expects.
        env["HABITTO_SYNC_AFTER_CHANGE"] = "false"
        env["TZ"] = env["TZ"] ?? "UTC"
        // A UTF-8 locale, whatever the machine running the tests has (tests of ASCII output set their own).
        env["LANG"] = "C.UTF-8"
        env["LC_ALL"] = nil
        env["LC_CTYPE"] = nil
        for (k, v) in extraEnv { env[k] = v }
        return env
    }

    /// Starts the binary (or another `program`) with `args` in the sandbox's environment;
    /// output goes to files read by `finish`.
    public func start(_ args: [String], program: String? = nil) throws -> (Process, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program ?? binaryPath)
        p.arguments = args
        p.environment = environment
        let tag = root + "/run-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: tag + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: tag + ".err", contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: tag + ".out")
        p.standardError = FileHandle(forWritingAtPath: tag + ".err")
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return (p, tag)
    }

    /// Waits for a run made by `start` and reads what it printed.
    public func finish(_ p: Process, _ tag: String) -> RunResult {
        p.waitUntilExit()
        let out = (try? String(contentsOfFile: tag + ".out", encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: tag + ".err", encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: tag + ".out")
        try? FileManager.default.removeItem(atPath: tag + ".err")
        return RunResult(status: p.terminationStatus, stdout: out, stderr: err,
                         killed: p.terminationReason == .uncaughtSignal)
    }

    /// Runs `habitto args` (see `run(_:program:)`).
    @discardableResult
    public func run(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        run(args, file: file, line: line)
    }

    /// Runs `habitto args` (in this process when the sandbox is `inProcess`), or `program`, and
    /// waits for it; a run that cannot start fails the test.
    @discardableResult
    public func run(_ args: [String], program: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        if inProcess && program == nil { return runInProcess(args) }
        do {
            let (p, tag) = try start(args, program: program)
            return finish(p, tag)
        } catch {
            XCTFail("could not start \(program ?? binaryPath): \(error)", file: file, line: line)
            return RunResult(status: -1, stdout: "", stderr: "", killed: false)
        }
    }

    /// Runs and asserts success; returns standard output.
    @discardableResult
    public func ok(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(args, file: file, line: line)
        XCTAssertEqual(r.status, 0, "habitto \(args.joined(separator: " ")) failed: \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// Parses the JSON printed by a command.
    public func json(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> Any? {
        let r = run(args, file: file, line: line)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
    }

    /// A figure of `stats --json`.
    public func stat(_ key: String, file: StaticString = #filePath, line: UInt = #line) -> Int? {
        (json("stats", "--json", file: file, line: line) as? [String: Any])?[key] as? Int
    }

    /// The entry of habit `name` in `list --all --json` (with `extra` arguments).
    public func listEntry(_ name: String, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        let r = run(["list", "--all", "--json"] + extra, file: file, line: line)
        let arr = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [[String: Any]]
        return arr?.first { $0["name"] as? String == name }
    }

    /// The journal's path.
    public var journalPath: String { home + "/journal.hbj" }

    /// The journal's bytes (none when there is no journal).
    public func journalBytes() -> [UInt8] { Array((try? Data(contentsOf: URL(fileURLWithPath: journalPath))) ?? Data()) }
}

// MARK: Running a command in this process

/// The exit status of a command run in process, set when it ends.
private final class Finished: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int32?
    var status: Int32? { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ s: Int32) { lock.lock(); value = s; lock.unlock() }
}

/// The in-process runs have no terminal: the UI and the signals `ask` watches are refused.
private struct NoTerminal: UserInterface {
    struct Refused: Error {}
    func open(_ env: AppEnvironment, _ options: UIOptions) async throws -> Int32 { throw Refused() }
    func demo(_ env: AppEnvironment, homeGiven: Bool, _ options: UIOptions) async throws -> Int32 { throw Refused() }
    func watchSignals() throws -> any SignalWatch { throw Refused() }
}

extension Sandbox {
    /// Runs `habitto args` inside this test process, against the HabittoCLI library: the
    /// sandbox's environment is set for the run (and the time zone read again), standard
    /// output and error are captured. The main run loop runs the command's main-actor work
    /// until it ends. For commands that need no process of their own (no signals, terminal,
    /// kill or concurrent process).
    public func runInProcess(_ args: [String]) -> RunResult {
        let wanted = environment
        var saved: [String: String?] = [:]
        for key in Set(wanted.keys).union(["LC_ALL", "LC_CTYPE"]) where ProcessEnvironment.value(key) != wanted[key] {
            saved[key] = ProcessEnvironment.value(key)
            if let v = wanted[key] { setenv(key, v, 1) } else { unsetenv(key) }
        }
        tzset()
        defer {
            for (key, value) in saved { if let value { setenv(key, value, 1) } else { unsetenv(key) } }
            tzset()
        }
        let capture = Output.Capture()
        Output.capture = capture
        defer { Output.capture = nil }
        let finished = Finished()
        Task { @MainActor in finished.set(await CLI.run(args, ui: NoTerminal(), rawArguments: false)) }
        while finished.status == nil { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
        return RunResult(status: finished.status!, stdout: capture.stdout, stderr: capture.stderr, killed: false)
    }
}

extension Sandbox {
    /// The folder of fake programs (`notify-send`, `systemctl`, …) the tests of outside
    /// programs write, first on PATH once `useFakePrograms` ran.
    public var fakePrograms: String { root + "/bin" }

    /// Makes `fakePrograms` and puts it first on PATH, before the system's folders only, with a
    /// desktop display set (so `notify-send` is tried) and no other environment of the test's.
    public func useFakePrograms() {
        try! FileManager.default.createDirectory(atPath: fakePrograms, withIntermediateDirectories: true)
        extraEnv = ["PATH": fakePrograms + ":/usr/bin:/bin", "DISPLAY": ":0", "WAYLAND_DISPLAY": ""]
    }
}
