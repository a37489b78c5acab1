import XCTest
import HabitCore
@testable import HabitTUI

/// The detail screen's chart pages (tab, shift-tab, [ and ]) and the overview of every
/// habit (O): reducer tests and snapshots at 80×24 and 40×10, Unicode and ASCII.
final class ChartPageTests: XCTestCase {
    /// The world's app on Read's detail screen.
    func readDetail(width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode) -> AppState {
        var app = World.app(width: width, height: height, glyphs: glyphs)
        press(&app, .char("j"), .enter)
        XCTAssertEqual(app.screen, .detail(World.read))
        return app
    }

    /// The screen's text above the status bar (which cuts the data's place with `…`).
    func aboveStatusBar(_ b: ScreenBuffer) -> String {
        b.text.components(separatedBy: "\n").prefix(b.height - 2).joined(separator: "\n")
    }

    func testTabAndShiftTabCycleThroughTheDetailPagesRoundToTheCalendar() {
        var app = readDetail()
        XCTAssertEqual(app.detailPage, .calendar)
        var seen: [DetailPage] = []
        for _ in DetailPage.allCases {
            press(&app, .tab)
            seen.append(app.detailPage)
        }
        XCTAssertEqual(seen, [.score, .history, .weekday, .streaks, .difficulty, .calendar])
        press(&app, .backTab)
        XCTAssertEqual(app.detailPage, .difficulty)
        press(&app, .backTab, .backTab)
        XCTAssertEqual(app.detailPage, .weekday)
        // The page stays when j goes to the next habit, and when the screen is left and opened again.
        press(&app, .char("j"))
        XCTAssertEqual(app.screen, .detail(World.sugar))
        XCTAssertEqual(app.detailPage, .weekday)
    }

    func testBracketsChangeTheScoreSpanTheHistoryPeriodAndTheWeekdayView() {
        var app = readDetail()
        press(&app, .tab)
        XCTAssertEqual(app.scoreSpan, .year)
        press(&app, .char("]"))
        XCTAssertEqual(app.scoreSpan, .all)
        press(&app, .char("]"))
        XCTAssertEqual(app.scoreSpan, .threeMonths)
        press(&app, .char("["))
        XCTAssertEqual(app.scoreSpan, .all)
        XCTAssertTrue(render(app).text.contains("Score · all"), render(app).text)
        press(&app, .tab)
        XCTAssertEqual(app.historyBucket, .week)
        press(&app, .char("]"))
        XCTAssertEqual(app.historyBucket, .month)
        press(&app, .char("["), .char("["))
        XCTAssertEqual(app.historyBucket, .year)
        XCTAssertTrue(render(app).text.contains("History · per year"), render(app).text)
        XCTAssertEqual(app.scoreSpan, .all, "the history's keys left the score's span alone")
        press(&app, .tab)
        XCTAssertFalse(app.weekdayGrid)
        press(&app, .char("]"))
        XCTAssertTrue(app.weekdayGrid)
        press(&app, .tab)
        press(&app, .char("]"))
        XCTAssertEqual(app.message?.text, "This chart has one view: tab goes to the next page")
        press(&app, .tab, .tab)
        XCTAssertEqual(app.detailPage, .calendar)
        press(&app, .char("["))
        XCTAssertEqual(app.message?.text, "[ and ] change a chart's span or period: tab goes to the charts")
    }

    func testTheDayKeysStillRecordTheCalendarsDayOnAChartPage() {
        var app = readDetail()
        press(&app, .tab, .char("h"), .char("h"))
        XCTAssertEqual(app.cursorDay, World.today.adding(-2))
        let effects = press(&app, .char(" "))
        XCTAssertEqual(effects, [.write(.toggle(World.read, World.today.adding(-2)))])
        XCTAssertEqual(app.detailPage, .score)
    }

