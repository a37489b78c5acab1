import XCTest
import HabitCore
@testable import HabitTUI

/// Auto habits on the today screen: a mark and the command's last result after the name,
/// and `r` asks for the selected habit's command to run now.
final class AutoHabitScreenTests: XCTestCase {
    /// Moves the selection to `id` (from the top, down).
    private func select(_ id: HabitID, _ app: inout AppState, file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0..<10 { press(&app, .char("k")) }
        for _ in 0..<10 where app.selected?.habit.id != id { press(&app, .char("j")) }
        XCTAssertEqual(app.selected?.habit.id, id, file: file, line: line)
    }

    private func row(_ app: AppState, _ name: String) -> String {
        render(app).text.split(separator: "\n").first { $0.contains(name) }.map(String.init) ?? ""
    }

    func testAnAutoHabitIsMarkedWithItsLastResultAndAFailureIsShownToo() {
        var app = World.app()
        _ = reduce(&app, .autoChanged([World.water: "6", World.read: "error: the command failed (exit status 2)"]))
        XCTAssertTrue(row(app, "Drink water").contains("Drink water ⚙ 6"), row(app, "Drink water"))
        XCTAssertTrue(row(app, "Read").contains("Read ⚙ error"), render(app).text)
        XCTAssertFalse(row(app, "Gym").contains("⚙"), "a manual habit has no mark")
        var ascii = World.app(glyphs: .ascii)
        _ = reduce(&ascii, .autoChanged([World.water: ""]))
        XCTAssertTrue(row(ascii, "Drink water").contains("Drink water [auto]"), "[\(row(ascii, "Drink water"))]")
    }

    func testRRunsTheSelectedAutoHabitsCommandAndExplainsOnAManualHabit() {
        var app = World.app()
        _ = reduce(&app, .autoChanged([World.water: "6"]))
        select(World.water, &app)
        XCTAssertEqual(press(&app, .char("r")), [.runAuto(World.water)])
        XCTAssertEqual(app.message?.text, "Running the command of 'Drink water'…")
        select(World.read, &app)
        XCTAssertEqual(press(&app, .char("r")), [])
        XCTAssertEqual(app.message?.text, "'Read' is not an auto habit on this machine; 'habitto auto Read COMMAND' makes it one")
    }

    /// A finished run comes back as its typed report and is worded by `AutoRunReport.sentence`,
    /// the command line's words; a failure is an error, a reading is not.
    func testAFinishedRunIsWordedFromItsReport() {
        var app = World.app()
        _ = reduce(&app, .autoRan(AutoRunReport(habit: World.water, name: "Drink water", result: .measured(.total(3000), recorded: true))))
        XCTAssertEqual(app.message, Message("💧 Drink water: 3 (recorded)", .info))
        _ = reduce(&app, .autoRan(AutoRunReport(habit: World.water, name: "Drink water", result: .measured(.total(3000), recorded: false))))
        XCTAssertEqual(app.message, Message("💧 Drink water: 3", .info))
        _ = reduce(&app, .autoRan(AutoRunReport(habit: World.read, name: "Read", result: .commandFailed("failed (exit status 2)"))))
        XCTAssertEqual(app.message, Message("auto: 'Read': the command failed (exit status 2); nothing was recorded", .error))
        _ = reduce(&app, .autoRan(AutoRunReport(habit: World.read, name: "Read", result: .notTracked)))
        XCTAssertEqual(app.message, Message("auto: 'Read': its command did not run: the habit is not tracked today", .error))
        _ = reduce(&app, .autoRan(nil))
        XCTAssertEqual(app.message?.kind, .error)
    }
}
