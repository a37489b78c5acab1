import FoundationEssentials

/// Text in ASCII, for terminals whose locale is not UTF-8 and for `--ascii`: what the UI
/// draws there and what the command line prints, folded the same way.
public enum ASCIIFold {
    /// Pairs of what the UI's glyph sets draw, Unicode then ASCII.
    private static let glyphPairs: [(String, String)] = {
        let u = Glyphs.unicode, a = Glyphs.ascii
        let paths: [KeyPath<Glyphs, String>] = [\.done, \.partial, \.exceeded, \.skipped, \.selected, \.barFull,
                                                \.barEmpty, \.syncLocal, \.syncPending, \.syncSyncing, \.streak,
                                                \.atMost, \.times]
        return paths.map { (u[keyPath: $0], a[keyPath: $0]) }.filter { $0.0 != $0.1 }
    }()

    /// Punctuation of the messages, in ASCII.
    private static let punctuation: [(String, String)] = [
        (" · ", " | "), ("·", "."), ("…", "..."), ("—", "--"), ("–", "-"), ("→", "->"), ("←", "<-"),
        ("‘", "'"), ("’", "'"), ("“", "\""), ("”", "\""), ("≥", ">="), ("±", "+/-"), ("°", " deg"),
    ]

    /// `text` in ASCII: the glyphs as the ASCII glyph set draws them, punctuation spelt out,
    /// accents removed (`Café` → `Cafe`), and any other character (an emoji, a CJK name) as `?`.
    public static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var s = text
        // The sync glyph ✓ is the done glyph too; the done glyph's ASCII form wins.
        for (u, a) in glyphPairs + punctuation where s.contains(u) { s = s.replacingAll(u, with: a) }
        s = withoutAccents(s)
        var out = ""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count)
        for c in s {
            if c.isASCII { out.append(c) } else { out.append("?") }
        }
        return out
    }

    /// Accents and width removed, scalar by scalar, as Foundation's diacritic- and
    /// width-insensitive folding would (without linking Foundation): combining
    /// marks are dropped, a Latin letter "with" marks becomes its base letter (found from the
    /// scalar's Unicode name: `LATIN SMALL LETTER E WITH ACUTE` is `e`), a full-width ASCII
    /// form its ASCII character and the ideographic space a space. Anything else is kept.
    public static func withoutAccents(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if u.isASCII { out.append(u); continue }
            switch u.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: continue
            default: break
            }
            if (0xFF01...0xFF5E).contains(u.value), let a = Unicode.Scalar(u.value - 0xFEE0) { out.append(a); continue }
            if u.value == 0x3000 { out.append(" "); continue }
            if let name = u.properties.name, let base = latinBase(name) { out.append(base); continue }
            out.append(u)
        }
        return String(out)
    }

    /// The base letter of a Latin letter with marks, from its Unicode name.
    private static func latinBase(_ name: String) -> Unicode.Scalar? {
        let capital = "LATIN CAPITAL LETTER ", small = "LATIN SMALL LETTER "
        let isCapital = name.hasPrefix(capital)
        guard isCapital || name.hasPrefix(small) else { return nil }
        let rest = name.utf8.dropFirst(isCapital ? capital.utf8.count : small.utf8.count)
        guard rest.count > 6, let letter = rest.first, letter >= 0x41, letter <= 0x5A,
              rest.dropFirst().starts(with: " WITH ".utf8) else { return nil }
        return Unicode.Scalar(isCapital ? letter : letter + 0x20)
    }
}
