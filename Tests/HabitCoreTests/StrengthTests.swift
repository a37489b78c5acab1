import Foundation
import XCTest
import HabitCore

private let start = LocalDay(year: 2026, month: 3, day: 2)!

/// What happened on one day, for the reference computations.
private struct DayPlan {
    var progress: Int
    var skipped: Bool
}

/// Loop Habit Tracker's score for a daily habit, written out directly: no rolling window,
/// just "success moves the score toward 1, failure toward 0, skip leaves it alone".
private func referenceDailyBuildScore(_ plan: [DayPlan], goal: Int) -> Double {
    let m = pow(0.5, 1.0 / 13.0)
    var score = 0.0
    for d in plan where !d.skipped {
        score = score * m + (d.progress >= goal ? 1.0 : 0.0) * (1 - m)
    }
    return score
}

/// Loop's score for any schedule, recomputing each day's window from scratch: the last
/// `denominator` days up to that day that were not skipped.
private func referenceScore(_ plan: [DayPlan], kind: HabitKind, goal: Int, schedule: Schedule) -> Double {
    var (numerator, denominator) = schedule.frequency
    let f = Double(numerator) / Double(denominator)
    let m = pow(0.5, f.squareRoot() / 13.0)
    if kind == .build && f < 1 { numerator *= 2; denominator *= 2 }
    var score = kind == .limit ? 1.0 : 0.0
    for i in plan.indices where !plan[i].skipped {
        let window = plan[...i].filter { !$0.skipped }.suffix(denominator)
        let v: Double
        if kind == .build {
            let successes = window.filter { $0.progress >= goal }.count
            v = min(1, Double(successes) / Double(numerator))
        } else {
            let sum = Double(window.reduce(0) { $0 + $1.progress })
            let target = Double(goal * numerator)
            v = target > 0 ? min(1, max(0, 1 - (sum - target) / target)) : (sum > 0 ? 0 : 1)
        }
        score = score * m + v * (1 - m)
    }
    return score
}

/// Records `plan` from `start` onwards and returns the world.
private func world(_ plan: [DayPlan], kind: HabitKind, goal: Int, schedule: Schedule,
                   file: StaticString = #filePath, line: UInt = #line) -> (World, Habit) {
    var w = World()
    let h = kind == .build ? w.build(start: start, goal: goal, schedule: schedule, file: file, line: line)
                           : w.limit(start: start, goal: goal, schedule: schedule, file: file, line: line)
    for (i, d) in plan.enumerated() {
        if d.progress != 0 { w.progress(h, start.adding(i), d.progress, file: file, line: line) }
        if d.skipped { w.skip(h, start.adding(i), file: file, line: line) }
    }
    return (w, h)
}

private func randomPlan(days: Int, maxProgress: Int, skipChance: Double, using rng: inout SplitMix64) -> [DayPlan] {
    (0..<days).map { _ in
        DayPlan(progress: Int.random(in: 0...maxProgress, using: &rng),
                skipped: Double.random(in: 0..<1, using: &rng) < skipChance)
    }
}

final class StrengthTests: XCTestCase {
    func testTwentySuccessfulDaysInARowEndingTodayGiveTheLoopScore() {
        var w = World()
        let first = day("2026-03-01")
        let h = w.build(start: first)
        w.progress(h, days: days(from: first, count: 20))
        assertClose(w.state.strength(h, asOf: day("2026-03-20")), 0.655748, accuracy: 5e-7)
        // 1 − 0.5^(20/13) exactly.
        assertClose(w.state.strength(h, asOf: day("2026-03-20")), 1 - pow(0.5, 20.0 / 13.0), accuracy: 1e-12)
        XCTAssertEqual(w.state.summary(h, on: day("2026-03-20"), today: day("2026-03-20")).strength,
                       w.state.strength(h, asOf: day("2026-03-20")))
    }

    func testHandCheckedDailySuccessFailSuccess() {
        // m = 0.5^(1/13) = 0.9480775143…; s1 = 1−m, s2 = s1·m, s3 = s2·m + (1−m) = 0.0985930624…
        var w = World()
        let h = w.build(start: start)
        w.progress(h, days: [start, start.adding(2)])
        assertClose(w.state.strength(h, asOf: start), 0.0519224856608286, accuracy: 1e-12)
        assertClose(w.state.strength(h, asOf: start.adding(2)), 0.0985930624277959, accuracy: 1e-12)
    }

