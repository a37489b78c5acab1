import Foundation
import XCTest
@testable import HabitCore

/// Goal, unit, kind and schedule are a history of definitions, each from a day: every rule
/// reads a day with the definition in force on it, so an edit made today keeps the past.
/// 2026-11-02 is a Monday; "today" is Tuesday 2026-11-10 unless a test says otherwise.
final class DefinitionHistoryTests: XCTestCase {
    let today = LocalDay(year: 2026, month: 11, day: 10)!
    func d(_ n: Int) -> LocalDay { LocalDay(year: 2026, month: 11, day: n)! }

    /// Applies what `Edits.update` returns for `change` from `from` (nil: from the start).
    private func edit(_ w: inout World, _ h: Habit, from: LocalDay?, file: StaticString = #filePath, line: UInt = #line,
                      _ change: (inout HabitFields) -> Void) throws -> Habit {
        let current = w.habit(h.id)
        var fields = current.fields
        change(&fields)
        for c in try Edits.update(current, to: fields, from: from, in: w.state) { _ = w.apply(c, file: file, line: line) }
        return w.habit(h.id)
    }

    /// Water, goal 8 glasses, 9 glasses on each of the nine days before today.
    private func water(_ w: inout World) -> Habit {
        let h = w.create(HabitFields(name: "Water", goal: 8 * Amount.scale, unit: "glasses", startDate: d(1)))
        w.progress(h, days: days(from: d(1), count: 9), 9 * Amount.scale)
        return h
    }

    func testRaisingTheGoalFromTodayKeepsTheStreakStrengthAndXPEarnedBefore() throws {
        var w = World()
        let h = water(&w)
        let before = w.state.summary(h, on: today, today: today)
        let xpBefore = w.state.stats(today: today).xp
        XCTAssertEqual(before.streak, 9)
        let edited = try edit(&w, h, from: today) { $0.goal = 10 * Amount.scale }
        let after = w.state.summary(edited, on: today, today: today)
        XCTAssertEqual(after.streak, 9, "the nine days were done by the goal of their time")
        XCTAssertEqual(after.bestStreak, 9)
        XCTAssertEqual(after.strength, before.strength, "no past day is judged again")
        XCTAssertEqual(w.state.stats(today: today).xp, xpBefore)
        XCTAssertEqual(after.habit.goal, 10 * Amount.scale, "today asks for the new goal")
        XCTAssertEqual(edited.definitions.map(\.from), [.earliest, today])
        XCTAssertEqual(edited.on(d(9)).goal, 8 * Amount.scale)
        // Today with 9 glasses is not done under the new goal; with 10 it is, and the streak goes on.
        w.progress(edited, today, 9 * Amount.scale)
        XCTAssertFalse(w.state.summary(edited, on: today, today: today).completed)
        w.progress(edited, today, Amount.scale)
        XCTAssertEqual(w.state.summary(edited, on: today, today: today).streak, 10)
    }

    func testAnEditFromTheStartJudgesEveryDayByTheNewDefinition() throws {
        var w = World()
        let h = water(&w)
        let edited = try edit(&w, h, from: nil) { $0.goal = 10 * Amount.scale }
        XCTAssertFalse(edited.hasHistory)
        XCTAssertEqual(w.state.summary(edited, on: today, today: today).streak, 0)
        XCTAssertEqual(w.state.stats(today: today).xp, 0)
        // A date on or before the start date is the same as the start.
        var w2 = World()
        let h2 = water(&w2)
        let changes = try Edits.update(h2, to: { var f = h2.fields; f.goal = 10 * Amount.scale; return f }(), from: d(1), in: w2.state)
        XCTAssertEqual(changes, [.set(h2.id, .goal(10 * Amount.scale))])
    }

