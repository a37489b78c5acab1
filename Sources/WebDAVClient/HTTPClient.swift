import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CHTTPTransfer
import WebDAVWire

/// Makes requests one at a time through libcurl's easy interface, on one kept-alive
/// connection. Every request stays where its URL points: redirects are never followed
/// (a 3xx is handed to the engine as an answer), no compressed encoding is asked for or
/// decoded, the whole exchange ends at `timeout` seconds, and the answer's body is kept
/// only up to the request's `maxBody` while it streams.
final class HTTPClient {
    /// What to write back: a reply, or an answer whose body is written as it is.
    enum Answer: Equatable {
        case reply(WireReply)
        case response(status: Int, headers: [(name: String, value: String)], body: [UInt8], listing: WireListing)

        static func == (a: Answer, b: Answer) -> Bool { a.wireReply == b.wireReply }

        /// The same answer as one `WireReply` (for tests and small answers).
        var wireReply: WireReply {
            switch self {
            case .reply(let r): return r
            case let .response(status, headers, body, listing): return .response(status: status, headers: headers, body: body, listing: listing)
            }
        }
    }

    let handle: UnsafeMutableRawPointer
    let timeout: Double
    /// CA certificates trusted instead of the system's (the config's `ca_file`).
    let caFile: UnsafeMutablePointer<CChar>?

    /// Nil when libcurl cannot make a handle.
    init?(timeout: Double, caFile: String? = nil) {
        guard let h = habitto_http_open() else { return nil }
        handle = h
        self.timeout = timeout
        self.caFile = caFile.map { strdup($0) }
    }

    deinit {
        habitto_http_close(handle)
        free(caFile)
    }

    /// Most bytes of header lines in one answer.
    static let maxHeaderBytes = 64 << 10

    func perform(_ wire: WireRequest) -> Answer {
        let sink = Sink(maxBody: wire.maxBody, listing: wire.wantsListing)
        var lines = wire.headers.map { strdup("\($0.name): \($0.value)") }
        defer { lines.forEach { free($0) } }
        var result = habitto_http_result()
        let body = wire.body ?? []
        wire.url.withCString { url in
            wire.method.withCString { method in
                lines.withUnsafeMutableBufferPointer { headers in
                    headers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { headers in
                        body.withUnsafeBufferPointer { bytes in
                            var request = habitto_http_request()
                            request.url = url
                            request.method = method
                            request.headers = UnsafePointer(headers.baseAddress)
                            request.header_count = headers.count
                            request.body = bytes.baseAddress
                            request.body_length = bytes.count
                            request.has_body = wire.body == nil ? 0 : 1
                            request.time_limit_ms = Int(timeout * 1000)
                            request.ca_file = UnsafePointer(caFile)
                            request.max_body = Int64(wire.maxBody)
                            request.context = Unmanaged.passUnretained(sink).toOpaque()
                            request.on_header = { context, bytes, length in
                                Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().header(bytes, length)
                            }
                            request.on_body = { context, bytes, length in
                                Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().body(bytes, length)
                            }
                            habitto_http_perform(handle, &request, &result)
                        }
                    }
                }
            }
        }
        return answer(wire, result, sink)
    }

    /// The answer for a finished transfer.
    func answer(_ wire: WireRequest, _ result: habitto_http_result, _ sink: Sink) -> Answer {
        let status = (100...599).contains(result.status) ? Int(result.status) : 502
        let code = result.code
        if let listing = sink.listing, !listing.wantsMore {
            // Stopped early: too many entries, or not a listing.
            return .response(status: status, headers: sink.headers, body: [], listing: listing.finish())
        }
        if sink.tooLarge || code == Int32(HABITTO_HTTP_FILESIZE_EXCEEDED) {
            if wire.wantsListing && status == 207 { return .response(status: status, headers: sink.headers, body: [], listing: .tooLarge) }
            return .reply(.failure(.answerTooLarge, detail: sink.headersTooLarge
                ? "its headers are longer than \(HTTPClient.maxHeaderBytes) bytes"
                : "its body is longer than \(wire.maxBody) bytes"))
        }
        guard code == Int32(HABITTO_HTTP_OK) else {
            return .reply(HTTPClient.failure(code: code, message: HTTPClient.message(result), timeout: timeout))
        }
        guard wire.wantsListing && status == 207 else {
            return .response(status: status, headers: sink.headers, body: sink.listing == nil ? sink.bytes : [], listing: .none)
        }
        return .response(status: status, headers: sink.headers, body: [], listing: sink.listing?.finish() ?? .malformed)
    }

