import Foundation
import XCTest
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// Issue 32 (Text): the command line's messages say what they are about, and agree in
/// number with their counts.
final class PolishedTextTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.now = "2026-11-20T09:00:00"
        box.ok("add", "Read", "--schedule", "weekdays", "--start", "2026-11-02")
    }

    override func tearDown() { box = nil }

    func testSkippingADayTheHabitIsNotDueOnSaysSoAndRecordsNothing() {
        let before = box.journalBytes()
        let r = box.run("skip", "Read", "--date", "2026-12-05")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "habitto: 'Read' is not due on Sat 2026-12-05 (weekdays); nothing to skip\n")
        XCTAssertEqual(box.journalBytes(), before)
        XCTAssertTrue(box.ok("skip", "Read", "--date", "2026-12-04").hasPrefix("Skipped"), "a due day is skipped")
    }

    func testAFutureNoteSaysNotesAreForTodayOrEarlier() {
        let r = box.run("note", "Read", "plan", "--date", "2026-11-21")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "habitto: 2026-11-21 is in the future (today is 2026-11-20); notes are for today or earlier\n")
    }

    func testTheWordClearIsANoteAndDashDashClearClearsIt() throws {
        box.ok("note", "Read", "clear")
        XCTAssertEqual(try dayNote(), "clear", "the word is stored as the note")
        box.ok("note", "Read", "--clear")
        XCTAssertNil(try dayNote())
        XCTAssertEqual(box.run("note", "Read").status, 2, "neither TEXT nor --clear is a usage error")
        XCTAssertEqual(box.run("note", "Read", "text", "--clear").status, 2, "both is a usage error")
    }

    private func dayNote() throws -> String? {
        let out = box.ok("export", "--format", "json")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let habit = try XCTUnwrap((json["habits"] as? [[String: Any]])?.first)
        let days = habit["days"] as? [[String: Any]] ?? []
        return days.first { $0["date"] as? String == "2026-11-20" }?["note"] as? String
    }

    func testAMistypedScheduleOrColourSuggestsTheNearestValue() {
        let cases: [([String], String)] = [
            (["add", "Walk", "--schedule", "wekdays"], "habitto: schedule 'wekdays' not understood; did you mean 'weekdays'?: use daily, "),
            (["add", "Walk", "--schedule", "mon,wendsday"],
             "habitto: schedule 'mon,wendsday' not understood; did you mean 'mon,wednesday'?: use daily, "),
            (["add", "Walk", "--color", "blu"], "habitto: color 'blu' not understood; did you mean 'blue'?: use #RRGGBB or one of black, "),
            (["add", "Walk", "--color", "zzzzzz"], "habitto: color 'zzzzzz' not understood: use #RRGGBB or one of black, "),
        ]
        for (args, message) in cases {
            let r = box.run(args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertTrue(r.stderr.hasPrefix(message), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, "one line")
        }
    }

    func testListOfAPastDayShowsThatDaysLevelAndXP() {
        for d in ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19"] { box.ok("check", "Read", "--date", d) }
        let today = box.ok("list").split(separator: "\n")[0]
        let past = box.ok("list", "--date", "2026-11-16").split(separator: "\n")[0]
        XCTAssertEqual(past, "Monday 2026-11-16 (not today) · level 2 · 0/200 XP · +100 XP that day")
        XCTAssertNotEqual(today.split(separator: "·")[1...2], past.split(separator: "·")[1...2], "\(today)")
    }

    func testARelativeStartOrDateWorksOnTheCommandLineAsInTheForm() {
        XCTAssertTrue(box.ok("add", "Walk", "--start", "-3").contains("from 2026-11-17"))
        XCTAssertTrue(box.ok("check", "Walk", "--date", "-2").contains("on 2026-11-18"))
        let r = box.run("check", "Walk", "--date", "-x")
        XCTAssertEqual(r.stderr, "habitto: invalid date '-x': use YYYY-MM-DD (1900 to 9999), today, yesterday, tomorrow, -N or +N days from today, or a weekday such as mon (the latest, today included)\n")
    }

    /// Every date option takes the same forms through the one parser (issue 39, point 13);
    /// today is Friday 2026-11-20 here, so `mon` is this week's Monday and `fri` today.
    func testEveryDateOptionTakesWeekdaysTomorrowAndPlusN() {
        XCTAssertTrue(box.ok("add", "Walk", "--start", "mon").contains("from 2026-11-16"))
        XCTAssertTrue(box.ok("check", "Walk", "--date", "thu").contains("on 2026-11-19"))
        XCTAssertTrue(box.ok("check", "Walk", "--date", "Fri").contains("today"))
        XCTAssertTrue(box.ok("rate", "Walk", "2", "--date", "thursday").contains("2026-11-19"))
        XCTAssertTrue(box.ok("skip", "Walk", "--date", "tomorrow").contains("2026-11-21"))
        XCTAssertTrue(box.ok("skip", "Walk", "--date", "+2").contains("2026-11-22"))
        XCTAssertTrue(box.ok("list", "--date", "yesterday").hasPrefix("Yesterday, Thursday 2026-11-19"))
        XCTAssertTrue(box.ok("edit", "Walk", "--goal", "2", "--from", "wed").contains("counts from 2026-11-18"))
        XCTAssertTrue(box.ok("edit", "Walk", "--start", "-10").contains("2026-11-10"))
        let forms = "YYYY-MM-DD (1900 to 9999), today, yesterday, tomorrow, -N or +N days from today, or a weekday such as mon (the latest, today included)"
        let bad = box.run("check", "Walk", "--date", "last monday")
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stderr, "habitto: invalid date 'last monday': use \(forms)\n")
        let from = box.run("edit", "Walk", "--goal", "3", "--from", "+1x")
        XCTAssertEqual(from.status, 2)
        XCTAssertEqual(from.stderr, "habitto: invalid --from '+1x': use start (the habit's first day), \(forms)\n")
        XCTAssertEqual(box.run("add", "Run", "--start", "sometime").status, 1)
        XCTAssertTrue(box.ok("show", "Walk").contains("check-ins: 2 days"), "nothing refused was written")
    }

    func testACheckInThatCompletesSaysTheStreakWithItsUnit() {
        box.ok("add", "Water plants", "--schedule", "every:3", "--start", "2026-11-08")
        for d in ["2026-11-08", "2026-11-11", "2026-11-14", "2026-11-17"] {
            _ = box.ok("check", "Water plants", "--date", d)
        }
        XCTAssertEqual(box.listEntry("Water plants", ["--date", "2026-11-17"])?["streakUnit"] as? String, "occurrences")
        XCTAssertTrue(box.ok("show", "Water plants").contains("streak 4 occurrences, best 4"))
        XCTAssertTrue(box.ok("check", "Read").contains("streak 1 day"))
    }

    func testACutNameKeepsTheASCIIListsColumnsAligned() {
        box.ok("add", String(repeating: "Très long nom ", count: 4) + "fin")
        box.extraEnv = ["LC_ALL": "C"]
        let rows = box.ok("list").split(separator: "\n").dropFirst().map(String.init)
        guard rows.count == 2 else { return XCTFail(rows.joined(separator: "\n")) }
        let progress = rows.map { $0.distance(from: $0.startIndex, to: $0.range(of: "0/1")!.lowerBound) }
        XCTAssertEqual(progress[0], progress[1], rows.joined(separator: "\n"))
        XCTAssertTrue(rows[1].contains("Tres long nom Tres long nom Tre.  0/1"), rows[1])
    }

    func testGraphStartsInTheWeekTheFirstHabitStarted() {
        // Read starts on Monday 2026-11-02; 80 columns have room for nine weeks.
        XCTAssertTrue(box.ok("graph").hasPrefix("Every habit, 2026-11-02 – 2026-11-20 "), box.ok("graph"))
        XCTAssertTrue(box.ok("graph", "--weeks", "5").hasPrefix("Every habit, 2026-10-19 – "), "--weeks is as asked")
    }

    func testAPipedChartTitleWrapsBetweenPhrases() {
        box.ok("add", "Drink water with lemon every morning", "--start", "2026-10-21")
        let lines = box.ok("show", "Drink water with", "--chart", "score").split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "Score of 'Drink water with lemon every morning', since 2026-10-21")
        XCTAssertEqual(lines[1], "(Loop's habit strength; now 0%)")
    }

    func testAsksIntroductionWrapsAtWordsToTheTerminalsWidth() throws {
        box.extraEnv = ["COLUMNS": "50"]
        let session = try AskSession(box, ["ask", "--days", "3"])
        session.waitFor("enter] ", count: 1)
        session.type("\u{4}")
        _ = session.finish()
        let lines = session.transcript.split(separator: "\n").map(String.init)
        let intro = Array(lines.prefix { !$0.contains("enter] ") })
        XCTAssertGreaterThan(intro.count, 2, session.transcript)
        for line in intro { XCTAssertLessThanOrEqual(TextWidth.of(line), 50, line) }
        let words = intro.joined(separator: " ").split(separator: " ")
        XCTAssertTrue(words.starts(with: ["4", "habit-days", "to", "catch", "up"]), "\(words)")
        XCTAssertTrue(intro.joined(separator: " ").hasSuffix("enter leaves it, Ctrl-D stops."), intro.joined(separator: "\n"))
        XCTAssertTrue(intro.contains { $0.hasPrefix("(or after y or an amount: y 2, 8 3);") }, intro.joined(separator: "\n"))
    }

    func testShowsRecentDaysTellMissesFromDaysNotDueWithALegend() {
        box.ok("check", "Read", "--date", "2026-11-16")
        box.ok("skip", "Read", "--date", "2026-11-17")
        let lines = box.ok("show", "Read").split(separator: "\n").map(String.init)
        // Weekdays from Monday 2026-11-02; today (Friday the 20th) is open, so blank.
        XCTAssertEqual(lines.suffix(2), ["  last 19 days (oldest first): ×××××··×××××··✓~×× ",
                                         "    ✓ done  ◐ partly  × missed  · not due  ✗ over the limit  ~ skipped"])
    }

    func testRemindJSONOnlyReportsAndALaterRemindStillSendsThem() throws {
        box.ok("add", "Water", "--remind", "08:00")
        func reported() throws -> Int {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(box.ok("remind", "--json").utf8)) as? [Any]).count
        }
        XCTAssertEqual(try reported(), 1)
        XCTAssertEqual(try reported(), 1, "a report marks nothing as sent")
        box.extraEnv = ["DISPLAY": "", "WAYLAND_DISPLAY": ""]
        XCTAssertTrue(box.ok("remind").contains("Reminder 08:00:"), "remind still sends it")
        XCTAssertEqual(try reported(), 0, "what remind sent is not reported again")
    }
}

