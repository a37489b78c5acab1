import Foundation
import XCTest

/// Issue 39.3: moving a start date says what it takes or gives back, `show` counts only the
/// days from the start, and a habit that has not started shows as such.
final class StartDateCommandTests: XCTestCase {
    func testMovingTheStartSaysWhatItHidesAndGivesBackAndShowCountsFromTheStart() {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-25T10:00:00"
        box.ok("add", "Read", "--start", "2026-11-01")
        for d in 1...24 { box.ok("check", "Read", "--date", String(format: "2026-11-%02d", d)) }
        let xp = box.stat("xp")
        XCTAssertEqual(box.ok("edit", "Read", "--start", "2026-11-15"),
                       "Updated 'Read' (at least 1 a day, daily, from 2026-11-15); 14 days with check-ins before 2026-11-15 "
                       + "no longer count (they are kept: an earlier --start counts them again) · XP \(xp ?? -1) → \(box.stat("xp") ?? -1)\n")
        XCTAssertLessThan(box.stat("xp") ?? 0, xp ?? 0)
        XCTAssertTrue(box.ok("show", "Read").contains("  check-ins: 10 days (and 14 days before the start, not counted)\n"))
        XCTAssertEqual((box.json("show", "Read", "--json") as? [String: Any])?["checkIns"] as? Int, 10)
        XCTAssertTrue(box.ok("edit", "Read", "--start", "2026-11-01").contains("; 14 days with check-ins from 2026-11-01 count again"))
        XCTAssertEqual(box.stat("xp"), xp, "the earlier start gives back every figure")
        XCTAssertTrue(box.ok("show", "Read").contains("  check-ins: 24 days\n"))
    }

    func testAFutureStartIsSaidAndTheHabitIsNotStartedUntilThen() {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-25T10:00:00"
        box.ok("add", "Read", "--start", "2026-11-20")
        box.ok("add", "Sweets", "--limit", "--goal", "1", "--start", "2026-11-18")
        box.ok("check", "Read")
        let out = box.ok("edit", "Read", "--start", "2026-12-01")
        XCTAssertTrue(out.hasSuffix("; it starts in 6 days: until then it is not tracked\n"), out)
        XCTAssertEqual(box.listEntry("Read", ["--all"])?["completed"] as? Bool, false, "today's check-in is before the start")
        let all = box.ok("list", "--all").split(separator: "\n").map(String.init)
        XCTAssertTrue(all.contains("     Read      not started (starts 2026-12-01)"), "\(all)")
        let earlier = box.ok("list", "--all", "--date", "2026-11-14").split(separator: "\n").map(String.init)
        XCTAssertTrue(earlier.contains("     Sweets    not started (starts 2026-11-18)"), "\(earlier)")
        XCTAssertEqual(box.listEntry("Sweets", ["--all", "--date", "2026-11-14"])?["completed"] as? Bool, false)
        XCTAssertFalse(box.ok("list").contains("Read"), "not due, not shown")
    }
}

/// Issue 39.6: a day after today shows every figure as of today.
final class FutureDayListTests: XCTestCase {
    func testAFutureDaysStreakAndStrengthAreTodaysAndItsHeaderSaysSo() {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-20T10:00:00"
        box.ok("add", "Read", "--start", "2026-11-01")
        for d in 1...20 { box.ok("check", "Read", "--date", String(format: "2026-11-%02d", d)) }
        box.ok("skip", "Read", "--date", "2026-11-28")
        let today = box.listEntry("Read")
        for date in ["2026-11-28", "2026-12-10"] {
            let later = box.listEntry("Read", ["--date", date])
            XCTAssertEqual(later?["streak"] as? Int, today?["streak"] as? Int, date)
            XCTAssertEqual(later?["strength"] as? Double, today?["strength"] as? Double, "\(date): not decayed over days to come")
            XCTAssertEqual(later?["completed"] as? Bool, false)
        }
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-28"])?["skipped"] as? Bool, true, "the planned skip shows")
        XCTAssertEqual(box.ok("list", "--date", "2026-12-10").split(separator: "\n").first.map(String.init),
                       "Thursday 2026-12-10 (in 20 days; figures as of today) · level 6 · 500/600 XP · +100 XP today")
    }
}

/// Issue 39.9: a habit's first day is "last 1 day", not "last 1 days".
final class ShowOneDayTests: XCTestCase {
    func testAHabitOnItsFirstDayShowsTheLastDayInTheSingular() {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-20T10:00:00"
        box.ok("add", "Read")
        box.ok("check", "Read")
        XCTAssertTrue(box.ok("show", "Read").contains("  last 1 day (oldest first): ✓\n"), box.ok("show", "Read"))
    }
}
