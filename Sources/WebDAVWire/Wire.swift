/// The framed protocol between the sync engine (in `habitto`) and `habitto-webdav`, the
/// helper process that holds the HTTP client (libcurl), so that the
/// `habitto` binary does not link it. Pure Swift, no Foundation: both sides share it, and
/// the fuzz tests feed it random bytes.
///
/// A frame is a 4-byte big-endian length, then that many bytes of payload. The engine
/// sends one `WireRequest` and reads one `WireReply`, in turn. Every frame from the other
/// side is untrusted: `FrameDecoder` refuses a length above `Wire.maxFrame`, and the
/// payload decoders check every length, count, tag and text and throw `WireError` (the one
/// place that refuses), never trap.
public enum Wire {
    /// The largest payload either side accepts (a batch, or a listing, is well below).
    public static let maxFrame = 48 << 20
    /// Most headers in one request or reply.
    public static let maxHeaders = 256
    /// Most entries in one listing.
    public static let maxEntries = 100_000
    /// The largest answer body a request may ask the helper to keep (`WireRequest.maxBody`):
    /// a batch or a listing is at most 16 MiB.
    public static let maxBody = 16 << 20
    /// Longest method, URL, header name or value, href, or failure detail, in bytes.
    public static let maxText = 16 << 10

    /// `payload` as a frame: its length, then itself.
    public static func frame(_ payload: [UInt8]) -> [UInt8] { prefix(payload.count) + payload }

    /// The four bytes that start a frame of `count` bytes.
    public static func prefix(_ count: Int) -> [UInt8] {
        let n = UInt32(truncatingIfNeeded: count)
        return [UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
    }
}

/// Why bytes from the other side were refused (one line).
public struct WireError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What was wrong, in one line.
    public let message: String
    /// A refusal saying `message`.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Cuts a byte stream into payloads: feed it what was read, take the complete payloads.
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// An empty stream.
    public init() {}

    /// Bytes received and not yet part of a complete payload.
    public var pending: Int { buffer.count - start }

    /// Appends `bytes` and returns every payload now complete, in order. Throws when a
    /// frame announces more than `Wire.maxFrame` bytes (the stream is then unusable).
    public mutating func feed(_ bytes: [UInt8]) throws -> [[UInt8]] {
        buffer.append(contentsOf: bytes)
        var out: [[UInt8]] = []
        while buffer.count - start >= 4 {
            let n = Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            guard n <= Wire.maxFrame else { throw WireError("a frame of \(n) bytes is larger than \(Wire.maxFrame)") }
            guard buffer.count - start - 4 >= n else { break }
            out.append(Array(buffer[(start + 4)..<(start + 4 + n)]))
            start += 4 + n
        }
        if start > 0 && (start == buffer.count || start > 1 << 16) {
            buffer.removeFirst(start)
            start = 0
        }
        return out
    }
}

/// Writes payload fields: integers big-endian, texts and byte strings with a 4-byte length.
public struct WireWriter: Sendable {
    /// What was written so far.
    public private(set) var bytes: [UInt8] = []
    /// An empty payload.
    public init() {}
    /// One byte.
    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    /// Two bytes, big-endian.
    public mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xff)) }
    /// Four bytes, big-endian.
    public mutating func u32(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((v >> UInt32(shift)) & 0xff)) }
    }
    /// A byte string: its length (four bytes), then its bytes.
    public mutating func data(_ v: [UInt8]) { u32(UInt32(v.count)); bytes.append(contentsOf: v) }
    /// A text as its UTF-8 byte string.
    public mutating func text(_ v: String) { data(Array(v.utf8)) }
}

/// Reads payload fields, checking each against what is left and its limit.
public struct WireReader: Sendable {
    private let bytes: [UInt8]
    private var at = 0
    /// Reads `bytes` from the start.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    /// Whether every byte was read.
    public var isAtEnd: Bool { at == bytes.count }

