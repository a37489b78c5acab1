import Foundation
import SyncTestKit
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Every screen docs/*.md and README.md show with a `<!-- screen: … -->` header is drawn by
/// the real UI in tmux, on the data its setup makes, after its keys, and must be what the
/// block shows (see `DocScreen`). `swift test --filter DocExamples` runs these with the
/// command examples.
extension DocExamples {
    func testEveryScreenInTheDocsIsWhatTheUIDraws() throws {
        var count = 0
        // The screens use one fixed data directory (its path is on the status bar), so runs
        // of the suite on one machine take turns.
        let lock = open("/tmp/habitto-doc-screens.lock", O_RDWR | O_CREAT, 0o600)
        defer { close(lock) }
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }
        for doc in try Self.documents() {
            let text = try String(contentsOfFile: Self.root + "/" + doc, encoding: .utf8)
            let (screens, failures) = DocExampleParser.screens(in: text, file: doc)
            for f in failures { XCTFail("\(f)") }
            var accepted: [(DocScreen, [String])] = []
            for screen in screens {
                count += 1
                if let drawn = try draw(screen) { accepted.append((screen, drawn)) }
            }
            if !accepted.isEmpty { try acceptScreens(accepted, in: doc, text: text) }
        }
        XCTAssertGreaterThanOrEqual(count, 4, "the docs had 4 screens when this test was written")
    }

    /// Draws one screen; fails (naming its file and line) when what the UI drew is not the
    /// block, and then, when accepting, gives back the rows drawn.
    func draw(_ screen: DocScreen) throws -> [String]? {
        let home = screen.home
        try? FileManager.default.removeItem(atPath: home)
        try FileManager.default.createDirectory(atPath: home + "/config/habitto", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let box = Sandbox()
        box.now = screen.now
        box.extraEnv = ["HABITTO_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config"]
        let at = "\(screen.file):\(screen.line)"
        if let setup = screen.setup {
            var env = box.environment
            env["PATH"] = "\(Self.binDirectory):/usr/bin:/bin"
            env["HABITTO_SOURCE"] = Self.root
            let r = try shell("sh \"$0\"", Self.root + "/Tests/Fixtures/doc-examples/\(setup).sh", env: env, cwd: home)
            guard r.status == 0 else { XCTFail("\(at): setup \(setup).sh failed (\(r.status)): \(r.output)"); return nil }
        }
        let tmux = try TmuxSession.forTest(box: box)
        defer { tmux.kill() }
        tmux.start(screen.arguments, width: screen.width, height: screen.height)
        guard tmux.waitFor("the UI to draw", { $0.contains(" · ") }) else { return nil }
        for key in screen.keys { tmux.send(key) }
        var drawn: [String] = []
        let matched = tmux.waitFor("\(at) to be drawn", timeout: Self.accepting ? 3 : 10) { text in
            drawn = DocExampleParser.significantRows(text.components(separatedBy: "\n"))
            return drawn == screen.rows
        }
        if !matched { XCTFail("\(at): the UI drew\n\(drawn.joined(separator: "\n"))\n--- where the docs show\n\(screen.rows.joined(separator: "\n"))") }
        return Self.accepting && !matched ? drawn : nil
    }

    /// Writes what the UI drew into each screen block that differed (`HABITTO_ACCEPT_EXAMPLES=1`).
    func acceptScreens(_ screens: [(DocScreen, [String])], in doc: String, text: String) throws {
        var lines = text.components(separatedBy: "\n")
        for (screen, drawn) in screens.sorted(by: { $0.0.line > $1.0.line }) {
            var end = screen.line
            while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
            lines.replaceSubrange(screen.line ..< end, with: drawn)
        }
        try lines.joined(separator: "\n").write(toFile: Self.root + "/" + doc, atomically: true, encoding: .utf8)
    }
}
