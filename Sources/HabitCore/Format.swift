import Glibc

/// The few `printf` formats the program prints with, without Foundation's
/// `String(format:)` (which links all of swift-corelibs-foundation).
public enum Format {
    /// `v` with `places` decimals, as `%.Nf` writes it (the C library's own rounding of
    /// the exact binary value, so `0.25` to one place is `0.2`).
    public static func fixed(_ v: Double, places: Int) -> String {
        guard v.isFinite else { return v.isNaN ? "nan" : v < 0 ? "-inf" : "inf" }
        let places = max(0, min(places, 20))
        var buffer = [CChar](repeating: 0, count: 400)
        let n = withVaList([v]) { vsnprintf(&buffer, buffer.count, "%.\(places)f", $0) }
        guard n > 0, Int(n) < buffer.count else { return String(v) }
        return String(decoding: buffer[0..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `text` right-aligned in `width` characters (`%4d` for a number's text); longer text
    /// is kept whole.
    public static func right(_ text: String, _ width: Int, pad: Character = " ") -> String {
        String(repeating: pad, count: max(0, width - text.count)) + text
    }

    /// `text` left-aligned in `width` characters (`%-4s`); longer text is kept whole.
    public static func left(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
