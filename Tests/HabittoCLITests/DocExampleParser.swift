import Foundation

/// One example of the docs: a fenced block that shows `$ habitto …` lines and what they
/// print, with the header that says how to run it (see docs/architecture.md, "Examples
/// are tested").
struct DocExample: Equatable {
    /// One `$ ` line of the block and the lines it printed.
    struct Step: Equatable {
        var command: String
        var expected: [String]
        /// Hidden commands run before this one (`before N:` lines of the header).
        var before: [String] = []
        /// Hidden commands run in the same shell right before this one, their output
        /// dropped (`with N:` lines: a background holder of a lock lives as long as the step).
        var with: [String] = []
        /// Run on a terminal (`tty N:`), answering each prompt that ends in `] ` with what
        /// the output shows typed after it (`^C` is Ctrl-C).
        var tty = false

        /// The answers typed at the prompts the output shows, in order.
        var answers: [String] {
            expected.compactMap { line in
                guard let r = line.range(of: "] ", options: .backwards) ?? (line.hasSuffix("]") ? line.range(of: "]", options: .backwards) : nil) else { return nil }
                return String(line[r.upperBound...])
            }
        }
    }

    var file: String
    /// The line of the opening fence, 1-based.
    var line: Int
    /// HABITTO_NOW for every command (a command may set its own before `habitto`).
    var now: String
    /// The home directory the block's output shows; the real one is shown as this.
    var home = "/tmp/home"
    /// The folder the output shows the `habitto` binary in; the real one is shown as this.
    var bin = "/usr/local/bin"
    /// A script of Tests/Fixtures/doc-examples run first, in the fresh home.
    var setup: String?
    /// The terminal's width, as COLUMNS.
    var columns = 80
    var steps: [Step] = []
}

/// Reads the examples out of a Markdown text. A fenced block is an example when one of its
/// lines starts with `$ ` and runs `habitto`; the HTML comment that ends on the line right
/// before its fence is its header:
///
///     <!-- example: now=2026-11-21T09:00:00 home=/tmp/demo setup=charts columns=80
///     before 2: habitto remote set dir:$HOME/remote
///     with 3: (flock .local/share/habitto/lock sleep 3 &)
///     tty 4:
///     -->
///
/// `now` is required. A line `…` alone in the output stands for any number of lines, and
/// spaces at the end of a line are not compared.
enum DocExampleParser {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func examples(in text: String, file: String) throws -> [DocExample] {
        let (examples, failures) = parse(text, file: file)
        if let first = failures.first { throw first }
        return examples
    }

    /// The examples of `text`, and a failure for each block that is not a well-formed one.
    static func parse(_ text: String, file: String) -> ([DocExample], [Failure]) {
        let lines = text.components(separatedBy: "\n")
        var out: [DocExample] = []
        var failures: [Failure] = []
        var i = 0
        while i < lines.count {
            guard lines[i].hasPrefix("```") else { i += 1; continue }
            var j = i + 1
            while j < lines.count, !lines[j].hasPrefix("```") { j += 1 }
            let body = Array(lines[(i + 1) ..< min(j, lines.count)])
            if isExample(body) {
                do {
                    var example = try header(lines, before: i, file: file)
                    example.steps = try steps(body, header: example.steps, file: file, line: i + 1)
                    out.append(example)
                } catch let f as Failure { failures.append(f) } catch {}
            }
            i = j + 1
        }
        return (out, failures)
    }

    static func isExample(_ body: [String]) -> Bool {
        body.contains { $0.hasPrefix("$ ") && $0.split(separator: " ").contains { $0 == "habitto" } }
    }

