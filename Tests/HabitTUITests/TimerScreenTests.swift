import XCTest
import HabitCore
@testable import HabitTUI

/// The timer: `t` asks for a duration, the timer screen counts down by the timer clock's
/// readings (`Action.timerClock`, injected here), `p` pauses, `esc` asks before it stops,
/// and when it ends the habit is checked in by the normal write and a notification asked for.
final class TimerScreenTests: XCTestCase {
    static let meditate = HabitID("00000000000000e5")!
    let today = World.today

    /// The world with "Meditate" (10 min a day) as the first row.
    static func app(width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode) -> AppState {
        var app = World.app(width: width, height: height, glyphs: glyphs, changes: World.changes + [
            .create(meditate, HabitFields(name: "Meditate", icon: "🧘", goal: 10 * Amount.scale, unit: "min", startDate: World.start)),
            .progress(meditate, World.today, delta: 2 * Amount.scale),
        ])
        _ = reduce(&app, .timerClock(1000))
        app.selectHabit(meditate)
        return app
    }

    /// A timer of `duration` started on Meditate at timer second 1000.
    static func running(_ duration: String = "10m", width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode) -> AppState {
        var app = app(width: width, height: height, glyphs: glyphs)
        press(&app, .char("t"))
        for _ in 0..<5 { press(&app, .backspace) }
        type(&app, duration)
        press(&app, .enter)
        return app
    }

    func testTAsksForADurationStartingWithAMinuteHabitsGoalAndEnterStartsIt() {
        var app = Self.app()
        XCTAssertEqual(press(&app, .char("t")), [])
        XCTAssertEqual(app.overlay, .timerDuration(TimerPrompt(habit: Self.meditate, day: today, text: "10m")))
        XCTAssertEqual(app.mode, .timerDuration)
        XCTAssertTrue(render(app).line(21).contains("Meditate: timer for  10m_  e.g. 25, 25m, 1h30m, 90s"), render(app).line(21))
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(app.screen, .timer)
        XCTAssertEqual(app.mode, .timer)
        XCTAssertEqual(app.timer, HabitTimer(habit: Self.meditate, day: today, duration: 600, start: 1000))
        // A yes/no habit starts with 25 minutes.
        var other = Self.app()
        other.selectHabit(World.read)
        press(&other, .char("t"))
        guard case .timerDuration(let p) = other.overlay else { return XCTFail("no prompt") }
        XCTAssertEqual(p.text, "25m")
        // The first key typed replaces the suggestion, as in the form; backspace edits it.
        type(&other, "90s")
        guard case .timerDuration(let typed) = other.overlay else { return XCTFail("no prompt") }
        XCTAssertEqual(typed.text, "90s")
    }

    func testABadDurationStaysInThePromptWithTheReasonAndEscCancels() {
        var app = Self.app()
        press(&app, .char("t"), .backspace)
        type(&app, "x")
        XCTAssertEqual(press(&app, .enter), [])
        guard case .timerDuration(let p) = app.overlay else { return XCTFail("the prompt closed") }
        XCTAssertEqual(p.error, "'10x' is not a duration: use minutes (25), or h, m and s such as 25m, 1h30m, 90s")
        XCTAssertNil(app.timer)
        assertSnapshot(render(app), named: "timer-prompt-error-80x24")
        press(&app, .escape)
        XCTAssertNil(app.overlay)
        XCTAssertNil(app.timer)
        XCTAssertEqual(app.message?.text, "Cancelled: no timer started")
    }

    func testTheScreenCountsDownByTheClockAndPPausesAndResumes() {
        var app = Self.running()
        XCTAssertTrue(render(app).text.contains("10:00 left"))
        _ = reduce(&app, .timerClock(1000 + 133))
        XCTAssertTrue(render(app).text.contains("7:47 left"), render(app).text)
        assertSnapshot(render(app), named: "timer-running-80x24")
        press(&app, .char("p"))
        XCTAssertEqual(app.timer?.isPaused, true)
        _ = reduce(&app, .timerClock(1000 + 500))
        XCTAssertTrue(render(app).text.contains("7:47 left  (paused)"), render(app).text)
        assertSnapshot(render(app), named: "timer-paused-80x24")
        press(&app, .char("p"))
        _ = reduce(&app, .timerClock(1000 + 510))
        XCTAssertTrue(render(app).text.contains("7:37 left"), render(app).text)
        XCTAssertEqual(app.timer?.isPaused, false)
    }

    func testWhenItEndsTheMinutesAreCheckedInAndANotificationAsked() {
        var app = Self.running()
        XCTAssertEqual(reduce(&app, .timerClock(1000 + 599)), [])
        XCTAssertEqual(app.screen, .timer)
        XCTAssertEqual(reduce(&app, .timerClock(1000 + 600)), [
            .write(.checkIn(Self.meditate, today, amount: 10 * Amount.scale)),
            .notify(title: "Habitto: Meditate", body: "Timer done (10m): 10 min recorded"),
        ])
        XCTAssertNil(app.timer)
        XCTAssertEqual(app.screen, .today)
        // It completed the day (2 + 10 of 10 min): how hard was it, as after a check-in by a key.
        XCTAssertEqual(app.overlay, .rating(Self.meditate, today))
        // It ended once: the clock moving on asks for nothing more.
        XCTAssertEqual(reduce(&app, .timerClock(1000 + 700)), [])
    }