    func testAnEditFromAPastDayReplacesLaterDefinitionsOfThatField() throws {
        var w = World()
        let h = water(&w)
        _ = try edit(&w, h, from: d(8)) { $0.goal = 12 * Amount.scale }
        let fixed = try edit(&w, h, from: d(5)) { $0.goal = 9 * Amount.scale }
        XCTAssertEqual(fixed.definitions.map(\.rule.goal), [8, 9].map { $0 * Amount.scale })
        XCTAssertEqual(fixed.definitions.map(\.from), [.earliest, d(5)])
        XCTAssertEqual(w.state.summary(fixed, on: today, today: today).streak, 9)
        // No change when every day from then on already reads the value.
        XCTAssertEqual(try Edits.update(fixed, to: fixed.fields, from: d(6), in: w.state), [])
    }

    func testAnEditFromADayChangesOnlyTheFieldsItChangesOrNames() throws {
        var w = World()
        let h = water(&w)
        _ = try edit(&w, h, from: today) { $0.goal = 10 * Amount.scale }
        // The unit from the 5th: the goal of the 5th to the 9th stays 8.
        let unit = try edit(&w, h, from: d(5)) { $0.unit = "cups" }
        XCTAssertEqual(unit.on(d(6)).goal, 8 * Amount.scale)
        XCTAssertEqual(unit.on(d(6)).fields.unit, "cups")
        // Naming the goal sets it from the day even though it is the current one.
        let current = w.habit(h.id)
        let named = try Edits.update(current, to: current.fields, from: nil, asked: [FieldValue.goal(0).index], in: w.state)
        XCTAssertEqual(named, [.set(h.id, .goal(10 * Amount.scale))], "the register from today holds 10 already")
        for c in named { _ = w.apply(c) }
        XCTAssertEqual(w.habit(h.id).on(d(2)).goal, 10 * Amount.scale)
        XCTAssertEqual(w.habit(h.id).on(d(6)).fields.unit, "cups")
    }

