import Foundation
import XCTest
import HabitCore

private let monday = LocalDay(year: 2026, month: 3, day: 2)!

/// The rules of a pause (docs/rules.md, Pauses): a paused day is a skipped day for streaks,
/// strength, XP, N-per-week and N-per-month goals, reminders and catching up.
final class PauseRuleTests: XCTestCase {
    private func pause(_ w: inout World, _ h: Habit, _ from: LocalDay, _ to: LocalDay, reason: String? = "",
                       file: StaticString = #filePath, line: UInt = #line) {
        _ = w.apply(.pause(h.id, from: from, to: to, reason: reason), file: file, line: line)
    }

    func testAPauseNeitherCountsNorBreaksADailyStreak() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, days: days(from: monday, count: 3))
        pause(&w, h, monday.adding(3), monday.adding(5), reason: "trip")
        w.progress(h, monday.adding(6))
        let s = w.state.summary(h, on: monday.adding(6), today: monday.adding(6))
        XCTAssertEqual(s.streak, 4, "three days before the pause and one after")
        XCTAssertEqual(s.bestStreak, 4)
        let paused = w.state.summary(h, on: monday.adding(4), today: monday.adding(6))
        XCTAssertTrue(paused.paused && paused.skipped && !paused.completed, "a paused day is skipped, not done")
        XCTAssertFalse(w.state.history(h, through: monday.adding(6)).contains { $0.missed }, "no paused day is a miss")
    }

    func testWithoutThePauseTheSameDaysBreakTheStreak() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, days: days(from: monday, count: 3))
        w.progress(h, monday.adding(6))
        XCTAssertEqual(w.state.summary(h, on: monday.adding(6), today: monday.adding(6)).streak, 1)
    }

    func testStrengthFreezesOverAPause() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, days: days(from: monday, count: 10))
        pause(&w, h, monday.adding(10), monday.adding(19))
        let before = w.state.strength(h, asOf: monday.adding(9))
        for d in days(from: monday.adding(10), count: 10) {
            XCTAssertEqual(w.state.strength(h, asOf: d), before, "strength on \(d) stands still")
        }
        w.progress(h, monday.adding(20))
        XCTAssertGreaterThan(w.state.strength(h, asOf: monday.adding(20)), before, "it grows again after the pause")
    }

    func testPausedDaysEarnNoXPAndDoNotSpoilAPerfectDay() {
        var w = World()
        let read = w.build("Read", start: monday)
        let walk = w.build("Walk", start: monday)
        w.progress(read, days: [monday, monday.adding(1)])
        w.progress(walk, days: [monday, monday.adding(1)])
        pause(&w, walk, monday.adding(1), monday.adding(1))
        // Monday: both done (100 + 50). Tuesday: Walk is paused (its check-in earns nothing),
        // Read done, and the day is perfect (50 + 50).
        let s = w.state.stats(today: monday.adding(2))
        XCTAssertEqual(s.xp, 250)
        XCTAssertEqual(s.perfectDays, 2)
    }

    func testAWeekPartlyPausedAsksForTheDaysLeftUpToN() {
        var w = World()
        let h = w.build(start: monday.adding(-7), schedule: .perWeek(3))
        // Paused Monday to Thursday: three days are left, and the week asks for 3.
        pause(&w, h, monday, monday.adding(3))
        w.progress(h, days: [monday.adding(4), monday.adding(5)])
        var s = w.state.summary(h, on: monday.adding(5), today: monday.adding(5))
        XCTAssertEqual(s.weekQuota, 3)
        XCTAssertEqual(s.weekDone, 2)
        // Paused through Friday too: two days are left, so two successes meet the week.
        pause(&w, h, monday.adding(4), monday.adding(4))
        s = w.state.summary(h, on: monday.adding(6), today: monday.adding(6))
        XCTAssertEqual(s.weekQuota, 2)
        XCTAssertEqual(s.weekDone, 1, "Friday's check-in is on a paused day")
        w.progress(h, monday.adding(6))
        s = w.state.summary(h, on: monday.adding(6), today: monday.adding(6))
        XCTAssertEqual(s.weekDone, 2)
        XCTAssertGreaterThanOrEqual(s.streak, 1, "the week met what it asked for")
    }

    func testAWholeWeekPausedNeitherCountsNorBreaksAWeeklyStreak() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(2))
        w.progress(h, days: [monday, monday.adding(1)])
        pause(&w, h, monday.adding(7), monday.adding(13))
        w.progress(h, days: [monday.adding(14), monday.adding(15)])
        let s = w.state.summary(h, on: monday.adding(15), today: monday.adding(15))
        XCTAssertEqual(s.streak, 2, "weeks one and three; the paused week asks for nothing")
    }

    func testAMonthPartlyPausedAsksForItsDaysLeftUpToN() {
        var w = World()
        let first = LocalDay(year: 2026, month: 4, day: 1)!
        let h = w.build(start: first, schedule: .perMonth(10))
        // April has 30 days; 25 paused leave 5, so the month asks for 5.
        pause(&w, h, first, first.adding(24), reason: "travel")
        w.progress(h, days: days(from: first.adding(25), count: 5))
        let last = first.adding(29)
        let s = w.state.summary(h, on: last, today: last)
        XCTAssertEqual(s.weekQuota, 5)
        XCTAssertEqual(s.weekDone, 5)
        XCTAssertEqual(s.streak, 1, "the month met what it asked for")
    }

    func testPausedDaysAreNotAskedAboutAndGetNoReminder() {
        var w = World()
        let h = w.create(HabitFields(name: "Read", startDate: monday, reminders: [ReminderTime(minutes: 8 * 60)]))
        let today = monday.adding(6)
        pause(&w, h, monday.adding(2), today)
        let asked = CatchUp.items(w.state, today: today).map(\.day)
        XCTAssertEqual(asked, [monday, monday.adding(1)], "only the days before the pause")
        XCTAssertFalse(Reminders.wanted(h, on: today, in: w.state, settings: .init()), "silent on a paused day")
        XCTAssertTrue(Reminders.wanted(h, on: today.adding(1), in: w.state, settings: .init()), "and again after it")
    }

    func testACheckInOnAPausedDayGivesThatDayBack() throws {
        var w = World()
        let h = w.build(start: monday)
        pause(&w, h, monday, monday.adding(2))
        for change in try Edits.checkIn(h, on: monday.adding(1), amount: Amount.scale, today: monday.adding(2), in: w.state) {
            _ = w.apply(change)
        }
        XCTAssertFalse(w.state.isPaused(h.id, monday.adding(1)))
        XCTAssertTrue(w.state.summary(h, on: monday.adding(1), today: monday.adding(2)).completed)
        XCTAssertTrue(w.state.isPaused(h.id, monday) && w.state.isPaused(h.id, monday.adding(2)), "the other days stay paused")
    }
}

