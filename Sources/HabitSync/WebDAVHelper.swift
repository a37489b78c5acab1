import FoundationEssentials
import Dispatch
import HabitCore
import HabitStore
import WebDAVWire
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// The `habitto-webdav` process that makes a WebDAV remote's HTTP requests, so that the
/// `habitto` binary links no HTTP client (libcurl and its libraries would cost every
/// command's start-up). It is found next to the running executable
/// (`/proc/self/exe`), started at the first request and kept for the life of its
/// `WebDAVRemote` (one sync round of a command; the whole session of the UI, whose engine
/// keeps its remote), and stopped when that ends. Requests go one at a time as frames of
/// `WebDAVWire` on a socket pair (the helper's standard input and output); whatever comes back is decoded there, which refuses anything
/// malformed. The password travels only in a request's Authorization header on the socket,
/// never on a command line.
final class WebDAVHelper: @unchecked Sendable {
    /// The helper's file name, beside `habitto`.
    static let name = "habitto-webdav"

    /// Where the helper should be: the folder of the running executable.
    static func defaultPath() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = (try? sysCall("readlink") { readlink("/proc/self/exe", &buf, buf.count - 1) }) ?? 0
        let exe = n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        let folder = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (folder.isEmpty ? "." : folder) + "/" + name
    }

    let path: String
    /// The helper's own limit for one request, in seconds; the engine waits a little longer.
    let timeout: Double
    /// CA certificates the helper trusts instead of the system's.
    let caFile: String?
    private let queue = DispatchQueue(label: "habitto.webdav-helper")
    // Touched only on `queue`.
    private var pid: pid_t = 0
    private var socket: Int32 = -1
    private var decoder = FrameDecoder()

    init(path: String = WebDAVHelper.defaultPath(), timeout: Double, caFile: String? = nil) {
        self.path = path
        self.timeout = timeout
        self.caFile = caFile
    }

    deinit { stop() }

    /// Sends one request and waits for its reply, off the caller's thread.
    func exchange(_ request: WireRequest) async throws -> WireReply {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.exchangeNow(request) }) }
        }
    }

    private func exchangeNow(_ request: WireRequest) throws -> WireReply {
        if pid == 0 { try start() }
        do {
            try writeAll(Wire.frame(request.encoded()))
            return try WireReply(decoding: try readPayload())
        } catch let e as WireError {
            stop()
            throw RemoteError.refused("the WebDAV helper \(path) sent a malformed answer (\(e.message)); reinstall habitto-webdav from the same build as habitto")
        } catch let e as RemoteError {
            stop()
            throw e
        }
    }

    private func start() throws {
        guard Sys.canAccess(path, X_OK) else {
            throw RemoteError.refused("WebDAV needs \(WebDAVHelper.name) next to habitto, and \(path) is missing or not executable; install habitto-webdav from the same build beside habitto")
        }
        // One socket pair, not two pipes: a write to a helper that is gone fails with EPIPE
        // (MSG_NOSIGNAL) instead of raising SIGPIPE in whatever process runs the engine.
        var ends: [Int32] = [-1, -1]
        do { try sysCall("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) } } catch {
            throw RemoteError.unreachable("cannot start \(WebDAVHelper.name): \(error.reason)")
        }
        let arguments: [String] = [path, "--timeout", String(timeout)] + (caFile.map { ["--ca-file", $0] } ?? [])
        // The password travels in each request's header; the helper's environment has none.
        let started = Sys.spawn(path, arguments, environment: OutsideProgram.inheritedEnvironment(withSecrets: false), newSession: false) { actions in
            posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
            posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
            // libcurl's or Foundation's own messages must not land on the UI's screen.
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        Sys.close(ends[1])
        let child: pid_t
        switch started {
        case .success(let pid): child = pid
        case .failure(let e):
            Sys.close(ends[0])
            throw RemoteError.refused("cannot start \(path): \(e)")
        }
        pid = child
        socket = ends[0]
        decoder = FrameDecoder()
        Running.shared.add(child)
    }

    /// Ends the helper (it exits on end of input; a signal makes sure) and reaps it.
    private func stop() {
        guard pid != 0 else { return }
        Sys.close(socket)
        Self.end(pid, SIGTERM)
        Running.shared.remove(pid)
        pid = 0; socket = -1
    }

    /// Sends `sig` to the helper `pid` and reaps it.
    private static func end(_ pid: pid_t, _ sig: Int32) {
        _ = try? sysCall("kill") { kill(pid, sig) }
        var status: Int32 = 0
        _ = try? sysCall("waitpid") { waitpid(pid, &status, 0) }
    }

    /// The helpers this process started and has not stopped. A command that exits while its
    /// remote is still alive ends them on the way out; a helper also exits by itself when
    /// this process's end of its socket closes (the process died).
    final class Running: @unchecked Sendable {
        static let shared = Running()
        private let lock = Lock()
        private var pids = Set<pid_t>()
        private var registered = false

        func add(_ pid: pid_t) {
            let first = lock.withLock { () -> Bool in
                pids.insert(pid)
                defer { registered = true }
                return !registered
            }
            if first { atexit { WebDAVHelper.Running.shared.endAll() } }
        }

        func remove(_ pid: pid_t) { lock.withLock { _ = pids.remove(pid) } }

        func endAll() {
            for pid in lock.withLock({ pids }) { WebDAVHelper.end(pid, SIGKILL) }
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = try? bytes[done...].withUnsafeBytes { raw in
                try sysCall("send") { send(socket, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            }
            guard let n, n > 0 else { throw stopped() }
            done += n
        }
    }

    private func readPayload() throws -> [UInt8] {
        // The helper ends every request at `timeout`; one that says nothing for longer is
        // stuck (it is then stopped).
        let deadline = SystemClock.monotonicSeconds() + timeout + 10
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var pfd = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let left = deadline - SystemClock.monotonicSeconds()
            guard left > 0 else {
                throw RemoteError.unreachable("the WebDAV helper did not answer within \(Int(timeout + 10)) seconds")
            }
            // Each try waits only what is left (a signal may cut one short).
            let ready = try? sysCall("poll") { poll(&pfd, 1, Int32(min(max(left, 0), 3600) * 1000) + 1) }
            guard let ready, ready > 0 else { continue }
            guard let n = try? sysCall("read", { read(socket, &buf, buf.count) }), n > 0 else { throw stopped() }
            let payloads = try decoder.feed(Array(buf[0..<n]))
            guard let payload = payloads.first else { continue }
            guard payloads.count == 1, decoder.pending == 0 else { throw WireError("more than one answer to one request") }
            return payload
        }
    }

    private func stopped() -> RemoteError {
        .unreachable("the WebDAV helper \(path) stopped before answering")
    }
}
