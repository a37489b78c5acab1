/// An outline of one Swift source for the house rules: the bodies of its functions, its
/// comments and its length in lines. It reads the source as the compiler's lexer does, as far
/// as braces and comments go: string literals (single-line, multi-line `"""`, raw `#"…"#` with
/// any number of `#`, their escapes and `\(…)` interpolations, which may hold strings of their
/// own), extended regex literals `#/…/#`, backquoted names, `//` comments and nested `/* */`
/// comments are skipped, so a brace or a quote inside any of them counts for nothing.
///
/// A body is the braces after `func`, `init`, `deinit` or `subscript` (not after `.init`, nor
/// a label such as `init:`), or after `var name: Type` on the declaration's line (a computed
/// property or a property's observers; `var x = …` has no body). Its length counts the lines
/// from the keyword's line to the closing brace's, both included.
struct SwiftOutline: Sendable {
    struct Body: Equatable, Sendable {
        var kind: String
        var name: String
        var line: Int
        var endLine: Int
        var lines: Int { endLine - line + 1 }
    }

    /// The text of one comment line, without its `//` or `/*`; a block comment gives one per line.
    struct Comment: Equatable, Sendable {
        var line: Int
        var text: String
    }

    private(set) var bodies: [Body] = []
    private(set) var comments: [Comment] = []
    /// Lines as `wc -l` counts them (a last line without a newline counts too).
    private(set) var lineCount = 0
    /// What the outline could not read: an unterminated string or comment, an unbalanced brace.
    private(set) var problems: [String] = []

    init(_ source: String) {
        let bytes = Array(source.utf8)
        let lexer = bytes.withUnsafeBufferPointer { buffer in
            var lexer = Lexer(buffer)
            lexer.code(inInterpolation: false)
            return (tokens: lexer.tokens, comments: lexer.comments, problems: lexer.problems, lines: lexer.line)
        }
        comments = lexer.comments
        problems = lexer.problems
        lineCount = bytes.isEmpty ? 0 : bytes.last == 0x0A ? lexer.lines - 1 : lexer.lines
        var matcher = BodyMatcher()
        for index in lexer.tokens.indices { matcher.take(lexer.tokens, index) }
        if let open = matcher.stack.last { matcher.problems.append("line \(open.line): a { is not closed") }
        bodies = matcher.bodies.sorted { $0.line < $1.line }
        problems += matcher.problems
    }
}

/// A token outside strings and comments: a word (a name, keyword or number), one of
/// `{ } ( ) [ ] : ; , .`, an operator's characters, or a whole string literal.
private struct Token {
    enum Kind { case word, quotedWord, punctuation, op, literal }
    var kind: Kind
    /// The first byte: the punctuation or the operator's first character.
    var byte: UInt8
    /// A word's or an operator's text; empty for punctuation and literals.
    var text: String
    var line: Int
}

/// The bytes the lexer looks for, as numbers: comparing with a literal stays fast in a debug
/// build, where `UInt8(ascii:)` is a call.
private enum Byte {
    static let newline: UInt8 = 0x0A, tab: UInt8 = 0x09, cr: UInt8 = 0x0D, space: UInt8 = 0x20
    static let quote: UInt8 = 0x22, hash: UInt8 = 0x23, slash: UInt8 = 0x2F, star: UInt8 = 0x2A
    static let backslash: UInt8 = 0x5C, backtick: UInt8 = 0x60, open: UInt8 = 0x28, close: UInt8 = 0x29
}

