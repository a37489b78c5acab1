import Foundation
import XCTest
import SyncTestKit

/// Issue 41, point 4: `habitto pause`, its checks, `--end`, undo, and what `list`, `show`
/// and their JSON say of paused days.
final class PauseCommandTests: XCTestCase {
    /// Read and Walk (group Health), from the 1st; Read done on the 1st to the 3rd; today the 6th.
    private func box() -> Sandbox {
        let box = Sandbox(inProcess: true)
        box.now = "2026-12-01T09:00:00"
        box.ok("add", "Read")
        box.ok("add", "Walk", "--group", "Health")
        for d in ["2026-12-01", "2026-12-02", "2026-12-03"] {
            box.now = d + "T20:00:00"
            box.ok("check", "Read")
        }
        box.now = "2026-12-06T09:00:00"
        return box
    }

    func testAPauseOverTheDaysMissedKeepsTheStreakAndIsMarked() {
        let box = box()
        XCTAssertEqual(box.ok("pause", "Read", "--from", "2026-12-04", "--to", "2026-12-10", "--reason", "beach trip"),
                       "Paused 'Read' 2026-12-04 to 2026-12-10 (7 days): those days neither count nor break a streak\n")
        let list = box.ok("list")
        XCTAssertTrue(list.contains("‖    Read      0/1       streak 3 d     strength 15%"), list)
        XCTAssertTrue(box.ok("list", "--ascii").contains("& Read"))
        let show = box.ok("show", "Read").split(separator: "\n").map(String.init)
        XCTAssertTrue(show.contains("  today: 0/1 (paused) · streak 3 days, best 3 · strength 15%"), "\(show)")
        XCTAssertTrue(show.contains("  paused: 2026-12-04 to 2026-12-10 (beach trip)"), "\(show)")
        XCTAssertTrue(show.contains("  last 6 days (oldest first): ✓✓✓‖‖‖"), "\(show)")
        XCTAssertEqual(show.last, "    ‖ paused")
        XCTAssertEqual(box.listEntry("Read")?["paused"] as? Bool, true)
        XCTAssertEqual(box.listEntry("Read")?["skipped"] as? Bool, true, "a paused day is a skipped day")
        XCTAssertEqual(box.listEntry("Walk")?["paused"] as? Bool, false)
        let shown = box.json("show", "Read", "--json") as? [String: Any]
        let history = shown?["history"] as? [[String: Any]] ?? []
        XCTAssertEqual(history.map { $0["paused"] as? Bool }, [false, false, false, true, true, true])
        let pauses = shown?["pauses"] as? [[String: Any]] ?? []
        XCTAssertEqual(pauses.count, 1)
        XCTAssertEqual(pauses.first?["from"] as? String, "2026-12-04")
        XCTAssertEqual(pauses.first?["to"] as? String, "2026-12-10")
        XCTAssertEqual(pauses.first?["reason"] as? String, "beach trip")
    }

    func testEndEndsTheCurrentPauseAtYesterdayAndUndoBringsItBack() {
        let box = box()
        box.ok("pause", "Read", "--from", "2026-12-04", "--to", "2026-12-10")
        XCTAssertEqual(box.ok("pause", "Read", "--end"),
                       "Ended the pause of 'Read': 2026-12-06 to 2026-12-10 are no longer paused\n")
        XCTAssertEqual(box.listEntry("Read")?["paused"] as? Bool, false)
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-12-05"])?["paused"] as? Bool, true, "yesterday stays paused")
        XCTAssertEqual(box.ok("undo"), "Undid: end the pause of 'Read' from 2026-12-06 to 2026-12-10\n")
        XCTAssertEqual(box.listEntry("Read")?["paused"] as? Bool, true)
        XCTAssertEqual(box.ok("undo"), "Undid: pause 'Read' from 2026-12-04 to 2026-12-10\n")
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-12-05"])?["paused"] as? Bool, false)
    }

    func testAGroupOrEveryHabitIsPausedInOneCommandAndOneUndo() {
        let box = box()
        XCTAssertEqual(box.ok("pause", "--group", "health", "--from", "tomorrow", "--to", "+3"),
                       "Paused 'Walk' 2026-12-07 to 2026-12-09 (3 days): those days neither count nor break a streak\n")
        XCTAssertEqual(box.ok("pause", "--all", "--from", "tomorrow", "--to", "+3"),
                       "Paused 1 habit of 2 2026-12-07 to 2026-12-09 (3 days): those days neither count nor break a streak\n",
                       "Walk was paused so already")
        XCTAssertEqual(box.ok("pause", "--all", "--from", "tomorrow", "--to", "+3"),
                       "2 habits are already paused 2026-12-07 to 2026-12-09 (3 days): nothing changed\n")
        XCTAssertEqual(box.ok("pause", "--all", "--end"), "Ended the pauses of 2 habits\n", "a pause to come is called off")
        XCTAssertEqual(box.ok("undo"), "Undid: end the pauses of 2 habits\n")
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-12-08"])?["paused"] as? Bool, true)
        XCTAssertEqual(box.listEntry("Walk", ["--date", "2026-12-08"])?["paused"] as? Bool, true, "one undo for both")
    }