    func testAHabitNotCountedInMinutesGetsPlusOne() {
        var app = Self.app()
        app.selectHabit(World.water)
        press(&app, .char("t"), .backspace, .backspace, .backspace)
        type(&app, "90s")
        press(&app, .enter)
        XCTAssertEqual(reduce(&app, .timerClock(1090)), [
            .write(.checkIn(World.water, today)),
            .notify(title: "Habitto: Drink water", body: "Timer done (1m30s): +1 recorded"),
        ])
    }

    func testEscAsksAndRRecordsTheMinutesItRan() {
        var app = Self.running("25m")
        _ = reduce(&app, .timerClock(1000 + 12 * 60 + 30))
        XCTAssertEqual(press(&app, .escape), [])
        XCTAssertEqual(app.overlay, .stopTimer)
        XCTAssertEqual(app.mode, .stopTimer)
        XCTAssertTrue(render(app).line(21).contains("Stop the timer after 12:30? r records 12 min, d discards, esc keeps going"),
                      render(app).line(21))
        assertSnapshot(render(app), named: "timer-stop-question-80x24")
        // Other keys leave the question as it is.
        XCTAssertEqual(press(&app, .char("x")), [])
        XCTAssertEqual(app.overlay, .stopTimer)
        XCTAssertEqual(press(&app, .char("r")), [.write(.checkIn(Self.meditate, today, amount: 12 * Amount.scale))])
        XCTAssertNil(app.timer)
        XCTAssertEqual(app.overlay, .rating(Self.meditate, today), "2 + 12 of 10 min completes the day")
        XCTAssertEqual(app.screen, .today)
    }

    func testDDiscardsAndEscKeepsGoing() {
        var app = Self.running()
        _ = reduce(&app, .timerClock(1000 + 45))
        press(&app, .char("q"))
        XCTAssertEqual(app.overlay, .stopTimer)
        XCTAssertTrue(render(app).line(21).contains("under a minute: nothing to record"), render(app).line(21))
        XCTAssertEqual(press(&app, .escape), [])
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.screen, .timer)
        XCTAssertNotNil(app.timer)
        // The timer ran on while it asked.
        _ = reduce(&app, .timerClock(1000 + 100))
        XCTAssertTrue(render(app).text.contains("8:20 left"))
        press(&app, .escape)
        XCTAssertEqual(press(&app, .char("d")), [])
        XCTAssertNil(app.timer)
        XCTAssertEqual(app.screen, .today)
        XCTAssertEqual(app.message?.text, "Timer stopped after 1:40: nothing recorded")
    }

    func testRUnderAMinuteOfAMinutesHabitRecordsNothingAndSaysSo() {
        var app = Self.running()
        _ = reduce(&app, .timerClock(1000 + 40))
        XCTAssertEqual(press(&app, .escape, .char("r")), [])
        XCTAssertNil(app.timer)
        XCTAssertEqual(app.message?.text, "Timer stopped after 0:40: under a minute, nothing to record")
    }

    func testATimerSurvivesAResizeAndHelpAndEndsThere() {
        var app = Self.running()
        _ = reduce(&app, .resized(width: 40, height: 10))
        _ = reduce(&app, .timerClock(1000 + 60))
        XCTAssertEqual(app.screen, .timer)
        XCTAssertTrue(render(app).text.contains("9:00 left"), render(app).text)
        assertSnapshot(render(app), named: "timer-running-40x10")
        _ = reduce(&app, .resized(width: 120, height: 35))
        assertSnapshot(render(app), named: "timer-running-120x35")
        press(&app, .char("?"))
        XCTAssertEqual(app.screen, .help(from: .timer))
        press(&app, .escape)
        XCTAssertEqual(app.screen, .timer)
        press(&app, .char("?"))
        XCTAssertEqual(reduce(&app, .timerClock(1000 + 600)).count, 2)
        XCTAssertEqual(app.screen, .today)
    }

    func testTheTimersHabitDeletedElsewhereStopsItAndSaysSo() {
        var app = Self.running()
        let without = World.state(World.changes)
        _ = reduce(&app, .stateChanged(without))
        XCTAssertNil(app.timer)
        XCTAssertEqual(app.screen, .today)
        XCTAssertEqual(app.message?.kind, .warning)
    }

    func testTOnADayThatTakesNoCheckInSaysWhyAndStartsNothing() {
        var app = World.app(changes: [.create(World.read, HabitFields(name: "Read", startDate: World.today))])
        press(&app, .char("v"), .char("h"), .char("t"))
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.kind, .error)
        XCTAssertTrue(app.message?.text.contains("before") == true, app.message?.text ?? "")
    }

    func testTheKeysAreInTheKeyMapAndRebindable() {
        let (map, problems) = KeyMap.defaults.applying("today.timer = i\ntimer.pause-timer = z\nstop-timer.record = y\n", file: "keys")
        XCTAssertEqual(problems, [])
        var app = Self.app()
        app.keyMap = map
        press(&app, .char("i"))
        XCTAssertEqual(app.mode, .timerDuration)
        press(&app, .enter)
        _ = reduce(&app, .timerClock(1000 + 120))
        press(&app, .char("z"))
        XCTAssertEqual(app.timer?.isPaused, true)
        press(&app, .escape)
        XCTAssertTrue(render(app).line(21).contains("y records"), render(app).line(21))
        XCTAssertEqual(KeyMap.defaults.collisions, [])
        XCTAssertEqual(KeyMap.defaults.command(for: .char("0"), in: .today), .today)
    }

    func testTheTimerScreenInASCII() {
        var app = Self.running(glyphs: .ascii)
        _ = reduce(&app, .timerClock(1000 + 300))
        assertSnapshot(render(app), named: "timer-running-80x24-ascii")
    }
}
