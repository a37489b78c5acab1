import Foundation
import SyncTestKit
import XCTest

/// Every example of README.md and docs/*.md that shows `$ habitto …` lines and their output
/// is run, in a fresh home with the clock its header names, and must print what it shows
/// (ids and the home's path masked), as Mercurial's cram tests keep their docs true.
/// `swift test --filter DocExamples` runs just these.
final class DocExamples: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs")
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }

    func testEveryExampleInTheDocsPrintsWhatItShows() throws {
        var count = 0
        for doc in try Self.documents() {
            let text = try String(contentsOfFile: Self.root + "/" + doc, encoding: .utf8)
            let (examples, failures) = DocExampleParser.parse(text, file: doc)
            for f in failures { XCTFail("\(f)") }
            var accepted: [(DocExample, [[String]])] = []
            for example in examples {
                count += 1
                if let outputs = try run(example) { accepted.append((example, outputs)) }
            }
            if !accepted.isEmpty { try accept(accepted, in: doc, text: text) }
        }
        XCTAssertGreaterThanOrEqual(count, 18, "the docs had 18 examples when this test was written")
    }

    /// With HABITTO_ACCEPT_EXAMPLES=1 set, an example whose output differs is written back
    /// into its document with what the program printed (the home shown as the example's),
    /// for a person to read over before committing, as cram's `--interactive` does; an
    /// example with a `…` line is left for a person to edit.
    static let accepting = ProcessInfo.processInfo.environment["HABITTO_ACCEPT_EXAMPLES"] == "1"

    func accept(_ examples: [(DocExample, [[String]])], in doc: String, text: String) throws {
        var lines = text.components(separatedBy: "\n")
        for (example, outputs) in examples.sorted(by: { $0.0.line > $1.0.line }) {
            var end = example.line
            while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
            let body = zip(example.steps, outputs).flatMap { ["$ " + $0.command] + $1 }
            lines.replaceSubrange(example.line ..< end, with: body)
        }
        try lines.joined(separator: "\n").write(toFile: Self.root + "/" + doc, atomically: true, encoding: .utf8)
    }

    /// Runs one example in a fresh home and fails, naming its file and line, on each step
    /// whose output differs; when accepting, gives back every step's output for a block
    /// that differed.
    func run(_ example: DocExample) throws -> [[String]]? {
        let home = NSTemporaryDirectory() + "habitto-example-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: home + "/bin", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let env = environment(home: home, example: example)
        let at = "\(example.file):\(example.line)"
        if let setup = example.setup {
            let script = Self.root + "/Tests/Fixtures/doc-examples/\(setup).sh"
            let r = try shell("sh \"$0\"", script, env: env, cwd: home)
            guard r.status == 0 else { XCTFail("\(at): setup \(setup).sh failed (\(r.status)): \(r.output)"); return nil }
        }
        var outputs: [[String]] = []
        var differs = false
        for (n, step) in example.steps.enumerated() {
            for hidden in step.before {
                let r = try shell(hidden, nil, env: env, cwd: home)
                guard r.status == 0 else { XCTFail("\(at): hidden 'before \(n + 1):' command '\(hidden)' failed (\(r.status)): \(r.output)"); return nil }
            }
            let with = step.with.map { "{ \($0); } > /dev/null 2>&1; " }.joined()
            let r = step.tty ? try terminal(with + step.command, answers: step.answers, env: env, cwd: home, columns: example.columns)
                : try shell(with + step.command, nil, env: env, cwd: home)
            let bin = (real: Self.binDirectory, shown: example.bin)
            var lines = DocExampleParser.masked(r.output, realHome: home, shownHome: example.home, bin: bin).components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            let expected = step.expected.map { DocExampleParser.masked($0, realHome: nil, shownHome: example.home) }
            outputs.append(DocExampleParser.masked(r.output, realHome: home, shownHome: example.home, bin: bin, idsToo: false)
                .components(separatedBy: "\n").dropLast(r.output.hasSuffix("\n") ? 1 : 0))
            if !DocExampleParser.matches(expected, lines) {
                differs = true
                XCTFail("\(at): '$ \(step.command)' printed\n\(lines.joined(separator: "\n"))\n--- where the docs show\n\(step.expected.joined(separator: "\n"))")
            }
        }
        let hasEllipsis = example.steps.contains { $0.expected.contains("…") }
        return Self.accepting && differs && !hasEllipsis ? outputs : nil
    }

    /// The environment of an example: the home as HOME (data and config at their default
    /// places under it), the built `habitto` first on PATH, then the home's bin (for the
    /// programs a setup puts there), a UTF-8 locale, UTC, and nothing of the caller's Habitto settings.
    func environment(home: String, example: DocExample) -> [String: String] {
        [
            "HOME": home, "PATH": "\(Self.binDirectory):\(home)/bin:/usr/bin:/bin", "HABITTO_NOW": example.now,
            "TZ": "UTC", "LANG": "C.UTF-8", "COLUMNS": String(example.columns),
            "HABITTO_SOURCE": Self.root,
            // No background round after a change: an example's next command sees the same
            // queue each time it runs (docs/sync.md says what happens without this).
            "HABITTO_SYNC_AFTER_CHANGE": "false",
        ]
    }

    /// Runs `command` on a terminal (`script` from util-linux makes one) of `columns` columns
    /// and types each answer after each prompt that ends in `] `, as a person would.
    func terminal(_ command: String, answers: [String], env: [String: String], cwd: String, columns: Int) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["60", "/usr/bin/script", "-qec", "stty cols \(columns) rows 40; " + command, "/dev/null"]
        p.environment = env
        p.currentDirectoryURL = URL(fileURLWithPath: cwd)
        let out = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = input
        try p.run()
        var seen = Data(), answered = 0, lastPrompt = 0
        while true {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
            let text = String(decoding: seen, as: UTF8.self)
            if text.hasSuffix("] "), seen.count > lastPrompt, answered < answers.count {
                let answer = answers[answered]
                input.fileHandleForWriting.write(Data((answer == "^C" ? "\u{03}" : answer + "\n").utf8))
                answered += 1
                lastPrompt = seen.count
            }
        }
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: seen, as: UTF8.self).replacingOccurrences(of: "\r", with: ""))
    }

    /// The folder of the built `habitto`.
    static let binDirectory = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path

    /// Runs `command` with /bin/sh (standard error into the output, no input), stopped after 60 s;
    /// standard output is line-buffered (`stdbuf`), so that lines come in the order a terminal shows them.
    func shell(_ command: String, _ arg0: String?, env: [String: String], cwd: String) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["60", "/usr/bin/stdbuf", "-oL", "/bin/sh", "-c", "exec 2>&1; " + command] + (arg0.map { [$0] } ?? [])
        p.environment = env
        p.currentDirectoryURL = URL(fileURLWithPath: cwd)
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// The parts of the runner that decide, apart from any run.
final class DocExampleParserTests: XCTestCase {
    func testAScreenHeaderItsKeysAndItsRowsWithoutBlankOnes() {
        let text = """
        <!-- screen: now=2026-11-21T09:30:00 setup=today size=40x10 keys=w,h,Enter home=/tmp/other -->
        ```
         Habitto · Sat 21 Nov 2026   \("")

        ▶ ◐  Drink water
        ```

        <!-- screen: now=2026-11-21T09:30:00 size=10x3 -->
        ```
        x
        ```
        <!-- screen: setup=today -->
        ```
        y
        ```
        """
        let (screens, failures) = DocExampleParser.screens(in: text, file: "ui.md")
        XCTAssertEqual(screens, [DocScreen(file: "ui.md", line: 2, now: "2026-11-21T09:30:00", setup: "today", width: 40, height: 10,
                                           keys: ["w", "h", "Enter"], rows: [" Habitto · Sat 21 Nov 2026", "▶ ◐  Drink water"],
                                           home: "/tmp/other")])
        XCTAssertEqual(failures.map(\.description), ["ui.md:9: size=10x3 is not WIDTHxHEIGHT (20 to 400 by 5 to 200)",
                                                      "ui.md:13: the screen header names no clock; add now=YYYY-MM-DDTHH:MM:SS"])
    }

