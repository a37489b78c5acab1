import XCTest
import HabitCore

/// N-per-week figures that agree with themselves: the history chart asks each week for its
/// quota (the running one whole, never N × 7 days "due"), and archiving mid-week leaves the
/// week's `1/3 this wk` and the streak as they were.
final class QuotaFiguresTests: XCTestCase {
    private func d(_ n: Int) -> LocalDay { LocalDay(year: 2026, month: 11, day: n)! }   // Mon 2, 9, 16, 23

    func testAWeekBarOfAnNPerWeekHabitAsksForItsQuotaTheRunningOneWhole() {
        var w = World()
        let h = w.build("Gym", start: d(2), schedule: .perWeek(3))
        w.progress(h, days: [d(2), d(4), d(6), d(10), d(17)])
        w.skip(h, d(14)); w.skip(h, d(15))
        // Wednesday the 18th: the third week is running.
        let s = w.state.historySeries(h, today: d(18), bucket: .week)
        XCTAssertEqual(s.buckets.map(\.start), [d(2), d(9), d(16)])
        XCTAssertEqual(s.buckets.map(\.value), [3, 1, 1])
        XCTAssertEqual(s.buckets.map(\.due), [3, 3, 3], "what each week asks for, not its 7 days")
        XCTAssertEqual(s.buckets.map(\.goal), [3, 3, 3], "a week with two days skipped still has 5 to reach 3; the running week is not prorated")
        XCTAssertEqual(w.state.summary(h, on: d(18), today: d(18)).weekQuota, 3, "as the list's 1/3 this wk")
        // A month bar holds its whole weeks' quotas.
        let m = w.state.historySeries(h, today: d(22), bucket: .month)
        XCTAssertEqual(m.buckets.map(\.goal), [9])
        XCTAssertEqual(m.buckets.map(\.due), [9])
    }

    func testTheRunningWeeksGoalOfAnAmountHabitIsItsQuotaTimesTheGoal() {
        var w = World()
        let run = w.create(HabitFields(name: "Run", goal: 1_500, unit: "km", schedule: .perWeek(3), startDate: d(16)))
        w.progress(run, d(16), 2_000)
        let s = w.state.historySeries(run, today: d(16), bucket: .week)
        XCTAssertEqual(s.buckets.map(\.goal), [4_500], "3 × 1.5 km, not 3/7 of 1.5 km for the one day so far")
        XCTAssertEqual(s.buckets.map(\.due), [3])
        XCTAssertEqual(s.buckets.map(\.value), [2_000])
    }

    func testArchivingAnNPerWeekHabitMidWeekChangesNoFigureOfThatWeek() {
        var w = World()
        let h = w.build("Gym", start: d(2), schedule: .perWeek(3))
        w.progress(h, days: [d(9), d(10), d(12), d(16)])
        let today = d(17)
        let before = w.state.summary(h, on: today, today: today)
        XCTAssertEqual(before.weekDone, 1)
        XCTAssertEqual(before.weekQuota, 3)
        XCTAssertEqual(before.streak, 1)
        // Archived as `habitto archive` does on Tuesday: from tomorrow, Monday's check-in kept.
        _ = w.apply(.set(h.id, .archivedFrom(today)))
        let archived = w.state.habit(h.id)!
        let after = w.state.summary(archived, on: today, today: today)
        XCTAssertEqual(after.weekDone, 1)
        XCTAssertEqual(after.weekQuota, 3, "not 1/1: the archive does not shrink what the week asks for")
        XCTAssertEqual(after.streak, 1, "not 2 weeks")
    }
}
