import HabitCore

/// Reading JSON text (RFC 8259) into `JSON`, with the standard library alone: Foundation's
/// `JSONSerialization` would link all of swift-corelibs-foundation into `habitto`. Strict: one value, optionally after a UTF-8 byte order mark, with only
/// white space around it; strings of valid UTF-8 with no raw control characters and no
/// unpaired surrogate escapes; at most `maxDepth` nested arrays and objects (deeper input
/// is refused, not recursed into). A repeated key in an object keeps its last value.
/// Numbers: an integer that fits an `Int` is `.int`, any other number `.double` (refused
/// when it overflows one).
extension JSON {
    /// Where and why a text is not JSON. `offset` is the byte where the problem was found
    /// (counted from the start of the input, a byte order mark included).
    public struct ParseError: Error, Equatable, Sendable {
        public let offset: Int
        public let reason: String
        /// True when the input ended inside the value (cut short).
        public let atEnd: Bool
    }

    /// Nesting beyond this is refused (the formats read nest five deep at most; JSONSerialization stops at 512).
    public static let maxDepth = 100

    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSON {
        var p = JSONReader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3 }
        p.skipSpace()
        let value = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.fail("unexpected text after the JSON value") }
        return value
    }
}

private struct JSONReader {
    let bytes: [UInt8]
    var i = 0

    func fail(_ reason: String) -> JSON.ParseError {
        JSON.ParseError(offset: i, reason: i >= bytes.count ? "unexpected end of the text" : "\(reason) around character \(i)",
                        atEnd: i >= bytes.count)
    }

    /// After an element of an array or object: true past a ',' (another element follows),
    /// false past the closing bracket, else the error.
    mutating func moreElements(closing: Unicode.Scalar, in what: String) throws(JSON.ParseError) -> Bool {
        skipSpace()
        guard i < bytes.count else { throw fail("") }
        if bytes[i] == UInt8(ascii: ",") { i += 1; return true }
        guard bytes[i] == UInt8(ascii: closing) else { throw fail("expected ',' or '\(closing)' in \(what)") }
        i += 1
        return false
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func value(depth: Int) throws(JSON.ParseError) -> JSON {
        guard i < bytes.count else { throw fail("") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            guard depth < JSON.maxDepth else { throw fail("too many nested arrays and objects") }
            i += 1
            var object: [String: JSON] = [:]
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(object) }
            while true {
                skipSpace()
                guard i < bytes.count else { throw fail("") }
                guard bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try string()
                skipSpace()
                guard i < bytes.count else { throw fail("") }
                guard bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                i += 1
                skipSpace()
                object[key] = try value(depth: depth + 1)
                if try moreElements(closing: "}", in: "an object") { continue }
                return .object(object)
            }
        case UInt8(ascii: "["):
            guard depth < JSON.maxDepth else { throw fail("too many nested arrays and objects") }
            i += 1
            var array: [JSON] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(array) }
            while true {
                skipSpace()
                array.append(try value(depth: depth + 1))
                if try moreElements(closing: "]", in: "an array") { continue }
                return .array(array)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw fail("invalid value")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSON.ParseError) {
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for b in w {
            guard i < bytes.count else { throw fail("") }
            guard bytes[i] == b else { throw fail("invalid value") }
            i += 1
        }
    }

    mutating func number() throws(JSON.ParseError) -> JSON {
        let start = i
        var integral = true
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
        guard i < bytes.count else { throw fail("") }
        guard digit(i) else { throw fail("invalid number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if digit(i) { throw fail("invalid number (a leading zero)") }
        } else {
            while digit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            integral = false
            i += 1
            guard i < bytes.count else { throw fail("") }
            guard digit(i) else { throw fail("invalid number (no digit after '.')") }
            while digit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            integral = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count else { throw fail("") }
            guard digit(i) else { throw fail("invalid number (no digit in the exponent)") }
            while digit(i) { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if integral, let n = Int(text) { return .int(n) }
        guard let d = Double(text), d.isFinite else {
            let end = i
            i = start
            defer { i = end }
            throw fail("number out of range")
        }
        return .double(d)
    }

    /// A string starting at the opening quote; `i` ends after the closing one.
    mutating func string() throws(JSON.ParseError) -> String {
        i += 1
        var out = String.UnicodeScalarView()
        var runStart = i
        func flush(_ upTo: Int, into out: inout String.UnicodeScalarView) {
            if upTo > runStart { out.append(contentsOf: String(decoding: bytes[runStart..<upTo], as: UTF8.self).unicodeScalars) }
        }
        while true {
            guard i < bytes.count else { throw fail("") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                flush(i, into: &out)
                i += 1
                return String(out)
            }
            if b < 0x20 { throw fail("a control character in a string (write it as an escape)") }
            if b == UInt8(ascii: "\\") {
                flush(i, into: &out)
                i += 1
                guard i < bytes.count else { throw fail("") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append("\"")
                case UInt8(ascii: "\\"): out.append("\\")
                case UInt8(ascii: "/"): out.append("/")
                case UInt8(ascii: "b"): out.append("\u{08}")
                case UInt8(ascii: "f"): out.append("\u{0C}")
                case UInt8(ascii: "n"): out.append("\n")
                case UInt8(ascii: "r"): out.append("\r")
                case UInt8(ascii: "t"): out.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("an unpaired surrogate escape in a string")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("an unpaired surrogate escape in a string") }
                        out.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        throw fail("an unpaired surrogate escape in a string")
                    } else {
                        out.append(Unicode.Scalar(unit)!)
                    }
                default:
                    i -= 1
                    throw fail("an invalid escape in a string")
                }
                runStart = i
                continue
            }
            if b < 0x80 { i += 1; continue }
            // A multi-byte UTF-8 sequence, checked strictly (no overlong forms, no surrogates).
            let length: Int, low: UInt8, high: UInt8
            switch b {
            case 0xC2...0xDF: length = 2; low = 0x80; high = 0xBF
            case 0xE0: length = 3; low = 0xA0; high = 0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3; low = 0x80; high = 0xBF
            case 0xED: length = 3; low = 0x80; high = 0x9F
            case 0xF0: length = 4; low = 0x90; high = 0xBF
            case 0xF1...0xF3: length = 4; low = 0x80; high = 0xBF
            case 0xF4: length = 4; low = 0x80; high = 0x8F
            default: throw fail("text that is not UTF-8")
            }
            guard i + length <= bytes.count else { i = bytes.count; throw fail("") }
            guard (low...high).contains(bytes[i + 1]), bytes[(i + 2)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 }) else {
                throw fail("text that is not UTF-8")
            }
            i += length
        }
    }

    mutating func hex4() throws(JSON.ParseError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < bytes.count else { throw fail("") }
            let b = bytes[i]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw fail("an invalid \\u escape in a string")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }
}
