import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CHTTPTransfer
import HabitSys
import WebDAVWire

/// The WebDAV transport of `habitto-webdav`: reads `WireRequest` frames on standard input,
/// makes each request (one kept-alive connection), and writes one `WireReply` frame for
/// each on standard output, until its input ends or the process that started it goes. It
/// states facts (a status, headers, a body, a parsed listing, or why there was no answer);
/// the sync engine in `habitto` decides what they mean.
public enum HelperServer {
    /// Serves standard input and output; returns the exit status.
    public static func run(arguments: [String]) -> Int32 {
        var timeout = 20.0
        if let i = arguments.firstIndex(of: "--timeout"), i + 1 < arguments.count, let t = Double(arguments[i + 1]), t > 0, t <= 3600 {
            timeout = t
        }
        var caFile: String?
        if let i = arguments.firstIndex(of: "--ca-file"), i + 1 < arguments.count { caFile = arguments[i + 1] }
        _ = signal(SIGPIPE, SIG_IGN)
        guard habitto_http_global_init() == 0, let client = HTTPClient(timeout: timeout, caFile: caFile) else { return 3 }
        // A request in flight keeps this thread busy; the engine closing its end (or dying)
        // must still end the process at once.
        exitWhenInputHangsUp()
        var decoder = FrameDecoder()
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard let n = try? sysCall("read", { read(0, &buf, buf.count) }), n > 0 else { return 0 }
            let payloads: [[UInt8]]
            do { payloads = try decoder.feed(Array(buf[0..<n])) } catch { return 2 }
            for payload in payloads {
                let answer: HTTPClient.Answer
                do { answer = client.perform(try WireRequest(decoding: payload)) } catch {
                    answer = .reply(.failure(.badRequest, detail: "\(error)"))
                }
                guard write(answer) else { return 0 }
            }
        }
    }

    /// Writes one answer as a frame, a long body straight from where it was received.
    static func write(_ answer: HTTPClient.Answer) -> Bool {
        switch answer {
        case .reply(let reply):
            return writeAll(Wire.frame(reply.encoded()))
        case let .response(status, headers, body, listing):
            let (head, tail) = WireReply.responseParts(status: status, headers: headers, bodyCount: body.count, listing: listing)
            let total = head.count + body.count + tail.count
            guard total <= Wire.maxFrame else {
                return writeAll(Wire.frame(WireReply.failure(.answerTooLarge, detail: "\(total) bytes").encoded()))
            }
            return writeAll(Wire.prefix(total) + head) && writeAll(body) && writeAll(tail)
        }
    }

    static func writeAll(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = try? bytes[done...].withUnsafeBytes { raw in try sysCall("write") { Glibc.write(1, raw.baseAddress, raw.count) } }
            guard let n, n > 0 else { return false }
            done += n
        }
        return true
    }

    /// POLLRDHUP (Linux): the other end shut down or closed; Glibc's module does not export it.
    static let pollReadHangUp: Int16 = 0x2000

    /// Starts a thread that ends the process when the other end of standard input hangs up
    /// (the engine stopped it, exited or was killed), even while a request is in flight.
    /// Only a hang-up wakes it: pending requests do not.
    static func exitWhenInputHangsUp() {
        Thread.detachNewThread {
            var pfd = pollfd(fd: 0, events: pollReadHangUp, revents: 0)
            while true {
                guard (try? sysCall("poll") { poll(&pfd, 1, -1) }) != nil else { _exit(0) }
                if pfd.revents & (pollReadHangUp | Int16(POLLHUP | POLLERR | POLLNVAL)) != 0 { _exit(0) }
            }
        }
    }
}
