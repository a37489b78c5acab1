import XCTest
import HabitCore
@testable import HabitTUI

/// The form's Reminders field: typed as `HH:MM` times, checked as typed, saved sorted.
final class ReminderFormTests: XCTestCase {
    private func focusReminders(_ app: inout AppState) {
        guard case .form(var form)? = app.overlay else { return XCTFail("no form") }
        form.focus = .reminders
        app.overlay = .form(form)
    }

    func testTheFormSavesReminderTimesSorted() {
        var app = World.app()
        press(&app, .char("a"))
        type(&app, "Stretch")
        focusReminders(&app)
        type(&app, "21:00,7:30")
        var expected = HabitFields(name: "Stretch", startDate: World.today)
        expected.reminders = [ReminderTime(hour: 7, minute: 30), ReminderTime(hour: 21, minute: 0)]
        XCTAssertEqual(press(&app, .enter), [.write(.add(expected))])
    }

    func testABadTimeIsShownAtTheFieldAndNothingIsSaved() {
        var app = World.app()
        press(&app, .char("a"))
        type(&app, "Stretch")
        focusReminders(&app)
        type(&app, "7:30,24:00")
        guard case .form(let form)? = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(form.problem(.reminders, in: app.habits),
                       "reminder time '24:00' not understood: use HH:MM from 00:00 to 23:59, e.g. 08:00,20:30")
        XCTAssertEqual(press(&app, .enter), [])
        assertSnapshot(render(app), named: "form-reminders-bad-80x24")
    }

    func testTheEditFormShowsAndClearsTheTimes() {
        let habit = Habit(id: World.read, fields: HabitFields(name: "Read", startDate: World.today,
                                                               reminders: [ReminderTime(hour: 8, minute: 0), ReminderTime(hour: 20, minute: 5)]))
        var form = HabitForm.edit(habit)
        XCTAssertEqual(form.text(.reminders), "08:00,20:05")
        form.values[.reminders] = ""
        XCTAssertEqual(try form.fields(base: habit.fields, in: HabitState()).get().reminders, [])
    }
}
