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

    /// `text` in ASCII, as the UI draws it on such a terminal (see `ASCIIFold.fold`).
    static func fold(_ text: String) -> String { ASCIIFold.fold(text) }
}