    func testAHeaderItsHiddenStepsAndTheOutputOfEachCommand() throws {
        let text = """
        Some text.

        <!-- example: now=2026-11-21T09:00:00 home=/tmp/demo
        before 2: habitto check read
        -->
        ```
        $ habitto add Read
        Added 'Read'
        $ habitto list
        ✓ Read
        …
        ```
        """
        let examples = try DocExampleParser.examples(in: text, file: "x.md")
        XCTAssertEqual(examples.count, 1)
        let e = try XCTUnwrap(examples.first)
        XCTAssertEqual(e.line, 6)
        XCTAssertEqual(e.now, "2026-11-21T09:00:00")
        XCTAssertEqual(e.home, "/tmp/demo")
        XCTAssertEqual(e.steps, [
            .init(command: "habitto add Read", expected: ["Added 'Read'"]),
            .init(command: "habitto list", expected: ["✓ Read", "…"], before: ["habitto check read"]),
        ])
    }

    func testABlockWithoutCommandsIsNoExampleAndOneWithoutAHeaderIsRefused() throws {
        XCTAssertEqual(try DocExampleParser.examples(in: "```\nhabitto add Read\n```\n", file: "x.md"), [])
        XCTAssertThrowsError(try DocExampleParser.examples(in: "text\n```\n$ habitto list\n```\n", file: "x.md")) {
            XCTAssertTrue("\($0)".contains("x.md:2: an example without a header"), "\($0)")
        }
        XCTAssertThrowsError(try DocExampleParser.examples(in: "<!-- example: home=/x -->\n```\n$ habitto list\n```\n", file: "x.md")) {
            XCTAssertTrue("\($0)".contains("names no clock"), "\($0)")
        }
        XCTAssertThrowsError(try DocExampleParser.examples(in: "<!-- example: now=x\nbefore 3: y\n-->\n```\n$ habitto list\n```\n", file: "x.md")) {
            XCTAssertTrue("\($0)".contains("'before 3:' names a command the block does not have"), "\($0)")
        }
    }

    func testIdsAndTheHomeAreMaskedAndAnEllipsisLineStandsForAnyLines() {
        let real = "Added 'Run'; id 98f9cf4ba84f7635 at /tmp/habitto-example-1/x, device bd1f4e4d, Stretch #0de7, process 6758"
        XCTAssertEqual(DocExampleParser.masked(real, realHome: "/tmp/habitto-example-1", shownHome: "/tmp/demo"),
                       "Added 'Run'; id xxxxxxxxxxxxxxxx at /tmp/demo/x, device xxxxxxxx, Stretch #xxxx, process N")
        XCTAssertEqual(DocExampleParser.masked("on 2026-11-21, 12 glasses", realHome: nil, shownHome: "/"), "on 2026-11-21, 12 glasses")
        XCTAssertTrue(DocExampleParser.matches(["a", "…", "d"], ["a", "b", "c", "d"]))
        XCTAssertTrue(DocExampleParser.matches(["a", "…", "d"], ["a", "d"]))
        XCTAssertFalse(DocExampleParser.matches(["a", "…", "d"], ["a", "b", "c"]))
        XCTAssertFalse(DocExampleParser.matches(["a", "b"], ["a", "b", "c"]))
        XCTAssertFalse(DocExampleParser.matches(["a"], ["A"]))
    }
}
