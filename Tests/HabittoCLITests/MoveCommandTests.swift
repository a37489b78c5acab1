import Foundation
import XCTest

/// `habitto move`: the order of habits, kept by every command that lists them.
final class MoveCommandTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        for name in ["Read", "Walk", "Water", "Stretch"] { box.ok("add", name) }
    }

    override func tearDown() { box = nil }

    private func order(_ extra: [String] = ["--all"], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        let r = box.run(["list", "--json"] + extra, file: file, line: line)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let list = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [[String: Any]] ?? []
        return list.compactMap { $0["name"] as? String }
    }

    func testEachFlagMovesTheHabitAndListShowsTheOrder() {
        XCTAssertEqual(order(), ["Read", "Walk", "Water", "Stretch"], "creation order before any move")
        XCTAssertEqual(box.ok("move", "Stretch", "--top"), "Moved 'Stretch': now first ('habitto undo' takes it back)\n")
        XCTAssertEqual(order(), ["Stretch", "Read", "Walk", "Water"])
        XCTAssertEqual(box.ok("move", "Read", "--bottom"), "Moved 'Read': now last, after 'Water' ('habitto undo' takes it back)\n")
        XCTAssertEqual(order(), ["Stretch", "Walk", "Water", "Read"])
        XCTAssertEqual(box.ok("move", "Water", "--before", "Stretch"), "Moved 'Water': now first ('habitto undo' takes it back)\n")
        XCTAssertEqual(order(), ["Water", "Stretch", "Walk", "Read"])
        XCTAssertEqual(box.ok("move", "wat", "--after", "walk"), "Moved 'Water': now after 'Walk' ('habitto undo' takes it back)\n")
        XCTAssertEqual(order(), ["Stretch", "Walk", "Water", "Read"])
        // The plain list, show's neighbours aside, and the export follow it too.
        let lines = box.ok("list").split(separator: "\n").dropFirst().map { String($0) }
        XCTAssertEqual(lines.map { $0.contains("Stretch") }, [true, false, false, false])
        XCTAssertTrue(lines[3].contains("Read"))
        let export = try? JSONSerialization.jsonObject(with: Data(box.ok("export").utf8)) as? [String: Any]
        let habits = export?["habits"] as? [[String: Any]] ?? []
        XCTAssertEqual(habits.compactMap { $0["name"] as? String }, ["Stretch", "Walk", "Water", "Read"])
        XCTAssertTrue(habits.allSatisfy { $0["position"] is String }, "every habit carries its key")
    }

    func testOneUndoTakesAWholeMoveBack() {
        box.ok("move", "Water", "--after", "Stretch") // writes keys for the four habits at once
        XCTAssertEqual(order(), ["Read", "Walk", "Stretch", "Water"])
        XCTAssertEqual(box.ok("undo"), "Undid: move 'Water'\n")
        XCTAssertEqual(order(), ["Read", "Walk", "Water", "Stretch"])
    }

    func testAMoveToWhereItIsSaysSoAndWritesNothing() {
        let journal = box.journalBytes()
        XCTAssertEqual(box.ok("move", "Read", "--top"), "'Read' is already there (first); nothing changed\n")
        XCTAssertEqual(box.ok("move", "Walk", "--after", "Read"), "'Walk' is already there (after 'Read'); nothing changed\n")
        XCTAssertEqual(box.journalBytes(), journal)
    }

    func testBadMovesGiveOneLineAndTheirExitCodeAndChangeNothing() {
        box.ok("archive", "Walk")
        let journal = box.journalBytes()
        let cases: [([String], Int32, String)] = [
            (["move", "Read"], 2, "move needs where to: give exactly one of --before OTHER, --after OTHER, --top, --bottom"),
            (["move", "Read", "--top", "--bottom"], 2, "--top and --bottom contradict each other"),
            (["move", "Read", "--before", "Water", "--after", "Water"], 2, "--before and --after contradict each other"),
            (["move", "Read", "--before"], 2, "--before needs a value"),
            (["move", "Read", "--top=yes"], 2, "--top takes no value"),
            (["move"], 2, "missing HABIT"),
            (["move", "Nope", "--top"], 1, "no habit matches 'Nope'"),
            (["move", "Read", "--after", "Nope"], 1, "no habit matches 'Nope'"),
            (["move", "Read", "--before", "read"], 1, "'Read' cannot be moved before or after itself: name another habit"),
        ]
        for (args, code, fragment) in cases {
            let r = box.run(args)
            XCTAssertEqual(r.status, code, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(fragment), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): one line")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
        XCTAssertEqual(box.journalBytes(), journal)
    }

    func testArchivedHabitsKeepTheirPlaceAndCanBeMovedAndNamed() {
        box.ok("archive", "Walk")
        box.ok("move", "Stretch", "--after", "Walk")
        XCTAssertEqual(order(), ["Read", "Walk", "Stretch", "Water"])
        XCTAssertEqual(order([]), ["Read", "Stretch", "Water"], "the plain list leaves the archived habit out")
        box.ok("move", "Walk", "--top")
        box.ok("unarchive", "Walk")
        XCTAssertEqual(order([]), ["Walk", "Read", "Stretch", "Water"])
    }

    func testExportImportKeepsTheOrder() throws {
        box.ok("move", "Stretch", "--top")
        box.ok("move", "Read", "--after", "Water")
        let path = box.root + "/export.json"
        box.ok("export", "--output", path)
        let other = Sandbox(inProcess: true)
        other.ok("import", "--from", "json", path)
        XCTAssertEqual(other.ok("export"), box.ok("export"))
        let list = other.json("list", "--all", "--json") as? [[String: Any]] ?? []
        XCTAssertEqual(list.compactMap { $0["name"] as? String }, ["Stretch", "Walk", "Water", "Read"])
    }

    func testHelpListsMove() {
        XCTAssertTrue(box.ok("--help").contains("\n  move HABIT "))
        let help = box.ok("move", "--help")
        XCTAssertTrue(help.contains("Usage: habitto move HABIT [--before OTHER] [--after OTHER] [--top] [--bottom]"), help)
        XCTAssertTrue(help.contains("exactly one of"), help)
    }

    func testArchivingAnArchivedHabitSaysWhatToDo() {
        box.ok("archive", "Walk")
        let r = box.run("archive", "Walk")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "habitto: 'Walk' is already archived (from 2026-11-21); 'habitto unarchive' tracks it again\n")
    }
}
