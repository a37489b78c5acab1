import Foundation
import XCTest

/// `show HABIT --chart KIND` and `graph`: the series in JSON, the charts as text, and one-line
/// errors for bad values. Read starts on Monday 2026-11-16; today is Saturday the 21st.
final class ChartCommandTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.ok("add", "Read", "--start", "2026-11-16")
        for d in ["2026-11-16", "2026-11-17", "2026-11-19"] { box.ok("check", "Read", "--date", d) }
        box.ok("skip", "Read", "--date", "2026-11-18")
    }

    override func tearDown() { box = nil }

    func chart(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        let r = box.run(["show", "Read"] + args + ["--json"], file: file, line: line)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return ((try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any]) ?? [:]
    }

    /// Weeks with no XP at all have no scale to draw: one line says so, in `graph` and the
    /// UI's overview alike, where a chart of zeros was drawn.
    func testGraphWithNoXPYetSaysSoInsteadOfAChartOfZeros() {
        let fresh = Sandbox(inProcess: true)
        fresh.now = "2026-11-21T09:00:00"
        fresh.ok("add", "Walk", "--start", "2026-11-18")
        let out = fresh.ok("graph", "--ascii")
        XCTAssertTrue(out.hasSuffix("XP per week (^ a new level; level 1 now)\nNo XP earned in these weeks yet: a day that completes a habit earns it.\n"), out)
        XCTAssertFalse(box.ok("graph").contains("No XP earned"), "Read earned XP")
    }

    func testStreaksJSONHasTheRunAcrossTheSkippedDayBrokenByTheMissedOne() {
        let o = chart("--chart", "streaks")
        XCTAssertEqual(o["chart"] as? String, "streaks")
        XCTAssertEqual(o["unit"] as? String, "days")
        let runs = o["streaks"] as? [[String: Any]] ?? []
        XCTAssertEqual(runs.count, 1)
        XCTAssertEqual(runs.first?["start"] as? String, "2026-11-16")
        XCTAssertEqual(runs.first?["end"] as? String, "2026-11-19")
        XCTAssertEqual(runs.first?["length"] as? Int, 3)
        XCTAssertEqual(runs.first?["current"] as? Bool, false)
    }

    func testHistoryJSONGivesDoneAgainstTheGoalPerWeek() {
        let o = chart("--chart", "history", "--by", "week")
        XCTAssertEqual(o["measure"] as? String, "completions")
        XCTAssertEqual(o["by"] as? String, "week")
        let b = (o["buckets"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(b["start"] as? String, "2026-11-16")
        XCTAssertEqual(b["end"] as? String, "2026-11-21")
        XCTAssertEqual(b["value"] as? Int, 3)
        XCTAssertEqual(b["goal"] as? Double, 5)
        XCTAssertEqual(b["skipped"] as? Int, 1)
    }

    func testScoreJSONEndsWithTheStrengthTheListShows() {
        let points = chart("--chart", "score")["points"] as? [[String: Any]] ?? []
        XCTAssertEqual(points.map { $0["date"] as? String }, (16...21).map { "2026-11-\($0)" })
        let strength = box.listEntry("Read")?["strength"] as? Double ?? -1
        XCTAssertEqual(points.last?["score"] as? Double ?? 0, strength, accuracy: 0.00005)
    }

    func testWeekdayJSONCountsSettledDueDays() {
        let days = chart("--chart", "weekday")["weekdays"] as? [[String: Any]] ?? []
        XCTAssertEqual(days.map { $0["weekday"] as? String }, ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
        XCTAssertEqual(days.map { $0["done"] as? Int }, [1, 1, 0, 1, 0, 0, 0])
        XCTAssertEqual(days.map { $0["due"] as? Int }, [1, 1, 0, 1, 1, 0, 0])
        XCTAssertTrue(days[2]["ratio"] is NSNull, "a skipped Wednesday was not due")
    }

    func testGraphJSONHasOneStatePerDayTheCompletionAndXP() {
        let o = box.json("graph", "--weeks", "1", "--json") as? [String: Any] ?? [:]
        XCTAssertEqual(o["first"] as? String, "2026-11-16")
        XCTAssertEqual(o["last"] as? String, "2026-11-21")
        let habit = (o["habits"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(habit["days"] as? [String], ["done", "done", "skipped", "done", "missed", "pending"])
        let completion = o["completion"] as? [[String: Any]] ?? []
        XCTAssertEqual(completion.map { $0["ratio"] as? Double }, [1, 1, nil, 1, 0, nil])
        let week = (o["xpWeeks"] as? [[String: Any]])?.first ?? [:]
        // Three days done, each a perfect day: 3 × (50 + 50).
        XCTAssertEqual(week["xp"] as? Int, 300)
        XCTAssertEqual(week["totalXP"] as? Int, box.stat("xp"))
    }

    func testChartsPrintAtEightyColumnsAndInASCII() {
        for kind in ["score", "history", "weekday", "streaks", "difficulty"] {
            for ascii in [false, true] {
                let r = box.run(["show", "Read", "--chart", kind] + (ascii ? ["--ascii"] : []))
                XCTAssertEqual(r.status, 0, r.stderr)
                let lines = r.stdout.split(separator: "\n")
                XCTAssertGreaterThan(lines.count, 1, kind)
                for l in lines {
                    XCTAssertLessThanOrEqual(l.count, 80, "\(kind): \(l)")
                    if ascii { XCTAssertTrue(l.allSatisfy { $0.isASCII }, "\(kind): \(l)") }
                }
            }
        }
        let score = box.ok("show", "Read", "--chart", "score")
        XCTAssertTrue(score.contains("\n100% ┤"), score)
        XCTAssertTrue(score.contains("  0% ┤"), score)
        let graph = box.ok("graph", "--weeks", "1", "--ascii")
        XCTAssertTrue(graph.contains("\nRead ##~#-*\n"), graph)
        XCTAssertTrue(graph.contains("# done  + partly  - missed  ~ skipped  . not due  * today"), graph)
        XCTAssertTrue(box.ok("show", "Read", "--chart", "difficulty").contains("no day rated yet"))
        box.ok("add", "Later", "--start", "2026-12-01")
        XCTAssertEqual(box.ok("show", "Later", "--chart", "weekday"),
                       "Days done by weekday, 'Later', since 2026-12-01 (done / due)\n(nothing yet: it starts on 2026-12-01)\n")
    }

    func testBadChartValuesGetOneLineErrorsAndTheREADMEExitCodes() {
        let cases: [([String], Int32, String)] = [
            (["show", "Read", "--chart", "nope"], 2,
             "habitto: --chart 'nope' is not one of score, history, weekday, streaks, difficulty"),
            (["show", "Read", "--chart", "scor"], 2,
             "habitto: --chart 'scor' is not one of score, history, weekday, streaks, difficulty (did you mean 'score'?)"),
            (["show", "Read", "--chart", "history", "--by", "day"], 2,
             "habitto: --by 'day' is not one of week, month, quarter, year"),
            (["show", "Read", "--chart", "score", "--span", "2y"], 2, "habitto: --span '2y' is not one of 3m, 1y, all (did you mean '1y'?)"),
            (["show", "Read", "--by", "week"], 2,
             "habitto: --span and --by go with --chart; e.g. 'habitto show HABIT --chart history --by month'"),
            (["show", "Read", "--chart", "score", "--by", "week"], 2, "habitto: --by goes with --chart history"),
            (["graph", "--weeks", "0"], 1, "habitto: --weeks '0' must be a whole number from 1 to 520"),
            (["graph", "--weeks", "99999"], 1, "habitto: --weeks '99999' must be a whole number from 1 to 520"),
            (["show", "Nobody", "--chart", "score"], 1, "habitto: no habit matches 'Nobody'; 'habitto list --all' shows them all"),
        ]
        for (args, code, message) in cases {
            let r = box.run(args)
            XCTAssertEqual(r.status, code, "\(args)")
            XCTAssertEqual(r.stderr, message + "\n", "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
    }

    func testHelpListsGraphAndTheChartOptions() {
        XCTAssertTrue(box.ok("--help").contains("\n  graph "))
        let show = box.ok("show", "--help")
        for o in ["--chart KIND", "--span SPAN", "--by PERIOD"] { XCTAssertTrue(show.contains(o), o) }
    }

    func testGraphWithoutWeeksStartsOnTheFirstStartAndWithWeeksShowsThemAll() {
        let fresh = Sandbox(inProcess: true)
        fresh.now = "2026-11-21T09:00:00"
        // Thursday 2026-11-12 and Saturday 11-14.
        fresh.ok("add", "Walk", "--start", "2026-11-14")
        fresh.ok("add", "Read", "--start", "2026-11-12")
        fresh.ok("check", "Read", "--date", "2026-11-12")
        let o = fresh.json("graph", "--json") as? [String: Any] ?? [:]
        XCTAssertEqual(o["first"] as? String, "2026-11-12")
        XCTAssertEqual((o["completion"] as? [Any])?.count, 10)
        XCTAssertEqual((o["xpWeeks"] as? [[String: Any]])?.compactMap { $0["weekStart"] as? String }, ["2026-11-09", "2026-11-16"])
        XCTAssertTrue(fresh.ok("graph").hasPrefix("Every habit, 2026-11-12 – 2026-11-21 "), fresh.ok("graph"))
        let asked = fresh.json("graph", "--weeks", "3", "--json") as? [String: Any] ?? [:]
        XCTAssertEqual(asked["first"] as? String, "2026-11-02", "--weeks is as asked")
    }
}

/// On a terminal the charts take its width (TIOCGWINSZ), in tmux at 40 and 120 columns.
final class ChartTerminalWidthTests: XCTestCase {
    func testAChartOnATerminalIsAsWideAsTheTerminal() throws {
        for width in [40, 120] {
            let box = Sandbox(inProcess: true)
            box.ok("add", "Read", "--start", "2026-11-01")
            let ui = try TmuxSession.forTest(box: box)
            defer { ui.kill() }
            ui.start(["show", "Read", "--chart", "score"], width: width, height: 20)
            XCTAssertEqual(ui.exitStatus().0, 0)
            let axis = ui.screen().split(separator: "\n").first { $0.hasPrefix("     └") }
            XCTAssertEqual(axis.map { String($0) }, "     └" + String(repeating: "─", count: width - 6), "at \(width) columns")
        }
    }
}

/// Colour on the charts: on a terminal (tmux), not when piped, not with NO_COLOR.
final class ChartColorTests: XCTestCase {
    let esc = "\u{1B}["

    /// Read since Monday 2026-11-16: done on the 16th, 17th and 19th, skipped on the 18th,
    /// missed on the 20th.
    func readBox() -> Sandbox {
        let box = Sandbox(inProcess: true)
        box.ok("add", "Read", "--start", "2026-11-16")
        for d in ["2026-11-16", "2026-11-17", "2026-11-19"] { box.ok("check", "Read", "--date", d) }
        box.ok("skip", "Read", "--date", "2026-11-18")
        return box
    }

    /// The screen with its colours as escape sequences, after `habitto ARGS` ran in tmux
    /// (`swift test` sets NO_COLOR=1: an empty one counts as unset).
    func coloured(_ box: Sandbox, _ args: [String], env: [String: String] = ["NO_COLOR": ""],
                  file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let ui = try TmuxSession.forTest(box: box)
        defer { ui.kill() }
        ui.start(args, width: 80, height: 40, env: env)
        XCTAssertEqual(ui.exitStatus(file: file, line: line).0, 0, file: file, line: line)
        return ui.tmux(["capture-pane", "-p", "-e", "-t", "ui"]).output
    }

    func testOnATerminalTheBarsAreGreenTheGoalLineBoldYellowAndMissedDaysRed() throws {
        let box = readBox()
        let history = try coloured(box, ["show", "Read", "--chart", "history", "--by", "week"])
        XCTAssertTrue(history.contains(esc + "32m"), history)
        XCTAssertTrue(history.contains(esc + "33;1m") || history.contains(esc + "1m" + esc + "33m")
                      || history.contains(esc + "1;33m"), history)
        let graph = try coloured(box, ["graph"])
        XCTAssertTrue(graph.contains(esc + "31m×"), graph)
        XCTAssertTrue(graph.contains(esc + "36m~"), graph)
        // Piped, the same commands print plain text.
        for args in [["show", "Read", "--chart", "history", "--by", "week"], ["graph"]] {
            XCTAssertFalse(box.run(args).stdout.contains("\u{1B}"), args.joined(separator: " "))
        }
    }

    func testNoColorTurnsTheColourOffOnATerminal() throws {
        let box = readBox()
        for args in [["show", "Read", "--chart", "history", "--by", "week"], ["graph"]] {
            let screen = try coloured(box, args, env: ["NO_COLOR": "1"])
            XCTAssertTrue(screen.contains("Read"), screen)
            XCTAssertFalse(screen.contains(esc + "3"), screen)
        }
    }
}
