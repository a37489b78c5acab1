// Theme files
// ===========
//
// A theme file is UTF-8 text, one setting a line, and is a partial patch over a base theme
// (the built-in default): a role the file names gets exactly the style written for it,
// and every other role keeps the base style.
//
//     # A comment. Blank lines are ignored, and so is text after " # " on a line.
//     name = Gruvbox Dark          # optional: the name shown to people
//     header = bright-white bold
//     selection = black on yellow bold
//     xp-bar = #d3869b
//     heat4 = color106 bold
//
// - A role is a `Role` raw value written in kebab-case or camelCase: `xp-bar` or `xpBar`,
//   `status-error`, `sync-pending`, `heat0`. Case does not matter.
// - A style is `[FG] [on BG] [bold] [underline] [reverse] [dim] [habit-color]`. A missing
//   colour is the terminal's own; `default` says so explicitly (`partial = default`).
//   `habit-color`: in the cells of a habit that has a colour (the today screen's name, the
//   heat map's and the week grid's cells), that colour is the foreground; a role without
//   it keeps its own colour there.
// - A colour is `default`; one of the ANSI names `black red green yellow blue magenta cyan
//   white`, `bright-red` … `bright-white`, `gray` or `grey` (= bright-black); `#RRGGBB`;
//   or `color0` … `color255` (0–15 are the ANSI colours, 16–255 the xterm-256 colours).
// - Without colour (`NO_COLOR`, or a terminal with none) only the attributes are drawn, so
//   give `selection` at least one of bold, underline or reverse.
// - A later line for the same role replaces an earlier one.
//
// Problems never stop the program: a line with an unknown role, a bad colour, an unknown
// attribute or a shape that is not `role = style` is ignored, with one message naming the
// file and line, and the role keeps its base style.

import HabitCore

public extension Theme {
    /// Reads theme-file text (format at the top of ThemeFile.swift) as a patch over `base`.
    /// Returns the patched theme, named `name`, and one message per ignored line, each of the
    /// form `FILE line N: what is wrong, using the default for it`. Never fails.
    static func parse(_ text: String, name: String, file: String, over base: Theme) -> (Theme, [String]) {
        var theme = base
        theme.name = name
        theme.displayName = name
        var problems: [String] = []
        var lineNumber = 0
        let body = text.first == "\u{FEFF}" ? text.dropFirst() : Substring(text)
        for rawLine in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = ThemeSyntax.trimmed(ThemeSyntax.strippingComment(rawLine))
            if line.isEmpty { continue }
            switch ThemeSyntax.setting(line) {
            case .failure(let problem):
                let text = "\(file) line \(lineNumber): \(problem.message), using the default for it"
                problems.append(Sanitize.display(text))
            case .success(.displayName(let pretty)):
                theme.displayName = Sanitize.display(pretty)
            case .success(.style(let role, let style)):
                theme.styles[role] = style
            }
        }
        return (theme, problems)
    }
}

public extension Role {
    /// The role as theme files write it: kebab-case (`xp-bar`, `status-error`, `heat0`).
    var kebabName: String {
        var out = ""
        for ch in rawValue {
            if ch.isUppercase { out += "-" + ch.lowercased() } else { out.append(ch) }
        }
        return out
    }
}

/// What went wrong on one line of a theme file.
enum ThemeProblem: Error, Equatable {
    case malformed(String)
    case unknownRole(String)
    case badColour(String)
    case unknownAttribute(String)

    var message: String {
        switch self {
        case .malformed(let why):
            return why
        case .unknownRole(let word):
            let hint = ThemeSyntax.closestRole(to: word).map { "did you mean '\($0.kebabName)'? " } ?? ""
            return "unknown role '\(ThemeSyntax.quoted(word))' (\(hint)roles include header, selection, done, "
                + "missed, xp-bar, sync-pending, status-error, heat0; Themes/default.theme lists them all)"
        case .badColour(let word):
            return "'\(ThemeSyntax.quoted(word))' is not a colour (use default, a name such as red or "
                + "bright-blue, #RRGGBB, or color0 to color255)"
        case .unknownAttribute(let word):
            return "'\(ThemeSyntax.quoted(word))' is not an attribute (use bold, underline, reverse, dim or habit-color)"
        }
    }
}

/// One understood line of a theme file.
enum ThemeSetting: Equatable {
    case displayName(String)
    case style(Role, Style)
}

/// The pieces of the theme-file syntax.
enum ThemeSyntax {
    static let colourNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
    /// Attributes other programs know that themes here do not: a colour mistaken for one of
    /// these is reported as an unknown attribute rather than a bad colour.
    static let foreignAttributes: Set<String> = [
        "blink", "italic", "italics", "strike", "strikethrough", "standout", "invisible", "hidden",
        "conceal", "inverse", "underlined", "faint", "bright", "normal", "none", "regular",
    ]

    /// The line without a trailing comment: a `#` that begins the line or follows a space,
    /// and is itself followed by a space or the end of the line. (`#ff0000` is a colour.)
    static func strippingComment(_ line: Substring) -> Substring {
        let chars = Array(line)
        if let first = chars.firstIndex(where: { !$0.isWhitespace }), chars[first] == "#" { return "" }
        var i = 0
        while i < chars.count {
            if chars[i] == "#", i > 0, chars[i - 1].isWhitespace, i + 1 == chars.count || chars[i + 1].isWhitespace {
                return line.prefix(i)
            }
            i += 1
        }
        return line
    }

    static func trimmed(_ s: Substring) -> Substring {
        var s = s
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return s
    }

