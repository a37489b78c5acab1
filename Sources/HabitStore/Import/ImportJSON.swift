import Foundation
import HabitCore

/// Shared JSON helpers for the readers that parse JSON with `JSONSerialization`: parsing
/// with an error that names the line, telling JSON types apart (a boolean is an `NSNumber`
/// too) and writing key paths and values for messages.
enum ImportJSON {
    /// Parses a whole document (any top-level value). A syntax error becomes an
    /// `ImportError` naming the file and, when the parser says where, the line.
    static func parse(_ bytes: [UInt8], path: String, redo: String) throws -> Any {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw ImportError("\(path): is empty; \(redo)")
        }
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? ""
            if detail.hasPrefix("Unexpected end of file") {
                throw ImportError("\(path): line \(line(of: bytes.count, in: bytes)): not valid JSON: the file ends before the document is complete, so it was probably cut short; \(redo)")
            }
            if let index = characterIndex(in: detail) {
                // The parser counts bytes after a UTF-8 byte order mark.
                let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
                let reason = detail.hasSuffix(".") ? String(detail.dropLast()) : detail
                throw ImportError("\(path): line \(line(of: index + bom, in: bytes)): not valid JSON (\(reason.lowercasedFirst)); fix the file there or \(redo)")
            }
            throw ImportError("\(path): not valid JSON; \(redo)")
        }
    }

    /// The number after "character " in a `JSONSerialization` error description.
    static func characterIndex(in detail: String) -> Int? {
        guard let r = detail.range(of: "character ") else { return nil }
        let digits = detail[r.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }

    /// The 1-based line holding byte `index`.
    static func line(of index: Int, in bytes: [UInt8]) -> Int {
        let end = max(0, min(index, bytes.count))
        return 1 + bytes[..<end].reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    /// True for JSON `true` and `false` (which `JSONSerialization` returns as `NSNumber`).
    static func isBool(_ v: Any) -> Bool {
        guard let n = v as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    /// True for any JSON number (not a boolean).
    static func isNumber(_ v: Any) -> Bool { v is NSNumber && !isBool(v) }

    /// A JSON number that is a whole number fitting an `Int` (`8` and `8.0`, not `7.5`).
    static func int(_ v: Any) -> Int? {
        guard isNumber(v) else { return nil }
        return v as? Int
    }

    /// A JSON number with at most three decimals, in thousandths (see `Amount`): `2.5` is
    /// 2500. Nil for anything else (more decimals, beyond ±10¹², not a number).
    static func amount(_ v: Any) -> Int? {
        guard isNumber(v) else { return nil }
        if let n = v as? Int { return n.magnitude < 1_000_000_000_000 ? n * Amount.scale : nil }
        guard let d = (v as? NSNumber)?.doubleValue, d.isFinite, abs(d) < 1e12 else { return nil }
        let thousandths = d * Double(Amount.scale), rounded = thousandths.rounded()
        guard abs(thousandths - rounded) <= 1e-6 * max(1, abs(thousandths)) else { return nil }
        return Int(rounded)
    }

    /// A JSON boolean.
    static func bool(_ v: Any) -> Bool? {
        guard isBool(v), let n = v as? NSNumber else { return nil }
        return n.boolValue
    }

    /// True for JSON null.
    static func isNull(_ v: Any) -> Bool { v is NSNull }

    /// What a value is, for "expected …, found …" messages.
    static func describe(_ v: Any) -> String {
        if v is NSNull { return "null" }
        if isBool(v) { return (v as? NSNumber)?.boolValue == true ? "true" : "false" }
        if let n = v as? NSNumber {
            if let i = int(v) { return "the number \(i)" }
            return "the number \(n.doubleValue)"
        }
        if v is String { return "a string" }
        if v is [Any] { return "an array" }
        if v is [String: Any] { return "an object" }
        return "a value of an unknown type"
    }

    /// A dictionary key as written in a key path: `["2025-09-30"]`.
    static func subscriptKey(_ key: String) -> String { "[\(quoted(key))]" }

    /// Text in double quotes, safe to print: control characters shown as U+FFFD, and
    /// quotes and backslashes escaped.
    static func quoted(_ s: String) -> String {
        let shown = s.count > 80 ? String(s.prefix(80)) + "…" : s
        let escaped = Sanitize.display(shown).replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(escaped)\""
    }
}

extension String {
    /// The text with its first character lower-cased ("Invalid value" → "invalid value").
    fileprivate var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
