import Dispatch
import FoundationEssentials
import HabitCore
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// One run of another program (`notify-send`, `systemctl`, `unzip`, `age`, an `auto` command,
/// a `password_command`), bounded in time and size: its standard input is /dev/null (or
/// `input`); it runs in a session of its own (no terminal to ask on, and a process group of
/// its own; see `Isolation`), with no open file but its standard streams; at most
/// `outputLimit` bytes of its output are kept and the rest is read and dropped, so it never
/// blocks writing. When it exits, and when it is killed after `timeLimit` seconds, every
/// process still in its session (or group) is killed with SIGKILL: nothing it started in the
/// background outlives it. A process that leaves the session (`setsid`, as a daemon such as
/// `gpg-agent` does) is no longer its, and is not ended. Habitto's secrets
/// (`secretVariables`) are left out of its environment unless the caller passes them.
public struct OutsideProgram: Sendable {
    /// What the program's standard error is connected to.
    public enum Errors: Sendable, Equatable {
        /// /dev/null.
        case discard
        /// Habitto's own standard error (the user sees it).
        case inherit
        /// The same stream as its output (`Result.output`).
        case merge
        /// A stream of its own (`Result.errors`), with the same limit as the output.
        case collect
    }

    /// The program's environment.
    public enum Environment: Sendable, Equatable {
        /// This process's, without `secretVariables`.
        case inherited
        /// This process's as it is, secrets included (for a program that needs one).
        case inheritedWithSecrets
        /// Exactly these `NAME=value` entries.
        case exactly([String])
    }

    /// How the program is set apart, so that it can be ended with everything it started.
    public enum Isolation: Sendable, Equatable {
        /// A session of its own (so no controlling terminal), as the leader of its process
        /// group: at its end every process still in its session is ended.
        case session
        /// A process group of its own in this process's session: at its end every process
        /// still in its group is ended. For a program started by a Habitto that runs in a
        /// session of its own (`habitto __answer`), so that whoever ends that session (the
        /// `remind` that started it, at its time limit) ends this program with it.
        case group
    }

    /// How a run ended.
    public enum Outcome: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (not Habitto's: it was within its time).
        case signalled(Int32)
        /// It was still running at its time limit, and was killed.
        case killedAfterTimeLimit
        /// It could not be started, for this reason.
        case couldNotStart(String)
        /// It was left running, as `watch` asked: its output is no longer read (a write to it
        /// fails), and the time limit no longer applies.
        case leftRunning
    }

    /// What a run produced.
    public struct Result: Sendable {
        public let outcome: Outcome
        /// The first `outputLimit` bytes of its standard output (and standard error, with `.merge`).
        public let output: [UInt8]
        /// The first `outputLimit` bytes of its standard error, with `.collect`.
        public let errors: [UInt8]
        /// Whether it wrote more output than was kept.
        public let outputCut: Bool
        /// The time limit it ran under, in seconds (for messages).
        public let timeLimit: Double
        /// Whether part of `input` could not be written for a reason of Habitto's side (not
        /// the program closing its input): a program that then succeeds read only part of it.
        public var inputCut = false

        /// Whether it exited with status 0.
        public var succeeded: Bool { outcome == .exited(0) }

        /// What went wrong, in words that follow the program's name ("did not finish within 5
        /// seconds and was stopped"); nil when it exited with status 0. An exit status comes
        /// with the first line the program wrote on its collected standard error, if any.
        public var problem: String? {
            switch outcome {
            case .exited(0), .leftRunning: return nil
            case .exited(let status):
                let said = OutsideProgram.firstLine(errors) ?? OutsideProgram.firstLine(output)
                return "failed (exit status \(status)\(said.map { ": " + $0 } ?? ""))"
            case .signalled(let signal): return "was ended by signal \(signal)"
            case .killedAfterTimeLimit: return "did not finish within \(OutsideProgram.seconds(timeLimit)) and was stopped"
            case .couldNotStart(let reason): return "could not be started (\(reason))"
            }
        }
    }

    /// The environment variables that hold Habitto's secrets.
    public static let secretVariables = ["HABITTO_WEBDAV_PASSWORD"]

