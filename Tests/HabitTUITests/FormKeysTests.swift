import HabitCore
@testable import HabitTUI
import XCTest

/// Issue 39, point 8: every pre-filled field of the habit form takes keys the same way, the
/// form's error shows whole at 40 columns, and `esc` asks before throwing away changes.
final class FormKeysTests: XCTestCase {
    private func form(_ app: AppState, file: StaticString = #filePath, line: UInt = #line) -> HabitForm? {
        guard case .form(let f)? = app.overlay else { XCTFail("no form", file: file, line: line); return nil }
        return f
    }

    /// Opens the add form and moves to `field` with tab.
    private func newForm(at field: HabitForm.Field, width: Int = 80, height: Int = 24) -> AppState {
        var app = World.app(width: width, height: height)
        press(&app, .char("a"))
        for _ in 0..<field.rawValue { press(&app, .tab) }
        return app
    }

    func testTypingIntoThePrefilledScheduleReplacesDailyAsTheGoalIsReplaced() {
        var app = newForm(at: .schedule)
        type(&app, "3/week")
        XCTAssertEqual(form(app)?.text(.schedule), "3/week", "not 'daily3/week'")
        press(&app, .tab)
        type(&app, "2026-11-20")
        XCTAssertEqual(form(app)?.text(.start), "2026-11-20", "the pre-filled start date is replaced too")
        press(&app, .backTab, .backTab, .backTab)
        type(&app, "4")
        XCTAssertEqual(form(app)?.text(.goal), "4")
        type(&app, "5")
        XCTAssertEqual(form(app)?.text(.goal), "45", "only the first key replaces; the next ones add")
    }

    func testBackspaceFirstEditsThePrefilledValueInEveryField() {
        var app = newForm(at: .schedule)
        press(&app, .backspace)
        type(&app, "y")
        XCTAssertEqual(form(app)?.text(.schedule), "daily")
        var edit = World.app()
        press(&edit, .char("e"))
        press(&edit, .backspace)
        type(&edit, "R")
        XCTAssertEqual(form(edit)?.text(.name), "Drink wateR", "the edit form's name is edited after a backspace")
        press(&edit, .tab, .tab, .tab, .tab)
        press(&edit, .backspace)
        type(&edit, "ses")
        XCTAssertEqual(form(edit)?.text(.unit), "glasseses")
    }

    func testTheEditFormsPrefilledNameAndUnitAreReplacedByTheFirstKey() {
        var app = World.app()
        press(&app, .char("e"))
        type(&app, "Tea")
        XCTAssertEqual(form(app)?.text(.name), "Tea")
        press(&app, .tab, .tab, .tab, .tab)
        XCTAssertEqual(form(app)?.focus, .unit)
        type(&app, "cups")
        XCTAssertEqual(form(app)?.text(.unit), "cups")
        press(&app, .tab)
        XCTAssertEqual(form(app)?.showsReplaceable, true, "the schedule shows a value the next key replaces")
        press(&app, .tab, .tab)
        XCTAssertEqual(form(app)?.showsReplaceable, false, "an empty colour has nothing to replace")
    }

    func testTheReplaceableValueShowsWithoutTheCursorAndSaysTypingReplacesIt() {
        let app = newForm(at: .schedule, width: 80, height: 30)
        let text = render(app).text
        XCTAssertTrue(text.contains("Schedule        daily "), text)
        XCTAssertFalse(text.contains("daily_"), text)
        XCTAssertTrue(text.contains("typing replaces it · backspace edits it · enter saves · esc cancels"), text)
        var typed = app
        type(&typed, "w")
        XCTAssertTrue(render(typed).text.contains("Schedule        w_"))
        XCTAssertTrue(render(typed).text.contains("enter saves · tab next field · esc cancels"))
        var small = newForm(at: .schedule, width: 40, height: 10)
        XCTAssertTrue(render(small).text.contains("typing replaces · backspace edits"), render(small).text)
        press(&small, .backspace)
        XCTAssertTrue(render(small).text.contains("Schedule        dail_"), render(small).text)
        assertSnapshot(render(newForm(at: .schedule, width: 40, height: 10)), named: "form-replaceable-40x10")
        assertSnapshot(render(newForm(at: .schedule)), named: "form-replaceable-80x24")
    }

