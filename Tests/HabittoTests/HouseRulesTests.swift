import Foundation
import XCTest

/// The house rules of the code (issue 38, point 7): no file in Sources over 600 lines, no
/// function over 80 lines, and no comment in Sources or Tests pointing at a document, or a
/// heading of one, that the repository does not have. Each failure names the file and line.
final class HouseRulesTests: XCTestCase {
    static let maximumFileLines = 600
    static let maximumBodyLines = 80

    func testNoFileInSourcesIsOver600Lines() throws {
        let files = Repository.files(under: "Sources") { _ in true }
        XCTAssertGreaterThan(files.count, 100, "the walk of Sources found too few files")
        for path in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: Repository.root + "/" + path))
            var lines = data.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            if let last = data.last, last != UInt8(ascii: "\n") { lines += 1 }
            if lines > Self.maximumFileLines {
                XCTFail("\(path):\(Self.maximumFileLines + 1): the file is \(lines) lines (at most \(Self.maximumFileLines)); "
                        + "split it along the lines it already draws")
            }
        }
    }

    func testNoFunctionInSourcesIsOver80Lines() {
        var bodies = 0
        for file in Repository.swiftFiles where file.path.hasPrefix("Sources/") {
            for problem in file.outline.problems { XCTFail("\(file.path): the outline cannot read it: \(problem)") }
            bodies += file.outline.bodies.count
            for body in file.outline.bodies where body.lines > Self.maximumBodyLines {
                XCTFail("\(file.path):\(body.line): \(body.kind) \(body.name) is \(body.lines) lines, to line \(body.endLine) "
                        + "(at most \(Self.maximumBodyLines))")
            }
        }
        // The rule holds of something: Sources has well over a thousand bodies.
        XCTAssertGreaterThan(bodies, 1000)
    }

    func testEveryCommentPointsAtADocumentAndHeadingThatExist() {
        var pointers = 0
        var headings: [String: [String]?] = [:]
        func headingsOf(_ path: String) -> [String]? {
            if let known = headings[path] { return known }
            let read = Repository.headings(of: path)
            headings[path] = read
            return read
        }
        for file in Repository.swiftFiles {
            for problem in file.outline.problems where file.path.hasPrefix("Tests/") {
                XCTFail("\(file.path): the outline cannot read it: \(problem)")
            }
            for pointer in DocumentPointer.find(in: file.outline.comments) {
                pointers += 1
                if let problem = pointer.problem(headings: headingsOf) { XCTFail("\(file.path):\(pointer.line): \(problem)") }
            }
        }
        // Comments cite docs/sync.md, docs/performance.md and others: the finder finds them.
        XCTAssertGreaterThan(pointers, 10)
    }

    // MARK: The finder of pointers and its judge

    func testPointersWithTheirSections() {
        func found(_ text: String) -> [String] {
            DocumentPointer.find(in: [.init(line: 7, text: text)]).map { p in
                "\(p.line) \(p.document)" + (p.anchor.map { "#\($0)" } ?? "") + (p.section.map { " '\($0)'" } ?? "")
            }
        }
        XCTAssertEqual(found(#"/ The layout of docs/sync.md ("The queue"): a folder."#), [#"7 docs/sync.md 'The queue'"#])
        XCTAssertEqual(found("/ see docs/rules.md#streaks-and-misses, and README."), ["7 docs/rules.md#streaks-and-misses", "7 README"])
        XCTAssertEqual(found("/ see docs/sync.md, 'Errors' and DESIGN.md 6"), ["7 docs/sync.md 'Errors'", "7 DESIGN.md"])
        XCTAssertEqual(found("/ (README, Performance) and the README's First Steps."), ["7 README 'Performance'", "7 README 'First Steps'"])
        XCTAssertEqual(found("/ the README's tmux line; see Themes in docs/ui.md."), ["7 README", "7 docs/ui.md 'Themes'"])
        XCTAssertEqual(found("/ https://example.com/README.md and /tmp/x.md, READMEFILE"), [])
        // A pointer's section on the next comment line.
        let split = DocumentPointer.find(in: [.init(line: 3, text: "/ docs/ui.md"), .init(line: 4, text: #"/ ("Any width") says so."#)])
        XCTAssertEqual(split.map { "\($0.line) \($0.section ?? "-")" }, ["3 Any width"])
    }

    func testTheJudgeRefusesMissingDocumentsAndHeadings() {
        func judged(_ text: String) -> [String] {
            DocumentPointer.find(in: [.init(line: 1, text: text)]).map { $0.problem() ?? "ok" }
        }
        XCTAssertEqual(judged(#"/ docs/sync.md ("The queue"), docs/ui.md#any-width, README, docs/"#), ["ok", "ok", "ok", "ok"])
        XCTAssertEqual(judged("/ see the queue in docs/sync.md's first part"), ["ok"])
        XCTAssertEqual(judged("/ DESIGN.md 6"), ["a comment points at DESIGN.md, which is not in the repository"])
        XCTAssertEqual(judged("/ docs/nothing.md"), ["a comment points at docs/nothing.md, which is not in the repository"])
        let heading = judged(#"/ docs/sync.md, "No Such Heading""#)
        XCTAssertEqual(heading.count, 1)
        XCTAssertTrue(heading[0].hasPrefix("a comment points at docs/sync.md, section 'No Such Heading', which has no such heading"), heading[0])
        XCTAssertTrue(heading[0].contains("The queue"), "the message lists the headings there are: \(heading[0])")
        XCTAssertEqual(judged("/ docs/ui.md#no-such-anchor").first?.hasPrefix("a comment points at docs/ui.md#no-such-anchor, which has no such heading"), true)
        // A heading inside a fenced code block is not one.
        let fenced = judged(#"/ docs/sync.md ("Habitto's sync settings for this data directory")"#)
        XCTAssertTrue(fenced.first?.hasPrefix("a comment points at docs/sync.md, section 'Habitto's sync settings for this data directory', which has no such heading") == true, "\(fenced)")
    }
}

/// The scanner the function rule stands on, on small sources made to mislead it.
final class SwiftOutlineTests: XCTestCase {
    func outline(_ source: String) -> [String] {
        let o = SwiftOutline(source)
        return o.problems + o.bodies.map { "\($0.kind) \($0.name) \($0.line)-\($0.endLine)" }
    }

    func testDeclarationsAndTheirLines() {
        let source = """
        func a() {
            let x = 1
        }
        struct S {
            init(x: Int) { }
            var c: Int {
                1
            }
            var stored = 0
            var observed: Int = 0 { didSet { } }
            subscript(i: Int) -> Int { i }
            deinit {}
            static func == (l: S, r: S) -> Bool
            {
                true
            }
        }
        """
        XCTAssertEqual(outline(source), ["func a 1-3", "init init 5-5", "var c 6-8", "subscript subscript 11-11",
                                         "deinit deinit 12-12", "func == 13-16"])
        XCTAssertEqual(SwiftOutline(source).bodies.first?.lines, 3)
    }

    func testWhatIsNotABody() {
        let source = """
        protocol P {
            func a()
            var b: Int { get }
            func c() async throws -> Int
        }
        func d(x: () -> Void = { }, y: Int = [1].map { $0 }[0]) {
            let f = Foo.init(a: 1); g(init: 2); let `func` = 3
            for var i in [1] { i += 1 }
            if case var .some(v) = o { v += 1 }
            var local: Int
            if true { local = 1 }
            let c = { (z: Int) -> Int in z }
            func nested() -> Int { 0 }
        }
        """
        XCTAssertEqual(outline(source), ["var b 3-3", "func d 6-14", "func nested 13-13"])
    }

    func testBracesAndQuotesInStringsAndEscapes() {
        let source = #"""
        func f() {
            let s = "}", t = "{\"}", u = "\\"
            let v = "\u{7D} \("}" + "\("{")") \(g { "{" })"
        }
        func g(_ h: () -> String) -> String { h() }
        """#
        XCTAssertEqual(outline(source), ["func f 1-4", "func g 5-5"])
    }

    func testMultiLineAndRawStrings() {
        let source = ##"""
        func f() -> String {
            let a = """
            } { " "" \""" \("""
                }
                """)
            """
            let b = #"\(x) "} \#(y) "#
            let c = ##"a "# } still"##
            let d = #"""
            """ } \"""
            """#
            return a + b + c + d
        }
        var e: String { "}" }
        """##
        XCTAssertEqual(outline(source), ["func f 1-13", "var e 14-14"])
    }

    func testCommentsAndRegexLiterals() {
        let source = """
        // }
        func f() { // {
            /* { /* nested } */ still a comment } */
            /// "a lone quote
            let r = #/[{]"/#
        }
        /* two
           lines */
        """
        let o = SwiftOutline(source)
        XCTAssertEqual(o.problems, [])
        XCTAssertEqual(o.bodies.map { "\($0.name) \($0.line)-\($0.endLine)" }, ["f 2-6"])
        XCTAssertEqual(o.comments.map { "\($0.line):\($0.text)" },
                       ["1: }", "2: {", "3: { /* nested } */ still a comment } ", #"4:/ "a lone quote"#, "7: two", "8:   lines "])
        XCTAssertEqual(o.lineCount, 8)
    }

    func testWhatItCannotReadIsSaid() {
        XCTAssertEqual(outline("func f() {\n"), ["line 1: a { is not closed"])
        XCTAssertEqual(outline("}\n"), ["line 1: a } closes no brace"])
        XCTAssertEqual(outline("let s = \"abc\nlet t = 1"), ["line 1: a string is not closed"])
        XCTAssertEqual(outline("/* open /* nested */\n"), ["line 1: a /* comment is not closed"])
        XCTAssertEqual(outline("let s = \"\\(f(\"\n"), ["line 1: a string is not closed", "line 1: an interpolation \\( is not closed",
                                                         "line 1: a string is not closed"])
    }

    func testLinesAsWcCountsThem() {
        XCTAssertEqual(SwiftOutline("").lineCount, 0)
        XCTAssertEqual(SwiftOutline("a\nb\n").lineCount, 2)
        XCTAssertEqual(SwiftOutline("a\nb").lineCount, 2)
    }
}

/// The repository this file is in, and its Swift files with their outlines, read once.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    struct File: Sendable {
        var path: String
        var outline: SwiftOutline
    }

    static let swiftFiles: [File] = (files(under: "Sources") { $0.hasSuffix(".swift") } + files(under: "Tests") { $0.hasSuffix(".swift") })
        .map { path in
            let text = (try? String(contentsOfFile: root + "/" + path, encoding: .utf8)) ?? ""
            return File(path: path, outline: SwiftOutline(text))
        }

    /// The regular files under `folder`, as paths from the root, sorted.
    static func files(under folder: String, _ wanted: (String) -> Bool) -> [String] {
        let base = root + "/" + folder
        guard let walk = FileManager.default.enumerator(atPath: base) else { return [] }
        var paths: [String] = []
        while let relative = walk.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: base + "/" + relative, isDirectory: &isDirectory),
                  !isDirectory.boolValue, wanted(relative) else { continue }
            paths.append(folder + "/" + relative)
        }
        return paths.sorted()
    }

    /// A Markdown file's headings (outside fenced code), as written, without `#` marks.
    static func headings(of path: String) -> [String]? {
        guard let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8) else { return nil }
        var headings: [String] = []
        var fence: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                let mark = String(trimmed.prefix(3))
                if fence == nil { fence = mark } else if fence == mark { fence = nil }
                continue
            }
            guard fence == nil, line.hasPrefix("#") else { continue }
            let marks = line.prefix { $0 == "#" }
            guard marks.count <= 6, line.dropFirst(marks.count).first == " " else { continue }
            headings.append(line.dropFirst(marks.count).trimmingCharacters(in: CharacterSet(charactersIn: " #")))
        }
        return headings
    }
}

/// A comment's pointer at a document: a path ending in `.md` (with an optional `#anchor`), a
/// path under `docs/`, or one of `bareNames` alone (the README); with the heading it names, if
/// any: quoted after it (`docs/sync.md ("The queue")`, `docs/sync.md, 'Errors'`), capitalised
/// after a comma in parentheses or after a possessive (`(README, Install)`, `the README's
/// Features`), or before it (`see Themes in docs/ui.md`).
struct DocumentPointer: Equatable {
    var line: Int
    var document: String
    var anchor: String?
    var section: String?

    static let bareNames: Set<String> = ["README", "DESIGN", "CHANGELOG", "CONTRIBUTING"]

    /// The pointers in comments, consecutive comment lines read as one text.
    static func find(in comments: [SwiftOutline.Comment]) -> [DocumentPointer] {
        var found: [DocumentPointer] = []
        var start = 0
        while start < comments.count {
            var end = start + 1
            while end < comments.count, comments[end].line - comments[end - 1].line <= 1 { end += 1 }
            let block = comments[start..<end]
            if block.contains(where: { mentionsDocument($0.text) }) {
                let text = block.map { stripped($0.text) }.joined(separator: "\n")
                let lines = block.map(\.line)
                found += find(in: Array(text)).map { pointer in
                    var p = pointer
                    p.line = lines[min(pointer.line, lines.count - 1)]
                    return p
                }
            }
            start = end
        }
        return found
    }

    /// Whether a comment line has `.md`, `docs/` or one of `bareNames`: a quick look at its
    /// bytes before the slower reading of the few that do.
    static func mentionsDocument(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { b in
            var i = 0
            while i < b.count {
                let c = b[i]
                if c == 0x2E || c == 0x64 || c == 0x52 || c == 0x44 || c == 0x43 {  // . d R D C
                    for needle in needles where needle[0] == c && i + needle.count <= b.count {
                        if needle.indices.allSatisfy({ b[i + $0] == needle[$0] }) { return true }
                    }
                }
                i += 1
            }
            return false
        }
    }

    static let needles: [[UInt8]] = ([".md", "docs/"] + bareNames.sorted()).map { Array($0.utf8) }

    /// A comment line without its `/` and `*` marks and its outer spaces.
    static func stripped(_ text: String) -> String {
        String(text.drop { $0 == "/" || $0 == "!" || $0 == "*" || $0 == " " || $0 == "\t" }).trimmingCharacters(in: .whitespaces)
    }

    /// The pointers in one text, `line` counting its newlines from 0.
    private static func find(in text: [Character]) -> [DocumentPointer] {
        var found: [DocumentPointer] = []
        var i = 0
        while i < text.count {
            guard isPathCharacter(text[i]), i == 0 || !isPathCharacter(text[i - 1]) else { i += 1; continue }
            var end = i
            while end < text.count, isPathCharacter(text[end]) { end += 1 }
            var word = String(text[i..<end])
            while let last = word.last, ".-#".contains(last) { word.removeLast() }
            defer { i = end }
            guard !word.hasPrefix("/"), !word.hasPrefix(".") else { continue }
            let parts = word.split(separator: "#", maxSplits: 1).map(String.init)
            let path = parts.first ?? ""
            guard path.hasSuffix(".md") || path.hasPrefix("docs/") || bareNames.contains(path) else { continue }
            let line = text[..<i].filter { $0 == "\n" }.count
            // A heading is named near the pointer.
            let after = String(text[(i + word.count)...].prefix(120))
            let before = String(text[..<i].suffix(120))
            found.append(DocumentPointer(line: line, document: path, anchor: parts.count > 1 ? parts[1] : nil,
                                         section: sectionAfter(after) ?? sectionBefore(before)))
        }
        return found
    }

    private static func isPathCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || "_./#-".contains(c)
    }

    private static func sectionAfter(_ text: String) -> String? {
        if text.hasPrefix("'s") || text.hasPrefix("’s") {
            return firstMatch(possessive, in: text)
        }
        return firstMatch(quotedAfter, in: text) ?? firstMatch(commaInParentheses, in: text)
    }

    private static func sectionBefore(_ text: String) -> String? {
        firstMatch(seeBefore, in: text)
    }

    static let possessive = #"^.s\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)"#
    static let quotedAfter = #"^\s*[,:]?\s*\(?\s*"# + quoted
    static let commaInParentheses = #"^,\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\s*\)"#
    static let seeBefore = #"\b[Ss]ee\s+(?:the\s+)?(?:"# + quoted + #"|([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*))\s+(?:in|of)\s+(?:the\s+)?$"#

    /// A name in quotes, each kind closed by its own.
    static let quoted = #"(?:"([^"\n]+)"|“([^”\n]+)”|'([^'\n]+)'|‘([^’\n]+)’)"#

    private static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let match = try? Regex(pattern).firstMatch(in: text) else { return nil }
        for k in 1..<match.output.count {
            if let s = match.output[k].substring { return String(s) }
        }
        return nil
    }

    /// Why the pointer is wrong, or nil when its document (and heading) exist.
    func problem(headings headingsOf: (String) -> [String]? = Repository.headings(of:)) -> String? {
        var path = document
        if Self.bareNames.contains(document) {
            path = [document + ".md", document].first { FileManager.default.fileExists(atPath: Repository.root + "/" + $0) } ?? document + ".md"
        }
        let cited = path + (anchor.map { "#" + $0 } ?? "")
        guard FileManager.default.fileExists(atPath: Repository.root + "/" + path) else {
            return "a comment points at \(cited), which is not in the repository"
        }
        guard anchor != nil || section != nil, let headings = headingsOf(path) else { return nil }
        let normal = headings.map(Self.normalised)
        if let anchor, !normal.map(Self.slug).contains(anchor.lowercased()) {
            return "a comment points at \(cited), which has no such heading (its headings: \(headings.joined(separator: "; ")))"
        }
        if let section {
            let name = Self.normalised(section)
            let matches = normal.contains { heading in
                heading == name || [":", " (", " —", ","].contains { heading.hasPrefix(name + $0) }
            }
            if !matches {
                return "a comment points at \(cited), section '\(section)', which has no such heading (its headings: \(headings.joined(separator: "; ")))"
            }
        }
        return nil
    }

    static func normalised(_ heading: String) -> String {
        heading.lowercased().filter { $0 != "`" && $0 != "*" }.split(separator: " ").joined(separator: " ")
    }

    /// The anchor GitHub gives a heading: lower case, letters, digits, `-` and `_`, spaces as `-`.
    static func slug(_ heading: String) -> String {
        String(heading.compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }
}
