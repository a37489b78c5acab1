import XCTest
@testable import HabitCore

private let day = LocalDay(year: 2026, month: 11, day: 21)!

final class TimerTests: XCTestCase {
    func habit(unit: String? = nil, goal: Int = Amount.scale, kind: HabitKind = .build) -> Habit {
        var s = HabitState()
        let id = HabitID("00000000000000e5")!
        s.apply(HabitOperation(id: OpID(device: DeviceID("0123456789abcdef0123456789abcdef")!, seq: 1),
                               hlc: HLC(wallMillis: 1_800_000_000_000, counter: 0),
                               change: .create(id, HabitFields(name: "Meditate", kind: kind, goal: goal, unit: unit, startDate: day.adding(-10)))))
        return s.habit(id)!
    }

    func testDurationsAreMinutesOrHoursMinutesAndSecondsInThatOrder() throws {
        XCTAssertEqual(try HabitTimer.parseDuration("25"), 25 * 60)
        XCTAssertEqual(try HabitTimer.parseDuration("25m"), 25 * 60)
        XCTAssertEqual(try HabitTimer.parseDuration("1h30m"), 90 * 60)
        XCTAssertEqual(try HabitTimer.parseDuration("90s"), 90)
        XCTAssertEqual(try HabitTimer.parseDuration(" 1H "), 3600)
        XCTAssertEqual(try HabitTimer.parseDuration("2m30s"), 150)
        XCTAssertEqual(try HabitTimer.parseDuration("12h"), HabitTimer.longest)
    }

    func testDurationsThatAreNotOneOrOutOfRangeAreRefusedWithOneLine() {
        for text in ["", "m", "25x", "1m1h", "1.5m", "-5", "25 m", "1h1h", "5m3", "abc", String(repeating: "9", count: 30)] {
            XCTAssertThrowsError(try HabitTimer.parseDuration(text), "'\(text)'") { error in
                let e = error as? CoreError
                XCTAssertTrue(e == .timerDurationUnreadable(text.trimmingBlanks) || e == .timerDurationOutOfRange(text.trimmingBlanks)
                              || e == .timerDurationUnreadable(String(text.prefix(40))), "\(error)")
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        for text in ["0", "0m", "721", "12h1s", "13h", "99999999999h"] {
            XCTAssertThrowsError(try HabitTimer.parseDuration(text), text) { error in
                XCTAssertEqual(error as? CoreError, .timerDurationOutOfRange(text))
                XCTAssertEqual("\(error)", "'\(text)' is out of range: a timer runs from 1 second to 12 hours")
            }
        }
        XCTAssertEqual(CoreError.timerDurationUnreadable("25x").description,
                       "'25x' is not a duration: use minutes (25), or h, m and s such as 25m, 1h30m, 90s")
    }

    func testDurationTextReadsBackAsTheSameDuration() throws {
        for seconds in [1, 59, 60, 90, 1500, 3600, 5400, 3661, HabitTimer.longest] {
            XCTAssertEqual(try HabitTimer.parseDuration(HabitTimer.durationText(seconds)), seconds)
        }
        XCTAssertEqual(HabitTimer.durationText(5400), "1h30m")
        XCTAssertEqual(HabitTimer.clock(1453), "24:13")
        XCTAssertEqual(HabitTimer.clock(3723), "1:02:03")
        XCTAssertEqual(HabitTimer.clock(0.2), "0:01")
        XCTAssertEqual(HabitTimer.clock(0), "0:00")
    }

    func testATimerCountsOnlyWhileItRunsAndNeverPastItsDuration() {
        var t = HabitTimer(habit: habit().id, day: day, duration: 600, start: 1000)
        XCTAssertEqual(t.elapsed(at: 1100), 100)
        XCTAssertEqual(t.remaining(at: 1100), 500)
        t.togglePause(at: 1100)
        XCTAssertTrue(t.isPaused)
        XCTAssertEqual(t.elapsed(at: 5000), 100)
        t.togglePause(at: 5000)
        XCTAssertFalse(t.isPaused)
        XCTAssertEqual(t.elapsed(at: 5050), 150)
        XCTAssertFalse(t.isFinished(at: 5499))
        XCTAssertTrue(t.isFinished(at: 5500))
        XCTAssertEqual(t.elapsed(at: 99_999), 600)
        // A clock that goes back counts nothing.
        XCTAssertEqual(HabitTimer(habit: habit().id, day: day, duration: 60, start: 1000).elapsed(at: 900), 0)
    }

    func testAHabitCountedInMinutesGetsTheWholeMinutesAnyOtherPlusOne() {
        let minutes = habit(unit: "min", goal: 20 * Amount.scale)
        XCTAssertEqual(HabitTimer.intent(minutes, day: day, ran: 25 * 60), .checkIn(minutes.id, day, amount: 25 * Amount.scale))
        XCTAssertEqual(HabitTimer.intent(minutes, day: day, ran: 12 * 60 + 59), .checkIn(minutes.id, day, amount: 12 * Amount.scale))
        XCTAssertNil(HabitTimer.intent(minutes, day: day, ran: 59))
        XCTAssertEqual(HabitTimer.recordWords(minutes, ran: 600), "10 min")
        XCTAssertTrue(HabitTimer.countsMinutes(habit(unit: " Minutes")))
        XCTAssertFalse(HabitTimer.countsMinutes(habit(unit: "pages")))
        let yesNo = habit()
        XCTAssertEqual(HabitTimer.intent(yesNo, day: day, ran: 1), .checkIn(yesNo.id, day))
        XCTAssertEqual(HabitTimer.recordWords(yesNo, ran: 1), "+1")
        // A minutes habit starts with its goal; any other with 25 minutes.
        XCTAssertEqual(HabitTimer.suggestedDuration(minutes), 20 * 60)
        XCTAssertEqual(HabitTimer.suggestedDuration(yesNo), 25 * 60)
        XCTAssertEqual(HabitTimer.suggestedDuration(habit(unit: "min", goal: 1500)), 25 * 60)
        XCTAssertEqual(HabitTimer.suggestedDuration(habit(unit: "min", goal: 30 * Amount.scale, kind: .limit)), 25 * 60)
    }
}