    /// The program's absolute path.
    public var path: String
    /// Its arguments, after its name.
    public var arguments: [String]
    /// The longest it may run, in seconds.
    public var timeLimit: Double
    /// The most bytes of output (and of collected errors) kept.
    public var outputLimit: Int
    public var errors: Errors
    public var environment: Environment
    /// Told the output kept so far each time more arrives; returning true stops waiting and
    /// leaves the program running (`Outcome.leftRunning`). For a program that says it has
    /// started its work before it ends, such as a notification that then waits for an answer.
    public var watch: (@Sendable (_ output: [UInt8]) -> Bool)?
    /// How it is set apart (`.session` unless the caller says otherwise).
    public var isolation = Isolation.session
    /// Bytes given to the program as its standard input, which then ends (nil: /dev/null).
    /// They are written from a thread of their own while its output is read, so a program
    /// that writes before it has read everything never waits on Habitto, nor Habitto on it;
    /// what it has not read when it ends (or is killed) is dropped. Nothing goes to a file.
    public var input: [UInt8]?

    public init(_ path: String, _ arguments: [String], timeLimit: Double, outputLimit: Int = 64 << 10,
                errors: Errors = .discard, environment: Environment = .inherited) {
        self.path = path
        self.arguments = arguments
        self.timeLimit = timeLimit
        self.outputLimit = outputLimit
        self.errors = errors
        self.environment = environment
    }

    /// The first executable regular file `name` in the directories of `searchPath` (a
    /// `PATH` value; the usual one when nil), or nil.
    public static func find(_ name: String, searchPath: String?) -> String? {
        for dir in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !dir.isEmpty {
            let path = "\(dir)/\(name)"
            if let st = Sys.status(followingLinks: path), st.st_mode & S_IFMT == S_IFREG, Sys.canAccess(path, X_OK) { return path }
        }
        return nil
    }