/// What `Pauses` writes and refuses: a pause, its end, and its checks.
final class PauseEditTests: XCTestCase {
    func testAPauseIsOneChangeAHabitAndRepeatingItChangesNothing() throws {
        var w = World()
        let a = w.build("Read", start: monday), b = w.build("Walk", start: monday.adding(3))
        let changes = try Pauses.pause([a, b], from: monday, to: monday.adding(5), reason: "trip", in: w.state)
        XCTAssertEqual(changes, [.pause(a.id, from: monday, to: monday.adding(5), reason: "trip"),
                                 .pause(b.id, from: monday.adding(3), to: monday.adding(5), reason: "trip")],
                       "a habit's days before its start are left out")
        for c in changes { _ = w.apply(c) }
        XCTAssertEqual(try Pauses.pause([a, b], from: monday, to: monday.adding(5), reason: "trip", in: w.state), [])
        XCTAssertEqual(try Pauses.pause([a], from: monday, to: monday.adding(5), reason: nil, in: w.state).count, 1,
                       "another reason is a change")
        XCTAssertEqual(Pauses.runs(a, in: w.state), [PauseRun(from: monday, to: monday.adding(5), reason: "trip")])
    }

    func testBadRangesAndReasonsAreRefused() {
        let w = World()
        let h = Habit(id: habitID(1), fields: HabitFields(name: "Read", startDate: monday))
        XCTAssertThrowsError(try Pauses.pause([h], from: monday.adding(1), to: monday, reason: nil, in: w.state)) {
            XCTAssertEqual($0 as? CoreError, .pauseBackwards(from: monday.adding(1), to: monday))
        }
        XCTAssertThrowsError(try Pauses.pause([h], from: monday, to: monday.adding(Limits.maxPauseDays), reason: nil, in: w.state)) {
            XCTAssertEqual($0 as? CoreError, .pauseTooLong(days: Limits.maxPauseDays + 1))
            XCTAssertEqual(($0 as? CoreError)?.description, "a pause of 367 days is too long: one pause covers at most 366 days")
        }
        XCTAssertNoThrow(try Pauses.checkRange(from: monday, to: monday.adding(Limits.maxPauseDays - 1)))
        for reason in ["", String(repeating: "a", count: 81), " trip", "a\u{1b}[2Jb"] {
            XCTAssertThrowsError(try Pauses.pause([h], from: monday, to: monday, reason: reason, in: w.state), reason)
        }
        XCTAssertThrowsError(try Pauses.pause([h], from: monday.adding(-9), to: monday.adding(-1), reason: nil, in: w.state)) {
            XCTAssertEqual($0 as? CoreError, .beforeStart(habit: "Read", day: monday.adding(-1), start: monday))
        }
    }

