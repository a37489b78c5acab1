import Foundation
import XCTest

final class CommandLineTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses", "--icon", "💧")
        box.ok("add", "Read")
        box.ok("add", "Walk", "--schedule", "weekdays")
        box.ok("add", "Sweets", "--limit", "--goal", "1")
    }

    override func tearDown() { box = nil }

    func testEveryCommandRejectsBadInputWithOneLineAndExitCodeAndChangesNothing() {
        box.ok("check", "Read")
        let before = box.ok("export")
        let journalBefore = box.journalBytes()
        // (arguments, expected exit code, a fragment of the message)
        let cases: [([String], Int32, String)] = [
            (["frobnicate"], 2, "unknown command"),
            (["list", "--nope"], 2, "unknown option"),
            (["add"], 2, "missing NAME"),
            (["add", "a", "b"], 2, "unexpected argument"),
            (["add", ""], 1, "empty"),
            (["add", " Read"], 1, "space"),
            (["add", String(repeating: "x", count: 65)], 1, "at most 64"),
            (["add", "Bad\u{1B}[31mname"], 1, "control character"),
            (["add", "Bell\u{7}"], 1, "control character"),
            (["add", "Two\nlines"], 1, "control character"),
            (["add", "Evil\u{202E}txt"], 1, "control character"),
            (["add", "Zero\u{200B}width"], 1, "invisible character"),
            (["add", "\u{3164}"], 1, "invisible character"),
            (["add", "X", "--icon", "\u{2800}"], 1, "invisible character"),
            (["add", "read"], 1, "already exists"),
            (["add", "X", "--goal", "0"], 1, "goal"),
            (["add", "X", "--goal", "many"], 1, "--goal"),
            (["add", "X", "--goal"], 2, "needs a value"),
            (["add", "X", "--schedule", "every:0"], 1, "every:N"),
            (["add", "X", "--schedule", "8/week"], 1, "N/week"),
            (["add", "X", "--schedule", "fortnightly"], 1, "schedule"),
            (["add", "X", "--schedule", "\u{1B}[2J\u{1B}]0;pwned\u{7}daily"], 1, "schedule"),
            (["add", "X", "--schedule", "every:\u{1B}[31m"], 1, "every:N"),
            (["add", "X", "--schedule", "\u{1B}[31m/week"], 1, "N/week"),
            (["add", "X", "--limit", "--schedule", "3/week"], 1, "limit habit"),
            (["add", "X", "--start", "2026-02-30"], 1, "invalid date"),
            (["add", "X", "--icon", "ab"], 1, "icon"),
            (["add", "X", "--color", "#12345"], 1, "color"),
            (["add", "X", "--unit", String(repeating: "u", count: 30)], 1, "unit"),
            (["edit", "Read"], 2, "at least one option"),
            (["edit", "Nope", "--goal", "2"], 1, "no habit matches"),
            (["edit", "Read", "--name", "drink water"], 1, "already exists"),
            (["edit", "Read", "--limit", "--build"], 2, "contradict"),
            (["archive", "Nope"], 1, "no habit matches"),
            (["unarchive", "Read"], 1, "not archived"),
            (["delete", "Read"], 2, "--yes"),
            (["delete", "Nope", "--yes"], 1, "no habit matches"),
            (["check"], 2, "missing HABIT"),
            (["check", "Nope"], 1, "no habit matches"),
            (["check", ""], 1, "no habit given"),
            (["check", "Dr"], 0, ""), // a unique prefix is fine; undone below (Read, yes/no, is done already)
            (["check", "Read", "--amount", "0"], 1, "--amount"),
            (["check", "Read", "--amount", "-1"], 1, "--amount"),
            (["check", "Read", "--amount", "1.2345"], 1, "more than 3 decimals"),
            (["check", "Read", "--amount", "1,5"], 1, "--amount"),
            (["add", "X", "--goal", "0.0001"], 1, "--goal"),
            (["check", "Read", "--date", "2026-11-22"], 1, "future"),
            (["check", "Read", "--date", "2026-11-20"], 1, "before"),
            (["check", "Read", "--date", "21/11/2026"], 1, "invalid date"),
            (["check", "Read", "--difficulty", "6"], 1, "difficulty"),
            (["uncheck", "Walk"], 1, "nothing to take back"),
            (["uncheck", "Read", "--amount", "zero"], 1, "--amount"),
            (["skip", "Read", "--date", "nonsense"], 1, "invalid date"),
            (["unskip", "Nope"], 1, "no habit matches"),
            (["rate", "Read"], 2, "missing"),
            (["rate", "Read", "0"], 1, "difficulty"),
            (["rate", "Read", "5", "--date", "2099-01-01"], 1, "future"),
            (["undo", "extra"], 2, "unexpected argument"),
            (["list", "--date", "2026-02-29"], 1, "invalid date"),
            (["show"], 2, "missing HABIT"),
            (["show", "Nope"], 1, "no habit matches"),
            (["stats", "--json", "--json"], 0, ""),
            (["export", "--format", "xml"], 2, "format"),
            (["import", "x", "--from", "loop"], 2, "import format"),
            (["import", "/nonexistent/\u{1B}[2Jdump.json", "--from", "json"], 1, "cannot be read"),
            (["import", "/nonexistent/\u{1B}[2Jdump.json", "--from", "habitto-legacy"], 1, "cannot be read"),
            (["import", "/nonexistent/\u{1B}[2Jloop", "--from", "loop-csv"], 1, "cannot be read"),
            (["import", "/nonexistent/\u{1B}[2Jharsh", "--from", "harsh"], 1, "cannot be read"),
            (["remote", "set", "\u{1B}[2J://x"], 1, "remote"),
            (["backup", "restore"], 2, "needs an ID"),
            (["backup", "restore", "x", "--merge", "--replace"], 2, "exactly one"),
            (["backup", "explode"], 2, "backup takes"),
            (["backup", "prune", "--keep-days", "0"], 1, "--keep-days"),
            (["note", "Read", "bad\u{1b}[31m"], 1, "control character"),
            (["export", "--output", "/nonexistent-dir/x.json"], 3, "cannot"),
        ]
        for (args, code, fragment) in cases {
            let r = box.run(args)
            XCTAssertEqual(r.status, code, "habitto \(args): \(r.stderr)")
            if code == 0 {
                if args.first == "check" { box.ok("undo") }
                continue
            }
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, 1, "habitto \(args) should print one line: \(r.stderr)")
            XCTAssertTrue(r.stderr.localizedCaseInsensitiveContains(fragment), "habitto \(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("habitto: "), r.stderr)
            XCTAssertFalse(r.stderr.contains("\u{1B}"), "an escape sequence reached the terminal")
        }
        XCTAssertEqual(box.ok("export"), before, "bad input changed the data")
        XCTAssertEqual(box.journalBytes().count >= journalBefore.count, true)
    }

    func testPathsAndFileValuesWithEscapeSequencesAreShownWithoutThem() throws {
        let other = Sandbox(inProcess: true)
        // A remote folder whose name holds an escape sequence: connected, and echoed safely.
        let folder = other.root + "/remote-\u{1B}[31mred\u{1B}]0;title\u{7}"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        other.ok("add", "Read")
        for args in [["remote", "set", "dir:" + folder], ["remote", "show"], ["status"], ["sync"]] {
            let r = other.run(args)
            XCTAssertEqual(r.status, 0, "habitto \(args): \(r.stderr)")
            if args[0] != "sync" { XCTAssertTrue(r.stdout.contains("remote-\u{FFFD}[31mred"), "habitto \(args): \(r.stdout)") }
            XCTAssertFalse((r.stdout + r.stderr).contains("\u{1B}"), "habitto \(args) printed an escape sequence")
        }
        // One that does not exist: the failure names it, without the escape sequence.
        let missing = other.run("remote", "set", "dir:" + other.root + "/gone-\u{1B}[2J")
        XCTAssertEqual(missing.status, 4, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("gone-\u{FFFD}[2J"), missing.stderr)
        XCTAssertFalse((missing.stdout + missing.stderr).contains("\u{1B}"))

        // A schedule with an escape sequence inside a Habitto export being imported.
        let exported = box.ok("export")
        XCTAssertTrue(exported.contains("\"schedule\": \"weekdays\""), exported)
        let hostile = other.root + "/hostile-\u{1B}[5m.json"
        try exported.replacingOccurrences(of: "\"schedule\": \"weekdays\"", with: "\"schedule\": \"\\u001b[2Jweekdays\"")
            .write(toFile: hostile, atomically: true, encoding: .utf8)
        let fresh = Sandbox(inProcess: true)
        let r = fresh.run("import", hostile, "--from", "json")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("schedule '\u{FFFD}[2Jweekdays' not understood"), r.stderr)
        XCTAssertTrue(r.stderr.contains("hostile-\u{FFFD}[5m.json"), r.stderr)
        XCTAssertFalse((r.stdout + r.stderr).contains("\u{1B}"), "an escape sequence reached the terminal")
        XCTAssertEqual(fresh.stat("habits"), 0, "a refused import wrote something")
    }

    func testArgumentsThatAreNotUTF8AreRejectedNotMangled() throws {
        // Process takes Swift strings, so pass the raw bytes through the shell.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec \"$0\" add \"$(printf 'Run\\377')\"", Sandbox.binary]
        p.environment = box.environment
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 2, message)
        XCTAssertTrue(message.contains("not valid UTF-8"), message)
        XCTAssertEqual((box.json("list", "--all", "--json") as? [Any])?.count, 4)
    }

    func testBadEnvironmentAndConfigAreReportedNotIgnored() {
        box.now = "yesterday-ish"
        var r = box.run("list")
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("HABITTO_NOW"), r.stderr)
        box.now = "2026-11-21T09:00:00"
        try! "day_start_hour = 27\n".write(toFile: box.config + "/habitto/config", atomically: true, encoding: .utf8)
        r = box.run("list")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("line 1") && r.stderr.contains("day_start_hour"), r.stderr)
        try! "colour = blue\n".write(toFile: box.config + "/habitto/config", atomically: true, encoding: .utf8)
        r = box.run("list")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("unknown setting"), r.stderr)
    }

    func testCheckInAccumulatesCompletesAndUndoTakesItBack() {
        box.ok("check", "water", "--amount", "5")
        var water = box.listEntry("Drink water")!
        XCTAssertEqual(water["progress"] as? Int, 5)
        XCTAssertEqual(water["completed"] as? Bool, false)
        XCTAssertEqual(box.stat("xp"), 0, "only Sweets (a limit habit with nothing recorded) succeeds, provisionally")
        XCTAssertEqual(box.stat("xpProvisional"), 50)
        let out = box.ok("check", "water", "--amount", "3", "--difficulty", "4")
        XCTAssertTrue(out.contains("8/8 glasses"), out)
        water = box.listEntry("Drink water")!
        XCTAssertEqual(water["completed"] as? Bool, true)
        XCTAssertEqual(water["difficulty"] as? Int, 4)
        XCTAssertEqual(water["streak"] as? Int, 1)
        let xpDone = box.stat("xp")!
        // Water succeeds (+50; Sweets' +50 is provisional until the day is over); Read is not
        // done (Saturday: Walk is not due).
        XCTAssertEqual(xpDone, 50)
        let undo = box.ok("undo")
        XCTAssertTrue(undo.contains("check 'Drink water' +3"), undo)
        water = box.listEntry("Drink water")!
        XCTAssertEqual(water["progress"] as? Int, 5)
        XCTAssertEqual(water["difficulty"] as? Int?, nil)
        XCTAssertEqual(box.stat("xp"), 0)
        box.ok("undo")
        XCTAssertEqual(box.listEntry("Drink water")!["progress"] as? Int, 0)
    }

    func testPerfectDayAddsBonusAndLevelFollowsXP() {
        box.ok("check", "Read")
        box.ok("check", "water", "--amount", "8")
        // Saturday: Walk (weekdays) is not due; Sweets (limit, nothing recorded) succeeds so far,
        // but a limit day is settled only when it is over: its 50 and the perfect day it takes
        // part in are provisional today.
        let stats = box.json("stats", "--json") as! [String: Any]
        XCTAssertEqual(stats["perfectDays"] as? Int, 0)
        XCTAssertEqual(stats["xp"] as? Int, 2 * 50)
        XCTAssertEqual(stats["xpToday"] as? Int, 100)
        XCTAssertEqual(stats["xpProvisional"] as? Int, 100)
        XCTAssertEqual(stats["level"] as? Int, 2)
        XCTAssertEqual(stats["xpIntoLevel"] as? Int, 0)
        XCTAssertEqual(stats["xpForNextLevel"] as? Int, 200)
        XCTAssertEqual(stats["checkIns"] as? Int, 2, "habit-days with progress: Read and Water today")
        XCTAssertTrue(box.ok("list").contains("+100 XP today (+100 provisional)"))
        // The next morning Saturday is settled: Sweets' 50 and the perfect day's 50.
        box.now = "2026-11-22T09:00:00"
        let sunday = box.json("stats", "--json") as! [String: Any]
        XCTAssertEqual(sunday["perfectDays"] as? Int, 1)
        XCTAssertEqual(sunday["xp"] as? Int, 3 * 50 + 50)
        XCTAssertEqual(sunday["level"] as? Int, 2)
        XCTAssertEqual(sunday["xpIntoLevel"] as? Int, 100)
        // Going over the limit on Saturday afterwards (a backfill) takes both back.
        box.ok("check", "Sweets", "--amount", "2", "--date", "2026-11-21")
        let after = box.json("stats", "--json") as! [String: Any]
        XCTAssertEqual(after["perfectDays"] as? Int, 0, "a broken limit spoils the perfect day")
        XCTAssertEqual(after["xp"] as? Int, 100)
    }

    func testGoingOverALimitTodayNeverLowersTheXPShown() {
        box.ok("check", "Read")
        let before = box.json("stats", "--json") as! [String: Any]
        box.ok("check", "Sweets", "--amount", "2")
        let after = box.json("stats", "--json") as! [String: Any]
        XCTAssertEqual(after["xp"] as? Int, before["xp"] as? Int)
        XCTAssertEqual(after["level"] as? Int, before["level"] as? Int)
        XCTAssertEqual(before["xpProvisional"] as? Int, 50, "Sweets within its limit")
        XCTAssertEqual(after["xpProvisional"] as? Int, 0)
    }

    func testListShowsAnNPerWeekHabitsWeekAsDaysDoneOverTheQuota() {
        box.ok("add", "Gym", "--schedule", "3/week", "--start", "2026-11-16")
        box.ok("check", "Gym", "--date", "2026-11-17")
        box.ok("check", "Gym", "--date", "2026-11-19")
        let row = box.ok("list").split(separator: "\n").first { $0.contains("Gym") } ?? ""
        XCTAssertTrue(row.contains("2/3 this wk"), String(row))
        let gym = box.listEntry("Gym")
        XCTAssertEqual(gym?["weekDone"] as? Int, 2)
        XCTAssertEqual(gym?["weekQuota"] as? Int, 3)
        XCTAssertTrue(box.listEntry("Read")?["weekDone"] is NSNull, "null for other schedules")
    }

    func testListJsonHasTheDocumentedFields() {
        let arr = box.json("list", "--json") as! [[String: Any]]
        XCTAssertEqual(arr.map { $0["name"] as! String }, ["Drink water", "Read", "Sweets"], "Walk is not due on a Saturday")
        for key in ["id", "name", "icon", "kind", "goal", "unit", "schedule", "scheduled", "progress", "completed",
                    "skipped", "difficulty", "streak", "bestStreak", "strength", "syncStatus"] {
            XCTAssertTrue(arr[0].keys.contains(key), "missing \(key)")
        }
        XCTAssertEqual(arr[0]["syncStatus"] as? String, "local")
        XCTAssertEqual(arr[0]["icon"] as? String, "💧")
        XCTAssertEqual(arr[2]["kind"] as? String, "limit")
        let all = box.json("list", "--all", "--json") as! [[String: Any]]
        XCTAssertEqual(all.count, 4)
        XCTAssertEqual(all.first { $0["name"] as? String == "Walk" }?["scheduled"] as? Bool, false)
    }

    func testShowJsonHasHistoryAndDifficultyAverages() {
        box.ok("edit", "Read", "--start", "2026-11-15")
        for (day, rating) in [("2026-11-15", 1), ("2026-11-16", 2), ("2026-11-18", 5), ("2026-11-21", 4)] {
            box.ok("check", "Read", "--date", day, "--difficulty", String(rating))
        }
        box.ok("skip", "Read", "--date", "2026-11-17")
        let show = box.json("show", "Read", "--json") as! [String: Any]
        let history = show["history"] as! [[String: Any]]
        XCTAssertEqual(history.count, 7)
        XCTAssertEqual(history.map { $0["date"] as! String }.first, "2026-11-15")
        XCTAssertEqual(history[2]["skipped"] as? Bool, true)
        XCTAssertEqual(history[3]["completed"] as? Bool, true)
        XCTAssertEqual(history[4]["completed"] as? Bool, false)
        XCTAssertEqual(show["difficultyAverage7"] as? Double, 3.0)
        XCTAssertEqual(show["streak"] as? Int, 1, "2026-11-19 and -20 were missed")
        XCTAssertEqual(show["bestStreak"] as? Int, 3, "15, 16, (17 skipped), 18")
    }

    func testSkipKeepsStreakAndCheckInOnSkippedDayUnskipsIt() {
        box.ok("edit", "Read", "--start", "2026-11-18")
        box.ok("check", "Read", "--date", "2026-11-18")
        box.ok("skip", "Read", "--date", "2026-11-19")
        box.ok("check", "Read", "--date", "2026-11-20")
        XCTAssertEqual(box.listEntry("Read")!["streak"] as? Int, 2, "today pending, skip neither counts nor breaks")
        let again = box.ok("skip", "Read", "--date", "2026-11-19")
        XCTAssertTrue(again.contains("already"), again)
        box.ok("check", "Read", "--date", "2026-11-19")
        XCTAssertEqual(box.listEntry("Read")!["streak"] as? Int, 3)
        box.ok("undo")
        XCTAssertEqual(box.listEntry("Read")!["streak"] as? Int, 2, "undo restores the skip too")
    }

    func testArchiveKeepsHistoryDeleteRemovesItAndUndoRestores() {
        box.ok("check", "Read")
        box.ok("archive", "Read")
        XCTAssertEqual(box.stat("xp"), 50, "today's check-in is kept (archived from tomorrow)")
        XCTAssertEqual(box.listEntry("Read")!["archivedFrom"] as? String, "2026-11-22")
        XCTAssertEqual(box.listEntry("Read")!["archived"] as? Bool, false, "still tracked today")
        XCTAssertEqual(box.stat("habits"), 4)
        XCTAssertEqual(box.stat("archivedHabits"), 0)
        box.ok("delete", "Read", "--yes")
        XCTAssertNil(box.listEntry("Read"))
        XCTAssertEqual(box.stat("xp"), 0, "deleting takes the habit's XP away")
        XCTAssertEqual(box.run("check", "Read").status, 1)
        let undo = box.ok("undo")
        XCTAssertTrue(undo.contains("delete 'Read'"), undo)
        XCTAssertEqual(box.listEntry("Read")!["progress"] as? Int, 1)
        box.ok("unarchive", "Read")
        XCTAssertEqual(box.listEntry("Read")!["archivedFrom"] is NSNull, true)
    }

    func testExactNameWinsOverLongerNamesWithThatPrefix() {
        box.ok("add", "Reading list")
        XCTAssertEqual(box.run("check", "read").status, 0)
        XCTAssertEqual(box.listEntry("Read")!["progress"] as? Int, 1)
        XCTAssertEqual(box.listEntry("Reading list")!["progress"] as? Int, 0)
    }

    func testAmbiguousPrefixIsAnErrorNamingCandidates() {
        box.ok("add", "Reading list")
        box.ok("add", "Reach out")
        let r = box.run("check", "Rea")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("'Read'") && r.stderr.contains("'Reach out'"), r.stderr)
        XCTAssertEqual(box.run("check", "Reach").status, 0)
    }

    func testDayStartHourKeepsLateNightCheckInsOnThePreviousDay() {
        try! "day_start_hour = 4\n".write(toFile: box.config + "/habitto/config", atomically: true, encoding: .utf8)
        box.now = "2026-11-22T01:30:00"
        box.ok("check", "Read")
        box.now = "2026-11-22T09:00:00"
        let show = box.json("show", "Read", "--json") as! [String: Any]
        let history = show["history"] as! [[String: Any]]
        XCTAssertEqual(history.first { $0["date"] as? String == "2026-11-21" }?["progress"] as? Int, 1)
    }

    func testExportIsCanonicalAndDeterministic() {
        box.ok("check", "water", "--amount", "3")
        box.ok("rate", "water", "2")
        let a = box.ok("export", "--format", "json")
        let b = box.ok("export")
        XCTAssertEqual(a, b)
        let file = box.root + "/out.json"
        box.ok("export", "--output", file)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), a)
        let doc = try! JSONSerialization.jsonObject(with: Data(a.utf8)) as! [String: Any]
        XCTAssertEqual(doc["format"] as? String, "habitto-export")
        XCTAssertEqual((doc["habits"] as! [Any]).count, 4)
        // A check-in and its undo leave the same state, and so the same bytes.
        box.ok("check", "Read")
        box.ok("undo")
        XCTAssertEqual(box.ok("export"), a)
    }

    func testHelpAndVersion() {
        XCTAssertTrue(box.ok("--version").hasPrefix("habitto "))
        let help = box.ok("--help")
        for c in ["add", "edit", "archive", "unarchive", "delete", "check", "uncheck", "skip", "unskip", "rate",
                  "undo", "list", "show", "stats", "export"] {
            XCTAssertTrue(help.contains("\n  \(c) "), "help lacks \(c)")
            XCTAssertTrue(box.ok(c, "--help").contains("Usage: habitto \(c)"))
        }
    }
}
