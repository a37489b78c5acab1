import Foundation
import XCTest

/// `Tests/Fixtures/format-before-definitions`: a data directory (journal, snapshot, backup)
/// written by the version before definition histories, with what it printed.
private let beforeDefinitions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/format-before-definitions").path

/// `edit --from`: a new goal, unit, kind or schedule counts from a day, and what was earned
/// before stays; undo, export and import keep the history; data written before it reads as it did.
final class DefinitionHistoryCommandTests: XCTestCase {
    /// Water, goal 8 glasses from 1 November, 9 glasses on each of the nine days before
    /// "now" (Tuesday 10 November).
    private func waterBox() -> Sandbox {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-01T08:00:00"
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses", "--start", "2026-11-01")
        box.now = "2026-11-10T09:00:00"
        for d in 1...9 { box.ok("check", "Water", "--amount", "9", "--date", String(format: "2026-11-%02d", d)) }
        return box
    }

    private func figures(_ box: Sandbox, _ name: String = "Water", file: StaticString = #filePath, line: UInt = #line) -> [String] {
        let s = box.json("show", name, "--json", file: file, line: line) as? [String: Any] ?? [:]
        return ["streak \(s["streak"] ?? "-")", "best \(s["bestStreak"] ?? "-")", "strength \(s["strength"] ?? "-")",
                "xp \(box.stat("xp", file: file, line: line) ?? -1)"]
    }

    func testEditingTheGoalCountsFromTodayAndKeepsStreakStrengthAndXP() {
        let box = waterBox()
        let before = figures(box)
        XCTAssertEqual(before[0], "streak 9")
        let out = box.ok("edit", "Water", "--goal", "10")
        XCTAssertTrue(out.contains("the change counts from 2026-11-10, earlier days keep what they had"), out)
        XCTAssertEqual(figures(box), before, "a raised goal takes nothing earned away")
        XCTAssertEqual(box.listEntry("Water")?["goal"] as? Int, 10)
        XCTAssertEqual(box.listEntry("Water", ["--date", "2026-11-09"])?["completed"] as? Bool, true)
        // From the start: every day is judged by the new goal (a correction).
        box.ok("edit", "Water", "--goal", "10", "--from", "start")
        XCTAssertEqual(figures(box), ["streak 0", "best 0", "strength 0", "xp 0"])
        // Undo takes each edit back in turn.
        XCTAssertTrue(box.ok("undo").contains("edit 'Water'"))
        XCTAssertEqual(figures(box), before)
        box.ok("undo")
        XCTAssertEqual(box.listEntry("Water")?["goal"] as? Int, 8)
        let show = box.ok("show", "Water")
        XCTAssertFalse(show.contains("earlier:"), show)
    }

    /// Issue 39.2: a `--from` before the start is from the start, and the message says so
    /// and names the dated definition it replaces; a dated edit before another says which.
    func testAnEditFromBeforeTheStartSaysItCountsOnEveryDayAndWhatItReplaces() throws {
        let box = waterBox()
        XCTAssertTrue(box.ok("edit", "Water", "--goal", "12", "--from", "2026-11-05")
            .hasSuffix("the change counts from 2026-11-05, earlier days keep what they had\n"))
        XCTAssertEqual(box.ok("edit", "Water", "--goal", "11", "--from", "2026-11-03"),
                       "Updated 'Water' (at least 11 glasses a day, daily, from 2026-11-01); the change counts from "
                       + "2026-11-03, earlier days keep what they had, replacing the definition from 2026-11-05\n")
        XCTAssertEqual(box.ok("edit", "Water", "--goal", "13", "--from", "2026-10-20"),
                       "Updated 'Water' (at least 13 glasses a day, daily, from 2026-11-01); --from 2026-10-20 is before the "
                       + "start, so the change counts on every day from the start 2026-11-01, replacing the definition from "
                       + "2026-11-03, 2026-11-05\n")
        XCTAssertFalse(box.ok("show", "Water").contains("earlier:"), "every day at 13: no earlier definition")
        XCTAssertEqual(box.listEntry("Water", ["--date", "2026-11-02"])?["goal"] as? Int, 13)
        box.ok("undo")
        XCTAssertEqual(box.ok("edit", "Water", "--goal", "9", "--from", "start"),
                       "Updated 'Water' (at least 9 glasses a day, daily, from 2026-11-01); the change counts on every day "
                       + "from the start 2026-11-01, replacing the definition from 2026-11-03, 2026-11-05\n")
    }

