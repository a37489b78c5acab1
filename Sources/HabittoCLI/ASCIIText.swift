#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HabitTUI

/// ASCII output for the command line, as the UI has its ASCII glyphs: with `--ascii`, or when
/// the locale is not UTF-8.
enum ASCIIText {
    /// `--ascii` among the arguments (before a `--`), or a locale that is not UTF-8: the first
    /// of `LC_ALL`, `LC_CTYPE`, `LANG` that is set and not empty names `C`, `POSIX`, or a
    /// locale whose codeset is not UTF-8 (`en_US.ISO-8859-1`, or `en_US`, whose codeset is
    /// Latin-1). With none of them set, UTF-8 is assumed.
    static func wanted(arguments: [String]) -> Bool {
        if arguments.prefix(while: { $0 != "--" }).contains("--ascii") { return true }
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            guard let p = getenv(name) else { continue }
            let value = String(cString: p)
            if value.isEmpty { continue }
            return !isUTF8(locale: value)
        }
        return false
    }

    /// Whether a locale name (`en_GB.UTF-8`, `C.utf8`, `de_DE.ISO-8859-1@euro`) has the UTF-8 codeset.
    static func isUTF8(locale: String) -> Bool {
        let name = locale[..<(locale.firstIndex(of: "@") ?? locale.endIndex)]
        guard let dot = name.firstIndex(of: ".") else { return false }
        // Standard library only: Foundation's string bridging here cost every command
        // (--version included) the runtime's first scan of all protocol conformances.
        let codeset = name[name.index(after: dot)...].lowercased().filter { $0 != "-" }
        return codeset == "utf8"
    }

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
    static func fold(_ text: String) -> String {
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
    static func withoutAccents(_ text: String) -> String {
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
