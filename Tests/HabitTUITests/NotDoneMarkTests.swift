import XCTest
import HabitCore
@testable import HabitTUI

/// Issue 39, point 7: a day answered "not done" (the catch-up's `n`) has its own mark on the
/// today screen and the catch-up screen, in both glyph sets, and the help's legend names it.
final class NotDoneMarkTests: XCTestCase {
    private func row(_ app: AppState, _ name: String) -> String {
        render(app).text.split(separator: "\n").first { $0.contains(name) }.map(String.init) ?? ""
    }

    /// The state glyph of a today row (the cell after the selection mark and a gap).
    private func glyph(_ app: AppState, _ name: String) -> String {
        let chars = Array(row(app, name))
        return chars.count > 2 ? String(chars[2]) : ""
    }

    func testADayAnsweredNotDoneHasItsOwnMarkOnTheTodayScreen() {
        let answered = World.changes + [.notDone(World.read, World.today, true)]
        XCTAssertEqual(glyph(World.app(), "Read"), "·", "open: not yet")
        XCTAssertEqual(glyph(World.app(changes: answered), "Read"), "⊘", row(World.app(changes: answered), "Read"))
        XCTAssertEqual(glyph(World.app(glyphs: .ascii, changes: answered), "Read"), "\\")
        // Withdrawn, it is open again.
        XCTAssertEqual(glyph(World.app(changes: answered + [.notDone(World.read, World.today, false)]), "Read"), "·")
        // Drawn in the missed role, as a miss is.
        let app = World.app(changes: answered)
        let y = render(app).text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("Read") }
        XCTAssertEqual(y.map { render(app)[2, $0].role }, .missed)
    }

    func testTheCatchUpScreenMarksADayAnsweredNotDone() throws {
        // Nothing recorded on the three days before today, so there is something to catch up.
        let missed = World.changes.filter { c in
            switch c {
            case .progress(_, let d, _), .rate(_, let d, _): return d < World.today.adding(-3) || d == World.today
            default: return true
            }
        }
        var app = World.app(changes: missed)
        press(&app, .char("c"))
        XCTAssertEqual(app.mode, .catchUp)
        let item = try XCTUnwrap(app.catchUp.first { $0.habit.id == World.read })
        let answered = missed + (try CatchUp.changes(.notDone, for: item, today: World.today, in: World.state(missed)))
        _ = reduce(&app, .stateChanged(World.state(answered)))
        let index = try XCTUnwrap(app.catchUp.firstIndex(of: item))
        let line = render(app).line(2 + index)
        XCTAssertTrue(line.contains("⊘") && line.contains("Read") && line.contains("not done"), line)
    }

    func testTheLegendNamesTheMarkInBothSets() {
        XCTAssertTrue(Glyphs.unicode.legend.contains { $0.glyph == "⊘" && $0.meaning == "answered not done" })
        XCTAssertTrue(Glyphs.ascii.legend.contains { $0.glyph == "\\" && $0.meaning == "answered not done" })
    }

    /// The week grid and the detail calendar draw the day with the same mark (twice in a
    /// calendar cell, as every calendar mark is).
    func testTheWeekGridAndTheCalendarMarkADayAnsweredNotDone() {
        let yesterday = World.today.adding(-1)
        let cleared = World.changes.filter { c in
            switch c {
            case .progress(let h, let d, _), .rate(let h, let d, _): return !(h == World.read && d == yesterday)
            default: return true
            }
        }
        var app = World.app(changes: cleared + [.notDone(World.read, yesterday, true)])
        for _ in 0..<10 where app.selected?.habit.id != World.read { press(&app, .char("j")) }
        XCTAssertEqual(app.selected?.habit.id, World.read)
        var week = app
        press(&week, .char("w"))
        let readRow = render(week).text.split(separator: "\n").first { $0.contains("Read") }.map(String.init) ?? ""
        let cells = readRow.split(separator: " ").suffix(2).map(String.init)
        XCTAssertEqual(cells.first, "⊘", "yesterday's cell: \(readRow)")
        press(&app, .enter)
        let calendar = render(app).text
        XCTAssertTrue(calendar.contains("⊘⊘"), calendar)
    }
}
