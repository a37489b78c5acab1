import XCTest
import HabitCore
@testable import HabitTUI

/// The typed-amount prompt, the week grid's cursor and the detail calendar's cursor.
final class EditingTests: XCTestCase {
    let today = World.today
    let unit = Amount.scale

    // MARK: The amount prompt

    func testTheAmountKeyAsksForAnAmountAndEnterRecordsItAsOneWrite() {
        var app = World.app()
        XCTAssertEqual(press(&app, .char("n")), [])
        XCTAssertEqual(app.overlay, .amount(AmountPrompt(habit: World.water, day: today)))
        XCTAssertEqual(app.mode, .amount)
        type(&app, "3")
        XCTAssertEqual(press(&app, .enter), [.write(.checkIn(World.water, today, amount: 3 * unit))])
        XCTAssertNil(app.overlay)
    }

    func testPlusAddsMinusTakesBackAndEqualsSetsTheDaysTotal() {
        var app = World.app()
        press(&app, .char("n"))
        type(&app, "+2")
        XCTAssertEqual(press(&app, .enter), [.write(.checkIn(World.water, today, amount: 2 * unit))])
        press(&app, .char("n"))
        type(&app, "-2")
        XCTAssertEqual(press(&app, .enter), [.write(.takeBack(World.water, today, amount: 2 * unit))])
        press(&app, .char("n"))
        type(&app, "=5")
        XCTAssertEqual(press(&app, .enter), [.write(.setTotal(World.water, today, 5 * unit))])
        // Water has 3/8 today: none of these completed it, so no question followed.
        XCTAssertNil(app.overlay)
    }

    func testTheEqualsKeyStartsThePromptWithEqualsSoTheNumberIsTheDaysTotal() {
        var app = World.app()
        press(&app, .char("="))
        guard case .amount(let prompt) = app.overlay else { return XCTFail("no prompt") }
        XCTAssertEqual(prompt.text, "=")
        type(&app, "6")
        XCTAssertEqual(press(&app, .enter), [.write(.setTotal(World.water, today, 6 * unit))])
    }

    func testAnAmountThatCompletesTheHabitAsksHowHardItWas() {
        var app = World.app()
        press(&app, .char("n"))
        type(&app, "=8")
        XCTAssertEqual(press(&app, .enter), [.write(.setTotal(World.water, today, 8 * unit))])
        XCTAssertEqual(app.overlay, .rating(World.water, today))
        press(&app, .escape, .char("n"))
        type(&app, "5")
        press(&app, .enter)
        XCTAssertEqual(app.overlay, .rating(World.water, today))
    }

    func testBadInputKeepsThePromptOpenWithTheReasonAndWritesNothing() {
        var app = World.app()
        press(&app, .char("n"))
        for bad in ["", "abc", "0", "+", "=-3", "3x"] {
            type(&app, bad)
            XCTAssertEqual(press(&app, .enter), [], "'\(bad)' was recorded")
            guard case .amount(let p) = app.overlay else { return XCTFail("'\(bad)' closed the prompt") }
            XCTAssertNotNil(p.error, "'\(bad)' gave no reason")
            for _ in bad { press(&app, .backspace) }
        }
        // Typing again clears the reason; backspace erased every bad entry.
        type(&app, "4")
        guard case .amount(let p) = app.overlay else { return XCTFail("the prompt closed") }
        XCTAssertEqual(p.text, "4")
        XCTAssertNil(p.error)
    }