    /// One byte; throws at the end of the payload.
    public mutating func u8() throws -> UInt8 {
        guard at < bytes.count else { throw WireError("the frame ends early") }
        defer { at += 1 }
        return bytes[at]
    }
    /// Two bytes, big-endian.
    public mutating func u16() throws -> UInt16 { UInt16(try u8()) << 8 | UInt16(try u8()) }
    /// Four bytes, big-endian.
    public mutating func u32() throws -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 { v = v << 8 | UInt32(try u8()) }
        return v
    }
    /// A byte that must be 0 or 1; `what` names it in the error.
    public mutating func flag(_ what: String) throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let b: throw WireError("\(what): \(b) is not 0 or 1")
        }
    }
    /// A byte string of at most `max` bytes that the payload holds in full.
    public mutating func data(max: Int, _ what: String) throws -> [UInt8] {
        let n = Int(try u32())
        guard n <= max else { throw WireError("\(what): \(n) bytes, more than \(max)") }
        guard n <= bytes.count - at else { throw WireError("\(what): \(n) bytes announced, \(bytes.count - at) left") }
        defer { at += n }
        return Array(bytes[at..<(at + n)])
    }
    /// A byte string that must be valid UTF-8.
    public mutating func text(_ what: String, max: Int = Wire.maxText) throws -> String {
        let raw = try data(max: max, what)
        guard let s = String(validating: raw, as: UTF8.self) else { throw WireError("\(what) is not UTF-8") }
        return s
    }
    /// Ends a payload: bytes after its last field are refused.
    public func end() throws {
        guard isAtEnd else { throw WireError("\(bytes.count - at) bytes after the end of the frame") }
    }
}

/// A header name or method: 1–64 visible ASCII characters other than `:`.
func isToken(_ s: String) -> Bool {
    !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }
}

/// A header value: no control characters (so no CR or LF to split a header).
func isHeaderValue(_ s: String) -> Bool {
    s.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f }
}

func readHeaders(_ r: inout WireReader) throws -> [(name: String, value: String)] {
    let count = Int(try r.u16())
    guard count <= Wire.maxHeaders else { throw WireError("\(count) headers, more than \(Wire.maxHeaders)") }
    var out: [(name: String, value: String)] = []
    for _ in 0..<count {
        let name = try r.text("a header name"), value = try r.text("a header value")
        guard isToken(name) else { throw WireError("a header name is not a token") }
        guard isHeaderValue(value) else { throw WireError("the value of header \(name) holds control characters") }
        out.append((name, value))
    }
    return out
}

func writeHeaders(_ headers: [(name: String, value: String)], to w: inout WireWriter) {
    w.u16(UInt16(headers.count))
    for h in headers { w.text(h.name); w.text(h.value) }
}

/// One HTTP request for the helper to make.
public struct WireRequest: Equatable, Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Whether a 207 answer is to be parsed as a WebDAV multistatus (`WireReply.listing`).
    public var wantsListing: Bool
    /// The longest answer body the helper keeps (at most `Wire.maxBody`); a longer one ends
    /// the request as `answerTooLarge` (a listing: `WireListing.tooLarge`) while it streams.
    public var maxBody: Int

    /// A request; `body` nil sends none.
    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, wantsListing: Bool = false,
                maxBody: Int = 64 << 10) {
        self.method = method; self.url = url; self.headers = headers; self.body = body; self.wantsListing = wantsListing
        self.maxBody = min(max(maxBody, 0), Wire.maxBody)
    }

    public static func == (a: WireRequest, b: WireRequest) -> Bool {
        a.method == b.method && a.url == b.url && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
            && a.body == b.body && a.wantsListing == b.wantsListing && a.maxBody == b.maxBody
    }

    /// The request as a payload (tag 1).
    public func encoded() -> [UInt8] {
        var w = WireWriter()
        w.u8(1)
        w.text(method)
        w.text(url)
        writeHeaders(headers, to: &w)
        w.u8(body == nil ? 0 : 1)
        if let body { w.data(body) }
        w.u8(wantsListing ? 1 : 0)
        w.u32(UInt32(maxBody))
        return w.bytes
    }

    /// Decodes a payload, checking the method, the URL and every header; throws `WireError`.
    public init(decoding payload: [UInt8]) throws {
        var r = WireReader(payload)
        guard try r.u8() == 1 else { throw WireError("not a request") }
        method = try r.text("the method", max: 64)
        guard isToken(method), method.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw WireError("the method is not upper-case letters")
        }
        url = try r.text("the URL")
        guard url.hasPrefix("https://") || url.hasPrefix("http://"), isHeaderValue(url), !url.contains(" ") else {
            throw WireError("the URL is not an http(s) URL")
        }
        headers = try readHeaders(&r)
        body = try r.flag("the body flag") ? try r.data(max: Wire.maxFrame, "the body") : nil
        wantsListing = try r.flag("the listing flag")
        maxBody = Int(try r.u32())
        guard maxBody <= Wire.maxBody else { throw WireError("a body limit of \(maxBody) bytes is more than \(Wire.maxBody)") }
        try r.end()
    }
}

/// One member of a WebDAV multistatus answer, as the server named it.
public struct WireEntry: Equatable, Sendable {
    public var href: String
    public var isCollection: Bool
    /// An entry as the server named it.
    public init(href: String, isCollection: Bool) { self.href = href; self.isCollection = isCollection }
}