    func testChangingWeekdaysToDailyKeepsPastWeekendsOff() throws {
        var w = World()
        let h = w.build(start: d(2), schedule: .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]))
        let weekdays = days(from: d(2), count: 8).filter { $0.weekday.rawValue <= 5 }
        w.progress(h, days: weekdays)
        let edited = try edit(&w, h, from: today) { $0.schedule = .daily }
        let s = w.state.summary(edited, on: today, today: today)
        XCTAssertEqual(s.streak, 6, "the weekend before the edit is not a miss")
        let history = w.state.history(edited, through: today, today: today)
        XCTAssertEqual(history.filter(\.missed).map(\.day), [], "no past weekend becomes a miss")
        XCTAssertEqual(history.first { $0.day == d(7) }?.scheduled, false)
        XCTAssertEqual(history.first { $0.day == today }?.scheduled, true)
    }

    func testAKindChangeFromTodayKeepsPastLimitDaysWithinTheirLimit() throws {
        var w = World()
        let h = w.limit(start: d(2), goal: 2 * Amount.scale)
        w.progress(h, days: days(from: d(2), count: 8), Amount.scale)
        let xp = w.state.stats(today: today).xp
        let edited = try edit(&w, h, from: today) { $0.kind = .build }
        XCTAssertEqual(w.state.stats(today: today).xp, xp, "a limit day kept stays earned")
        XCTAssertEqual(edited.kind, .build)
        XCTAssertEqual(w.state.summary(edited, on: d(9), today: today).completed, true)
    }

    func testALimitHabitCannotTakeAPerWeekScheduleFromADay() throws {
        var w = World()
        let h = w.limit(start: d(2), goal: 2 * Amount.scale)
        var f = h.fields
        f.kind = .build
        f.schedule = .perWeek(3)
        _ = try edit(&w, h, from: d(8)) { $0.schedule = .perWeek(3); $0.kind = .build }
        XCTAssertEqual(w.habit(h.id).on(d(8)).schedule, .perWeek(3))
        XCTAssertThrowsError(try Edits.update(w.habit(h.id), to: { var g = f; g.kind = .limit; return g }(), from: d(9), in: w.state)) {
            XCTAssertTrue("\($0)".contains("limit habit cannot use an N/week schedule"), "\($0)")
        }
    }

    /// The day an edit takes effect is a calendar day: around a daylight-saving change (a
    /// 25-hour and a 23-hour day in Berlin) the instants of the day read its definition.
    func testADefinitionFromADaylightSavingDayCoversTheWholeDay() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        var w = World()
        let start = LocalDay(year: 2026, month: 10, day: 20)!
        let h = w.create(HabitFields(name: "Water", goal: 8 * Amount.scale, startDate: start))
        let change = LocalDay(year: 2026, month: 10, day: 25)! // clocks go back at 03:00
        _ = try edit(&w, h, from: change) { $0.goal = 10 * Amount.scale }
        func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        // 00:30 CEST and 23:30 CET on the 25th, 25 hours of one day; 23:30 CEST on the 24th.
        let first = LocalDay.containing(instant("2026-10-24T22:30:00Z"), in: berlin)
        let last = LocalDay.containing(instant("2026-10-25T22:30:00Z"), in: berlin)
        let eve = LocalDay.containing(instant("2026-10-24T21:30:00Z"), in: berlin)
        XCTAssertEqual([first, last, eve], [change, change, change.adding(-1)])
        XCTAssertEqual(w.habit(h.id).on(first).goal, 10 * Amount.scale)
        XCTAssertEqual(w.habit(h.id).on(eve).goal, 8 * Amount.scale)
        // Spring forward (29 March 2026, a 23-hour day) with a day-start hour of 4: 02:30
        // does not exist, 03:30 is before the day starts and belongs to the 28th.
        let spring = LocalDay(year: 2026, month: 3, day: 29)!
        XCTAssertEqual(LocalDay.containing(instant("2026-03-29T01:30:00Z"), in: berlin, dayStartHour: 4), spring.adding(-1))
        var w2 = World()
        let h2 = w2.create(HabitFields(name: "Read", goal: Amount.scale, startDate: LocalDay(year: 2026, month: 3, day: 20)!))
        w2.progress(h2, days: days(from: LocalDay(year: 2026, month: 3, day: 20)!, count: 9))
        _ = try edit(&w2, h2, from: spring) { $0.schedule = .perWeek(2) }
        let s = w2.state.summary(w2.habit(h2.id), on: spring, today: spring)
        XCTAssertEqual(s.streakUnit, "weeks")
        XCTAssertEqual(w2.state.summary(w2.habit(h2.id), on: spring.adding(-1), today: spring).streak, 9,
                       "the days before the change counted days")
    }

    func testADefinitionFromALeapDay() throws {
        var w = World()
        let start = LocalDay(year: 2028, month: 2, day: 20)!
        let leap = LocalDay(year: 2028, month: 2, day: 29)!
        let h = w.create(HabitFields(name: "Water", goal: 8 * Amount.scale, startDate: start))
        w.progress(h, days: days(from: start, count: 11), 8 * Amount.scale) // through 1 March
        let edited = try edit(&w, h, from: leap) { $0.goal = 10 * Amount.scale }
        let history = w.state.history(edited, through: leap.adding(1), today: leap.adding(2))
        XCTAssertEqual(history.map(\.completed), Array(repeating: true, count: 9) + [false, false])
        XCTAssertEqual(history.map(\.day).last, LocalDay(year: 2028, month: 3, day: 1)!)
        XCTAssertEqual(w.state.streaks(edited, asOf: leap.adding(-1), today: leap.adding(2)).current, 9)
        // 30 per month in February 2028 asks for its 29 days.
        var m = World()
        let monthly = m.create(HabitFields(name: "Walk", schedule: .perMonth(30), startDate: LocalDay(year: 2028, month: 2, day: 1)!))
        m.progress(monthly, days: days(from: LocalDay(year: 2028, month: 2, day: 1)!, count: 29))
        let s = m.state.summary(monthly, on: leap, today: leap)
        XCTAssertEqual(s.weekQuota, 29)
        XCTAssertEqual(s.weekDone, 29)
        XCTAssertEqual(s.streak, 1)
        XCTAssertEqual(s.streakUnit, "months")
    }

    // MARK: Merge

    func testConcurrentEditsWithDifferentEffectiveDatesMergeInAnyOrder() throws {
        var a = TestDevice(1), b = TestDevice(2)
        let h = habitID(1)
        let create = a.op(.create(h, HabitFields(name: "Water", goal: 8 * Amount.scale, startDate: d(1))), at: 1_000)
        b.observe(create.hlc)
        // Neither device has seen the other's edit.
        let fromTenth = a.op(.setFrom(h, d(10), .goal(10 * Amount.scale)), at: 5_000)
        let fromFifteenth = b.op(.setFrom(h, d(15), .goal(12 * Amount.scale)), at: 4_000)
        let sameDayA = a.op(.setFrom(h, d(20), .unit("cups")), at: 6_000)
        let sameDayB = b.op(.setFrom(h, d(20), .unit("glasses")), at: 7_000)
        let orders = [[create, fromTenth, sameDayA, fromFifteenth, sameDayB],
                      [create, fromFifteenth, sameDayB, fromTenth, sameDayA],
                      [create, fromTenth, fromFifteenth, sameDayB, sameDayA]]
        var states: [HabitState] = []
        for order in orders {
            var s = HabitState()
            for op in order { applyOrFail(op, to: &s) }
            states.append(s)
        }
        XCTAssertEqual(Set(states.map { $0.encoded() }).count, 1, "every replica holds the same bytes")
        let habit = try XCTUnwrap(states[0].habit(h))
        XCTAssertEqual(habit.on(d(9)).goal, 8 * Amount.scale)
        XCTAssertEqual(habit.on(d(12)).goal, 10 * Amount.scale)
        XCTAssertEqual(habit.on(d(15)).goal, 12 * Amount.scale)
        XCTAssertEqual(habit.on(d(20)).fields.unit, "glasses", "one day, one field: the later clock wins")
        XCTAssertEqual(habit.on(d(19)).fields.unit, nil)
        var r = ByteReader(states[0].encoded())
        XCTAssertEqual(try HabitState(decoding: &r), states[0])
    }

    func testAStateWithoutDatedDefinitionsEncodesAsBefore() throws {
        var w = World()
        let h = water(&w)
        // What the encoding was before dated registers existed (the digest of a backup of
        // that version): the version vector, the clock and the entries, nothing after them.
        let plain = w.state.encoded(as: StateFormat(datedRegisters: false))
        XCTAssertEqual(w.state.encoded(), plain + [0], "this version's ends with no habit's dated registers")
        var r = ByteReader(plain)
        for _ in 0..<(try r.count(max: 100)) { _ = try r.device(); _ = try r.varint() }
        _ = try r.hlc()
        for _ in 0..<(try r.count(max: 100)) { _ = try r.habit(); _ = try r.entryMeta(); _ = try r.days() }
        XCTAssertTrue(r.isAtEnd, "nothing follows the entries of a state without dated registers")
        _ = try edit(&w, h, from: today) { $0.goal = 10 * Amount.scale }
        let dated = w.state.encoded()
        var back = ByteReader(dated)
        XCTAssertEqual(try HabitState(decoding: &back), w.state)
        XCTAssertTrue(back.isAtEnd)
        XCTAssertEqual(w.state.entries[h.id]?.dated.count, 1)
    }

    func testASetFromChangeRoundTripsAndOnlyRuleFieldsAreDated() throws {
        for value: FieldValue in [.goal(2_500), .kind(.limit), .unit("km"), .unit(nil), .schedule(.perMonth(12))] {
            XCTAssertEqual(try roundTrip(.setFrom(habitID(3), d(4), value)), .setFrom(habitID(3), d(4), value))
        }
        var w = ByteWriter()
        w.change(.setFrom(habitID(3), d(4), .name("Walk")))
        var r = ByteReader(w.bytes)
        XCTAssertThrowsError(try r.change())
        XCTAssertThrowsError(try Change.setFrom(habitID(3), d(4), .name("Walk")).validate())
    }

    // MARK: N per month

    func testNPerMonthCountsStreaksInMonthsAndAsksForWhatAMonthCanHold() throws {
        var w = World()
        // Starts 25 October: October asks min(3, 7 days) = 3.
        let h = w.create(HabitFields(name: "Call mum", schedule: .perMonth(3), startDate: LocalDay(year: 2026, month: 10, day: 25)!))
        w.progress(h, days: [LocalDay(year: 2026, month: 10, day: 26)!, LocalDay(year: 2026, month: 10, day: 28)!,
                             LocalDay(year: 2026, month: 10, day: 30)!])
        w.progress(h, days: [d(3), d(4)])
        var s = w.state.summary(h, on: today, today: today)
        XCTAssertEqual(s.streak, 1, "October met its quota; November is still running")
        XCTAssertEqual([s.weekDone, s.weekQuota], [2, 3])
        XCTAssertTrue(s.scheduled, "due while the month's quota is not met")
        w.progress(h, d(5))
        s = w.state.summary(h, on: today, today: today)
        XCTAssertEqual(s.streak, 2)
        XCTAssertFalse(s.scheduled, "a success after the quota is met is not asked for")
        XCTAssertFalse(w.state.isDue(h, on: today))
        // Skipped days leave the month fewer days: skipping all but two of December's asks for 2.
        let dec = LocalDay(year: 2026, month: 12, day: 1)!
        for day in days(from: dec, count: 29) { w.skip(h, day) }
        w.progress(h, days: [dec.adding(29), dec.adding(30)])
        let end = LocalDay(year: 2027, month: 1, day: 2)!
        let decSummary = w.state.summary(h, on: dec.adding(30), today: end)
        XCTAssertEqual([decSummary.weekDone, decSummary.weekQuota], [2, 2])
        XCTAssertEqual(w.state.streaks(h, asOf: end, today: end).current, 3)
        // A month that fell short breaks it, and its open days are misses.
        var m = World()
        let g = m.create(HabitFields(name: "Walk", schedule: .perMonth(2), startDate: LocalDay(year: 2026, month: 9, day: 1)!))
        m.progress(g, LocalDay(year: 2026, month: 9, day: 3)!)
        let after = LocalDay(year: 2026, month: 10, day: 5)!
        XCTAssertEqual(m.state.streaks(g, asOf: after, today: after).current, 0)
        XCTAssertEqual(m.state.history(g, through: after, today: after).filter(\.missed).count, 29)
        XCTAssertThrowsError(try Schedule(parsing: "32/month"))
        XCTAssertThrowsError(try Schedule(parsing: "0/month"))
        XCTAssertEqual(try Schedule(parsing: "31/month"), .perMonth(31))
        XCTAssertEqual(Schedule.perMonth(4).description, "4/month")
    }

    func testNPerMonthStrengthUsesLoopsFrequencyNOverThirty() {
        var w = World()
        let start = LocalDay(year: 2026, month: 11, day: 1)!
        let h = w.create(HabitFields(name: "Call", schedule: .perMonth(10), startDate: start))
        let done = [0, 2, 3, 7, 8, 12]
        w.progress(h, days: done.map { start.adding($0) })
        // Loop: frequency 10/30 < 1, so the window is 60 days and asks for 20.
        let multiplier = pow(0.5, (10.0 / 30).squareRoot() / 13)
        var score = 0.0, rolling = 0
        for i in 0...14 {
            if done.contains(i) { rolling += 1 }
            score = score * multiplier + min(1, Double(rolling) / 20) * (1 - multiplier)
        }
        assertClose(w.state.strength(h, asOf: start.adding(14)), score, accuracy: 1e-12)
        // The history chart's goal for a whole month is N.
        let series = w.state.historySeries(h, today: LocalDay(year: 2026, month: 12, day: 31)!, bucket: .month)
        XCTAssertEqual(series.buckets.map(\.goal), [10, 10])
    }

    func testALimitHabitCannotBeCountedPerMonth() {
        let f = HabitFields(name: "Coffee", kind: .limit, goal: 0, schedule: .perMonth(3), startDate: d(1))
        XCTAssertThrowsError(try f.validate()) { XCTAssertTrue("\($0)".contains("N/month"), "\($0)") }
    }
}