    func testEscapeCancelsThePromptAndSettingTheSameTotalChangesNothing() {
        var app = World.app()
        press(&app, .char("n"))
        type(&app, "7")
        XCTAssertEqual(press(&app, .escape), [])
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.text, "Cancelled: nothing changed")
        press(&app, .char("n"))
        type(&app, "=3")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(app.message?.text, "Drink water already has 3 on 2026-11-21: nothing changed")
    }

    func testTakingBackMoreThanTheDayHoldsIsRefusedWhenThereIsNothing() {
        var app = World.app()
        press(&app, .char("j"), .char("l"))
        // Read has nothing today.
        press(&app, .char("n"))
        type(&app, "-1")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(app.message?.kind, .error)
    }

    func testThePromptRendersOnTheMessageLine() {
        var app = World.app()
        press(&app, .char("n"))
        type(&app, "=8")
        assertSnapshot(render(app), named: "amount-prompt-80x24")
        type(&app, "x")
        press(&app, .enter)
        XCTAssertTrue(render(app).text.contains("is not a number"), render(app).text)
    }

    // MARK: The week grid

    func testTheWeekGridCursorStartsOnTheSelectedHabitAndToday() {
        var app = World.app()
        press(&app, .char("j"), .char("w"))
        XCTAssertEqual(app.cursorHabit, World.read)
        XCTAssertEqual(app.cursorDay, today)
    }

    func testKeysOnAWeekCellEditThatHabitsDay() {
        var app = World.app()
        press(&app, .char("w"), .char("j"), .char("h"), .char("h"))
        let day = today.adding(-2)
        XCTAssertEqual(app.cursorHabit, World.read)
        XCTAssertEqual(app.cursorDay, day)
        // Read was skipped two days ago: s un-skips it; the digits rate it.
        XCTAssertEqual(press(&app, .char("s")), [.write(.skip(World.read, day, false))])
        XCTAssertEqual(press(&app, .char("3")), [.write(.rate(World.read, day, 3))])
        press(&app, .char("k"))
        XCTAssertEqual(press(&app, .char("x")), [.write(.takeBack(World.water, day))])
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.water, day))])
        press(&app, .char("n"))
        XCTAssertEqual(app.overlay, .amount(AmountPrompt(habit: World.water, day: day)))
        type(&app, "=8")
        XCTAssertEqual(press(&app, .enter), [.write(.setTotal(World.water, day, 8 * unit))])
        XCTAssertEqual(app.screen, .week)
    }

    func testCompletingAPastCellAsksHowHardThatDayWas() {
        var app = World.app()
        // Water had 5 of 8 ten days ago (day 41 of the fixture).
        press(&app, .char("w"), .char("H"), .char("h"), .char("h"), .char("h"))
        let day = today.adding(-10)
        XCTAssertEqual(app.cursorDay, day)
        press(&app, .char("n"))
        type(&app, "3")
        XCTAssertEqual(press(&app, .enter), [.write(.checkIn(World.water, day, amount: 3 * unit))])
        XCTAssertEqual(app.overlay, .rating(World.water, day))
        XCTAssertEqual(press(&app, .char("2")), [.write(.rate(World.water, day, 2))])
    }

    func testTheFourteenDaysFollowTheCursorAndItNeverPassesToday() {
        var app = World.app()
        press(&app, .char("w"), .char("l"))
        XCTAssertEqual(app.cursorDay, today)
        XCTAssertEqual(app.message?.text, "This is today: the future cannot be checked in yet")
        for _ in 0..<13 { press(&app, .char("h")) }
        XCTAssertEqual(app.weekOffset, 0)
        press(&app, .char("h"))
        XCTAssertEqual(app.cursorDay, today.adding(-14))
        XCTAssertEqual(app.weekDays.first, today.adding(-14))
        XCTAssertEqual(app.weekOffset, 1)
        press(&app, .char("t"))
        XCTAssertEqual(app.cursorDay, today)
        XCTAssertEqual(app.weekEnd, today)
    }

    func testACellBeforeTheHabitStartsIsRefusedWithTheReason() {
        var app = World.app()
        press(&app, .char("w"))
        for _ in 0..<52 { press(&app, .char("h")) }
        XCTAssertEqual(app.cursorDay, World.start.adding(-1))
        XCTAssertEqual(press(&app, .char(" ")), [])
        XCTAssertEqual(app.message?.kind, .error)
        XCTAssertTrue(app.message?.text.contains("before 'Drink water' starts") == true, app.message?.text ?? "")
        XCTAssertEqual(press(&app, .char("n")), [])
        XCTAssertNil(app.overlay)
    }

    func testTheWeekGridShowsItsCursorAndTheSelectedCell() {
        var app = World.app()
        press(&app, .char("w"), .char("j"), .char("h"), .char("h"))
        let screen = render(app)
        XCTAssertTrue(screen.text.contains("Read · Thu 19 Nov 2026: 0/1, skipped"), screen.text)
        assertSnapshot(screen, named: "week-cursor-80x24")
        app.width = 40; app.height = 10
        press(&app, .char("j"), .char("j"))
        assertSnapshot(render(app), named: "week-cursor-40x10")
        app.width = 120; app.height = 35
        assertSnapshot(render(app), named: "week-cursor-120x35")
    }

    // MARK: The detail calendar

    func testTheCalendarCursorScrollsBackToTheStartAndNotPastIt() {
        var app = World.app()
        press(&app, .enter)
        XCTAssertEqual(app.screen, .detail(World.water))
        XCTAssertEqual(app.cursorDay, today)
        press(&app, .char("H"))
        XCTAssertEqual(app.cursorDay, LocalDay("2026-10-21"))
        press(&app, .char("H"))
        XCTAssertEqual(app.cursorDay, World.start)
        XCTAssertNil(app.message)
        press(&app, .char("H"))
        XCTAssertEqual(app.cursorDay, World.start)
        XCTAssertEqual(app.message?.text, "Nothing earlier: this habit starts on 2026-10-01")
        press(&app, .char("h"))
        XCTAssertEqual(app.cursorDay, World.start)
        press(&app, .char("l"), .char("L"))
        XCTAssertEqual(app.cursorDay, LocalDay("2026-11-02"))
        press(&app, .char("L"))
        XCTAssertEqual(app.cursorDay, today)
    }

    func testKeysOnTheCalendarEditTheSelectedDay() {
        var app = World.app()
        press(&app, .enter, .char("H"), .char("l"))
        let day = LocalDay("2026-10-22")!
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.water, day))])
        XCTAssertEqual(press(&app, .char("x")), [.write(.takeBack(World.water, day))])
        XCTAssertEqual(press(&app, .char("s")), [.write(.skip(World.water, day, true))])
        XCTAssertEqual(press(&app, .char("4")), [.write(.rate(World.water, day, 4))])
        press(&app, .char("n"))
        type(&app, "=6")
        XCTAssertEqual(press(&app, .enter), [.write(.setTotal(World.water, day, 6 * unit))])
        XCTAssertEqual(app.screen, .detail(World.water))
    }

    func testSwitchingHabitKeepsTheCursorWithinTheNewHabitsDays() {
        var changes = World.changes
        let late = HabitID("00000000000000e5")!
        changes.append(.create(late, HabitFields(name: "Stretch", startDate: LocalDay("2026-11-15")!)))
        var app = World.app(changes: changes)
        press(&app, .enter, .char("H"))
        // From Drink water, k goes round to the last habit.
        press(&app, .char("k"))
        XCTAssertEqual(app.screen, .detail(late))
        XCTAssertEqual(app.cursorDay, LocalDay("2026-11-15"))
    }

    func testTheCalendarShowsTheSelectedDayAndScrollsBackMonthByMonth() {
        var app = World.app()
        press(&app, .char("j"), .enter)
        for _ in 0..<3 { press(&app, .char("h")) }
        var screen = render(app)
        // Read is rated every fourth day: the fixture's day 48 has difficulty 4.
        XCTAssertTrue(screen.line(2).contains("Wed 18 Nov 2026: 1/1 · difficulty 4"), screen.line(2))
        press(&app, .char("H"), .char("H"))
        screen = render(app)
        XCTAssertTrue(screen.text.contains("October 2026"))
        assertSnapshot(screen, named: "detail-cursor-start-80x24")
        app.width = 40; app.height = 10
        assertSnapshot(render(app), named: "detail-cursor-40x10")
        app.width = 120; app.height = 35
        assertSnapshot(render(app), named: "detail-cursor-120x35")
    }

    func testNotesOfTheSelectedDayAreShownSanitized() {
        var changes = World.changes
        changes.append(.note(World.water, today.adding(-1), "felt \u{1b}[31mgreat"))
        var app = World.app(changes: changes)
        press(&app, .enter, .char("h"))
        let line = render(app).line(2)
        XCTAssertTrue(line.contains("Fri 20 Nov 2026: 5/8 glasses"), line)
        XCTAssertTrue(line.contains("great"), line)
        XCTAssertFalse(line.contains("\u{1b}"), line)
    }

    // MARK: The form

    func testTypingIntoANumberFieldReplacesItsDefault() {
        var app = World.app()
        press(&app, .char("a"))
        type(&app, "Stretch")
        press(&app, .tab, .tab, .tab)
        type(&app, "8")
        guard case .form(let form) = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(form.focus, .goal)
        XCTAssertEqual(form.text(.goal), "8")
        type(&app, "0")
        guard case .form(let more) = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(more.text(.goal), "80")
    }

    func testALimitHabitsGoalReadsAtMostPerDay() {
        var app = World.app()
        press(&app, .char("a"))
        type(&app, "Coffee")
        press(&app, .tab, .tab)
        type(&app, "l")
        guard case .form(let form) = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(form.label(.goal), "At most per day")
        XCTAssertTrue(render(app).text.contains("At most per day"))
    }
}

