/// Terminal column widths, computed without a locale: wide East Asian characters and
/// emoji take two columns, combining marks none, everything else one.
public enum TextWidth {
    /// The columns `s` takes on a terminal.
    public static func of(_ s: String) -> Int { s.reduce(0) { $0 + of($1) } }

    /// The columns one character (grapheme cluster) takes.
    public static func of(_ c: Character) -> Int {
        guard let first = c.unicodeScalars.first else { return 0 }
        if c.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return first.properties.generalCategory == .nonspacingMark ? 0 : 1
        }
    }

    /// `s` cut to at most `width` columns (with `…` when cut) and padded with spaces.
    public static func fit(_ s: String, _ width: Int) -> String {
        var out = "", used = 0
        let total = of(s)
        for ch in s {
            let w = of(ch)
            if total > width && used + w > width - 1 { out += "…"; used += 1; break }
            if used + w > width { break }
            out.append(ch); used += w
        }
        return out + String(repeating: " ", count: max(0, width - used))
    }
}
