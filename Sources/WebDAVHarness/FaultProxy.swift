import Foundation
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP proxy between a client and `WebDAVServer` that can spoil chosen requests:
/// answer 500, answer 429 with `Retry-After`, or forward the request and then drop the
/// connection without the answer (the upload happened, the answer is lost).
///
/// One request per connection: each answer says `Connection: close`. Requests without a
/// fault pass through unchanged (Host included, so WebDAV `Destination` headers still match).
final class FaultProxy: @unchecked Sendable {
    enum Fault: Equatable, Sendable, CustomStringConvertible {
        /// Answer with this status (and an empty body) without asking the server.
        case status(Int)
        /// Answer 429 Too Many Requests with `Retry-After: seconds`.
        case tooManyRequests(retryAfter: Int)
        /// Forward the request, let the server answer, then drop the connection.
        case dropResponse
        /// Close the connection without forwarding or answering.
        case closeConnection

        var description: String {
            switch self {
            case .status(let s): return "answer \(s)"
            case .tooManyRequests(let s): return "answer 429, Retry-After \(s)"
            case .dropResponse: return "drop the answer"
            case .closeConnection: return "close the connection"
            }
        }
    }

    /// A request the proxy saw, and the fault it got (nil: passed through).
    struct Seen: Equatable, CustomStringConvertible, Sendable {
        let method: String
        let path: String
        let fault: Fault?
        var description: String { "\(method) \(path)" + (fault.map { " (\($0))" } ?? "") }
    }

    let port: UInt16
    let targetPort: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var planned: [(method: String?, path: String?, fault: Fault)] = []
    private var seenRequests: [Seen] = []
    private var stopped = false
    private var active = 0
    private var bodyLimit: Int?

    /// From now on, a request whose body is larger than `bytes` gets no answer: the
    /// connection is closed, as some servers do above their size limit (nil: none).
    func closeConnections(onBodiesLargerThan bytes: Int?) { lock.withLock { bodyLimit = bytes } }

    /// A proxy on a free loopback port in front of the plain-HTTP server on `targetPort`.
    init(targetPort: UInt16) throws {
        self.targetPort = targetPort
        listener = try LoopbackSocket.listen(port: 0)
        port = try LoopbackSocket.boundPort(listener)
        // The loop holds the proxy weakly, so dropping the proxy stops it (deinit shuts the
        // listener down, which ends the blocked accept).
        let fd = listener
        let thread = Thread { [weak self] in
            // Only this thread closes the listener, so its number is never reused under it.
            defer { LoopbackSocket.close(fd) }
            while true {
                guard let client = try? sysCall("accept", { accept(fd, nil, nil) }) else { return }
                guard let proxy = self else { LoopbackSocket.close(client); return }
                proxy.dispatch(client)
            }
        }
        thread.name = "FaultProxy accept"
        thread.start()
    }

    deinit { stop() }

    /// The WebDAV root as seen through the proxy.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/dav")! }

    /// Spoils the next request that arrives (with this method, and a path containing this
    /// text, when given); faults apply in the order they were added, each once.
    func inject(_ fault: Fault, on method: String? = nil, pathContaining path: String? = nil) {
        lock.lock(); defer { lock.unlock() }
        planned.append((method, path, fault))
    }

    /// Faults planned but not applied yet.
    var pendingFaults: Int {
        lock.lock(); defer { lock.unlock() }
        return planned.count
    }

    /// Every request seen so far, oldest first.
    var requests: [Seen] {
        lock.lock(); defer { lock.unlock() }
        return seenRequests
    }

    /// Stops accepting; connections in progress finish on their own.
    func stop() {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        guard !already else { return }
        // Ends the blocked accept; the accept thread closes the socket.
        LoopbackSocket.shutdown(listener, Int32(SHUT_RDWR))
        // Let handlers still relaying an answer finish (they hold their own sockets only).
        let deadline = SystemClock.monotonicSeconds() + 5
        while SystemClock.monotonicSeconds() < deadline {
            lock.lock(); let n = active; lock.unlock()
            if n == 0 { break }
            usleep(10_000)
        }
    }

    /// Handles one accepted connection on its own thread.
    private func dispatch(_ client: Int32) {
        lock.lock()
        if stopped { lock.unlock(); LoopbackSocket.close(client); return }
        active += 1
        lock.unlock()
        let handler = Thread { [self] in
            handle(client)
            lock.lock(); active -= 1; lock.unlock()
        }
        handler.name = "FaultProxy connection"
        handler.start()
    }

    private func takeFault(for request: RawHTTPRequest) -> Fault? {
        guard let i = planned.firstIndex(where: { p in
            (p.method == nil || p.method == request.method) && (p.path.map { request.path.contains($0) } ?? true)
        }) else { return nil }
        return planned.remove(at: i).fault
    }

    private func handle(_ client: Int32) {
        LoopbackSocket.setTimeout(client, 30)
        guard let request = RawHTTPRequest.read(from: client) else { LoopbackSocket.close(client); return }
        lock.lock()
        var fault = takeFault(for: request)
        if fault == nil, let limit = bodyLimit, request.body.count > limit { fault = .closeConnection }
        seenRequests.append(Seen(method: request.method, path: request.path, fault: fault))
        lock.unlock()
        switch fault {
        case .status(let code)?:
            reply(client, "HTTP/1.1 \(code) Injected Fault\r\nContent-Type: text/plain\r\nContent-Length: 15\r\nConnection: close\r\n\r\ninjected fault\n")
            LoopbackSocket.close(client)
        case .tooManyRequests(let seconds)?:
            reply(client, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: \(seconds)\r\nContent-Type: text/plain\r\nContent-Length: 18\r\nConnection: close\r\n\r\ntoo many requests\n")
            LoopbackSocket.close(client)
        case .closeConnection?:
            LoopbackSocket.abort(client)
        case .dropResponse?, nil:
            guard let server = LoopbackSocket.connect(port: targetPort, timeout: 30) else {
                // The server is down: the client sees a refused-like reset.
                LoopbackSocket.abort(client)
                return
            }
            LoopbackSocket.sendAll(server, request.forwarded())
            let answer = LoopbackSocket.receiveAll(server)
            LoopbackSocket.close(server)
            if fault == .dropResponse || answer.isEmpty {
                LoopbackSocket.abort(client)
            } else {
                LoopbackSocket.sendAll(client, answer)
                LoopbackSocket.shutdown(client, Int32(SHUT_WR))
                // Drain what the client may still send, so closing does not reset the answer.
                LoopbackSocket.setTimeout(client, 1)
                _ = LoopbackSocket.receive(client)
                LoopbackSocket.close(client)
            }
        }
    }

    private func reply(_ fd: Int32, _ text: String) {
        LoopbackSocket.sendAll(fd, Array(text.utf8))
        LoopbackSocket.shutdown(fd, Int32(SHUT_WR))
        LoopbackSocket.setTimeout(fd, 1)
        _ = LoopbackSocket.receive(fd)
    }
}