/// Issue 32 (Exit codes, Text): a terminal that cannot run the UI is a usage error; an
/// unreadable config file is named as such. These run the binary.
final class TerminalAndConfigExitTests: XCTestCase {
    func testTermDumbOrNoTermIsAUsageErrorWithItsMessage() throws {
        let box = Sandbox()
        for (setting, message) in [("TERM=dumb", "terminal type \"dumb\" (TERM) cannot move the cursor"),
                                   ("-u TERM", "TERM is not set")] {
            let tmux = try TmuxSession.forTest(box: box)
            defer { tmux.tmux(["kill-server"]) }
            let out = box.root + "/term-\(UUID().uuidString.prefix(6))"
            let env = "HABITTO_HOME='\(box.home)' XDG_CONFIG_HOME='\(box.config)' LANG=C.UTF-8"
            tmux.tmux(["new-session", "-d", "-s", "ui", "-x", "80", "-y", "24", "sh", "-c",
                       "env \(setting) \(env) '\(Sandbox.binary)' 2> '\(out).err'; echo \"EXIT=$?\" > '\(out).tmp'; mv '\(out).tmp' '\(out)'; sleep 600"])
            var status = ""
            for _ in 0..<250 where status.isEmpty {
                status = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
                if status.isEmpty { usleep(40_000) }
            }
            XCTAssertEqual(status, "EXIT=2\n", setting)
            XCTAssertEqual(try String(contentsOfFile: out + ".err", encoding: .utf8),
                           "habitto: cannot start the terminal UI: \(message)\n", setting)
        }
    }

