import XCTest
import HabitCore
@testable import HabitTUI

/// Issue 32 (Screen): a progress column as wide as the pane allows, a help footer with only
/// the keys that apply, a delete question and titles that fit, the calendar's marks; and
/// the UI's answers to T and to completing a day already rated. (Whole grapheme clusters
/// are the terminal driver's: WholeGlyphsOnTheTerminalTests checks them through tmux.)
final class WholeGlyphsAndWidthTests: XCTestCase {
    static let flag = HabitID("00000000000000f1")!, family = HabitID("00000000000000f2")!, run = HabitID("00000000000000f3")!

    /// The world's habits, and three more: a flag in the name and icon, a family (a ZWJ
    /// sequence), and an N-per-week habit with an amount whose progress text is 23 cells.
    func app(width: Int, height: Int) -> AppState {
        var changes = World.changes
        changes += [
            .create(Self.flag, HabitFields(name: "Japan 🇯🇵 trip", icon: "🇯🇵", startDate: World.start)),
            .create(Self.family, HabitFields(name: "Family 👨‍👩‍👧 dinner", icon: "👨‍👩‍👧", startDate: World.start)),
            .create(Self.run, HabitFields(name: "Run", goal: 1500, unit: "km", schedule: .perWeek(3), startDate: World.start)),
            .progress(Self.run, World.today, delta: 2500),
        ]
        return World.app(width: width, height: height, changes: changes)
    }

    func row(_ screen: ScreenBuffer, _ text: String) -> String? {
        (0..<screen.height).map(screen.line).first { $0.contains(text) }
    }

    func testTheProgressColumnTakesWhatA200ColumnPaneHas() throws {
        let wide = try XCTUnwrap(row(render(app(width: 200, height: 30)), "Run"))
        XCTAssertTrue(wide.contains("2.5/1.5 km, 1/3 this wk"), wide)
        XCTAssertFalse(wide.contains("…"), wide)
        // At 40 columns it still gives way (without the unit), the name keeps its room.
        let narrow = try XCTUnwrap(row(render(app(width: 40, height: 24)), "Run"))
        XCTAssertTrue(narrow.contains("2.5/1.5, 1/3 wk"), narrow)
    }

    func testTheHelpFooterOffersOnlyThePageKeysThatApplyAt40x10() throws {
        var state = World.app(width: 40, height: 10)
        press(&state, .char("?"))
        state.helpPage = 0
        var footer = render(state).line(9)
        XCTAssertTrue(render(state).line(0).contains("page 1/"), render(state).text + "\(state.mode)")
        XCTAssertTrue(footer.contains("next page"), footer)
        XCTAssertFalse(footer.contains("previous page"), footer)
        press(&state, .char("j"))
        footer = render(state).line(9)
        XCTAssertTrue(render(state).line(0).contains("page 2/"), render(state).line(0))
        XCTAssertTrue(footer.contains("j next page"), "a middle page keeps next page first: \(footer)")
        state.helpPage = helpLayout(state).pages - 1
        footer = render(state).line(9)
        XCTAssertFalse(footer.contains("next page"), footer)
        XCTAssertTrue(footer.contains("previous page"), footer)
    }

    func testTheDeleteQuestionFitsWholeAt80And40Columns() {
        for w in [80, 40] {
            var state = World.app(width: w, height: 24)
            press(&state, .char("D"))
            let line = render(state).line(21)
            XCTAssertTrue(line.hasPrefix(" Delete 'Drink water'"), "\(w): \(line)")
            XCTAssertTrue(line.hasSuffix(w == 80 ? "other keys keep it" : "y deletes it"), "\(w): \(line)")
            XCTAssertLessThanOrEqual(TextWidth.of(line), w - 1)
        }
        XCTAssertEqual(deleteQuestion("Drink water", width: 78),
                       "Delete 'Drink water' and its history? y deletes (u undoes), other keys keep it")
        XCTAssertEqual(deleteQuestion("Drink water", width: 38), "Delete 'Drink water'? y deletes it")
        XCTAssertEqual(deleteQuestion(String(repeating: "x", count: 60), width: 38),
                       "Delete '\(String(repeating: "x", count: 14))…'? y deletes it")
    }

    func testCompletingADayAlreadyRatedDoesNotAskTheDifficultyAgain() {
        var unrated = World.app()
        press(&unrated, .char("j"), .char(" "))
        guard case .rating? = unrated.overlay else { return XCTFail("an unrated day is asked about: \(String(describing: unrated.overlay))") }
        var rated = World.app(changes: World.changes + [.rate(World.read, World.today, 2)])
        press(&rated, .char("j"), .char(" "))
        XCTAssertNil(rated.overlay, "the day keeps its rating of 2; nothing is asked")
    }

    func testTWithNoOtherThemeSaysWhereThemesAreLookedForAndSavesNothing() {
        var state = World.app()
        state.themeNames = ["default"]
        state.themeDirectories = ["~/.config/habitto/themes", "/usr/share/habitto/themes"]
        XCTAssertEqual(press(&state, .char("T")), [], "nothing is loaded, so nothing is saved")
        XCTAssertEqual(state.message?.text, "No other theme is installed (theme default): put a NAME.theme file in "
                       + "~/.config/habitto/themes or /usr/share/habitto/themes")
        var more = World.app()
        XCTAssertEqual(press(&more, .char("T")), [.loadTheme("gruvbox")], "with others installed, T goes on to the next")
    }

    func testTheOverviewTitleIsWholeAt40x10WithMoreHabitsThanFit() {
        var state = app(width: 40, height: 10)
        press(&state, .char("O"))
        let title = render(state).line(0)
        XCTAssertFalse(title.contains("…"), title)
        XCTAssertTrue(title.contains(" weeks"), title)
        XCTAssertTrue(title.hasSuffix("of 7") || title.hasSuffix("/7"), title)
    }

    func testTheDetailCalendarTellsMissesDaysNotDueAndOverTheLimitApartWithALegend() {
        let walk = HabitID("00000000000000f4")!, sweets = HabitID("00000000000000f5")!
        let monday = LocalDay("2026-11-16")!
        let changes: [Change] = [
            .create(walk, HabitFields(name: "Walk", schedule: .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]), startDate: monday)),
            .create(sweets, HabitFields(name: "Sweets", kind: .limit, goal: 0, startDate: monday)),
            .progress(walk, monday, delta: Amount.scale), .progress(sweets, monday.adding(1), delta: Amount.scale),
        ]
        func calendar(_ id: HabitID) -> [String] {
            var state = World.app(width: 80, height: 24, changes: changes)
            press(&state, .char("v")) // every habit: Walk is not due on Saturday
            state.selectHabit(id)
            press(&state, .enter)
            return (0..<24).map(render(state).line)
        }
        // Walk: Monday done, Tuesday to Friday missed, Saturday (today) not due.
        let walkLines = calendar(walk)
        let week = walkLines.first { $0.hasPrefix(" ██ ××") } ?? ""
        XCTAssertEqual(week, " ██ ×× ×× ×× ××[··]", walkLines.joined(separator: "\n"))
        XCTAssertTrue(walkLines.contains(" ██ done  ▒▒ partly  ×× missed  ·· not due  ✗✗ over the limit  ~ skipped"),
                      walkLines.joined(separator: "\n"))
        // Sweets: Tuesday over its limit.
        let sweetsLines = calendar(sweets)
        XCTAssertTrue(sweetsLines.contains { $0.hasPrefix(" ██ ✗✗ ██") }, sweetsLines.joined(separator: "\n"))
    }
}