private struct Lexer {
    let bytes: UnsafeBufferPointer<UInt8>
    let count: Int
    var i = 0
    var line = 1
    var tokens: [Token] = []
    var comments: [SwiftOutline.Comment] = []
    var problems: [String] = []
    /// Inside `\(…)` tokens are not kept: an interpolation holds no declaration.
    var interpolations = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        count = bytes.count
    }

    func at(_ k: Int) -> UInt8 { k < count ? bytes[k] : 0 }

    func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    mutating func emit(_ kind: Token.Kind, _ start: Int, _ end: Int, line: Int) {
        guard interpolations == 0 else { return }
        let keepsText = kind == .word || kind == .quotedWord || kind == .op
        tokens.append(Token(kind: kind, byte: at(start), text: keepsText ? text(start, end) : "", line: line))
    }

    /// Reads code up to the end, or, in an interpolation, up to the `)` that closes it.
    mutating func code(inInterpolation: Bool) {
        let firstLine = line
        var parentheses = 0
        while i < count {
            let c = bytes[i]
            if c == Byte.newline {
                line += 1; i += 1
            } else if c == Byte.space || c == Byte.tab || c == Byte.cr {
                i += 1
            } else if c == Byte.slash && at(i + 1) == Byte.slash {
                lineComment()
            } else if c == Byte.slash && at(i + 1) == Byte.star {
                blockComment()
            } else if c == Byte.quote {
                string(hashes: 0)
            } else if c == Byte.hash {
                var n = 0
                while at(i + n) == Byte.hash { n += 1 }
                if at(i + n) == Byte.quote { i += n; string(hashes: n) }
                else if at(i + n) == Byte.slash { regex(hashes: n) }
                else { emit(.punctuation, i, i + 1, line: line); i += 1 }
            } else if c == Byte.backtick {
                let start = i + 1
                i += 1
                while i < count, bytes[i] != Byte.backtick, bytes[i] != Byte.newline { i += 1 }
                emit(.quotedWord, start, i, line: line)
                if at(i) == Byte.backtick { i += 1 }
            } else if c == Byte.open {
                parentheses += 1
                emit(.punctuation, i, i + 1, line: line); i += 1
            } else if c == Byte.close {
                if inInterpolation && parentheses == 0 { i += 1; return }
                parentheses -= 1
                emit(.punctuation, i, i + 1, line: line); i += 1
            } else if isPunctuation(c) {
                emit(.punctuation, i, i + 1, line: line); i += 1
            } else if isWordByte(c) {
                let start = i
                while i < count, isWordByte(bytes[i]) { i += 1 }
                emit(.word, start, i, line: line)
            } else {
                // An operator: up to a character that starts something else (a comment
                // starts one only where its `//` or `/*` begins).
                let start = i
                i += 1
                while i < count, isOperatorByte(bytes[i]),
                      !(bytes[i] == Byte.slash && (at(i + 1) == Byte.slash || at(i + 1) == Byte.star)) { i += 1 }
                emit(.op, start, i, line: line)
            }
        }
        if inInterpolation { problems.append("line \(firstLine): an interpolation \\( is not closed") }
    }

    mutating func lineComment() {
        let start = i + 2
        while i < count, bytes[i] != Byte.newline { i += 1 }
        comments.append(.init(line: line, text: text(start, i)))
    }

    /// A `/* */` comment, nested ones included; one comment line per source line.
    mutating func blockComment() {
        let firstLine = line
        var depth = 0
        var start = i + 2
        while i < count {
            let c = bytes[i]
            if c == Byte.slash && at(i + 1) == Byte.star {
                depth += 1; i += 2
            } else if c == Byte.star && at(i + 1) == Byte.slash {
                depth -= 1; i += 2
                if depth == 0 {
                    comments.append(.init(line: line, text: text(start, i - 2)))
                    return
                }
            } else if c == Byte.newline {
                comments.append(.init(line: line, text: text(start, i)))
                line += 1; i += 1; start = i
            } else {
                i += 1
            }
        }
        problems.append("line \(firstLine): a /* comment is not closed")
    }

    /// A string literal at `"`, after its `hashes` `#`: single-line or `"""`, raw or not.
    mutating func string(hashes n: Int) {
        let firstLine = line
        let start = i
        let multiLine = at(i + 1) == Byte.quote && at(i + 2) == Byte.quote
        i += multiLine ? 3 : 1
        while i < count {
            let c = bytes[i]
            if c == Byte.backslash && hashes(n, at: i + 1) {
                let j = i + 1 + n
                if at(j) == Byte.open {
                    i = j + 1
                    interpolations += 1
                    code(inInterpolation: true)
                    interpolations -= 1
                    continue
                }
                if at(j) == Byte.newline { line += 1 }
                i = j + 1
            } else if c == Byte.newline {
                guard multiLine else { break }
                line += 1; i += 1
            } else if c == Byte.quote && !multiLine && hashes(n, at: i + 1) {
                i += 1 + n
                emit(.literal, start, start, line: firstLine)
                return
            } else if c == Byte.quote && multiLine && at(i + 1) == Byte.quote && at(i + 2) == Byte.quote && hashes(n, at: i + 3) {
                i += 3 + n
                emit(.literal, start, start, line: firstLine)
                return
            } else {
                i += 1
            }
        }
        problems.append("line \(firstLine): a string is not closed")
    }

    /// An extended regex literal `#/…/#` at its first `#`.
    mutating func regex(hashes n: Int) {
        let firstLine = line
        i += n + 1
        while i < count {
            let c = bytes[i]
            if c == Byte.backslash { i += 2; continue }
            if c == Byte.newline { line += 1 }
            if c == Byte.slash && hashes(n, at: i + 1) { i += 1 + n; return }
            i += 1
        }
        problems.append("line \(firstLine): a regex literal is not closed")
    }

    func hashes(_ n: Int, at k: Int) -> Bool {
        var m = 0
        while m < n { if at(k + m) != Byte.hash { return false }; m += 1 }
        return true
    }
}

/// `{ } [ ] : ; , .`
private func isPunctuation(_ c: UInt8) -> Bool {
    c == 0x7B || c == 0x7D || c == 0x5B || c == 0x5D || c == 0x3A || c == 0x3B || c == 0x2C || c == 0x2E
}

