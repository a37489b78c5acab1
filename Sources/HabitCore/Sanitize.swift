import FoundationEssentials

/// Makes text safe to print on a terminal.
public enum Sanitize {
    /// Control characters (C0, DEL, C1), line and paragraph separators, and bidirectional
    /// overrides, which could move the cursor, change colours or reorder what is shown.
    public static func isForbidden(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
    /// Scalars that show nothing, or only blank space, on their own: every format character
    /// (Unicode category Cf: zero-width space, joiners, direction marks U+200E/U+200F/U+061C,
    /// word joiner and invisible operators U+2060–U+2064, U+180E, U+FEFF, tag characters),
    /// the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the blank braille pattern
    /// (U+2800), the combining grapheme joiner (U+034F), the Khmer inherent vowels (U+17B4,
    /// U+17B5) and the variation selectors.
    public static func isInvisible(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B...0x180F, 0x2800, 0x3164, 0xFFA0,
             0xFE00...0xFE0F, 0xE0100...0xE01EF: return true
        default: return u.properties.generalCategory == .format
        }
    }

    /// The first invisible scalar (`isInvisible`) that a label may not hold, or nil. Three
    /// uses of invisible scalars are part of visible text and are kept: a variation selector
    /// right after a visible character (❤️), a zero-width joiner or non-joiner between two
    /// visible characters (👨‍👩‍👧, Persian and Indic words), and the tag characters of an
    /// emoji flag (🏴 followed by tags U+E0020–U+E007E and the cancel tag U+E007F).
    public static func invisibleScalar(in s: String) -> Unicode.Scalar? {
        let u = Array(s.unicodeScalars)
        return invisibleIndex(in: u).map { u[$0] }
    }

    /// The text without the invisible scalars a label may not hold (for importers, which
    /// repair what another tracker allowed).
    public static func removingInvisible(_ s: String) -> String {
        var u = Array(s.unicodeScalars)
        while let i = invisibleIndex(in: u) { u.remove(at: i) }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: u)
        return String(out)
    }

    private static func invisibleIndex(in u: [Unicode.Scalar]) -> Int? {
        func isVariationSelector(_ v: UInt32) -> Bool {
            (0xFE00...0xFE0F).contains(v) || (0xE0100...0xE01EF).contains(v) || (0x180B...0x180D).contains(v) || v == 0x180F
        }
        func isTag(_ i: Int) -> Bool { u.indices.contains(i) && (0xE0020...0xE007E).contains(u[i].value) }
        func visible(_ i: Int) -> Bool {
            u.indices.contains(i) && !isInvisible(u[i]) && !isForbidden(u[i]) && !u[i].properties.isWhitespace
        }
        var i = 0
        while i < u.count {
            let v = u[i].value
            if v == 0x1F3F4, isTag(i + 1) {
                // An emoji tag sequence: tags, then the cancel tag that ends it.
                var j = i + 1
                while isTag(j) { j += 1 }
                guard j < u.count, u[j].value == 0xE007F else { return j - 1 }
                i = j + 1
                continue
            }
            if isInvisible(u[i]) {
                if isVariationSelector(v), visible(i - 1) { i += 1; continue }
                if v == 0x200C || v == 0x200D {
                    var before = i - 1
                    while before >= 0, isVariationSelector(u[before].value) { before -= 1 }
                    if visible(before), visible(i + 1) { i += 1; continue }
                }
                return i
            }
            i += 1
        }
        return nil
    }

    /// A value from outside (typed, read from a file or a remote, a path) as a message shows
    /// it: in single quotes, with every forbidden scalar replaced (`display`).
    public static func quoted(_ s: String) -> String { "'" + display(s) + "'" }

    /// The text with every forbidden scalar replaced by U+FFFD.
    public static func display(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isForbidden) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars { out.append(isForbidden(u) ? "\u{FFFD}" : u) }
        return String(out)
    }
}