    static func message(_ result: habitto_http_result) -> String {
        var r = result
        return withUnsafeBytes(of: &r.message) { raw in
            let bytes = raw.prefix(while: { $0 != 0 })
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// What kind of failure libcurl's result `code` is (the engine classifies it), in words.
    static func failure(code: Int32, message: String, timeout: Double) -> WireReply {
        switch Int(code) {
        case Int(HABITTO_HTTP_OPERATION_TIMEDOUT):
            let seconds = timeout == timeout.rounded() ? "\(Int(timeout))" : "\(timeout)"
            return .failure(.unreachable, detail: "no complete answer within the request's time limit (\(seconds) s)")
        case Int(HABITTO_HTTP_SSL_CONNECT_ERROR), Int(HABITTO_HTTP_SSL_CERTPROBLEM), Int(HABITTO_HTTP_SSL_CIPHER),
             Int(HABITTO_HTTP_PEER_FAILED_VERIFICATION), Int(HABITTO_HTTP_SSL_CACERT_BADFILE), Int(HABITTO_HTTP_SSL_ISSUER_ERROR),
             Int(HABITTO_HTTP_SSL_PINNEDPUBKEYNOTMATCH), Int(HABITTO_HTTP_SSL_INVALIDCERTSTATUS):
            return .failure(.certificate, detail: message)
        case Int(HABITTO_HTTP_UNSUPPORTED_PROTOCOL), Int(HABITTO_HTTP_URL_MALFORMAT):
            return .failure(.badURL, detail: message)
        case Int(HABITTO_HTTP_GOT_NOTHING), Int(HABITTO_HTTP_SEND_ERROR), Int(HABITTO_HTTP_RECV_ERROR):
            return .failure(.connectionLost, detail: message.isEmpty ? "the connection was lost" : message)
        default:
            return .failure(.unreachable, detail: message.isEmpty ? "the request failed (libcurl error \(code))" : message)
        }
    }
}

/// Collects one answer's header lines and body within their limits; libcurl calls it.
final class Sink {
    let maxBody: Int
    let wantsListing: Bool
    var headers: [(name: String, value: String)] = []
    var bytes: [UInt8] = []
    /// The listing being read, when one was asked for and the answer is a 207: its body is
    /// parsed as it arrives, not kept.
    var listing: MultistatusParser?
    var received = 0
    var status = 0
    var headerBytes = 0
    var tooLarge = false
    var headersTooLarge = false

    init(maxBody: Int, listing: Bool) {
        self.maxBody = maxBody
        wantsListing = listing
    }

    /// One header line; a status line starts a new set (after a `100 Continue`).
    func header(_ raw: UnsafePointer<CChar>?, _ length: Int) -> Int {
        headerBytes += length
        guard headerBytes <= HTTPClient.maxHeaderBytes else {
            tooLarge = true
            headersTooLarge = true
            return 0
        }
        guard let raw else { return length }
        let line = raw.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        if line.starts(with: Array("HTTP/".utf8)) {
            headers.removeAll()
            // "HTTP/1.1 207 Multi-Status": the number after the first space.
            let code = line.drop(while: { $0 != 0x20 }).dropFirst().prefix(while: { $0 >= 0x30 && $0 <= 0x39 })
            status = Int(String(decoding: code, as: UTF8.self)) ?? 0
            return length
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), headers.count < Wire.maxHeaders else { return length }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 || last == 0x0d || last == 0x0a { value = value.dropLast() }
        guard let text = String(validating: value, as: UTF8.self) else { return length }
        // Only what the protocol can carry; a header it cannot is of no use to the engine.
        guard name.utf8.count <= 64, !name.isEmpty, text.utf8.count <= Wire.maxText,
              name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }),
              text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f })
        else { return length }
        headers.append((name, text))
        return length
    }

    /// A piece of the body; past `maxBody` the transfer stops.
    func body(_ raw: UnsafePointer<CChar>?, _ length: Int) -> Int {
        guard received + length <= maxBody else {
            tooLarge = true
            return 0
        }
        received += length
        guard let raw, length > 0 else { return length }
        if wantsListing && status == 207 {
            if listing == nil { listing = MultistatusParser() }
            raw.withMemoryRebound(to: UInt8.self, capacity: length) { listing!.feed(UnsafeBufferPointer(start: $0, count: length)) }
            // Nothing more is of use once the listing failed or is too long.
            return listing!.wantsMore ? length : 0
        }
        if bytes.capacity < bytes.count + length {
            // Grow by doubling, never past the limit.
            bytes.reserveCapacity(min(maxBody, max(bytes.count * 2, bytes.count + length, 64 << 10)))
        }
        raw.withMemoryRebound(to: UInt8.self, capacity: length) { bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
        return length
    }
}