/// Letters, digits, `_`, `$` and every byte of a non-ASCII character.
private func isWordByte(_ c: UInt8) -> Bool {
    (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x24 || c >= 0x80
}

/// `= - + ! * % < > & | ^ ~ ? / @ \`
private func isOperatorByte(_ c: UInt8) -> Bool {
    c == 0x3D || c == 0x2D || c == 0x2B || c == 0x21 || c == 0x2A || c == 0x25 || c == 0x3C || c == 0x3E
        || c == 0x26 || c == 0x7C || c == 0x5E || c == 0x7E || c == 0x3F || c == 0x2F || c == 0x40 || c == 0x5C
}

/// Matches braces and finds which open a declaration's body.
private struct BodyMatcher {
    struct Open { var line: Int; var body: SwiftOutline.Body?; var parentheses: Int }
    /// A declaration waiting for its body: a `func` in a protocol has none, nor `var x = 1`.
    struct Waiting { var body: SwiftOutline.Body; var parentheses: Int; var depth: Int; var colon = false }

    enum Word { case function, variable, declaration, loopIn }

    var bodies: [SwiftOutline.Body] = []
    var problems: [String] = []
    var stack: [Open] = []
    /// `(` and `[` open at this brace level.
    var parentheses = 0
    var function: Waiting?
    var property: Waiting?

    /// The words the matcher acts on; a declaration's word ends the wait of a `func` before it.
    static let words: [String: Word] = {
        var words: [String: Word] = ["func": .function, "init": .function, "deinit": .function, "subscript": .function,
                                     "var": .variable, "in": .loopIn]
        for word in ["let", "case", "struct", "class", "enum", "protocol", "extension", "typealias", "associatedtype",
                     "actor", "import", "static", "private", "public", "internal", "fileprivate", "open", "mutating",
                     "nonmutating", "override", "final", "convenience", "required", "lazy", "weak", "unowned",
                     "nonisolated", "indirect", "package"] {
            words[word] = .declaration
        }
        return words
    }()
    /// Words before `var` that make it a pattern's binding, not a property.
    static let bindingWords: Set<String> = ["for", "case", "if", "guard", "while", "catch"]

    /// Whether a waiting declaration is at this brace level and outside this level's parentheses.
    func here(_ w: Waiting?) -> Bool { w.map { $0.parentheses == parentheses && $0.depth == stack.count } ?? false }

    mutating func take(_ tokens: [Token], _ k: Int) {
        let t = tokens[k]
        if let p = property, p.body.line != t.line { property = nil }
        switch t.kind {
        case .word:
            guard let kind = Self.words[t.text] else { return }
            let previous = k > 0 ? tokens[k - 1] : nil
            guard previous.map({ $0.kind != .punctuation || $0.byte != 0x2E }) ?? true else { return }  // not `.init`
            word(kind, t, previous: previous, next: k + 1 < tokens.count ? tokens[k + 1] : nil)
        case .punctuation:
            punctuation(t)
        case .op where t.byte == 0x3D && !t.text.hasPrefix("=="):  // an assignment
            if here(property) { property = nil }
        default:
            break
        }
    }

    mutating func word(_ word: Word, _ t: Token, previous: Token?, next: Token?) {
        switch word {
        case .function:
            guard next.map({ $0.kind != .punctuation || $0.byte != 0x3A }) ?? true else { return }  // not a label `init:`
            let name = t.text == "func" ? next?.text ?? "" : t.text
            function = Waiting(body: .init(kind: t.text, name: name, line: t.line, endLine: 0), parentheses: parentheses, depth: stack.count)
            property = nil
        case .variable:
            function = nil
            guard !(previous.map { $0.kind == .word && Self.bindingWords.contains($0.text) } ?? false),
                  let name = next, name.kind == .word || name.kind == .quotedWord else { return }
            property = Waiting(body: .init(kind: "var", name: name.text, line: t.line, endLine: 0), parentheses: parentheses, depth: stack.count)
        case .declaration:
            if here(function) { function = nil }
            property = nil
        case .loopIn:
            property = nil
        }
    }

    mutating func punctuation(_ t: Token) {
        switch t.byte {
        case 0x28, 0x5B:  // ( [
            parentheses += 1
        case 0x29, 0x5D:  // ) ]
            parentheses -= 1
        case 0x3A:  // :
            if here(property) { property?.colon = true }
        case 0x3B:  // ;
            property = nil
        case 0x7B:  // {
            var body: SwiftOutline.Body?
            if let f = function, here(f) {
                body = f.body; function = nil
            } else if let p = property, here(p), p.colon {
                body = p.body
            }
            if here(property) { property = nil }
            stack.append(Open(line: t.line, body: body, parentheses: parentheses))
            parentheses = 0
        case 0x7D:  // }
            if here(function) { function = nil }
            property = nil
            guard let open = stack.popLast() else {
                problems.append("line \(t.line): a } closes no brace"); return
            }
            parentheses = open.parentheses
            if var body = open.body {
                body.endLine = t.line
                bodies.append(body)
            }
        default:
            break
        }
    }
}