    func testNothingRecordedGivesZeroForBuildAndOneForLimit() {
        var w = World()
        let b = w.build(start: start)
        let l = w.limit(start: start, goal: 1)
        XCTAssertEqual(w.state.strength(b, asOf: start.adding(30)), 0)
        XCTAssertEqual(w.state.strength(l, asOf: start.adding(30)), 1, accuracy: 1e-12)
        XCTAssertEqual(w.state.strength(b, asOf: start.adding(-1)), 0, "before the start")
        XCTAssertEqual(w.state.strength(l, asOf: start.adding(-1)), 1, "before the start")
    }

    func testSkippedDaysLeaveStrengthUnchanged() {
        var w = World()
        let h = w.build(start: start)
        w.progress(h, days: days(from: start, count: 3))
        let before = w.state.strength(h, asOf: start.adding(2))
        w.skip(h, start.adding(3))
        w.skip(h, start.adding(4))
        XCTAssertEqual(w.state.strength(h, asOf: start.adding(4)), before)
        w.progress(h, start.adding(4)) // progress on a skipped day still does not move it
        XCTAssertEqual(w.state.strength(h, asOf: start.adding(4)), before)
        XCTAssertLessThan(w.state.strength(h, asOf: start.adding(5)), before, "a missed day afterwards lowers it")
    }

    func testProgressBeforeTheStartDateIsIgnored() {
        var w = World()
        let h = w.build(start: start)
        w.progress(h, days: days(from: start.adding(-10), count: 10))
        XCTAssertEqual(w.state.strength(h, asOf: start), 0)
    }

    func testArchivedHabitStrengthStaysAtItsLastActiveDay() {
        var w = World()
        var h = w.build(start: start)
        w.progress(h, days: days(from: start, count: 5))
        let atArchive = w.state.strength(h, asOf: start.adding(4))
        h = w.set(h, .archivedFrom(start.adding(5)))
        XCTAssertEqual(w.state.strength(h, asOf: start.adding(40)), atArchive)
    }

    func testHandCheckedPerWeekScoreUsesTheDoubledWindow() {
        // 3/week: f = 3/7, m = 0.5^(√(3/7)/13); window 14 days, numerator 6.
        // Day 0 done: v = 1/6; day 1 done: v = 2/6; day 2 not done: v = 2/6.
        var w = World()
        let h = w.build(start: start, schedule: .perWeek(3))
        w.progress(h, days: [start, start.adding(1)])
        let m = pow(0.5, (3.0 / 7.0).squareRoot() / 13)
        var expected = 0.0
        for v in [1.0 / 6, 2.0 / 6, 2.0 / 6] { expected = expected * m + v * (1 - m) }
        assertClose(expected, 0.027808347694808645, accuracy: 1e-15, "the hand formula")
        assertClose(w.state.strength(h, asOf: start.adding(2)), 0.027808347694808645, accuracy: 1e-12)
    }

    func testHandCheckedEveryThreeDaysScore() {
        // every:3: f = 1/3, window 6 days, numerator 2; done on days 0 and 3, asked on day 5:
        // v = ½, ½, ½, 1, 1, 1 → 0.1284317869842089.
        var w = World()
        let h = w.build(start: start, schedule: .everyNDays(3))
        w.progress(h, days: [start, start.adding(3)])
        assertClose(w.state.strength(h, asOf: start.adding(5)), 0.1284317869842089, accuracy: 1e-12)
    }

    func testHandCheckedLimitScoresFollowTheAtMostRule() {
        let m = pow(0.5, 1.0 / 13)
        // Daily, at most 2, did 3: v = 1 − (3 − 2)/2 = ½, from a starting score of 1.
        var w = World()
        let a = w.limit(start: start, goal: 2)
        w.progress(a, start, 3)
        assertClose(w.state.strength(a, asOf: start), m + 0.5 * (1 - m), accuracy: 1e-12)
        assertClose(w.state.strength(a, asOf: start), 0.9740387571695857, accuracy: 1e-12)
        // At most 0, did 1: v = 0.
        let b = w.limit(start: start, goal: 0)
        w.progress(b, start, 1)
        assertClose(w.state.strength(b, asOf: start), m, accuracy: 1e-12)
        // At most 0, did nothing: stays 1.
        let c = w.limit(start: start, goal: 0)
        assertClose(w.state.strength(c, asOf: start.adding(9)), 1, accuracy: 1e-12)
        // Far over the ceiling clamps at 0: at most 1, did 5 → v = max(0, 1 − 4) = 0.
        let d = w.limit(start: start, goal: 1)
        w.progress(d, start, 5)
        assertClose(w.state.strength(d, asOf: start), m, accuracy: 1e-12)
    }