    /// The header comment ending on the line before `fence` (an index); its `before N:` lines
    /// come back as steps with no command, numbered by `command` ("2").
    static func header(_ lines: [String], before fence: Int, file: String) throws -> DocExample {
        let here = "\(file):\(fence + 1)"
        guard fence > 0, lines[fence - 1].hasSuffix("-->") else {
            throw Failure(description: "\(here): an example without a header; put '<!-- example: now=YYYY-MM-DDTHH:MM:SS -->' on the line before its fence")
        }
        var start = fence - 1
        while start >= 0, !lines[start].contains("<!-- example:") {
            if start < fence - 1, lines[start].contains("-->") { start = -1; break }
            start -= 1
        }
        guard start >= 0 else {
            throw Failure(description: "\(here): the comment before the fence is not an '<!-- example: … -->' header")
        }
        var text = lines[start ... (fence - 1)].joined(separator: "\n")
        text = text.replacingOccurrences(of: "<!-- example:", with: "").replacingOccurrences(of: "-->", with: "")
        var example = DocExample(file: file, line: fence + 1, now: "")
        var hidden: [DocExample.Step] = []
        for (n, raw) in text.components(separatedBy: "\n").enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("tty "), line.hasSuffix(":"), let k = Int(line.dropFirst(4).dropLast()), k >= 1 {
                var step = DocExample.Step(command: String(k), expected: [])
                step.tty = true
                hidden.append(step)
                continue
            }
            if let key = ["before", "with"].first(where: { line.hasPrefix($0 + " ") }) {
                let parts = line.dropFirst(key.count + 1).split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let k = Int(parts[0]), k >= 1 else {
                    throw Failure(description: "\(here): header line '\(line)' is not '\(key) N: COMMAND'")
                }
                let command = parts[1].trimmingCharacters(in: .whitespaces)
                hidden.append(.init(command: String(k), expected: [], before: key == "before" ? [command] : [],
                                    with: key == "with" ? [command] : []))
                continue
            }
            guard n == 0 || !line.isEmpty else { continue }
            for word in line.split(separator: " ") {
                let kv = word.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { throw Failure(description: "\(here): header word '\(word)' is not KEY=VALUE") }
                switch kv[0] {
                case "now": example.now = kv[1]
                case "home": example.home = kv[1]
                case "bin": example.bin = kv[1]
                case "setup": example.setup = kv[1]
                case "columns":
                    guard let c = Int(kv[1]), (20 ... 400).contains(c) else { throw Failure(description: "\(here): columns=\(kv[1]) is not 20 to 400") }
                    example.columns = c
                default: throw Failure(description: "\(here): unknown header key '\(kv[0])'; use now, home, bin, setup, columns")
                }
            }
        }
        guard !example.now.isEmpty else { throw Failure(description: "\(here): the header names no clock; add now=YYYY-MM-DDTHH:MM:SS") }
        example.steps = hidden
        return example
    }

    /// The block's steps: each `$ ` line with the lines up to the next; `header` holds the
    /// hidden commands to put before the steps they name.
    static func steps(_ body: [String], header: [DocExample.Step], file: String, line: Int) throws -> [DocExample.Step] {
        var steps: [DocExample.Step] = []
        for l in body {
            if l.hasPrefix("$ ") {
                steps.append(.init(command: String(l.dropFirst(2)), expected: []))
            } else if steps.isEmpty {
                throw Failure(description: "\(file):\(line): an example must start with a '$ ' line, not '\(l)'")
            } else {
                steps[steps.count - 1].expected.append(l)
            }
        }
        for h in header {
            let k = Int(h.command)!
            guard k <= steps.count else {
                throw Failure(description: "\(file):\(line): 'before \(k):' names a command the block does not have (it has \(steps.count))")
            }
            steps[k - 1].before += h.before
            steps[k - 1].with += h.with
            steps[k - 1].tty = steps[k - 1].tty || h.tty
        }
        return steps
    }

    /// `text` with what differs from run to run made alike: the real home shown as the
    /// example's (and the binary's folder), and every run of 4, 8 or 16 hex digits (habit ids, their short forms,
    /// device ids) as x's, in the docs' text and the program's alike.
    static func masked(_ text: String, realHome: String?, shownHome: String, bin: (real: String, shown: String)? = nil,
                       idsToo: Bool = true) -> String {
        var t = text
        if let bin { t = t.replacingOccurrences(of: bin.real + "/habitto", with: bin.shown + "/habitto") }
        if let realHome { t = t.replacingOccurrences(of: realHome, with: shownHome) }
        guard idsToo else { return t }
        for n in [16, 8] {
            t = t.replacingOccurrences(of: "(?<![0-9A-Za-z])[0-9a-f]{\(n)}(?![0-9A-Za-z])", with: String(repeating: "x", count: n), options: .regularExpression)
        }
        t = t.replacingOccurrences(of: "#[0-9a-f]{4}(?![0-9A-Za-z])", with: "#xxxx", options: .regularExpression)
        t = t.replacingOccurrences(of: "process [0-9]+", with: "process N", options: .regularExpression)
        return t
    }

    /// Whether `actual` is what `expected` shows, where a line `…` alone stands for any
    /// number of lines.
    static func matches(_ expected: [String], _ actual: [String]) -> Bool {
        let trim = { (l: String) in String(l.reversed().drop { $0 == " " }.reversed()) }
        return matchesTrimmed(expected.map(trim), actual.map(trim))
    }

    private static func matchesTrimmed(_ expected: [String], _ actual: [String]) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "…" {
            let rest = Array(expected.dropFirst())
            return (0 ... actual.count).contains { matchesTrimmed(rest, Array(actual.dropFirst($0))) }
        }
        guard let a = actual.first, a == first else { return false }
        return matchesTrimmed(Array(expected.dropFirst()), Array(actual.dropFirst()))
    }
}
