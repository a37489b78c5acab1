import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// The edit form asks "from today or from the start?" when it changes goal, unit, kind or
/// schedule of a habit with days behind it, and writes the edit accordingly.
final class EditFromTests: XCTestCase {
    /// The app with the edit form of Drink water open and its goal typed as 10.
    private func formWithGoal10() -> (AppState, HabitFields) {
        var app = World.app()
        press(&app, .char("e"))
        press(&app, .down, .down, .down) // name, icon, kind, goal
        type(&app, "10")
        var fields = app.habits.habit(World.water)!.fields
        fields.goal = 10 * Amount.scale
        return (app, fields)
    }

    func testChangingTheGoalAsksFromTodayOrFromTheStart() {
        var (app, fields) = formWithGoal10()
        XCTAssertEqual(press(&app, .enter), [], "nothing is written before the answer")
        guard case .editFrom(let form, let asked)? = app.overlay else { return XCTFail("no question: \(String(describing: app.overlay))") }
        XCTAssertEqual(asked, fields)
        XCTAssertEqual(form.text(.goal), "10")
        XCTAssertEqual(app.mode, .editFrom)
        let screen = render(app)
        XCTAssertTrue(screen.text.contains("Goal 8 → 10: from today (t) or from the start 2026-10-01 (s)?"),
                      screen.text)
        XCTAssertTrue(screen.text.contains("Drink water"), "the form stays drawn under the question")
        XCTAssertEqual(press(&app, .char("t")), [.write(.edit(World.water, fields, from: World.today))])
        XCTAssertNil(app.overlay)
    }

    func testFromTheStartAndBackToTheForm() {
        var (app, fields) = formWithGoal10()
        press(&app, .enter)
        XCTAssertEqual(press(&app, .escape), [])
        guard case .form(let form)? = app.overlay else { return XCTFail("not back on the form") }
        XCTAssertEqual(form.text(.goal), "10", "what was typed is kept")
        press(&app, .enter)
        XCTAssertEqual(press(&app, .char("s")), [.write(.edit(World.water, fields, from: nil))])
    }

    func testTheAnswersWriteWhatTheCommandLineWrites() throws {
        let (app, fields) = formWithGoal10()
        let state = app.habits
        let fromToday = try Intent.edit(World.water, fields, from: World.today).changes(today: World.today, in: state)
        XCTAssertEqual(fromToday, [.setFrom(World.water, World.today, .goal(10 * Amount.scale))])
        let fromStart = try Intent.edit(World.water, fields, from: nil).changes(today: World.today, in: state)
        XCTAssertEqual(fromStart, [.set(World.water, .goal(10 * Amount.scale))])
    }

    func testTheFormOpenedOnAPastDayShowsTheCurrentGoalAndARenameAsksNothing() {
        var app = World.app(changes: World.changes + [.setFrom(World.water, World.today.adding(-5), .goal(10 * Amount.scale))])
        for _ in 0..<6 { press(&app, .char("h")) }
        XCTAssertEqual(app.date, World.today.adding(-6))
        XCTAssertEqual(app.rows.first { $0.habit.id == World.water }?.habit.goal, 8 * Amount.scale, "the day shown asks for 8")
        press(&app, .char("e"))
        guard case .form(let form)? = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(form.text(.goal), "10")
        type(&app, "!")
        guard case .write(.edit(_, let fields, let from))? = press(&app, .enter).first else { return XCTFail("no write") }
        XCTAssertEqual(fields.goal, 10 * Amount.scale)
        XCTAssertNil(from)
    }

    func testTheDetailScreenSaysSinceWhenTheDefinitionHoldsAndTheCursorDayItsOwnGoal() {
        var app = World.app(width: 100, height: 30,
                            changes: World.changes + [.setFrom(World.water, World.today.adding(-5), .goal(10 * Amount.scale))])
        press(&app, .enter)
        XCTAssertEqual(app.screen, .detail(World.water))
        var text = render(app).text
        XCTAssertTrue(text.contains("build, at least 10 glasses a day, daily, since 2026-10-01, so since 2026-11-16"), text)
        for _ in 0..<6 { press(&app, .char("h")) }
        text = render(app).text
        XCTAssertTrue(text.contains("/8 glasses"), "the cursor's day asks for its own goal:\n\(text)")
    }

    func testAFormThatChangesNoRuleFieldOrAHabitStartingTodayAsksNothing() {
        var app = World.app()
        press(&app, .char("e"))
        type(&app, "!")
        guard case .write(.edit(_, _, let from))? = press(&app, .enter).first else { return XCTFail("no write") }
        XCTAssertNil(from)
        // A habit that starts today has no day to keep: the edit is from the start.
        var fresh = World.app(changes: World.changes + [.create(HabitID("00000000000000e5")!, HabitFields(name: "Stretch", startDate: World.today))])
        fresh.overlay = .form(HabitForm.edit(fresh.habits.habit(HabitID("00000000000000e5")!)!))
        press(&fresh, .down, .down, .down)
        type(&fresh, "3")
        guard case .write(.edit(_, let f, let from2))? = press(&fresh, .enter).first else { return XCTFail("no write") }
        XCTAssertEqual(f.goal, 3 * Amount.scale)
        XCTAssertNil(from2)
    }
}