extension EditingTests {
    func testTheCalendarScrollsBackBeyondItsFirstWindowToTheStartMonth() {
        var changes = World.changes
        let old = HabitID("00000000000000f6")!
        changes.append(.create(old, HabitFields(name: "Walk", startDate: LocalDay("2026-03-15")!)))
        var app = World.app(changes: changes)
        app.screen = .detail(old)
        XCTAssertFalse(render(app).text.contains("August 2026"))
        for _ in 0..<7 { press(&app, .char("H")) }
        XCTAssertEqual(app.cursorDay, LocalDay("2026-04-21"))
        var text = render(app).text
        XCTAssertTrue(text.contains("April 2026") && text.contains("June 2026") && !text.contains("July 2026"), text)
        press(&app, .char("H"), .char("H"))
        XCTAssertEqual(app.cursorDay, LocalDay("2026-03-15"))
        text = render(app).text
        XCTAssertTrue(text.contains("March 2026") && !text.contains("February 2026"), text)
        press(&app, .char("H"))
        XCTAssertEqual(app.cursorDay, LocalDay("2026-03-15"))
        XCTAssertEqual(app.message?.text, "Nothing earlier: this habit starts on 2026-03-15")
        assertSnapshot(render(app), named: "detail-cursor-start-month-80x24")
    }
}

extension EditingTests {
    func testAHabitDeletedElsewhereClosesItsPromptAndMovesTheWeekCursor() {
        var app = World.app()
        press(&app, .char("w"), .char("n"))
        XCTAssertEqual(app.mode, .amount)
        let without = World.state(World.changes + [.delete(World.water)])
        _ = reduce(&app, .stateChanged(without))
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.cursorHabit, World.read)
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.read, today))])
    }
}
