import Foundation
import XCTest
import SyncTestKit

/// Issue 42, point 2: `status --waybar`, `--i3blocks` and `--watch`, in the formats those
/// bars read (waybar's custom module: one JSON object a line with text, tooltip, class and
/// percentage, its text and tooltip read as Pango markup; i3blocks: full text, short text and
/// colour on three lines, or one JSON object a line in a persistent block).
final class StatusBarTests: XCTestCase {
    /// Read done, Water and a habit named with markup due.
    private func sandbox() -> Sandbox {
        let box = Sandbox(inProcess: true)
        box.ok("add", "Read")
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses")
        box.ok("add", "<b>Tea & cake</b>")
        box.ok("check", "Read")
        return box
    }

    private func object(_ line: String, file: StaticString = #filePath, line l: UInt = #line) throws -> [String: Any] {
        let data = Data(line.utf8)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], line, file: file, line: l)
    }

    func testWaybarGetsOneJSONLineWithTextTooltipClassAndPercentage() throws {
        let box = sandbox()
        let out = box.ok("status", "--waybar")
        XCTAssertEqual(out.filter { $0 == "\n" }.count, 1, "one line: \(out)")
        let o = try object(out)
        XCTAssertEqual(o["text"] as? String, "✓1/3")
        XCTAssertEqual(o["tooltip"] as? String, "Due: Water, &lt;b&gt;Tea &amp; cake&lt;/b&gt;\nDone: Read",
                       "the habits due in listing order, markup escaped")
        XCTAssertEqual(o["class"] as? [String], ["due"])
        XCTAssertEqual(o["percentage"] as? Int, 33)
        XCTAssertEqual(Set(o.keys), ["text", "tooltip", "class", "percentage"])

        box.ok("check", "Water", "--amount", "8")
        box.ok("check", "<b>Tea & cake</b>")
        let done = try object(box.ok("status", "--waybar", "--format", "%d of %t"))
        XCTAssertEqual(done["text"] as? String, "3 of 3")
        XCTAssertEqual(done["tooltip"] as? String, "All 3 done today")
        XCTAssertEqual(done["class"] as? [String], ["done"])
        XCTAssertEqual(done["percentage"] as? Int, 100)
    }

    func testAFailedSyncIsAClassAndATooltipLine() throws {
        let box = sandbox()
        let folder = box.root + "/remote"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        box.ok("remote", "set", "dir:" + folder)
        box.ok("check", "Water")
        let waiting = try object(box.ok("status", "--waybar"))
        XCTAssertEqual(waiting["text"] as? String, "✓1/3 ↑1")
        XCTAssertEqual((waiting["tooltip"] as? String)?.split(separator: "\n").last, "Sync: 1 operation waiting to be sent")
        try FileManager.default.removeItem(atPath: folder)
        XCTAssertNotEqual(box.run("sync").status, 0)
        let failed = try object(box.ok("status", "--waybar"))
        XCTAssertEqual(failed["class"] as? [String], ["due", "failed"])
        let last = try XCTUnwrap((failed["tooltip"] as? String)?.split(separator: "\n").last.map(String.init))
        XCTAssertEqual(last, "Sync failed: remote folder \(folder) does not exist; create it or fix 'habitto remote set'")
    }

    func testI3blocksGetsFullTextShortTextAndColour() throws {
        let box = sandbox()
        XCTAssertEqual(box.ok("status", "--i3blocks"), "✓1/3\n1/3\n\n", "due: the bar's own colour")
        box.ok("check", "Water", "--amount", "8")
        box.ok("check", "<b>Tea & cake</b>")
        XCTAssertEqual(box.ok("status", "--i3blocks", "--format", "%g %d"), "✓ 3\n3/3\n#8AE234\n")
        box.extraEnv["LANG"] = "C"
        XCTAssertEqual(box.ok("status", "--i3blocks"), "+3/3\n3/3\n#8AE234\n", "ASCII under a non-UTF-8 locale")
    }

    func testWithNoDataYetNothingIsDueAndNothingIsCreated() throws {
        let box = Sandbox(inProcess: true)
        let o = try object(box.ok("status", "--waybar"))
        XCTAssertEqual(o["text"] as? String, "✓0/0")
        XCTAssertEqual(o["tooltip"] as? String, "Nothing due today")
        XCTAssertEqual(o["class"] as? [String], ["done"])
        XCTAssertEqual(box.ok("status", "--i3blocks"), "✓0/0\n0/0\n#8AE234\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: box.home), "a bar's question created the data directory")
    }

    func testBadCombinationsAreRefusedInOneLine() {
        let box = sandbox()
        for (args, text) in [(["--waybar", "--i3blocks"], "--waybar and --i3blocks contradict each other; give one"),
                             (["--waybar", "--json"], "--json and --waybar contradict each other; give one"),
                             (["--watch", "--json"], "--json and --watch contradict each other; give one")] {
            let r = box.run(["status"] + args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertEqual(r.stderr, "habitto: \(text)\n")
            XCTAssertEqual(r.stdout, "")
        }
        let bad = box.run(["status", "--waybar", "--format", "%z"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.hasPrefix("habitto: "), bad.stderr)
        XCTAssertEqual(bad.stderr.filter { $0 == "\n" }.count, 1)
    }

    /// `--watch` prints again when the data change, from another process, and only when what
    /// it prints changes; woken by the data directory's changes, not by a poll.
    func testWatchPrintsANewLineWhenAnotherProcessChangesTheData() throws {
        let box = Sandbox()
        box.ok("add", "Read")
        box.ok("add", "Water")
        let (p, tag) = try box.start(["status", "--watch", "--waybar"])
        defer { if p.isRunning { p.terminate() }; _ = box.finish(p, tag) }
        func lines(_ n: Int) -> [String] {
            let deadline = Date().addingTimeInterval(10)
            var got: [String] = []
            repeat {
                let text = (try? String(contentsOfFile: tag + ".out", encoding: .utf8)) ?? ""
                got = text.split(separator: "\n").map(String.init)
                if got.count >= n { break }
                usleep(10_000)
            } while Date() < deadline && p.isRunning
            return got
        }
        let first = try object(try XCTUnwrap(lines(1).first, "no first line"))
        XCTAssertEqual(first["percentage"] as? Int, 0)
        box.ok("check", "Read")
        XCTAssertEqual(lines(2).count, 2, "no line after the first check-in")
        // A change that leaves the line as it was prints nothing; the next one prints (changes
        // close together are read once, so each step waits for the line before).
        box.ok("note", "Read", "a good one")
        box.ok("check", "Water")
        let all = lines(3)
        XCTAssertEqual(try all.map { try object($0)["percentage"] as? Int }, [0, 50, 100])
        XCTAssertEqual(try all.last.map { try object($0)["class"] as? [String] }, ["done"])
        XCTAssertTrue(p.isRunning, "the watch ended")
    }

    /// In a persistent i3blocks block (`interval=persist`, `format=json`) each update is one
    /// JSON object with i3bar's keys.
    func testWatchingForI3blocksPrintsOneObjectAnUpdate() throws {
        let box = Sandbox()
        box.ok("add", "Read")
        let (p, tag) = try box.start(["status", "--watch", "--i3blocks"])
        defer { if p.isRunning { p.terminate() }; _ = box.finish(p, tag) }
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.hasSuffix("\n") && Date() < deadline && p.isRunning {
            text = (try? String(contentsOfFile: tag + ".out", encoding: .utf8)) ?? ""
            usleep(10_000)
        }
        let o = try object(text)
        XCTAssertEqual(o["full_text"] as? String, "✓0/1")
        XCTAssertEqual(o["short_text"] as? String, "0/1")
        XCTAssertNil(o["color"], "due: no colour of its own")
    }
}