    func testEscapeOnAnUntouchedFormClosesAtOnce() {
        var app = World.app()
        press(&app, .char("a"))
        press(&app, .tab, .tab)
        XCTAssertEqual(press(&app, .escape), [])
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.text, "Cancelled")
        press(&app, .char("e"))
        type(&app, "x")
        press(&app, .backspace)
        type(&app, "Drink water")
        XCTAssertEqual(form(app)?.text(.name), "Drink water")
        press(&app, .escape)
        XCTAssertNil(app.overlay, "a form typed back to what it had is untouched")
    }

    func testEscapeOnAChangedFormAsksAndOnlyYesThrowsTheChangesAway() {
        var app = World.app()
        press(&app, .char("a"))
        type(&app, "Stretch")
        XCTAssertEqual(press(&app, .escape), [])
        XCTAssertEqual(form(app)?.asksDiscard, true)
        XCTAssertEqual(app.mode, .confirm)
        XCTAssertTrue(render(app).text.contains("Discard the changes? y yes, n no"))
        press(&app, .char("n"))
        XCTAssertEqual(form(app)?.asksDiscard, false)
        XCTAssertEqual(form(app)?.text(.name), "Stretch", "no keeps the form as it was typed")
        XCTAssertEqual(app.mode, .form)
        press(&app, .escape, .escape)
        XCTAssertEqual(form(app)?.text(.name), "Stretch", "esc answers no")
        press(&app, .escape, .char("q"))
        XCTAssertEqual(form(app)?.text(.name), "Stretch", "any other key answers no and types nothing")
        XCTAssertEqual(press(&app, .escape, .char("y")), [])
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.text, "Cancelled: nothing changed")
    }

    func testSwitchingTheKindIsAChangeTheFormAsksAbout() {
        var app = newForm(at: .kind)
        type(&app, "l")
        press(&app, .escape)
        XCTAssertEqual(form(app)?.asksDiscard, true)
    }

    func testTheFormErrorShowsItsSuggestionAt40Columns() {
        var app = newForm(at: .schedule, width: 40, height: 10)
        press(&app, .backTab, .backTab, .backTab, .backTab, .backTab)
        type(&app, "Stretch")
        press(&app, .tab, .tab, .tab, .tab, .tab)
        type(&app, "3/wek")
        press(&app, .enter)
        XCTAssertEqual(form(app)?.formError?.hasSuffix("3/week or 10/month"), true)
        let text = render(app).text
        XCTAssertTrue(text.contains("3/week or 10/month"), text)
        XCTAssertTrue(text.contains("▶ Schedule        3/wek_"), "the focused field still shows:\n\(text)")
        assertSnapshot(render(app), named: "form-error-40x10")
        var big = app
        big.width = 80
        big.height = 24
        assertSnapshot(render(big), named: "form-error-80x24")
    }

    func testAnErrorLongerThanTheBoxKeepsItsEndWithAnEllipsis() {
        var app = newForm(at: .name, width: 40, height: 10)
        type(&app, "Stretch")
        for _ in 0..<5 { press(&app, .tab) }
        type(&app, "every day of the week but never on sundays or on any holidays at all please")
        press(&app, .enter)
        let text = render(app).text
        XCTAssertTrue(text.contains("3/week or 10/month"), text)
        XCTAssertTrue(text.contains(" Schedule: schedule"), "the error's first words show:\n\(text)")
        XCTAssertTrue(text.contains("…"), "words left out are marked:\n\(text)")
        assertSnapshot(render(app), named: "form-long-error-40x10")
    }

    func testTheDiscardQuestionRendersAt40And80Columns() {
        var small = newForm(at: .goal, width: 40, height: 10)
        type(&small, "3")
        press(&small, .escape)
        assertSnapshot(render(small), named: "form-discard-40x10")
        var big = newForm(at: .goal)
        type(&big, "3")
        press(&big, .escape)
        assertSnapshot(render(big), named: "form-discard-80x24")
    }
}
