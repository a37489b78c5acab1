import XCTest
import HabitCore
@testable import HabitTUI

/// The form's start date is read by the command line's parser (issue 39, point 13), in a
/// new habit's form and in an edit form alike.
final class FormDateTests: XCTestCase {
    /// Saturday 21 November 2026.
    let today = LocalDay("2026-11-21")!

    func testTheStartDateTakesEveryTypedForm() {
        var form = HabitForm.new(today: today)
        for (typed, day) in [("mon", "2026-11-16"), ("Yesterday", "2026-11-20"), ("-3", "2026-11-18"), ("sat", "2026-11-21"),
                             ("2026-11-01", "2026-11-01"), ("+1", "2026-11-22")] {
            form.values[.start] = typed
            XCTAssertEqual(form.startDate?.description, day, typed)
        }
        form.values[.start] = "last week"
        XCTAssertNil(form.startDate)
        XCTAssertEqual(form.problem(.start, in: HabitState()), "use YYYY-MM-DD, today, yesterday, -N, +N or a weekday such as mon")
    }

    func testAnEditFormOpenedOnADayTakesThemToo() {
        let habit = Habit(id: HabitID(value: 0xb1), fields: HabitFields(name: "Run", startDate: LocalDay("2026-11-01")!))
        var form = HabitForm.edit(habit, today: today)
        form.values[.start] = "wed"
        XCTAssertEqual(form.startDate?.description, "2026-11-18")
        var plain = HabitForm.edit(habit)
        plain.values[.start] = "wed"
        XCTAssertNil(plain.startDate, "without the day it was opened on, only YYYY-MM-DD is read")
    }
}