    /// Issue 39.14: undoing a dated edit and the edit before it leaves the definition the
    /// habit had before both (the reported cases: a later dated edit, and one after a
    /// correction from the start).
    func testUndoingTwoEditsInTurnGivesBackTheFirstDefinition() {
        for (first, second) in [(["--goal", "10", "--from", "2026-11-05"], ["--goal", "12", "--from", "2026-11-08"]),
                                (["--goal", "10", "--from", "start"], ["--goal", "12", "--from", "2026-11-05"])] {
            let box = waterBox()
            XCTAssertEqual(box.run(["edit", "Water"] + first).status, 0)
            XCTAssertEqual(box.run(["edit", "Water"] + second).status, 0)
            box.ok("undo")
            box.ok("undo")
            XCTAssertFalse(box.ok("show", "Water").contains("earlier:"), "\(first) \(second)")
            for d in ["2026-11-02", "2026-11-06", "2026-11-09"] {
                XCTAssertEqual(box.listEntry("Water", ["--date", d])?["goal"] as? Int, 8, "\(first) \(second) on \(d)")
            }
        }
    }

    func testEditFromAPastDayJudgesTheDaysFromItByTheNewGoal() throws {
        let box = waterBox()
        box.ok("edit", "Water", "--goal", "12", "--from", "2026-11-05")
        let show = try XCTUnwrap(box.json("show", "Water", "--json") as? [String: Any])
        let history = try XCTUnwrap(show["history"] as? [[String: Any]])
        XCTAssertEqual(history.prefix(9).map { $0["completed"] as? Bool }, [true, true, true, true, false, false, false, false, false])
        XCTAssertEqual(show["streak"] as? Int, 0)
        XCTAssertEqual(show["bestStreak"] as? Int, 4)
        let definitions = try XCTUnwrap(show["definitions"] as? [[String: Any]])
        XCTAssertEqual(definitions.map { $0["goal"] as? Int }, [8, 12])
        XCTAssertEqual(definitions.map { $0["from"] as? String }, [nil, "2026-11-05"])
        XCTAssertTrue(box.ok("show", "Water").contains("earlier: build, at least 8 glasses a day, daily until 2026-11-04"))
        // Yesterday and today name days too.
        box.ok("edit", "Water", "--unit", "cups", "--from", "yesterday")
        XCTAssertEqual(box.listEntry("Water", ["--date", "2026-11-08"])?["unit"] as? String, "glasses")
        XCTAssertEqual(box.listEntry("Water", ["--date", "2026-11-09"])?["unit"] as? String, "cups")
    }

