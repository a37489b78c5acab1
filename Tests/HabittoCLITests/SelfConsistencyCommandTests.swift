import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Commands whose answer must agree with what they did: a check-in on a skipped day, and a
/// sync that another process's round turned away.
final class SelfConsistencyCommandTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.now = "2026-11-20T09:00:00"
    }

    override func tearDown() { box = nil }

    func testCheckingInOnASkippedDayThatHoldsItsCheckInUnskipsIt() throws {
        box.ok("add", "Walk", "--start", "2026-11-01")
        box.ok("check", "Walk", "--date", "2026-11-10")
        box.ok("skip", "Walk", "--date", "2026-11-10")
        XCTAssertEqual(box.ok("check", "Walk", "--date", "2026-11-10"), "✓ 'Walk' on 2026-11-10: 1/1, done · streak 1 day\n")
        let shown = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(box.ok("show", "Walk", "--json").utf8)) as? [String: Any])
        let days = try XCTUnwrap(shown["history"] as? [[String: Any]])
        let day = try XCTUnwrap(days.first { $0["date"] as? String == "2026-11-10" })
        XCTAssertEqual(day["skipped"] as? Bool, false, "\(day)")
        XCTAssertEqual(day["completed"] as? Bool, true, "\(day)")
        // Once un-skipped and done, a check-in records the answer again (a set step to done) and says what the day is.
        XCTAssertEqual(box.ok("check", "Walk", "--date", "2026-11-10"), "✓ 'Walk' on 2026-11-10: 1/1, done · streak 1 day\n")
        XCTAssertEqual(box.listEntry("Walk", ["--date", "2026-11-10"])?["progress"] as? Int, 1)
    }

    func testSyncTurnedAwayByAnotherProcessesRoundExitsFour() throws {
        let folder = box.root + "/remote"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        box.ok("add", "Walk")
        box.ok("remote", "set", "dir:" + folder)
        box.ok("check", "Walk")
        // Another process's round holds the data directory's sync lock.
        let fd = open(box.home + "/sync.lock", O_RDWR | O_CREAT, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        let busy = box.run("sync")
        XCTAssertEqual(busy.status, 4)
        XCTAssertEqual(busy.stdout, "")
        XCTAssertEqual(busy.stderr, "habitto: not synced: another process is syncing this data directory; run 'habitto sync' again when it is done\n")
        flock(fd, LOCK_UN)
        close(fd)
        XCTAssertTrue(box.ok("sync").hasPrefix("Synced: pushed 1 operation"), "the round after it syncs")
    }
}

/// `stats` counts check-ins as habit-days; `show` gives each habit's amount in its own unit.
final class CheckInCountTests: XCTestCase {
    func testStatsCountsHabitDaysAndShowGivesTheAmountInItsUnit() throws {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-20T09:00:00"
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses", "--start", "2026-11-01")
        box.ok("add", "Run", "--goal", "2.5", "--unit", "km", "--start", "2026-11-01")
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("check", "Water", "--amount", "8", "--date", "2026-11-19")
        box.ok("check", "Water", "--amount", "3")
        box.ok("check", "Run", "--amount", "5.25")
        box.ok("check", "Read")
        let stats = try XCTUnwrap(box.json("stats", "--json") as? [String: Any])
        XCTAssertEqual(stats["checkIns"] as? Int, 4, "not 8 + 3 + 5.25 + 1 = 17.25")
        XCTAssertTrue(box.ok("stats").contains("check-ins: 4 habit-days\n"))
        XCTAssertTrue(box.ok("show", "Water").contains("\n  check-ins: 2 days, 11 glasses in all\n"))
        XCTAssertTrue(box.ok("show", "Run").contains("\n  check-ins: 1 day, 5.25 km in all\n"))
        XCTAssertTrue(box.ok("show", "Read").contains("\n  check-ins: 1 day\n"))
        let water = try XCTUnwrap(box.json("show", "Water", "--json") as? [String: Any])
        XCTAssertEqual(water["checkIns"] as? Int, 2)
        XCTAssertEqual(water["totalAmount"] as? Int, 11)
    }
}

/// An N-per-week habit's week as the list, the history chart and an archive see it.
final class WeekQuotaCommandTests: XCTestCase {
    func testArchivingMidWeekKeepsTheWeeksCountAndStreak() throws {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-17T09:00:00"
        box.ok("add", "Gym", "--schedule", "3/week", "--start", "2026-11-02")
        for d in ["09", "10", "12", "16"] { box.ok("check", "Gym", "--date", "2026-11-\(d)") }
        XCTAssertTrue(box.ok("list").contains("Gym       1/3 this wk  streak 1 wk"), box.ok("list"))
        box.ok("archive", "Gym")
        let row = try XCTUnwrap(box.listEntry("Gym"))
        XCTAssertEqual(row["weekDone"] as? Int, 1)
        XCTAssertEqual(row["weekQuota"] as? Int, 3, "not 1/1")
        XCTAssertEqual(row["streak"] as? Int, 1, "not 2 weeks")
    }

    func testTheHistoryChartAsksTheRunningWeekForItsWholeQuota() throws {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-16T09:00:00"
        box.ok("add", "Run", "--goal", "1.5", "--unit", "km", "--schedule", "3/week", "--start", "2026-11-09")
        box.ok("check", "Run", "--amount", "2", "--date", "2026-11-10")
        box.ok("check", "Run", "--amount", "2")
        let o = try XCTUnwrap(box.json("show", "Run", "--chart", "history", "--by", "week", "--json") as? [String: Any])
        let buckets = try XCTUnwrap(o["buckets"] as? [[String: Any]])
        XCTAssertEqual(buckets.map { $0["due"] as? Int }, [3, 3], "what each week asks for, not 7")
        XCTAssertEqual(buckets.map { $0["goal"] as? Double }, [4.5, 4.5], "3 × 1.5 km; the running week is not prorated")
    }
}

/// A "not done" answer goes out in an export and comes back with an import.
final class NotDoneExportTests: XCTestCase {
    func testAnExportedAnswerImportsAgainAndIsNotAskedAgain() throws {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-20T09:00:00"
        box.ok("add", "Read", "--start", "2026-11-18")
        box.ok("check", "Read", "--date", "2026-11-19")
        var export = box.ok("export")
        XCTAssertFalse(export.contains("notDone"), "a day without an answer is written as before")
        // The answer as an export writes it: on the 18th.
        export = export.replacingOccurrences(of: "\"days\": [", with: "\"days\": [\n{\"date\": \"2026-11-18\", \"progress\": 0, \"skipped\": false, \"difficulty\": null, \"note\": null, \"notDone\": true},")
        let file = box.root + "/with-answer.json"
        try export.write(toFile: file, atomically: true, encoding: .utf8)
        let other = Sandbox(inProcess: true)
        other.now = box.now
        other.ok("import", file, "--from", "json")
        let again = other.ok("export")
        XCTAssertTrue(again.contains("\"notDone\": true"), again)
        XCTAssertEqual(other.ok("export"), again)
        // Catching up starts after the answered and the checked day: only today is open.
        XCTAssertEqual(try XCTUnwrap(other.json("list", "--json") as? [[String: Any]]).first?["completed"] as? Bool, false)
        let bad = export.replacingOccurrences(of: "\"notDone\": true", with: "\"notDone\": 3")
        try bad.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = Sandbox(inProcess: true).run("import", file, "--from", "json")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("days[0].notDone: expected true or false, found the number 3"), refused.stderr)
    }
}