    /// A word as it may appear in a message: at most 40 characters.
    static func quoted(_ word: String) -> String {
        word.count > 40 ? String(word.prefix(40)) + "…" : word
    }

    /// A role or colour name folded for comparison: lower case, no `-` or `_`.
    static func folded(_ s: Substring) -> String {
        String(s.lowercased().filter { $0 != "-" && $0 != "_" })
    }

    static let rolesByFoldedName: [String: Role] = Dictionary(
        uniqueKeysWithValues: Role.allCases.map { (folded(Substring($0.rawValue)), $0) })

    /// Parses one non-empty, comment-free, trimmed line.
    static func setting(_ line: Substring) -> Result<ThemeSetting, ThemeProblem> {
        guard let eq = line.firstIndex(of: "=") else {
            return .failure(.malformed("'\(quoted(String(line)))' is not 'role = style' (e.g. 'done = green bold')"))
        }
        let key = trimmed(line[..<eq])
        let value = trimmed(line[line.index(after: eq)...])
        guard !key.isEmpty else { return .failure(.malformed("no role before '=' (write 'role = style')")) }
        guard !key.contains(where: \.isWhitespace) else {
            return .failure(.malformed("'\(quoted(String(key)))' is not one word (write roles like 'xp-bar')"))
        }
        if folded(key) == "name" {
            var pretty = value
            if pretty.count >= 2, pretty.first == "\"", pretty.last == "\"" { pretty = pretty.dropFirst().dropLast() }
            guard !pretty.isEmpty else { return .failure(.malformed("no name after 'name ='")) }
            return .success(.displayName(String(pretty)))
        }
        guard let role = rolesByFoldedName[folded(key)] else { return .failure(.unknownRole(String(key))) }
        guard !value.isEmpty else {
            return .failure(.malformed("no style after '\(quoted(String(key))) =' (write 'default' for plain text)"))
        }
        guard !value.contains("=") else { return .failure(.malformed("more than one '=' (write 'role = style')")) }
        return style(value).map { .style(role, $0) }
    }

    /// Parses `[FG] [on BG] [bold] [underline] [reverse] [dim]`, in any order.
    static func style(_ text: Substring) -> Result<Style, ThemeProblem> {
        let words = text.split(whereSeparator: \.isWhitespace)
        var foreground: ThemeColor?
        var background: ThemeColor?
        var style = Style()
        var i = 0
        while i < words.count {
            let word = words[i]
            switch word.lowercased() {
            case "bold": style.bold = true
            case "underline": style.underline = true
            case "reverse": style.reverse = true
            case "dim": style.dim = true
            case "habit-color", "habit-colour", "habitcolor": style.habitColor = true
            case "on":
                guard i + 1 < words.count else { return .failure(.malformed("'on' needs a background colour after it")) }
                guard background == nil else { return .failure(.malformed("two background colours")) }
                guard let c = colour(words[i + 1]) else { return .failure(.badColour(String(words[i + 1]))) }
                background = c
                i += 1
            default:
                if let c = colour(word) {
                    guard foreground == nil else {
                        return .failure(.malformed("two foreground colours (write 'FG on BG' for a background)"))
                    }
                    foreground = c
                } else if looksLikeColour(word) || (foreground == nil && !foreignAttributes.contains(word.lowercased())) {
                    return .failure(.badColour(String(word)))
                } else {
                    return .failure(.unknownAttribute(String(word)))
                }
            }
            i += 1
        }
        style.foreground = foreground ?? .terminalDefault
        style.background = background ?? .terminalDefault
        return .success(style)
    }

    /// Whether a word that is not a colour was meant to be one.
    static func looksLikeColour(_ word: Substring) -> Bool {
        let w = word.lowercased()
        return w.hasPrefix("#") || w.hasPrefix("color") || w.hasPrefix("colour") || w.hasPrefix("bright")
    }

    /// A colour word: `default`, an ANSI name, `#RRGGBB`, or `color0`…`color255`.
    static func colour(_ word: Substring) -> ThemeColor? {
        let name = folded(word)
        if name == "default" { return .terminalDefault }
        if name == "gray" || name == "grey" { return .ansi(8) }
        if let n = colourNames.firstIndex(of: name) { return .ansi(n) }
        if name.hasPrefix("bright"), let n = colourNames.firstIndex(of: String(name.dropFirst("bright".count))) {
            return .ansi(n + 8)
        }
        let w = word.lowercased()
        if w.hasPrefix("#") {
            let hex = w.dropFirst()
            guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = Int(hex, radix: 16) else { return nil }
            return .rgb(UInt8(v >> 16), UInt8(v >> 8 & 0xff), UInt8(v & 0xff))
        }
        for prefix in ["color", "colour"] where w.hasPrefix(prefix) {
            let digits = w.dropFirst(prefix.count)
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                  let n = Int(digits), n <= 255 else { return nil }
            if n < 16 { return .ansi(n) }
            let c = XTerm.rgb(n)
            return .rgb(UInt8(c.0), UInt8(c.1), UInt8(c.2))
        }
        return nil
    }

    /// The role a mistyped name was probably meant to be: within one edit, or two for longer
    /// names; the nearest wins.
    static func closestRole(to word: String) -> Role? {
        let w = folded(Substring(word))
        var best: (Role, Int)?
        for role in Role.allCases {
            let d = editDistance(w, folded(Substring(role.rawValue)))
            if d <= max(1, min(2, w.count / 3)), d < (best?.1 ?? Int.max) { best = (role, d) }
        }
        return best?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