    func testEachChartPageAtBothSizesInUnicodeAndASCII() {
        for (w, h) in [(80, 24), (40, 10)] {
            for glyphs in [Glyphs.unicode, .ascii] {
                var app = readDetail(width: w, height: h, glyphs: glyphs)
                let suffix = "\(glyphs == .ascii ? "ascii-" : "")\(w)x\(h)"
                for page in DetailPage.allCases.dropFirst() {
                    press(&app, .tab)
                    XCTAssertEqual(app.detailPage, page)
                    let b = render(app)
                    XCTAssertTrue(b.text.contains(page.title), "\(page) \(suffix):\n\(b.text)")
                    if glyphs == .ascii { XCTAssertTrue(aboveStatusBar(b).allSatisfy(\.isASCII), "\(page) \(suffix):\n\(b.text)") }
                    assertSnapshot(b, named: "page-\(page.rawValue)-\(suffix)")
                }
                press(&app, .tab, .tab, .tab, .tab, .char("]"))
                XCTAssertTrue(app.weekdayGrid)
                assertSnapshot(render(app), named: "page-weekday-grid-\(suffix)")
            }
        }
    }

    func testTheScorePageShowsTheTrendAndTheWeekdayPageEveryWeekday() {
        var app = readDetail()
        press(&app, .tab)
        let score = render(app).text
        XCTAssertTrue(score.contains("now 74%, up 18% over 30 days"), score)
        XCTAssertTrue(score.contains("100% ┤"), score)
        press(&app, .tab, .tab)
        let weekdays = render(app).text
        for day in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] { XCTAssertTrue(weekdays.contains(day), day) }
        // At 40×10 the weekdays are columns, every one still there.
        var small = readDetail(width: 40, height: 10)
        press(&small, .tab, .tab, .tab)
        let text = render(small).text
        XCTAssertTrue(text.contains(" Mon  Tue  Wed  Thu  Fri  Sat  Sun"), text)
    }

    func testTheStreakPageMarksTheCurrentRunAndTheDifficultyPageSaysWhenNothingIsRated() {
        var app = readDetail()
        press(&app, .tab, .tab, .tab, .tab)
        let streaks = render(app).text
        XCTAssertTrue(streaks.contains("current"), streaks)
        XCTAssertTrue(streaks.contains("2026-10-01 – "), streaks)
        // Drink water has no rated day.
        var water = World.app()
        press(&water, .enter, .backTab)
        XCTAssertEqual(water.screen, .detail(World.water))
        XCTAssertEqual(water.detailPage, .difficulty)
        XCTAssertTrue(render(water).text.contains("No day of this habit is rated yet"), render(water).text)
    }

    func testTheHistoryPageOfACountedHabitDrawsItsAmountWithTheUnitAgainstTheGoal() {
        var app = World.app()
        press(&app, .enter, .tab, .tab)
        XCTAssertEqual(app.screen, .detail(World.water))
        let text = render(app).text
        XCTAssertTrue(text.contains("amount (glasses) per week, ─ the goal"), text)
        // A whole week's goal is 7 × 8 glasses: the axis's top.
        XCTAssertTrue(text.contains(" 56 ┤"), text)
    }

    func testAChartPagesBarsAreInTheStrengthRoleAndTheGoalMarksInTheAccentRole() {
        var app = readDetail()
        press(&app, .tab, .tab)
        let b = render(app)
        let lines = b.text.components(separatedBy: "\n")
        guard let y = lines.firstIndex(where: { $0.contains("┤") && $0.contains("─") }),
              let goal = lines[y].lastIndex(of: "─"),
              let barY = lines.lastIndex(where: { $0.contains("┤") }),
              let bar = lines[barY].lastIndex(of: "█") else { return XCTFail(b.text) }
        XCTAssertEqual(b[lines[y].distance(from: lines[y].startIndex, to: goal), y].role, .accent, b.text)
        XCTAssertEqual(b[lines[barY].distance(from: lines[barY].startIndex, to: bar), barY].role, .strength, b.text)
        XCTAssertEqual(b[1, barY].role, .dim, "the axis label")
    }

    // MARK: Overview

    func testOOpensTheOverviewAndEscOrQGoBack() {
        var app = World.app()
        press(&app, .char("O"))
        XCTAssertEqual(app.screen, .overview)
        XCTAssertEqual(app.mode, .overview)
        press(&app, .escape)
        XCTAssertEqual(app.screen, .today)
        press(&app, .char("O"), .char("?"))
        XCTAssertEqual(app.screen, .help(from: .overview))
        press(&app, .escape)
        XCTAssertEqual(app.screen, .overview)
        press(&app, .char("q"))
        XCTAssertEqual(app.screen, .today)
    }

    func testTheOverviewSaysSoWhenNoWeekEarnedXP() {
        let fresh = [Change.create(HabitID("00000000000000f1")!, HabitFields(name: "Walk", startDate: World.today.adding(-3)))]
        var app = World.app(width: 120, height: 35, changes: fresh)
        press(&app, .char("O"))
        let text = render(app).text
        XCTAssertTrue(text.contains("No XP earned in these weeks yet: a day that completes a habit earns it."), text)
        XCTAssertFalse(text.contains(" 0 ┤"), "no axis of zeros: \(text)")
        var full = World.app(width: 120, height: 35)
        press(&full, .char("O"))
        XCTAssertFalse(render(full).text.contains("No XP earned"))
    }

    func testTheOverviewScrollsWhenThereAreMoreHabitsThanRows() {
        let extra = (1...6).map { i in
            Change.create(HabitID("00000000000000e\(i)")!, HabitFields(name: "Extra \(i)", startDate: World.start))
        }
        var app = World.app(width: 40, height: 10, changes: World.changes + extra)
        press(&app, .char("O"))
        // 10 habits, 4 rows at 40×10.
        XCTAssertTrue(render(app).text.contains("All habits, 3 weeks  1-4/10"), render(app).text)
        press(&app, .char("k"))
        XCTAssertEqual(app.overviewScroll, 0)
        for _ in 0..<10 { press(&app, .char("j")) }
        XCTAssertEqual(app.overviewScroll, 6, "scrolling stops at the last habit")
        let text = render(app).text
        XCTAssertTrue(text.contains("7-10/10"), text)
        XCTAssertTrue(text.contains("Extra 6"), text)
        XCTAssertFalse(text.contains("Drink water"), text)
        press(&app, .char("k"))
        XCTAssertEqual(app.overviewScroll, 5)
    }

    func testTheOverviewAtBothSizesInUnicodeAndASCII() {
        for (w, h) in [(80, 24), (40, 10), (120, 35)] {
            for glyphs in [Glyphs.unicode, .ascii] where glyphs == .unicode || h != 35 {
                var app = World.app(width: w, height: h, glyphs: glyphs)
                press(&app, .char("O"))
                let b = render(app)
                XCTAssertTrue(b.text.contains("Drink water"), b.text)
                if glyphs == .ascii { XCTAssertTrue(aboveStatusBar(b).allSatisfy(\.isASCII), b.text) }
                assertSnapshot(b, named: "overview-\(glyphs == .ascii ? "ascii-" : "")\(w)x\(h)")
            }
        }
    }

    func testTheOverviewsCellsCarryTheirStateAndTheHabitsColour() {
        var changes = World.changes
        changes[1] = .create(World.read, HabitFields(name: "Read", icon: "📚", color: "blue", startDate: World.start))
        var app = World.app(changes: changes)
        press(&app, .char("O"))
        let b = render(app)
        let lines = b.text.components(separatedBy: "\n")
        guard let y = lines.firstIndex(where: { $0.hasPrefix(" Read") }),
              let done = lines[y].firstIndex(of: "█"), let missed = lines[y].firstIndex(of: "×") else { return XCTFail(b.text) }
        // A done day: the done role in the habit's colour; a missed one: the missed role.
        let x = lines[y].distance(from: lines[y].startIndex, to: done)
        XCTAssertEqual(b[x, y].role, .done)
        XCTAssertEqual(b[x, y].color, .ansi(4))
        XCTAssertEqual(b[lines[y].distance(from: lines[y].startIndex, to: missed), y].role, .missed)
    }
}