    func testBadInputIsOneLineAndWritesNothing() {
        let box = box()
        let before = box.journalBytes()
        let cases: [([String], Int32, String)] = [
            (["pause", "Read", "--from", "2026-12-10", "--to", "2026-12-01"], 1,
             "habitto: a pause cannot end (2026-12-01) before it starts (2026-12-10)\n"),
            (["pause", "Read", "--to", "2028-01-01"], 1, "habitto: a pause of 392 days is too long: one pause covers at most 366 days\n"),
            (["pause", "Read", "--from", "soon", "--to", "+2"], 1,
             "habitto: invalid date 'soon': use YYYY-MM-DD (1900 to 9999), today, yesterday, tomorrow, -N or +N days from today, or a weekday such as mon (the latest, today included)\n"),
            (["pause", "Read", "--to", "+2", "--reason", String(repeating: "x", count: 81)], 1, "habitto: a pause's reason must be 1 to 80 characters\n"),
            (["pause", "Read"], 2, "habitto: pause needs --to DATE, its last day (--from is today unless given); 'habitto pause HABIT --end' ends one\n"),
            (["pause", "--to", "+2"], 2, "habitto: pause needs the habits to pause: give one of HABIT, --group NAME or --all\n"),
            (["pause", "Read", "--all", "--to", "+2"], 2, "habitto: HABIT, --group and --all contradict each other: give one of HABIT, --group NAME or --all\n"),
            (["pause", "Read", "--end", "--to", "+2"], 2, "habitto: --end ends the current or next pause as it is: give no --from, --to or --reason with it\n"),
            (["pause", "Read", "--end"], 1, "habitto: 'Read' has no pause on or after 2026-12-06 to end\n"),
            (["pause", "--group", "Work", "--to", "+2"], 1, "habitto: no habit is in the group 'Work'; 'habitto list --all' shows the groups\n"),
            (["pause", "Nope", "--to", "+2"], 1, "habitto: no habit matches 'Nope'; 'habitto list --all' shows them all\n"),
        ]
        for (args, status, message) in cases {
            let r = box.run(args)
            XCTAssertEqual(r.status, status, "\(args)")
            XCTAssertEqual(r.stderr, message, "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
        XCTAssertEqual(box.journalBytes(), before, "nothing written")
    }

    func testEveryShellCompletesThePauseCommandAndItsOptions() {
        let box = box()
        for shell in ["bash", "zsh", "fish"] {
            let script = box.ok("completions", shell)
            // fish names an option without its dashes (`-l reason`).
            for word in ["pause", "reason", "end", "from", "to"] {
                XCTAssertTrue(script.contains(shell == "fish" ? " \(word)" : "--\(word)") || word == "pause" && script.contains(word),
                              "\(shell) lacks \(word)")
            }
        }
    }

    func testAnExportImportsWithItsPausesAndARestoreBringsAPauseBack() throws {
        let box = box()
        box.ok("pause", "Read", "--from", "2026-12-04", "--to", "2026-12-08", "--reason", "trip")
        box.ok("pause", "Walk", "--from", "2026-12-20", "--to", "2026-12-21")
        let exported = box.ok("export")
        XCTAssertTrue(exported.contains("\"paused\": true"), exported)
        XCTAssertTrue(exported.contains("\"pauseReason\": \"trip\""), exported)
        let other = try box.importing(exported)
        XCTAssertEqual(other.ok("export"), exported, "the pauses, their reasons and the days around them come back")
        XCTAssertEqual(other.listEntry("Walk", ["--date", "2026-12-21"])?["paused"] as? Bool, true, "a pause to come too")

        box.ok("backup", "create")
        let backups = box.json("backup", "list", "--json") as? [[String: Any]] ?? []
        let id = try XCTUnwrap(backups.first?["id"] as? String)
        box.ok("pause", "Read", "--end")
        XCTAssertEqual(box.listEntry("Read")?["paused"] as? Bool, false)
        box.ok("backup", "restore", id, "--replace")
        XCTAssertEqual(box.listEntry("Read")?["paused"] as? Bool, true)
        XCTAssertEqual(box.listEntry("Read")?["skipped"] as? Bool, true)
        XCTAssertEqual(box.ok("export"), exported, "restored as paused days, not as skips")
    }

    func testTheGraphMarksPausedDaysAndNamesTheMarkOnlyThen() {
        let box = box()
        XCTAssertFalse(box.ok("graph", "--weeks", "1").contains("paused"), "no paused day, no legend for one")
        box.ok("pause", "Read", "--from", "2026-12-04", "--to", "2026-12-05")
        let graph = box.ok("graph", "--weeks", "1").split(separator: "\n").map(String.init)
        XCTAssertTrue(graph.contains { $0.hasPrefix("Read ") && $0.hasSuffix("███‖‖○") }, "\(graph)")
        XCTAssertTrue(graph.contains { $0.contains("~ skipped  ‖ paused  · not due") }, "\(graph)")
        let ascii = box.ok("graph", "--weeks", "1", "--ascii").split(separator: "\n").map(String.init)
        XCTAssertTrue(ascii.contains { $0.hasPrefix("Read ") && $0.hasSuffix("###&&*") }, "\(ascii)")
    }
}
