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
        _ = reduce(&app, .autoChanged([World.water: .measured(.total(6 * Amount.scale), on: World.today),
                                        World.read: .failed("the command failed (exit status 2)", on: World.today)]))
        XCTAssertTrue(row(app, "Drink water").contains("Drink water ⚙ 6"), row(app, "Drink water"))
        XCTAssertTrue(row(app, "Read").contains("Read ⚙ error"), render(app).text)
        XCTAssertFalse(row(app, "Gym").contains("⚙"), "a manual habit has no mark")
        var ascii = World.app(glyphs: .ascii)
        _ = reduce(&ascii, .autoChanged([World.water: .notRun]))
        XCTAssertTrue(row(ascii, "Drink water").contains("Drink water [auto]"), "[\(row(ascii, "Drink water"))]")
    }

    /// Issue 39, point 7: a yes/no habit's command exited 1 ("not done yet") but the day was
    /// checked in by hand: the mark says what the command did, not "not done" beside a ✓.
    func testAnExit1NextToADoneRowSaysTheCommandExited1AndNotNotDone() {
        var app = World.app(changes: World.changes + [.progress(World.read, World.today, delta: Amount.scale)])
        _ = reduce(&app, .autoChanged([World.read: .measured(.notDone, on: World.today)]))
        let done = row(app, "Read")
        XCTAssertTrue(done.contains("✓"), done)
        XCTAssertTrue(done.contains("Read ⚙ command exited 1"), done)
        XCTAssertFalse(done.contains("not done"), done)
        // Where the row is not done, the command's "not done" agrees with it.
        var open = World.app()
        _ = reduce(&open, .autoChanged([World.read: .measured(.notDone, on: World.today)]))
        XCTAssertTrue(row(open, "Read").contains("Read ⚙ not done"), row(open, "Read"))
        XCTAssertFalse(row(open, "Read").contains("✓"), row(open, "Read"))
    }

    /// Exit 0 recorded the day done, then it was taken back by hand: the mark does not say
    /// "done" beside an open row.
    func testAnExit0NextToADayTakenBackSaysTheCommandExited0AndNotDone() {
        var app = World.app()
        _ = reduce(&app, .autoChanged([World.read: .measured(.done, on: World.today)]))
        XCTAssertTrue(row(app, "Read").contains("Read ⚙ command exited 0"), row(app, "Read"))
        var done = World.app(changes: World.changes + [.progress(World.read, World.today, delta: Amount.scale)])
        _ = reduce(&done, .autoChanged([World.read: .measured(.done, on: World.today)]))
        XCTAssertTrue(row(done, "Read").contains("Read ⚙ done"), row(done, "Read"))
    }

    /// Another day's measure is not shown as this day's: the mark alone.
    func testAMeasureOfAnotherDayShowsOnlyTheMark() {
        var app = World.app()
        _ = reduce(&app, .autoChanged([World.water: .measured(.total(6 * Amount.scale), on: World.today.adding(-1))]))
        let r = row(app, "Drink water")
        XCTAssertTrue(r.contains("Drink water ⚙"), r)
        XCTAssertFalse(r.contains("⚙ 6"), r)
    }

    func testRRunsTheSelectedAutoHabitsCommandAndExplainsOnAManualHabit() {
        var app = World.app()
        _ = reduce(&app, .autoChanged([World.water: .measured(.total(6 * Amount.scale), on: World.today)]))
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
