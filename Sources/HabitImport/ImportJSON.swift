import FoundationEssentials
import HabitCore
import HabitStore

/// Shared JSON helpers for the readers that walk a parsed document as `Any` values:
/// parsing (with `JSON.parse`) with an error that names the line, telling JSON types apart
/// and writing key paths and values for messages. An object is `[String: Any]`, an array
/// `[Any]`, a string `String`, a boolean `Bool`, a number `Number` and null `Null`.
enum ImportJSON {
    /// A JSON number: its value, and as a whole number when it is one that fits an `Int`
    /// (`8` and `8.0`, not `7.5`).
    struct Number {
        let double: Double
        let int: Int?
    }

    /// JSON null.
    struct Null {}

    /// Parses a whole document (any top-level value). A syntax error becomes an
    /// `ImportError` naming the file and the line.
    static func parse(_ bytes: [UInt8], path: String, redo: String) throws -> Any {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw ImportError("\(path): is empty; \(redo)")
        }
        do {
            return value(try JSON.parse(bytes))
        } catch {
            if error.atEnd {
                throw ImportError("\(path): line \(line(of: bytes.count, in: bytes)): not valid JSON: the file ends before the document is complete, so it was probably cut short; \(redo)")
            }
            throw ImportError("\(path): line \(line(of: error.offset, in: bytes)): not valid JSON (\(error.reason)); fix the file there or \(redo)")
        }
    }

    /// The `Any` tree of a parsed value.
    static func value(_ json: JSON) -> Any {
        switch json {
        case .null: return Null()
        case .bool(let b): return b
        case .int(let i): return Number(double: Double(i), int: i)
        case .double(let d):
            let whole = d == d.rounded() && abs(d) < 9.2e18 ? Int(d) : nil
            return Number(double: d, int: whole)
        case .amount(let a): return Number(double: Double(a) / Double(Amount.scale), int: a % Amount.scale == 0 ? a / Amount.scale : nil)
        case .string(let s): return s
        case .array(let a): return a.map(value)
        case .object(let o): return o.mapValues(value)
        }
    }

    /// The 1-based line holding byte `index`.
    static func line(of index: Int, in bytes: [UInt8]) -> Int {
        let end = max(0, min(index, bytes.count))
        return 1 + bytes[..<end].reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    /// True for JSON `true` and `false`.
    static func isBool(_ v: Any) -> Bool { v is Bool }

    /// True for any JSON number (not a boolean).
    static func isNumber(_ v: Any) -> Bool { v is Number }

    /// A JSON number that is a whole number fitting an `Int` (`8` and `8.0`, not `7.5`).
    static func int(_ v: Any) -> Int? { (v as? Number)?.int }

    /// A JSON number with at most three decimals, in thousandths (see `Amount`): `2.5` is
    /// 2500. Nil for anything else (more decimals, beyond ±10¹², not a number).
    static func amount(_ v: Any) -> Int? {
        guard let number = v as? Number else { return nil }
        if let n = number.int { return n.magnitude < 1_000_000_000_000 ? n * Amount.scale : nil }
        let d = number.double
        guard d.isFinite, abs(d) < 1e12 else { return nil }
        let thousandths = d * Double(Amount.scale), rounded = thousandths.rounded()
        guard abs(thousandths - rounded) <= 1e-6 * max(1, abs(thousandths)) else { return nil }
        return Int(rounded)
    }

    /// A JSON boolean.
    static func bool(_ v: Any) -> Bool? { v as? Bool }

    /// True for JSON null.
    static func isNull(_ v: Any) -> Bool { v is Null }

    /// What a value is, for "expected …, found …" messages.
    static func describe(_ v: Any) -> String {
        if v is Null { return "null" }
        if let b = v as? Bool { return b ? "true" : "false" }
        if let n = v as? Number {
            if let i = n.int { return "the number \(i)" }
            return "the number \(n.double)"
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
        let escaped = Sanitize.display(shown).replacingAll("\\", with: "\\\\")
            .replacingAll("\"", with: "\\\"")
        return "\"\(escaped)\""
    }
}