/// What became of a request asked to list (`WireRequest.wantsListing`).
public enum WireListing: Equatable, Sendable {
    /// Not asked, or the answer was not a 207.
    case none
    case entries([WireEntry])
    /// The answer was not well-formed XML.
    case malformed
    /// The answer was longer than the request's `maxBody`, or listed more than
    /// `Wire.maxEntries` members.
    case tooLarge
}

/// Why a request got no HTTP answer, as facts; the sync engine turns them into its
/// error classes (`RemoteError`).
public enum WireFailureCode: UInt8, Equatable, Sendable, CaseIterable {
    /// The server's certificate was not trusted, or TLS failed.
    case certificate = 1
    /// The URL could not be used.
    case badURL = 2
    /// The server challenged the credentials sent (detail: its `WWW-Authenticate`).
    case challenged = 3
    /// The connection closed while the request was in flight.
    case connectionLost = 4
    /// Anything else (timeouts, refused connections, names that do not resolve).
    case unreachable = 5
    /// The answer was longer than the request's `maxBody` (or than a frame may be).
    case answerTooLarge = 6
    /// The helper could not read the request (a bug or a version mismatch).
    case badRequest = 7
}

/// The helper's answer to one request.
public enum WireReply: Equatable, Sendable {
    case response(status: Int, headers: [(name: String, value: String)], body: [UInt8], listing: WireListing)
    case failure(WireFailureCode, detail: String)

    public static func == (a: WireReply, b: WireReply) -> Bool {
        switch (a, b) {
        case let (.response(s1, h1, b1, l1), .response(s2, h2, b2, l2)):
            return s1 == s2 && h1.elementsEqual(h2, by: { $0 == $1 }) && b1 == b2 && l1 == l2
        case let (.failure(c1, d1), .failure(c2, d2)): return c1 == c2 && d1 == d2
        default: return false
        }
    }

    /// The bytes of an answer's payload before and after its body (the body's length is
    /// the last field of `head`): `head + body + tail` is `encoded()`, so that a large body
    /// is written out without being copied.
    public static func responseParts(status: Int, headers: [(name: String, value: String)], bodyCount: Int,
                                     listing: WireListing) -> (head: [UInt8], tail: [UInt8]) {
        var w = WireWriter()
        w.u8(1)
        w.u16(UInt16(clamping: status))
        writeHeaders(headers, to: &w)
        w.u32(UInt32(bodyCount))
        var t = WireWriter()
        switch listing {
        case .none: t.u8(0)
        case .entries(let entries):
            t.u8(1)
            t.u32(UInt32(entries.count))
            for e in entries { t.text(e.href); t.u8(e.isCollection ? 1 : 0) }
        case .malformed: t.u8(2)
        case .tooLarge: t.u8(3)
        }
        return (w.bytes, t.bytes)
    }

    /// The reply as a payload (tag 1, an answer; tag 2, a failure).
    public func encoded() -> [UInt8] {
        var w = WireWriter()
        switch self {
        case let .response(status, headers, body, listing):
            let (head, tail) = WireReply.responseParts(status: status, headers: headers, bodyCount: body.count, listing: listing)
            return head + body + tail
        case let .failure(code, detail):
            w.u8(2)
            w.u8(code.rawValue)
            w.text(detail)
        }
        return w.bytes
    }

    /// Decodes a payload from the helper, which is not trusted: the status must be an HTTP
    /// status, every count within its limit, every text UTF-8; throws `WireError`.
    public init(decoding payload: [UInt8]) throws {
        var r = WireReader(payload)
        switch try r.u8() {
        case 1:
            let status = Int(try r.u16())
            guard (100...599).contains(status) else { throw WireError("status \(status) is not an HTTP status") }
            let headers = try readHeaders(&r)
            let body = try r.data(max: Wire.maxFrame, "the body")
            let listing: WireListing
            switch try r.u8() {
            case 0: listing = .none
            case 1:
                let count = Int(try r.u32())
                guard count <= Wire.maxEntries else { throw WireError("\(count) entries, more than \(Wire.maxEntries)") }
                var entries: [WireEntry] = []
                for _ in 0..<count {
                    let href = try r.text("an href")
                    entries.append(WireEntry(href: href, isCollection: try r.flag("the collection flag")))
                }
                listing = .entries(entries)
            case 2: listing = .malformed
            case 3: listing = .tooLarge
            case let t: throw WireError("listing tag \(t) is unknown")
            }
            self = .response(status: status, headers: headers, body: body, listing: listing)
        case 2:
            let raw = try r.u8()
            guard let code = WireFailureCode(rawValue: raw) else { throw WireError("failure code \(raw) is unknown") }
            self = .failure(code, detail: try r.text("the failure detail"))
        case let t:
            throw WireError("reply tag \(t) is unknown")
        }
        try r.end()
    }
}