    func testAPastDefinitionThatWouldNotGoTogetherIsRefused() {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-20T09:00:00"
        box.ok("add", "Coffee", "--limit", "--goal", "2", "--start", "2026-11-01")
        box.ok("edit", "Coffee", "--build")
        let journal = box.journalBytes()
        // From the 10th to the 19th Coffee is still a limit habit: it cannot count per week.
        let r = box.run("edit", "Coffee", "--schedule", "3/week", "--from", "2026-11-10")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "habitto: a limit habit cannot use an N/week schedule: use daily, weekdays or chosen days (the definition from 2026-11-10)\n")
        XCTAssertEqual(box.journalBytes(), journal)
        box.ok("edit", "Coffee", "--schedule", "3/week")
        XCTAssertEqual(box.listEntry("Coffee", ["--date", "2026-11-12"])?["kind"] as? String, "limit")
        XCTAssertEqual(box.listEntry("Coffee", ["--date", "2026-11-12"])?["schedule"] as? String, "daily")
    }

    func testABadFromIsOneLineExitTwoAndChangesNothing() {
        let box = waterBox()
        let journal = box.journalBytes()
        for (args, says) in [(["--goal", "10", "--from", "soon"], "invalid --from 'soon'"),
                             (["--goal", "10", "--from", "2026-11-11"], "is in the future"),
                             (["--goal", "10", "--from", "2026-02-30"], "invalid --from"),
                             (["--name", "Drink", "--from", "2026-11-03"], "--from goes with --goal")] {
            let r = box.run(["edit", "Water"] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
            XCTAssertEqual(r.stdout, "")
        }
        XCTAssertEqual(box.journalBytes(), journal, "nothing was written")
    }

    func testExportAndImportCarryTheDefinitions() throws {
        let box = waterBox()
        box.ok("edit", "Water", "--goal", "12", "--schedule", "3/week", "--from", "2026-11-05")
        let export = box.ok("export")
        XCTAssertTrue(export.contains("\"definitions\""), export)
        let other = try box.importing(export)
        XCTAssertEqual(figures(other), figures(box))
        XCTAssertEqual(other.ok("export"), export, "the import holds the same definitions")
        XCTAssertEqual(other.listEntry("Water", ["--date", "2026-11-04"])?["schedule"] as? String, "daily")
    }

    /// Two devices each change the goal from another day without seeing the other's edit;
    /// after syncing through a folder both read the same definitions: each from its day.
    func testConcurrentEditsFromDifferentDaysSyncToTheSameDefinitions() throws {
        let a = waterBox()
        let b = Sandbox(inProcess: true)
        b.now = a.now
        let folder = a.root + "/remote"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        a.ok("remote", "set", "dir:" + folder)
        b.ok("remote", "set", "dir:" + folder)
        a.ok("edit", "Water", "--goal", "10", "--from", "2026-11-04")
        b.now = "2026-11-10T09:00:05"
        b.ok("edit", "Water", "--goal", "12", "--from", "2026-11-07")
        for box in [a, b, a] { box.ok("sync") }
        XCTAssertEqual(a.ok("export"), b.ok("export"))
        let show = try XCTUnwrap(b.json("show", "Water", "--json") as? [String: Any])
        let definitions = try XCTUnwrap(show["definitions"] as? [[String: Any]])
        XCTAssertEqual(definitions.map { $0["goal"] as? Int }, [8, 10, 12])
        XCTAssertEqual(definitions.map { $0["from"] as? String }, [nil, "2026-11-04", "2026-11-07"])
        XCTAssertEqual(show["bestStreak"] as? Int, 3, "the first three days met 8 glasses; 9 never met 10 or 12")
    }

    func testNPerMonthShowsTheMonthsQuota() throws {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-10T09:00:00"
        box.ok("add", "Call", "--schedule", "3/month", "--start", "2026-11-01")
        box.ok("check", "Call", "--date", "2026-11-03")
        let entry = try XCTUnwrap(box.listEntry("Call"))
        XCTAssertEqual(entry["weekDone"] as? Int, 1)
        XCTAssertEqual(entry["weekQuota"] as? Int, 3)
        XCTAssertEqual(entry["streakUnit"] as? String, "months")
        XCTAssertTrue(box.ok("list").contains("1/3 this mo"), box.ok("list"))
        let r = box.run("add", "Walk", "--schedule", "40/month")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("N/month needs a whole number N from 1 to 31"), r.stderr)
    }

    func testDataWrittenByThePreviousVersionReadsTheSameFigures() throws {
        let box = Sandbox(inProcess: true)
        try FileManager.default.copyItem(atPath: beforeDefinitions + "/home", toPath: box.home)
        box.now = "2026-11-20T09:00:00"
        func object(_ path: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: beforeDefinitions + "/" + path))) as? [String: Any])
        }
        let keys = ["streak", "bestStreak", "strength", "goal", "kind", "schedule", "unit", "weekDone", "weekQuota", "completed"]
        for name in ["Water", "Read", "Coffee", "Gym"] {
            let expected = try object("expected-show-\(name).json")
            let r = box.run("show", name, "--json")
            XCTAssertEqual(r.stderr, "", "the old snapshot is read as it is")
            let got = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            for key in keys { XCTAssertEqual("\(got[key] ?? "nil")", "\(expected[key] ?? "nil")", "\(name) \(key)") }
            let history = { (o: [String: Any]) in (o["history"] as? [[String: Any]] ?? []).map { "\($0["date"]!) \($0["completed"]!) \($0["progress"]!)" } }
            XCTAssertEqual(history(got), history(expected), name)
            XCTAssertNil(got["definitions"])
        }
        let stats = try object("expected-stats.json")
        let now = try XCTUnwrap(box.json("stats", "--json") as? [String: Any])
        for key in ["xp", "level", "perfectDays", "xpProvisional", "habits"] {
            XCTAssertEqual(now[key] as? Int, stats[key] as? Int, key)
        }
        // The previous version's backup verifies (its digest is of the state as encoded
        // then) and holds exactly this data.
        let restore = box.run("backup", "restore", "20261119-210001-manual", "--replace")
        XCTAssertEqual(restore.status, 0, restore.stderr)
        XCTAssertTrue(restore.stdout.contains("nothing to change"), restore.stdout)
        // The previous version's export imports to the same figures.
        let imported = Sandbox(inProcess: true)
        imported.now = box.now
        imported.ok("import", beforeDefinitions + "/expected-export.json", "--from", "json")
        for name in ["Water", "Read", "Coffee", "Gym"] {
            let a = try XCTUnwrap(imported.json("show", name, "--json") as? [String: Any])
            let b = try object("expected-show-\(name).json")
            for key in ["streak", "bestStreak", "strength", "goal"] { XCTAssertEqual("\(a[key] ?? "nil")", "\(b[key] ?? "nil")", "imported \(name) \(key)") }
        }
        // An edit on top of it counts from today and keeps the past.
        box.ok("edit", "Water", "--goal", "10")
        XCTAssertEqual(box.listEntry("Water", ["--date", "2026-11-19"])?["streak"] as? Int, 19)
    }
}
