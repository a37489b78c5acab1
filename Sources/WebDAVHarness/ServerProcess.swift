import Foundation
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// A server program run for the tests: in its own process group (so its workers go with
/// it), its output in a file, up once its loopback port accepts connections.
enum ServerProcess {
    /// Spawns `path args…` and waits until `port` accepts connections; throws with `logs()`
    /// when it exits or does not come up within 20 s.
    static func start(_ path: String, _ args: [String], name: String, port: UInt16, console: String,
                      logs: () -> String) throws -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attr, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, console, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var child: pid_t = 0
        do { try sysCallReturningError("posix_spawn") { posix_spawn(&child, path, &actions, &attr, argv, environ) } } catch {
            throw HarnessError("cannot start \(path): \(error.reason)")
        }
        let deadline = SystemClock.monotonicSeconds() + 20
        while SystemClock.monotonicSeconds() < deadline {
            var status: Int32 = 0
            if (try? sysCall("waitpid") { waitpid(child, &status, WNOHANG) }) == child {
                throw HarnessError("\(name) exited (status \(status)) instead of serving on port \(port):\n\(logs())")
            }
            if LoopbackSocket.canConnect(port: port) { return child }
            usleep(20_000)
        }
        killGroup(child)
        throw HarnessError("\(name) did not accept connections on port \(port) within 20 s:\n\(logs())")
    }

    /// Stops the process group led by `leader` and waits until `port` refuses connections.
    static func stop(_ leader: pid_t, port: UInt16) {
        killGroup(leader)
        let deadline = SystemClock.monotonicSeconds() + 5
        while LoopbackSocket.canConnect(port: port) && SystemClock.monotonicSeconds() < deadline { usleep(20_000) }
    }

    /// SIGTERM to the group, SIGKILL after a few seconds; waits for the leader.
    static func killGroup(_ leader: pid_t) {
        signal(-leader, SIGTERM)
        var status: Int32 = 0
        var deadline = SystemClock.monotonicSeconds() + 8
        var exited = false
        while SystemClock.monotonicSeconds() < deadline {
            if (try? sysCall("waitpid") { waitpid(leader, &status, WNOHANG) }) == leader { exited = true; break }
            usleep(20_000)
        }
        if !exited {
            signal(-leader, SIGKILL)
            _ = try? sysCall("waitpid") { waitpid(leader, &status, 0) }
        }
        // Workers left behind by a killed parent.
        deadline = SystemClock.monotonicSeconds() + 3
        while signal(-leader, 0) && SystemClock.monotonicSeconds() < deadline { usleep(20_000) }
        if signal(-leader, 0) { signal(-leader, SIGKILL) }
    }

    /// Sends `sig` to `pid` (a negative one: its process group); whether it was sent.
    @discardableResult
    private static func signal(_ pid: pid_t, _ sig: Int32) -> Bool { (try? sysCall("kill") { kill(pid, sig) }) != nil }
}


/// One HTTP/1.1 request as read from a client: the head as text and the body's bytes.
struct RawHTTPRequest {
    var method: String
    var path: String
    /// Header lines after the request line, as sent.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The request to send on: the body (de-chunked) with a Content-Length, `Connection:
    /// close`, and without `Expect` (the proxy already answered it).
    func forwarded() -> [UInt8] {
        let dropped: Set<String> = ["connection", "keep-alive", "proxy-connection", "expect", "content-length", "transfer-encoding"]
        var head = "\(method) \(path) HTTP/1.1\r\n"
        for h in headers where !dropped.contains(h.name.lowercased()) { head += "\(h.name): \(h.value)\r\n" }
        if !body.isEmpty || ["PUT", "POST", "PROPFIND", "PROPPATCH", "LOCK"].contains(method) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Reads one request from `fd`; answers `Expect: 100-continue` so the client sends its
    /// body at once. Nil when the client closed or sent something unreadable.
    static func read(from fd: Int32) -> RawHTTPRequest? {
        var buffer: [UInt8] = []
        let end: Int
        while true {
            if let i = find([13, 10, 13, 10], in: buffer) { end = i; break }
            guard buffer.count < 1 << 20, let chunk = LoopbackSocket.receive(fd) else { return nil }
            buffer += chunk
        }
        let lines = String(decoding: buffer[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var request = RawHTTPRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: [], body: [])
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            request.headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var rest = Array(buffer[(end + 4)...])
        if request.header("Expect")?.lowercased() == "100-continue" {
            LoopbackSocket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        func fill(_ count: Int) -> Bool {
            while rest.count < count {
                guard let chunk = LoopbackSocket.receive(fd) else { return false }
                rest += chunk
            }
            return true
        }
        if request.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            while true {
                var lineEnd: Int? = find([13, 10], in: rest)
                while lineEnd == nil {
                    guard let chunk = LoopbackSocket.receive(fd) else { return nil }
                    rest += chunk
                    lineEnd = find([13, 10], in: rest)
                }
                let sizeText = String(decoding: rest[0..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                rest.removeFirst(lineEnd! + 2)
                if size == 0 { break }
                guard fill(size + 2) else { return nil }
                request.body += rest[0..<size]
                rest.removeFirst(size + 2)
            }
        } else if let length = request.header("Content-Length").flatMap({ Int($0) }), length > 0 {
            guard fill(length) else { return nil }
            request.body = Array(rest[0..<length])
        }
        return request
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}
