import Foundation

/// One screen of the docs: a fenced block that shows the terminal UI as a real run drew it,
/// with the header that says how to get there:
///
///     <!-- screen: now=2026-11-21T09:30:00 setup=today size=80x24 keys=j,z -->
///
/// The UI starts on the data `setup` (a script of Tests/Fixtures/doc-examples) made, in a
/// pane of `size`, with `HABITTO_NOW` at `now`; `keys` (tmux key names, comma-separated;
/// `Space` for a space) are pressed in turn once it has drawn. The data directory is
/// `HOME/data` (`home=`, default `/tmp/habitto-demo`), as the status bar shows. Blank rows and spaces at the end of a row are not compared.
struct DocScreen: Equatable {
    var file: String
    /// The line of the opening fence, 1-based.
    var line: Int
    var now: String
    var setup: String?
    var width = 80
    var height = 24
    var keys: [String] = []
    /// The block's rows, blank ones left out.
    var rows: [String] = []
    /// Extra arguments of `habitto` (`args=--ascii`).
    var arguments: [String] = []
    /// The folder the data (`data`) and the config (`config`) are in, and so what the status
    /// bar shows (`home=/tmp/chartsdemo`; default `DocExampleParser.screenHome`).
    var home = DocExampleParser.screenHome
}

extension DocExampleParser {
    /// Where a screen's data lives when it runs (and so what its status bar shows).
    static let screenHome = "/tmp/habitto-demo"

    /// The screens of `text`, and a failure for each header that is not a well-formed one.
    static func screens(in text: String, file: String) -> ([DocScreen], [Failure]) {
        let lines = text.components(separatedBy: "\n")
        var out: [DocScreen] = [], failures: [Failure] = []
        var i = 0
        while i < lines.count {
            guard lines[i].hasPrefix("```") else { i += 1; continue }
            var j = i + 1
            while j < lines.count, !lines[j].hasPrefix("```") { j += 1 }
            if i > 0, lines[i - 1].hasPrefix("<!-- screen:"), lines[i - 1].hasSuffix("-->") {
                do {
                    var screen = try screenHeader(lines[i - 1], file: file, line: i + 1)
                    screen.rows = significantRows(Array(lines[(i + 1) ..< min(j, lines.count)]))
                    out.append(screen)
                } catch let f as Failure { failures.append(f) } catch {}
            }
            i = j + 1
        }
        return (out, failures)
    }

    static func screenHeader(_ line: String, file: String, line fence: Int) throws -> DocScreen {
        let here = "\(file):\(fence)"
        var screen = DocScreen(file: file, line: fence, now: "")
        let words = line.dropFirst("<!-- screen:".count).dropLast(3).split(separator: " ")
        for word in words {
            let kv = word.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { throw Failure(description: "\(here): screen header word '\(word)' is not KEY=VALUE") }
            switch kv[0] {
            case "now": screen.now = kv[1]
            case "setup": screen.setup = kv[1]
            case "keys": screen.keys = kv[1].split(separator: ",").map(String.init)
            case "home":
                guard kv[1].hasPrefix("/tmp/"), !kv[1].contains("..") else { throw Failure(description: "\(here): home=\(kv[1]) is not a folder in /tmp") }
                screen.home = kv[1]
            case "args": screen.arguments = kv[1].split(separator: ",").map(String.init)
            case "size":
                let wh = kv[1].split(separator: "x").compactMap { Int($0) }
                guard wh.count == 2, (20 ... 400).contains(wh[0]), (5 ... 200).contains(wh[1]) else {
                    throw Failure(description: "\(here): size=\(kv[1]) is not WIDTHxHEIGHT (20 to 400 by 5 to 200)")
                }
                (screen.width, screen.height) = (wh[0], wh[1])
            default: throw Failure(description: "\(here): unknown screen header key '\(kv[0])'; use now, setup, size, keys, args, home")
            }
        }
        guard !screen.now.isEmpty else { throw Failure(description: "\(here): the screen header names no clock; add now=YYYY-MM-DDTHH:MM:SS") }
        return screen
    }

    /// A screen's rows as compared: spaces at the end dropped, blank rows left out.
    static func significantRows(_ rows: [String]) -> [String] {
        rows.map { String($0.reversed().drop { $0 == " " }.reversed()) }.filter { !$0.isEmpty }
    }
}