    func testEndingAPauseOverTodayEndsItYesterday() throws {
        var w = World()
        let h = w.build(start: monday)
        _ = w.apply(.pause(h.id, from: monday, to: monday.adding(9), reason: "ill"))
        let today = monday.adding(4)
        let changes = try Pauses.end([h], today: today, in: w.state)
        XCTAssertEqual(changes, [.pause(h.id, from: today, to: monday.adding(9), reason: nil)])
        for c in changes { _ = w.apply(c) }
        XCTAssertEqual(Pauses.runs(h, in: w.state), [PauseRun(from: monday, to: monday.adding(3), reason: "ill")])
        XCTAssertEqual(Pauses.ended(changes, of: [h]), "Ended the pause of 'Read': 2026-03-06 to 2026-03-11 are no longer paused")
    }

    func testEndingAPauseToComeCallsItOffWhole() throws {
        var w = World()
        let h = w.build(start: monday)
        _ = w.apply(.pause(h.id, from: monday.adding(10), to: monday.adding(12), reason: ""))
        let changes = try Pauses.end([h], today: monday, in: w.state)
        XCTAssertEqual(changes, [.pause(h.id, from: monday.adding(10), to: monday.adding(12), reason: nil)])
        for c in changes { _ = w.apply(c) }
        XCTAssertEqual(Pauses.runs(h, in: w.state), [])
        XCTAssertThrowsError(try Pauses.end([h], today: monday, in: w.state)) {
            XCTAssertEqual(($0 as? CoreError)?.description, "'Read' has no pause on or after 2026-03-02 to end")
        }
    }

    func testAPastPauseIsNotEnded() {
        var w = World()
        let h = w.build(start: monday)
        _ = w.apply(.pause(h.id, from: monday, to: monday.adding(2), reason: ""))
        XCTAssertThrowsError(try Pauses.end([h], today: monday.adding(3), in: w.state))
    }

    func testTheWordingSaysWhatWasPaused() {
        let a = Habit(id: habitID(1), fields: HabitFields(name: "Read", startDate: monday))
        let b = Habit(id: habitID(2), fields: HabitFields(name: "Walk", startDate: monday))
        XCTAssertEqual(Pauses.paused(1, of: [a], from: monday, to: monday.adding(6)),
                       "Paused 'Read' 2026-03-02 to 2026-03-08 (7 days): those days neither count nor break a streak")
        XCTAssertEqual(Pauses.paused(1, of: [a, b], from: monday, to: monday),
                       "Paused 1 habit of 2 on 2026-03-02: those days neither count nor break a streak")
        XCTAssertEqual(Pauses.paused(0, of: [a], from: monday, to: monday), "'Read' is already paused on 2026-03-02: nothing changed")
    }
}

/// A pause merges like every register: last writer wins per habit and day, in any order.
final class PauseMergeTests: XCTestCase {
    func testOverlappingPausesFromTwoDevicesMergeTheSameInAnyOrder() {
        var a = TestDevice(1), b = TestDevice(2)
        let h = habitID(1)
        let create = a.op(.create(h, HabitFields(name: "Read", startDate: monday)), at: 1_000)
        let fromA = a.op(.pause(h, from: monday, to: monday.adding(5), reason: "trip"), at: 2_000)
        let fromB = b.op(.pause(h, from: monday.adding(3), to: monday.adding(9), reason: "ill"), at: 3_000)
        let endA = a.op(.pause(h, from: monday.adding(4), to: monday.adding(5), reason: nil), at: 4_000)
        var one = HabitState(), two = HabitState()
        for op in [create, fromA, fromB, endA] { applyOrFail(op, to: &one) }
        for op in [fromB, create, fromA, endA] { applyOrFail(op, to: &two) }
        XCTAssertEqual(one, two)
        XCTAssertEqual(one.encoded(), two.encoded())
        // Days 0–2: A's trip; 3: B's illness (later than A's trip); 4–5: A's end (latest); 6–9: B's.
        let paused = (0..<11).map { one.isPaused(h, monday.adding($0)) }
        XCTAssertEqual(paused, [true, true, true, true, false, false, true, true, true, true, false])
        XCTAssertEqual(one.record(h, monday.adding(3))?.pauseReason, "ill")
    }

    func testAStateWithPausesRoundTripsAndReadsTheSameColumns() throws {
        var w = World()
        let h = w.build(start: monday)
        _ = w.apply(.pause(h.id, from: monday, to: monday.adding(2), reason: "trip"))
        _ = w.apply(.pause(h.id, from: monday.adding(1), to: monday.adding(1), reason: nil))
        w.progress(h, monday.adding(2))
        var r = ByteReader(w.state.encoded())
        let back = try HabitState(decoding: &r)
        XCTAssertEqual(back, w.state)
        XCTAssertTrue(back.isPaused(h.id, monday) && !back.isPaused(h.id, monday.adding(1)))
        XCTAssertEqual(back.record(h.id, monday)?.pauseReason, "trip")
    }
}