    func testAnUnreadableConfigFileIsNamedWithWhatToDo() throws {
        let box = Sandbox()
        box.ok("add", "Read")
        let config = box.config + "/habitto/config"
        XCTAssertTrue(FileManager.default.createFile(atPath: config, contents: Data("week_start = monday\n".utf8)))
        XCTAssertEqual(chmod(config, 0o000), 0)
        // Root reads any file: the command runs as nobody then (setpriv), on a data
        // directory nobody may read too.
        var program: String? = nil
        var args = ["list"]
        if geteuid() == 0 {
            XCTAssertEqual(chmod(box.root, 0o755), 0)
            program = "/usr/bin/setpriv"
            args = ["--reuid=65534", "--regid=65534", "--clear-groups", Sandbox.binary] + args
        }
        let r = box.run(args, program: program)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "habitto: cannot read the config file \(config): Permission denied; "
                       + "make it readable (chmod u+r \(config)) or remove it to use the defaults\n")
    }
}

/// Issue 32 (Screen): what the real terminal shows, through tmux: grapheme clusters whole,
/// the progress column whole at 200 columns, and under LANG=C names spelt in ASCII as the
/// command line spells them, with the columns where they are in UTF-8.
final class WholeGlyphsOnTheTerminalTests: XCTestCase {
    func box() -> Sandbox {
        let box = Sandbox()
        box.now = "2026-11-20T09:00:00"
        box.ok("add", "Japan 🇯🇵 trip", "--icon", "🇯🇵")
        box.ok("add", "Family 👨‍👩‍👧 dinner", "--icon", "👨‍👩‍👧")
        box.ok("add", "Ünïcödé naïve café")
        box.ok("add", "Run", "--goal", "1.5", "--unit", "km", "--schedule", "3/week")
        box.ok("check", "Run", "--amount", "2.5")
        return box
    }

