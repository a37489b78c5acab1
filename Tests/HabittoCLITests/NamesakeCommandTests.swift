import Foundation
import XCTest

/// Two devices that each added "Walk" merge into two habits named Walk: every command that
/// takes a habit refuses that name (listing both), an id picks one, and the doctor names them.
final class NamesakeCommandTests: XCTestCase {
    var a: Sandbox!
    var b: Sandbox!
    var folder: String!
    var ids: [String] = []

    override func setUp() {
        a = Sandbox(inProcess: true)
        b = Sandbox(inProcess: true)
        folder = a.root + "/remote"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        a.ok("add", "Walk", "--start", "2026-11-01")
        b.ok("add", "Walk", "--start", "2026-11-05", "--group", "Health")
        a.ok("remote", "set", "dir:" + folder)
        b.ok("remote", "set", "dir:" + folder)
        a.ok("sync")
        let list = (try? JSONSerialization.jsonObject(with: Data(a.ok("list", "--all", "--json").utf8))) as? [[String: Any]] ?? []
        ids = list.filter { $0["name"] as? String == "Walk" }.compactMap { $0["id"] as? String }
    }

    override func tearDown() { a = nil; b = nil }

    func testEveryCommandThatTakesAHabitRefusesASharedNameAndChangesNothing() {
        XCTAssertEqual(ids.count, 2, "the merge keeps both habits")
        let journal = a.journalBytes()
        let commands: [[String]] = [
            ["check", "Walk"], ["uncheck", "Walk"], ["show", "Walk"], ["skip", "Walk"], ["unskip", "Walk"],
            ["note", "Walk", "hi"], ["rate", "Walk", "3"], ["edit", "Walk", "--goal", "2"], ["archive", "Walk"],
            ["delete", "Walk", "--yes"], ["move", "Walk", "--top"], ["show", "Walk", "--chart", "history"], ["check", "walk"],
        ]
        for args in commands {
            let r = a.run(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            let err = r.stderr
            XCTAssertEqual(err.split(separator: "\n").count, 1, "one line: \(err)")
            for id in ids { XCTAssertTrue(err.contains("id \(id)"), "\(args) names \(id): \(err)") }
            XCTAssertTrue(err.contains("(no group, from 2026-11-01)") && err.contains("(group Health, from 2026-11-05)"), err)
        }
        XCTAssertEqual(a.journalBytes(), journal, "nothing was written")
    }

    func testAnIdOrAPrefixOfItPicksOneOfTheNamesakes() throws {
        XCTAssertEqual(ids.count, 2)
        let list = (try? JSONSerialization.jsonObject(with: Data(a.ok("list", "--all", "--json").utf8))) as? [[String: Any]] ?? []
        let health = try XCTUnwrap(list.first { $0["group"] as? String == "Health" }?["id"] as? String)
        a.ok("check", health, "--date", "2026-11-20")
        let other = try XCTUnwrap(ids.first { $0 != health })
        let prefix = (4...16).map { String(other.prefix($0)) }.first { !health.hasPrefix($0) }!
        a.ok("check", prefix, "--date", "2026-11-19")
        // The list names each with the id prefix that picks it.
        let table = a.ok("list", "--all")
        for id in ids { XCTAssertTrue(table.contains("Walk #\(id.prefix(4))"), table) }
        let shown = a.ok("show", health, "--json")
        XCTAssertTrue(shown.contains("2026-11-20"), shown)
    }

    func testDoctorNamesTheNamesakesWithARenameThatPartsThem() throws {
        XCTAssertEqual(ids.count, 2)
        let r = a.run("doctor")
        XCTAssertEqual(r.status, 5, r.stdout + r.stderr)
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("problem: names:") }.map(String.init))
        XCTAssertTrue(line.hasPrefix("problem: names: 2 habits are named 'Walk' ("), line)
        let rename = try XCTUnwrap(line.range(of: "rename all but one: ").map { String(line[$0.upperBound...]) })
        // The suggested command works as printed: run it, and the name is one habit's again.
        let words = rename.split(separator: " ", maxSplits: 4).map(String.init)
        XCTAssertEqual(Array(words.prefix(2)), ["habitto", "edit"])
        XCTAssertEqual(words[3], "--name")
        XCTAssertEqual(words[4], "'Walk 2'")
        a.ok("edit", words[2], "--name", "Walk 2")
        XCTAssertTrue(a.ok("doctor").contains("ok: names: every habit has a name of its own\n"))
        a.ok("check", "Walk", "--date", "2026-11-20")
        a.ok("check", "Walk 2", "--date", "2026-11-20")
    }

    func testGraphNamesEachNamesakesRowWithTheTagThatPicksIt() throws {
        XCTAssertEqual(ids.count, 2)
        let graph = a.ok("graph", "--weeks", "3")
        let rows = graph.split(separator: "\n").filter { $0.hasPrefix("Walk") }
        XCTAssertEqual(rows.count, 2, graph)
        // Each row's tag is the id prefix that picks the habit, as list shows it.
        let table = a.ok("list", "--all")
        for id in ids {
            let other = try XCTUnwrap(ids.first { $0 != id })
            let tag = try XCTUnwrap((4...16).map { String(id.prefix($0)) }.first { !other.hasPrefix($0) })
            XCTAssertEqual(rows.filter { $0.hasPrefix("Walk #\(tag) ") }.count, 1, graph)
            XCTAssertTrue(table.contains("Walk #\(tag) "), table)
            a.ok("show", tag)
        }
        XCTAssertNotEqual(rows[0].prefix(11), rows[1].prefix(11), "two rows told apart")
        // A chart of one names it with its tag too.
        for id in ids {
            let chart = a.ok("show", id, "--chart", "score")
            XCTAssertTrue(chart.hasPrefix("Score of 'Walk #\(id.prefix(4))"), chart)
        }
    }

    func testAskNamesEachNamesakeWithItsTag() throws {
        XCTAssertEqual(ids.count, 2)
        let session = try AskSession(a, ["ask", "--days", "1"])
        // Yesterday and today for each (both started before): four prompts, each with a tag.
        for n in 1...4 {
            session.waitFor("enter] ", count: n)
            session.type("\n")
        }
        XCTAssertEqual(session.finish(), 0, session.transcript)
        let t = session.transcript
        for id in ids {
            let other = try XCTUnwrap(ids.first { $0 != id })
            let tag = try XCTUnwrap((4...16).map { String(id.prefix($0)) }.first { !other.hasPrefix($0) })
            XCTAssertTrue(t.contains("today · Walk #\(tag) [y n s 1-5 enter]"), t)
        }
        XCTAssertFalse(t.contains("· Walk ["), "no untagged Walk: \(t)")
    }
}
