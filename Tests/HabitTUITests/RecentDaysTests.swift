import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// The today rows' recent days (issue 41, point 1): as many as fit, today at the right, the
/// week's start marked, the heat map's marks, and the day keys on the day the cursor is on.
final class RecentDaysTests: XCTestCase {
    static let sizes = [(40, 10), (80, 24), (120, 35), (200, 50)]

    func testTheTodayScreenAtEverySize() {
        for (w, h) in Self.sizes {
            assertSnapshot(render(World.app(width: w, height: h)), named: "recent-days-\(w)x\(h)")
        }
        var app = World.app(width: 120, height: 35)
        press(&app, .char("j"), .char("h"), .char("h"))
        assertSnapshot(render(app), named: "recent-days-cursor-120x35")
        assertSnapshot(render(World.app(width: 120, height: 35, glyphs: .ascii)), named: "recent-days-ascii-120x35")
    }

    /// The week-start mark follows `week_start`.
    func testTheMarkIsBeforeTheConfiguredWeeksFirstDay() {
        var app = World.app(width: 120, height: 35)
        app.settings = RuleSettings(weekStart: .sunday)
        let layout = RowLayout(app.rows, width: 120, glyphs: app.glyphs)
        let screen = render(app)
        let marked = app.recentDays(layout.dayCount).enumerated().filter { screen[layout.dayX($0.offset) - 1, 3].text == "│" }
        XCTAssertFalse(marked.isEmpty)
        XCTAssertTrue(marked.allSatisfy { $0.element.weekday == .sunday }, "\(marked)")
    }

    func testAt40x10TheScreenIsAsBefore() {
        let app = World.app(width: 40, height: 10)
        XCTAssertEqual(RowLayout(app.rows, width: 40, glyphs: app.glyphs).dayCount, 0)
        XCTAssertEqual(render(app).line(2), "▶ ◐  💧 Drink water   3/8   0d   28%  ⌂")
    }

    /// The days give way first: they show only where every other column and the whole name
    /// fit, more of them as the pane widens, and none below `minimumRecentDays`.
    func testTheDaysGiveWayBeforeEveryOtherColumn() throws {
        let app = World.app()
        var previous = 0
        for w in 40...220 {
            let layout = RowLayout(app.rows, width: w, glyphs: app.glyphs)
            XCTAssertGreaterThanOrEqual(layout.dayCount, previous, "\(w) columns")
            previous = layout.dayCount
            guard layout.dayCount > 0 else { continue }
            XCTAssertGreaterThanOrEqual(layout.dayCount, minimumRecentDays)
            XCTAssertTrue(RowColumn.allCases.allSatisfy(layout.has), "\(w) columns: the days only with every column")
            XCTAssertEqual(layout.columns[.name]?.width, minimumNameWidth, "\(w): the whole name (the longest is 11 cells)")
            let days = try XCTUnwrap(layout.columns[.days])
            XCTAssertLessThanOrEqual(days.x + days.width, w - 1, "\(w): nothing reaches the right edge")
        }
        XCTAssertEqual(RowLayout(app.rows, width: 80, glyphs: app.glyphs).dayCount, 9)
    }

    /// Today's cell is the last; the cell before each Monday (the week's start) has the mark;
    /// a day's mark is the heat map's (the detail calendar's) for that day.
    func testTodayAtTheRightTheWeeksStartMarkedAndTheHeatMapsMarks() throws {
        let app = World.app(width: 120, height: 35)
        let layout = RowLayout(app.rows, width: 120, glyphs: app.glyphs)
        let days = app.recentDays(layout.dayCount)
        XCTAssertEqual(days.last, World.today)
        let screen = render(app)
        let water = try XCTUnwrap(app.habits.habit(World.water))
        let history = app.habits.history(water, through: World.today, today: World.today)
        for (i, day) in days.enumerated() {
            let x = layout.dayX(i)
            XCTAssertEqual(screen[x - 1, 2].text == "│", i > 0 && day.weekday == .monday && day > World.start, "\(day)")
            let mark = heatMark(water, day, history.first { $0.day == day }, today: World.today, glyphs: app.glyphs)
            XCTAssertEqual(screen[x, 2].text, mark.text, "\(day)")
        }
        // The cursor: the day shown, on the selected row.
        XCTAssertEqual(screen[layout.dayX(days.count - 1) - 1, 2].text, "[")
        XCTAssertEqual(screen[layout.dayX(days.count - 1) + 1, 2].text, "]")
        XCTAssertNotEqual(screen[layout.dayX(days.count - 1) - 1, 3].text, "[")
    }

    /// `h`/`l` (previous / next day, as before) move the cursor over the cells, and the day
    /// keys act on the day it is on, as in the week grid (the same `dayCommand`).
    func testTheDayKeysWorkOnTheCellTheCursorIsOn() throws {
        var app = World.app(width: 120, height: 35)
        let count = RowLayout(app.rows, width: 120, glyphs: app.glyphs).dayCount
        press(&app, .char("j"))
        XCTAssertEqual(app.selectedID, World.read)
        press(&app, .char("h"), .char("h"))
        let twoBack = World.today.adding(-2)
        XCTAssertEqual(app.date, twoBack)
        XCTAssertEqual(app.recentDays(count).last, World.today, "the days stay, the cursor moves")
        let layout = RowLayout(app.rows, width: 120, glyphs: app.glyphs)
        let y = 2 + (app.selectedLine ?? 0)
        XCTAssertEqual(render(app)[layout.dayX(count - 3) - 1, y].text, "[")
        // Read was skipped two days ago: s unskips that day; space checks it in.
        XCTAssertEqual(press(&app, .char("s")), [.write(.skip(World.read, twoBack, false))])
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.read, twoBack))])
        XCTAssertEqual(press(&app, .char("3")), [.write(.rate(World.read, twoBack, 3))])
        press(&app, .char("n"))
        XCTAssertEqual(app.overlay, .amount(AmountPrompt(habit: World.read, day: twoBack)))
        press(&app, .escape, .char("="))
        guard case .amount(let p)? = app.overlay else { return XCTFail("no prompt") }
        XCTAssertEqual(p.text, "=")
        XCTAssertEqual(p.day, twoBack)
    }

    /// Back before the first cell, the cells follow the cursor: it is then the first day.
    func testTheDaysFollowTheCursorBackInTime() {
        var app = World.app(width: 120, height: 35)
        let count = RowLayout(app.rows, width: 120, glyphs: app.glyphs).dayCount
        for _ in 0..<(count + 4) { press(&app, .char("h")) }
        XCTAssertEqual(app.recentDays(count).first, app.date)
        XCTAssertEqual(app.recentDays(count).count, count)
        press(&app, .char("0"))
        XCTAssertEqual(app.recentDays(count).last, World.today)
    }
}
