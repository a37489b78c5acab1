import FoundationEssentials
import Glibc
import HabitCore

/// A JSON value with one deterministic serialisation (keys sorted, fixed number format),
/// so the same value always gives the same bytes.
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    /// An amount in thousandths, written as an exact number: 2500 is `2.5`, 8000 is `8`.
    case amount(Int)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// The text of a string, else nil.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// An integer, else nil.
    public var intValue: Int? { if case .int(let i) = self { i } else { nil } }

    /// An optional value, or null.
    public static func optional(_ s: String?) -> JSON { s.map(JSON.string) ?? .null }
    public static func optional(_ i: Int?) -> JSON { i.map(JSON.int) ?? .null }
    public static func optional(_ d: Double?, places: Int = 6) -> JSON { d.map { .double(rounded($0, places)) } ?? .null }

    /// Rounds to `places` decimals (for stable, readable output).
    public static func rounded(_ d: Double, _ places: Int) -> Double {
        let f = pow(10.0, Double(places))
        return (d * f).rounded() / f
    }

    /// Pretty-printed text with two-space indentation and a final newline.
    public func serialized() -> String {
        var out = ""
        write(into: &out, indent: 0)
        out += "\n"
        return out
    }

    /// One line, with no spaces between items and a final newline (a JSON Lines record: what
    /// a status bar reads per update).
    public func line() -> String {
        var out = ""
        write(into: &out, indent: nil)
        out += "\n"
        return out
    }

    /// `indent` nil: all on one line.
    private func write(into out: inout String, indent: Int?) {
        let pad = indent.map { String(repeating: "  ", count: $0 + 1) } ?? "", close = indent.map { String(repeating: "  ", count: $0) } ?? ""
        let newline = indent == nil ? "" : "\n", next = indent.map { $0 + 1 }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .amount(let a): out += Amount.format(a)
        case .double(let d):
            if d.isFinite, d == d.rounded(), abs(d) < 1e15 { out += String(Int(d)) } else if d.isFinite { out += "\(d)" } else { out += "null" }
        case .string(let s): JSON.escape(s, into: &out)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            out += "[" + newline
            for (i, v) in a.enumerated() {
                out += pad
                v.write(into: &out, indent: next)
                out += (i + 1 < a.count ? "," : "") + newline
            }
            out += close + "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            out += "{" + newline
            let keys = o.keys.sorted()
            for (i, k) in keys.enumerated() {
                out += pad
                JSON.escape(k, into: &out)
                out += indent == nil ? ":" : ": "
                o[k]!.write(into: &out, indent: next)
                out += (i + 1 < keys.count ? "," : "") + newline
            }
            out += close + "}"
        }
    }

    static func escape(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