    /// Runs the program to its end or its time limit (blocking the calling thread).
    public func run() -> Result {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        func failed(_ reason: String) -> Result {
            for fd in out + err where fd >= 0 { Sys.close(fd) }
            return Result(outcome: .couldNotStart(reason), output: [], errors: [], outputCut: false, timeLimit: timeLimit)
        }
        // Socket pairs made close-on-exec at once, so that no other child inherits their ends.
        let socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        var inp: [Int32] = [-1, -1]
        do {
            try sysCall("socketpair") { socketpair(AF_UNIX, socketType, 0, &out) }
            if errors == .collect { try sysCall("socketpair") { socketpair(AF_UNIX, socketType, 0, &err) } }
            if input != nil { try sysCall("socketpair") { socketpair(AF_UNIX, socketType, 0, &inp) } }
        } catch {
            return failed(error.reason)
        }
        let errors = self.errors
        let started = Sys.spawn(path, [path] + arguments, environment: environmentEntries(), newSession: isolation == .session,
                                ownGroup: true) { actions in
            if inp[0] >= 0 {
                posix_spawn_file_actions_adddup2(&actions, inp[0], 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            posix_spawn_file_actions_adddup2(&actions, out[1], 1)
            switch errors {
            case .discard: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            case .inherit: break
            case .merge: posix_spawn_file_actions_adddup2(&actions, out[1], 2)
            case .collect: posix_spawn_file_actions_adddup2(&actions, err[1], 2)
            }
            // Only its standard streams: a descriptor another program left open in this
            // process (a pipe it reads to its end) never stays open in a program that
            // outlives this one.
            for fd in Self.inheritableDescriptors() { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        Sys.close(out[1])
        if err[1] >= 0 { Sys.close(err[1]) }
        if inp[0] >= 0 { Sys.close(inp[0]) }
        out[1] = -1; err[1] = -1
        let child: pid_t
        switch started {
        case .success(let pid): child = pid
        case .failure(let e):
            if inp[1] >= 0 { Sys.close(inp[1]) }
            return failed(e.description)
        }
        defer { Sys.close(out[0]); if err[0] >= 0 { Sys.close(err[0]) } }
        let writer = input.map { InputWriter(fd: inp[1], bytes: $0) }
        var streams = [Stream(fd: out[0], limit: outputLimit)]
        if err[0] >= 0 { streams.append(Stream(fd: err[0], limit: outputLimit)) }
        let outcome = wait(for: child, reading: &streams)
        return Result(outcome: outcome, output: streams[0].kept, errors: streams.count > 1 ? streams[1].kept : [],
                      outputCut: streams[0].cut, timeLimit: timeLimit, inputCut: writer?.finish() ?? false)
    }

    /// Reads the child's streams until it exits, or kills it at the time limit; either way
    /// every process left in its session (or group) is killed before the child is reaped, so
    /// that its id, which is the session's and the group's, names no other process meanwhile.
    private func wait(for child: pid_t, reading streams: inout [Stream]) -> Outcome {
        let endAll = { Sys.killAll(group: child, session: self.isolation == .session) }
        // A time limit: on the monotonic clock, which HABITTO_NOW does not stop.
        let deadline = SystemClock.monotonicSeconds() + max(0, timeLimit)
        // The child's end shows as the end of its output, or (when something it started keeps
        // the output open) by asking; the pause between asks grows while nothing happens.
        var pause: Int32 = 1
        while true {
            if Self.hasEnded(child) {
                // What it left running (`sleep 300 &`) would hold its output open, and run on.
                endAll()
                let status = Self.reap(child, blocking: true) ?? .couldNotStart("its end could not be seen")
                for i in streams.indices { streams[i].drainWithoutWaiting() }
                return status
            }
            let left = deadline - SystemClock.monotonicSeconds()
            if left <= 0 {
                endAll()
                _ = try? sysCall("kill") { kill(child, SIGKILL) }
                _ = Self.reap(child, blocking: true)
                return .killedAfterTimeLimit
            }
            let leftMilliseconds = Int64(min(left, 86_400) * 1000) + 1
            let open = streams.indices.filter { !streams[$0].ended }
            var fds = open.map { pollfd(fd: streams[$0].fd, events: Int16(POLLIN), revents: 0) }
            let ready = (try? sysCall("poll") { poll(&fds, nfds_t(fds.count), Int32(min(Int64(pause), leftMilliseconds))) }) ?? 0
            if ready > 0 {
                for (k, i) in open.enumerated() where fds[k].revents != 0 { streams[i].readOnce() }
                if let watch, watch(streams[0].kept) { return .leftRunning }
                pause = 1
            } else {
                pause = min(pause * 2, 50)
            }
        }
    }

    /// Whether the child has ended (or cannot be waited for), without reaping it: while it
    /// is not reaped its id is not given to another process.
    private static func hasEnded(_ child: pid_t) -> Bool {
        var info = siginfo_t()
        guard (try? sysCall("waitid") { waitid(P_PID, id_t(child), &info, WEXITED | WNOHANG | WNOWAIT) }) != nil else { return true }
        return info.si_signo == SIGCHLD
    }

    /// The child's outcome once it has ended (nil while it runs, when not `blocking`).
    private static func reap(_ child: pid_t, blocking: Bool) -> Outcome? {
        var status: Int32 = 0
        do {
            if try sysCall("waitpid", { waitpid(child, &status, blocking ? 0 : WNOHANG) }) == 0 { return nil }
        } catch {
            return .couldNotStart("its end could not be seen: \(error.reason)")
        }
        // WIFEXITED / WEXITSTATUS, else WTERMSIG.
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    /// This process's open descriptors above the standard streams that a child would inherit
    /// (those without close-on-exec: Habitto opens none, a parent may have left some).
    static func inheritableDescriptors() -> [Int32] {
        guard let dir = try? sysCall("opendir", { opendir("/proc/self/fd") }) else { return [] }
        defer { closedir(dir) }
        let own = dirfd(dir)
        var found: [Int32] = []
        while let entry = try? sysReadEntry(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            if let flags = try? sysCall("fcntl", { fcntl(fd, F_GETFD) }), flags & FD_CLOEXEC == 0 { found.append(fd) }
        }
        return found
    }

    /// The `NAME=value` entries the program gets.
    private func environmentEntries() -> [String] {
        switch environment {
        case .exactly(let entries): return entries
        case .inherited: return Self.inheritedEnvironment(withSecrets: false)
        case .inheritedWithSecrets: return Self.inheritedEnvironment(withSecrets: true)
        }
    }

    /// This process's environment as `NAME=value` entries, without `secretVariables` unless
    /// `withSecrets`: for any child that needs none of them.
    public static func inheritedEnvironment(withSecrets: Bool) -> [String] {
        var entries: [String] = []
        var entry = environ
        while let p = entry.pointee {
            let pair = String(cString: p)
            entry += 1
            if !withSecrets, secretVariables.contains(where: { pair.hasPrefix($0 + "=") }) { continue }
            entries.append(pair)
        }
        return entries
    }

    /// Writes a program's input from a thread of its own, then ends it (shuts the socket
    /// for writing). `finish` stops a write the program does not read, and waits for the
    /// thread.
    private final class InputWriter: @unchecked Sendable {
        let fd: Int32
        let done = DispatchGroup()
        private let lock = Lock()
        /// Guarded by `lock`: a write failed for a reason other than the program closing its input.
        private var failed = false

        init(fd: Int32, bytes: [UInt8]) {
            self.fd = fd
            done.enter()
            DispatchQueue.global().async { [fd, done] in
                if !Self.sendAll(fd, bytes) { self.lock.withLock { self.failed = true } }
                _ = try? sysCall("shutdown") { shutdown(fd, Int32(SHUT_WR)) }
                done.leave()
            }
        }

        /// Writes `bytes` to `fd`; false when the write was cut short on this side. A program
        /// that closed its input (EPIPE, ECONNRESET) made its choice: that is no failure.
        private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let n: Int
                do {
                    // MSG_NOSIGNAL: a program that stopped reading gives EPIPE, not SIGPIPE.
                    n = try bytes[sent...].withUnsafeBytes { raw in
                        try sysCall("send") { send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
                    }
                } catch let e as SysError {
                    return e.errno == EPIPE || e.errno == ECONNRESET
                } catch {
                    return false
                }
                guard n > 0 else { return false }
                sent += n
            }
            return true
        }

        /// Ends a write still in progress (the program ended without reading it all, or was
        /// left running), waits for the thread, and closes the socket. Returns whether a write
        /// failed for a reason of this side (`Result.inputCut`).
        func finish() -> Bool {
            _ = try? sysCall("shutdown") { shutdown(fd, Int32(SHUT_RDWR)) }
            done.wait()
            Sys.close(fd)
            return lock.withLock { failed }
        }
    }

    /// One of the child's output streams, read as it comes.
    private struct Stream {
        let fd: Int32
        let limit: Int
        var kept: [UInt8] = []
        var cut = false
        var ended = false

        init(fd: Int32, limit: Int) { self.fd = fd; self.limit = limit }

        /// One read (poll said there is something, or the end).
        mutating func readOnce() {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            guard let n = try? sysCall("read", { read(fd, &chunk, chunk.count) }), n > 0 else { ended = true; return }
            keep(chunk[0..<n])
        }

        /// What is already there, once the child has ended.
        mutating func drainWithoutWaiting() {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while !ended {
                guard let n = try? sysCall("recv", { recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT)) }), n > 0 else { ended = true; return }
                keep(chunk[0..<n])
            }
        }

        private mutating func keep(_ bytes: ArraySlice<UInt8>) {
            let room = limit - kept.count
            if bytes.count > room { cut = true }
            if room > 0 { kept += bytes.prefix(room) }
        }
    }

    /// "1 second", "5 seconds" (a time limit, rounded up to whole seconds).
    public static func seconds(_ limit: Double) -> String {
        let whole = Int(limit.rounded(.up))
        return Plural.count(whole, "second")
    }

    /// The first non-blank line of a program's output, trimmed and at most 200 characters
    /// (for a message), or nil.
    public static func firstLine(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            let start = line.drop(while: blank)
            let trimmed = String(start[..<(start.lastIndex { !blank($0) }.map(start.index(after:)) ?? start.startIndex)])
            if !trimmed.isEmpty { return trimmed.count > 200 ? String(trimmed.prefix(200)) + "…" : trimmed }
        }
        return nil
    }
}