    func testHandCheckedWeekdayLimitUsesAWeeklyTarget() {
        // Weekdays, at most 1 a day: f = 5/7, target 5 over 7 days, m = 0.5^(√(5/7)/13).
        // Monday 4 (v = min(1, 1.2) = 1), Tuesday 3 (sum 7: v = 1 − 2/5 = 0.6) → 0.9823749821012201.
        var w = World()
        let h = w.limit(start: start, goal: 1, schedule: .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]))
        w.progress(h, start, 4)
        w.progress(h, start.adding(1), 3)
        assertClose(w.state.strength(h, asOf: start.adding(1)), 0.9823749821012201, accuracy: 1e-12)
    }

    func testStrengthRisesWithSuccessesAndFallsWithMissesWithinZeroAndOne() {
        var w = World()
        let h = w.build(start: start)
        w.progress(h, days: days(from: start, count: 60))
        var previous = 0.0
        for i in 0..<60 {
            let s = w.state.strength(h, asOf: start.adding(i))
            XCTAssertGreaterThan(s, previous, "day \(i)")
            XCTAssertLessThanOrEqual(s, 1)
            previous = s
        }
        for i in 60..<90 {
            let s = w.state.strength(h, asOf: start.adding(i))
            XCTAssertLessThan(s, previous, "day \(i)")
            XCTAssertGreaterThanOrEqual(s, 0)
            previous = s
        }
    }

    func testDailyBuildStrengthMatchesAnIndependentReferenceForRandomPatterns() {
        var rng = SplitMix64(seed: 0x5EED_0001)
        for trial in 0..<25 {
            let goal = Int.random(in: 1...3, using: &rng)
            let plan = randomPlan(days: Int.random(in: 1...150, using: &rng), maxProgress: goal + 1,
                                  skipChance: 0.15, using: &rng)
            let (w, h) = world(plan, kind: .build, goal: goal, schedule: .daily)
            for i in plan.indices {
                let expected = referenceDailyBuildScore(Array(plan[...i]), goal: goal)
                assertClose(w.state.strength(h, asOf: start.adding(i)), expected, accuracy: 1e-9,
                            "trial \(trial), day \(i)")
            }
        }
    }

    func testStrengthMatchesARecomputedLoopWindowForRandomSchedulesAndKinds() {
        var rng = SplitMix64(seed: 0x5EED_0002)
        let buildSchedules: [Schedule] = [.daily, .perWeek(1), .perWeek(3), .perWeek(6), .everyNDays(2), .everyNDays(5),
                                          .weekdays([.monday, .wednesday, .friday]), .weekdays([.saturday, .sunday])]
        let limitSchedules: [Schedule] = [.daily, .everyNDays(3), .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday])]
        for trial in 0..<40 {
            let kind: HabitKind = trial % 2 == 0 ? .build : .limit
            let schedule = kind == .build ? buildSchedules[trial / 2 % buildSchedules.count]
                                          : limitSchedules[trial / 2 % limitSchedules.count]
            let goal = Int.random(in: (kind == .build ? 1 : 0)...3, using: &rng)
            let plan = randomPlan(days: Int.random(in: 1...80, using: &rng), maxProgress: goal + 2,
                                  skipChance: 0.1, using: &rng)
            let (w, h) = world(plan, kind: kind, goal: goal, schedule: schedule)
            for i in plan.indices {
                let expected = referenceScore(Array(plan[...i]), kind: kind, goal: goal, schedule: schedule)
                assertClose(w.state.strength(h, asOf: start.adding(i)), expected, accuracy: 1e-9,
                            "trial \(trial) \(kind) \(schedule) goal \(goal), day \(i)")
            }
        }
    }

    func testReferenceAgreesWithTheDirectDailyFormula() {
        // Guards the reference itself: both references agree on daily build habits.
        var rng = SplitMix64(seed: 99)
        let plan = randomPlan(days: 120, maxProgress: 2, skipChance: 0.2, using: &rng)
        assertClose(referenceScore(plan, kind: .build, goal: 1, schedule: .daily),
                    referenceDailyBuildScore(plan, goal: 1), accuracy: 1e-12)
    }

    // MARK: Non-daily habits with skipped days: the window passes over them

    /// Records a plan given newest first, as Loop's tests write them (index 0 is `end`):
    /// `true` done, `false` nothing, `nil` skipped. The habit starts on the oldest day.
    private func loopWorld(_ newestFirst: [Bool?], schedule: Schedule, end: LocalDay,
                           file: StaticString = #filePath, line: UInt = #line) -> (World, Habit) {
        var w = World()
        let first = end.adding(-(newestFirst.count - 1))
        let h = w.build(start: first, schedule: schedule, file: file, line: line)
        for (i, v) in newestFirst.enumerated() {
            let d = end.adding(-i)
            if v == true { w.progress(h, d, file: file, line: line) }
            if v == nil { w.skip(h, d, file: file, line: line) }
        }
        return (w, h)
    }

    func testEveryTwoDaysWithASkipMatchesLoop() {
        // every:2 from 2026-11-17, done on the 17th, skipped on the 19th: Loop 0.069994 on the 21st
        // (four days in the window, none of them the skip: v = ½ four times, 0.5·(1 − m⁴)).
        var w = World()
        let first = day("2026-11-17")
        let h = w.build(start: first, schedule: .everyNDays(2))
        w.progress(h, first)
        w.skip(h, day("2026-11-19"))
        assertClose(w.state.strength(h, asOf: day("2026-11-21")), 0.069994, accuracy: 5e-7)
        let m = pow(0.5, 0.5.squareRoot() / 13)
        assertClose(w.state.strength(h, asOf: day("2026-11-21")), 0.5 * (1 - pow(m, 4)), accuracy: 1e-12)
        XCTAssertEqual(w.state.strength(h, asOf: day("2026-11-19")), w.state.strength(h, asOf: day("2026-11-18")),
                       "the skipped day keeps the day before's score")
    }

    func testSixPerWeekWithThreeSkippedDaysMatchesLoop() {
        // 6/week, done on days 0–17, days 10, 11 and 12 then skipped: Loop 0.365222.
        var w = World()
        let h = w.build(start: start, schedule: .perWeek(6))
        w.progress(h, days: days(from: start, count: 18))
        for i in 10...12 { w.skip(h, start.adding(i)) }
        assertClose(w.state.strength(h, asOf: start.adding(17)), 0.365222, accuracy: 1e-6)
    }

    func testSixPerWeekEveryDayDoneOrSkippedConvergesToOne() {
        // Loop's test: a 6/week habit where every day is done or skipped converges to 1.
        var rng = SplitMix64(seed: 0x5EED_0006)
        let plan: [Bool?] = (0..<700).map { _ in Double.random(in: 0..<1, using: &rng) < 0.3 ? nil : true }
        let today = day("2026-11-23")
        let (w, h) = loopWorld(plan, schedule: .perWeek(6), end: today)
        assertClose(w.state.strength(h, asOf: today), 1.0, accuracy: 1e-6)
    }

    func testSkippingDaysAfterReachingFullStrengthDoesNotLowerIt() {
        // Loop issue 1695: a 6/week habit at full strength, four days skipped, then done again.
        // Whichever four days are skipped, the score never goes down.
        let today = day("2026-04-28")
        for skippedFrom in 0...6 {
            var plan: [Bool?] = Array(repeating: true, count: 400)
            for k in skippedFrom..<(skippedFrom + 4) { plan[k] = nil }
            let (w, h) = loopWorld(plan, schedule: .perWeek(6), end: today)
            var previous = 0.0
            for i in stride(from: 20, through: 0, by: -1) {
                let s = w.state.strength(h, asOf: today.adding(-i))
                XCTAssertGreaterThanOrEqual(s, previous, "skips \(skippedFrom)…\(skippedFrom + 3) days ago, day −\(i)")
                previous = s
            }
            XCTAssertGreaterThan(previous, 0.999)
        }
    }

    func testSkipsOnANonDailyHabitAreAsIfTheDaysNeverExisted() {
        // As Loop's skipsShouldNotAffectScore: a run of skipped days in the middle of a
        // history gives the same score as the history without those days.
        for schedule: Schedule in [.perWeek(3), .everyNDays(2), .weekdays([.monday, .wednesday, .friday])] {
            var rng = SplitMix64(seed: 0x5EED_0007)
            let plain: [Bool?] = (0..<200).map { _ in Bool.random(using: &rng) }
            var withSkips = plain
            withSkips.insert(contentsOf: Array(repeating: nil, count: 9), at: 80)
            let today = day("2026-11-23")
            let (a, ha) = loopWorld(plain, schedule: schedule, end: today)
            let (b, hb) = loopWorld(withSkips, schedule: schedule, end: today)
            assertClose(b.state.strength(hb, asOf: today), a.state.strength(ha, asOf: today), accuracy: 1e-12,
                        "\(schedule)")
        }
    }

    // MARK: Loop's own score tests for non-daily frequencies (ScoreListTest)

    func testLoopRecomputeEveryTwoDays() {
        // check(0, 2): daily 0.101149; the same days as every:2, 0.054816.
        let today = day("2026-11-23")
        let (d, hd) = loopWorld([true, true], schedule: .daily, end: today)
        assertClose(d.state.strength(hd, asOf: today), 0.101149, accuracy: 1e-6)
        let (e, he) = loopWorld([true, true], schedule: .everyNDays(2), end: today)
        assertClose(e.state.strength(he, asOf: today), 0.054816, accuracy: 1e-6)
    }

    func testLoopImperfectNonDailyConvergesToTheShareDone() {
        // 3/week, two done and five missed each week for 100 weeks: 2/3; as 4/week: ½.
        let today = day("2026-11-23")
        let week: [Bool?] = [true, true, false, false, false, false, false]
        let plan = Array((0..<100).map { _ in week }.joined())
        let (a, ha) = loopWorld(plan, schedule: .perWeek(3), end: today)
        assertClose(a.state.strength(ha, asOf: today), 2.0 / 3.0, accuracy: 1e-6)
        let (b, hb) = loopWorld(plan, schedule: .perWeek(4), end: today)
        assertClose(b.state.strength(hb, asOf: today), 0.5, accuracy: 1e-6)
    }

    func testLoopIrregularNonDailyConvergesToOne() {
        // 1/week, done on the first day of one week and the last of the next, 100 times.
        let today = day("2026-11-23")
        let two: [Bool?] = [true, false, false, false, false, false, false,
                            false, false, false, false, false, false, true]
        let plan = Array((0..<100).map { _ in two }.joined())
        let (w, h) = loopWorld(plan, schedule: .perWeek(1), end: today)
        assertClose(w.state.strength(h, asOf: today), 1.0, accuracy: 1e-3)
    }

    func testLoopHighScoreInReasonableTime() {
        // Daily: over 99% in 3 months; weekly: in 9 months; every 30 days: in 18 months.
        let today = day("2026-11-23")
        func every(_ n: Int, times: Int) -> [Bool?] {
            (0..<((times - 1) * n + 1)).map { $0 % n == 0 ? true : false }
        }
        let (a, ha) = loopWorld(every(1, times: 90), schedule: .daily, end: today)
        XCTAssertGreaterThan(a.state.strength(ha, asOf: today), 0.99)
        let (b, hb) = loopWorld(every(7, times: 39), schedule: .perWeek(1), end: today)
        XCTAssertGreaterThan(b.state.strength(hb, asOf: today), 0.99)
        let (c, hc) = loopWorld(every(30, times: 18), schedule: .everyNDays(30), end: today)
        XCTAssertGreaterThan(c.state.strength(hc, asOf: today), 0.99)
    }

    func testLoopDailyValuesWithSkips() {
        // Loop's test_getValueWithSkip: done on the last 20 days, days 5, 10 and 11 skipped.
        let today = day("2026-11-23")
        var plan: [Bool?] = Array(repeating: true, count: 20)
        for k in [5, 10, 11] { plan[k] = nil }
        let (w, h) = loopWorld(plan, schedule: .daily, end: today)
        let expected = [0.596033, 0.573910, 0.550574, 0.525961, 0.500000, 0.472617, 0.472617, 0.443734,
                        0.413270, 0.381137, 0.347244, 0.347244, 0.347244, 0.311495, 0.273788, 0.234017,
                        0.192067, 0.147820, 0.101149, 0.051922]
        for (i, value) in expected.enumerated() {
            assertClose(w.state.strength(h, asOf: today.adding(-i)), value, accuracy: 1e-6, "day −\(i)")
        }
    }
}