    func testFlagAndFamilyAreDrawnWholeAt40x10And200Columns() throws {
        let box = box()
        for (w, h) in [(40, 10), (200, 20)] {
            let tmux = try TmuxSession.forTest(box: box)
            defer { tmux.tmux(["kill-server"]) }
            tmux.start([], width: w, height: h)
            tmux.waitFor(text: "Japan")
            let screen = tmux.screen()
            XCTAssertTrue(screen.contains("Japan 🇯🇵"), "\(w)x\(h):\n\(screen)")
            XCTAssertTrue(screen.contains("Family 👨‍👩‍👧"), "\(w)x\(h):\n\(screen)")
            if w == 200 { XCTAssertTrue(screen.contains("2.5/1.5 km, 1/3 this wk"), screen) }
        }
    }

    func testUnderLangCTheUISpellsNamesInASCIIWithColumnsAligned() throws {
        let box = box()
        let tmux = try TmuxSession.forTest(box: box)
        defer { tmux.tmux(["kill-server"]) }
        tmux.start([], width: 80, height: 14, env: ["LANG": "C", "LC_ALL": "C"])
        tmux.waitFor(text: "Run")
        let lines = tmux.screen().split(separator: "\n").map(String.init)
        let cafe = try XCTUnwrap(lines.first { $0.contains("naive cafe") }, lines.joined(separator: "\n"))
        XCTAssertTrue(cafe.contains("Unicode naive cafe"), cafe)
        XCTAssertFalse(lines.joined().contains("?n?c?d?"))
        // The progress column starts at one column on every row.
        let columns = lines.filter { ($0.hasPrefix("> ") || $0.hasPrefix("  ")) && ($0.contains("0/1") || $0.contains("2.5/1.5")) }
            .map { $0.distance(from: $0.startIndex, to: $0.firstIndex { $0.isNumber }!) }
        XCTAssertEqual(Set(columns).count, 1, lines.joined(separator: "\n"))
    }
}
