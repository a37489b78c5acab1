import XCTest
import HabitCore
@testable import HabitTUI

/// Finding: the fuzzy matcher, `/` (the filter of the today, week and overview screens and
/// of the help's keys) and `:` (the palette of a screen's actions).
final class FindTests: XCTestCase {
    let today = World.today

    /// The world with Drink water and No sugar in "Health" and a note on Gym's definition.
    static func world(width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode) -> AppState {
        var app = World.app(width: width, height: height, glyphs: glyphs, changes: World.changes + [
            .set(World.water, .group("Health")), .set(World.sugar, .group("Health")),
            .set(World.gym, .notes("Leg day at the Café")),
        ])
        app.showAll = true
        return app
    }

    func names(_ app: AppState) -> [String] { app.rows.map(\.habit.name) }

    func palette(_ app: AppState, file: StaticString = #filePath, line: UInt = #line) -> Palette? {
        guard case .palette(let p) = app.overlay else { XCTFail("no palette", file: file, line: line); return nil }
        return p
    }

    // MARK: The matcher

    func testTheMatcherFindsCharactersInOrderIgnoringCaseAccentsAndTheQuerysSpaces() {
        XCTAssertNotNil(Find.score("nd", in: "next day"))
        XCTAssertNotNil(Find.score("NEXT day", in: "next day"))
        XCTAssertNotNil(Find.score("cafe", in: "Café"))
        XCTAssertNotNil(Find.score("nextday", in: "next day"))
        XCTAssertNil(Find.score("dn", in: "next day"))
        XCTAssertNil(Find.score("longer than the text", in: "short"))
        XCTAssertEqual(Find.score("", in: "anything"), 0)
    }

    func testConsecutiveAndWordStartHitsScoreHigherThanScatteredOnes() throws {
        // "the" at a word's start and together, over t…h…e spread through a word.
        let together = try XCTUnwrap(Find.score("the", in: "next theme"))
        let spread = try XCTUnwrap(Find.score("the", in: "take it back here"))
        XCTAssertGreaterThan(together, spread)
        // Word starts: "sn" on "sync now" beats "sn" inside "unseen".
        XCTAssertGreaterThan(try XCTUnwrap(Find.score("sn", in: "sync now")), try XCTUnwrap(Find.score("sn", in: "unseen")))
        // The best alignment wins, not the first: "ad" on "a day after" takes "a d", then… each
        // a word start, above "ad" buried in "bad".
        XCTAssertGreaterThan(try XCTUnwrap(Find.score("da", in: "day after")), try XCTUnwrap(Find.score("da", in: "soda")))
        // A prefix beats the same letters later on.
        XCTAssertGreaterThan(try XCTUnwrap(Find.score("up", in: "up")), try XCTUnwrap(Find.score("up", in: "move up")))
    }

    func testContainsFoldsCaseAndAccents() {
        XCTAssertTrue(Find.contains("Leg day at the Café", "CAFE"))
        XCTAssertTrue(Find.contains("Drink water", ""))
        XCTAssertFalse(Find.contains("Drink water", "wine"))
    }

    // MARK: The filter

    func testSlashFiltersTheTodayRowsByNameGroupOrNotesAsEachKeyArrives() {
        var app = Self.world()
        XCTAssertEqual(names(app), ["Read", "Gym", "Drink water", "No sugar"])
        XCTAssertEqual(press(&app, .char("/")), [])
        XCTAssertEqual(app.mode, .filter)
        press(&app, .char("r"))
        XCTAssertEqual(names(app), ["Read", "Drink water", "No sugar"])
        press(&app, .char("e"))
        XCTAssertEqual(names(app), ["Read"])
        press(&app, .backspace, .backspace)
        type(&app, "heal")
        XCTAssertEqual(names(app), ["Drink water", "No sugar"], "by group")
        XCTAssertEqual(app.lines.first, .heading(group: "Health", count: 2, done: 1, folded: false))
        for _ in "heal" { press(&app, .backspace) }
        type(&app, "CAFE")
        XCTAssertEqual(names(app), ["Gym"], "by notes, case and accents folded")
        XCTAssertEqual(app.filter, "CAFE")
    }

    func testTypedCharactersInThePromptNeverRunTheirBindings() {
        var app = Self.world()
        press(&app, .char("/"))
        for c in "qDAu?:aw" { XCTAssertEqual(press(&app, .char(c)), [], "'\(c)' is text in the prompt") }
        XCTAssertEqual(app.filter, "qDAu?:aw")
        XCTAssertEqual(app.overlay, .filter)
        XCTAssertEqual(app.screen, .today)
    }

    func testEnterKeepsTheFilterAndEscClearsIt() {
        var app = Self.world()
        press(&app, .char("/"))
        type(&app, "gym")
        press(&app, .enter)
        XCTAssertNil(app.overlay)
        XCTAssertEqual(names(app), ["Gym"])
        // The kept filter's keys work on what it shows.
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.gym, today))])
        press(&app, .escape)
        XCTAssertNil(app.overlay, "esc answered the rating question first")
        XCTAssertEqual(app.filter, "gym")
        press(&app, .escape)
        XCTAssertEqual(app.filter, "")
        XCTAssertEqual(names(app).count, 4)
        // Esc in the prompt clears it too.
        press(&app, .char("/"))
        type(&app, "re")
        press(&app, .escape)
        XCTAssertEqual(app.filter, "")
        XCTAssertNil(app.overlay)
    }

    func testTheSelectionStaysOnAVisibleHabit() {
        var app = Self.world()
        press(&app, .char("j"))
        XCTAssertEqual(app.selectedID, World.gym)
        press(&app, .char("/"))
        type(&app, "wat")
        XCTAssertEqual(app.selectedID, World.water, "the selected habit hidden: the first shown")
        press(&app, .enter)
        press(&app, .char("j"))
        XCTAssertEqual(app.selectedID, World.water, "nothing below to move to")
        press(&app, .char("/"))
        type(&app, "xyz")
        XCTAssertNil(app.selected)
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(press(&app, .char(" ")), [], "no habit shown: nothing to check in")
    }

    func testTheWeekFilterKeepsTheCursorOnAListedHabitAndBackClearsItFirst() {
        var app = Self.world()
        press(&app, .char("w"))
        XCTAssertEqual(app.cursorHabit, World.read)
        press(&app, .char("/"))
        type(&app, "sug")
        XCTAssertEqual(app.weekHabits.map(\.id), [World.sugar])
        XCTAssertEqual(app.cursorHabit, World.sugar)
        press(&app, .enter)
        press(&app, .escape)
        XCTAssertEqual(app.screen, .week, "esc clears the filter before it goes back")
        XCTAssertEqual(app.weekHabits.count, 4)
        press(&app, .escape)
        XCTAssertEqual(app.screen, .today)
    }

    func testTheOverviewFilterKeepsItsHabitsRows() {
        var app = Self.world()
        press(&app, .char("O"), .char("/"))
        type(&app, "water")
        XCTAssertEqual(overviewLayout(app).count, 1)
        press(&app, .enter, .char("q"))
        XCTAssertEqual(app.screen, .overview, "q (back) clears the filter first")
        XCTAssertEqual(overviewLayout(app).count, 4)
    }

    func testTheHelpFilterFindsKeysByWhatTheyDoAndHasItsOwnText() {
        var app = Self.world()
        press(&app, .char("/"))
        type(&app, "read")
        press(&app, .enter, .char("?"), .char("/"))
        XCTAssertEqual(app.mode, .filter)
        type(&app, "undo")
        XCTAssertEqual(app.helpFilter, "undo")
        XCTAssertEqual(app.filter, "read", "the habits' filter stays as it was")
        let lines = helpLines(app.keyMap, app.glyphs, filter: app.helpFilter)
        XCTAssertEqual(lines.filter { !$0.isTitle }.map(\.label).filter { !$0.isEmpty }.count,
                       KeyMap.defaults.bindings.filter { $0.command == .undo }.count)
        XCTAssertTrue(lines.contains { $0.isTitle && $0.keys == "Today" })
        XCTAssertFalse(lines.contains { $0.keys == "Sync screen" }, "a mode without a match has no title")
        XCTAssertEqual(helpLines(app.keyMap, app.glyphs, filter: "zzzz").map(\.keys), ["No keys match 'zzzz'"])
        press(&app, .enter, .escape)
        XCTAssertEqual(app.helpFilter, "")
        XCTAssertTrue(app.screen.isHelp, "esc clears the help's filter first")
        press(&app, .escape)
        XCTAssertEqual(app.screen, .today)
    }

    func testARebindingOfTheFindKeyIsWhatTheFilterUses() {
        var app = Self.world()
        let (map, problems) = KeyMap.defaults.applying("today.filter = f\nfilter.cancel = ctrl-g", file: "keys")
        XCTAssertEqual(problems, [])
        app.keyMap = map
        press(&app, .char("f"))
        XCTAssertEqual(app.mode, .filter)
        type(&app, "gym")
        press(&app, .ctrl("g"))
        XCTAssertEqual(app.filter, "")
        XCTAssertNil(app.overlay)
    }

    // MARK: The palette

    func testColonListsTheScreensActionsFromTheKeyMapInTableOrder() throws {
        var app = Self.world()
        press(&app, .char(":"))
        let p = try XCTUnwrap(palette(app))
        XCTAssertEqual(p.from, .today)
        XCTAssertEqual(app.mode, .palette)
        let commands = p.entries(app.keyMap).map(\.command)
        XCTAssertEqual(commands, KeyMap.defaults.bindings(in: .today).map(\.command).filter { $0 != .palette })
    }

    func testThePaletteFindsFuzzilyAndEnterRunsTheActionAsItsKeyWould() throws {
        var app = Self.world()
        press(&app, .char(":"))
        type(&app, "chk in")
        XCTAssertEqual(try XCTUnwrap(palette(app)).entries(app.keyMap).first?.command, .checkIn)
        XCTAssertEqual(press(&app, .enter), [.write(.toggle(World.read, today))])
        XCTAssertEqual(app.overlay, .rating(World.read, today), "what space does after it")
        press(&app, .escape)
        // A screen change too: the week, as `w` opens it.
        press(&app, .char(":"))
        type(&app, "week")
        press(&app, .enter)
        XCTAssertEqual(app.screen, .week)
        XCTAssertEqual(app.cursorHabit, World.read)
    }

    func testThePaletteRanksWordStartsAboveLettersTogetherInsideAWord() throws {
        var app = Self.world()
        press(&app, .char(":"))
        type(&app, "nd")
        let labels = try XCTUnwrap(palette(app)).entries(app.keyMap).map(\.label)
        XCTAssertEqual(labels.first, "next day")
        XCTAssertLessThan(try XCTUnwrap(labels.firstIndex(of: "next day")), try XCTUnwrap(labels.firstIndex(of: "undo")))
    }

    func testTheStatusBarCountsEveryDueHabitWhateverTheFilter() {
        var app = Self.world()
        let before = (app.dayDone, app.dayDue)
        press(&app, .char("/"))
        type(&app, "gym")
        XCTAssertEqual(app.rows.count, 1)
        XCTAssertEqual(app.dayDone, before.0)
        XCTAssertEqual(app.dayDue, before.1)
        XCTAssertTrue(render(app).line(app.height - 2).contains("\(before.0)/\(before.1) done"))
    }

    func testArrowsMoveThroughThePaletteAndTypingNeverRunsABinding() throws {
        var app = Self.world()
        press(&app, .char(":"))
        for c in "qjk" { XCTAssertEqual(press(&app, .char(c)), []) }
        XCTAssertEqual(try XCTUnwrap(palette(app)).query, "qjk")
        press(&app, .backspace, .backspace, .backspace)
        press(&app, .down, .down)
        XCTAssertEqual(try XCTUnwrap(palette(app)).index, 2)
        press(&app, .up)
        XCTAssertEqual(try XCTUnwrap(palette(app)).index, 1)
        // Typing puts the selection back on the best match.
        type(&app, "quit")
        XCTAssertEqual(try XCTUnwrap(palette(app)).index, 0)
        XCTAssertEqual(press(&app, .enter), [.quit])
    }

    func testEscClosesThePaletteAndNoMatchRunsNothing() throws {
        var app = Self.world()
        press(&app, .char(":"))
        type(&app, "zzzz")
        XCTAssertEqual(try XCTUnwrap(palette(app)).entries(app.keyMap), [])
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertNotNil(palette(app), "nothing to run: it stays open")
        press(&app, .escape)
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.screen, .today)
    }

    func testEveryScreenWithKeysHasThePaletteAndANewBindingShowsInIt() throws {
        for (keys, mode) in [([Key.char("w")], Mode.week), ([.char("O")], .overview), ([.enter], .detail),
                             ([.char("?")], .help), ([.char("y")], .sync), ([.char("c")], .catchUp)] {
            var app = Self.world()
            for k in keys { press(&app, k) }
            press(&app, .char(":"))
            XCTAssertEqual(try XCTUnwrap(palette(app)).from, mode)
        }
        // A binding added to the table is in the palette without more code.
        var app = Self.world()
        var bindings = KeyMap.defaults.bindings
        bindings.append(Binding(.today, [.ctrl("t")], .today, "jump back to today"))
        app.keyMap = KeyMap(bindings: bindings)
        press(&app, .char(":"))
        type(&app, "jump")
        XCTAssertEqual(try XCTUnwrap(palette(app)).entries(app.keyMap).first?.label, "jump back to today")
    }

    func testThePaletteOnTheHelpRunsTheHelpsActions() {
        var app = Self.world(height: 10)
        press(&app, .char("?"), .char(":"))
        type(&app, "next page")
        press(&app, .enter)
        XCTAssertEqual(app.helpPage, 1)
    }

    // MARK: Screens

    func testFilterScreens() {
        for (w, h) in [(40, 10), (80, 24), (120, 35)] {
            var app = Self.world(width: w, height: h)
            press(&app, .char("/"))
            type(&app, "re")
            assertSnapshot(render(app), named: "find-typing-\(w)x\(h)")
            press(&app, .enter)
            assertSnapshot(render(app), named: "find-kept-\(w)x\(h)")
            press(&app, .char("/"))
            type(&app, "xyz")
            assertSnapshot(render(app), named: "find-none-\(w)x\(h)")
        }
        var app = Self.world(width: 40, height: 10, glyphs: .ascii)
        press(&app, .char("/"))
        type(&app, "Café")
        assertSnapshot(render(app), named: "find-typing-40x10-ascii")
    }

    func testFilterOnTheWeekOverviewAndHelpScreens() {
        for (w, h) in [(40, 10), (120, 35)] {
            var app = Self.world(width: w, height: h)
            press(&app, .char("w"), .char("/"))
            type(&app, "h")
            press(&app, .enter)
            assertSnapshot(render(app), named: "find-week-\(w)x\(h)")
            press(&app, .escape, .escape, .char("O"), .char("/"))
            type(&app, "water")
            assertSnapshot(render(app), named: "find-overview-\(w)x\(h)")
            press(&app, .enter, .escape, .escape, .char("?"), .char("/"))
            type(&app, "day")
            assertSnapshot(render(app), named: "find-help-\(w)x\(h)")
        }
    }

    func testPaletteScreens() {
        for (w, h) in [(40, 10), (80, 24), (120, 35)] {
            var app = Self.world(width: w, height: h)
            press(&app, .char(":"))
            assertSnapshot(render(app), named: "palette-\(w)x\(h)")
            type(&app, "day")
            press(&app, .down)
            assertSnapshot(render(app), named: "palette-day-\(w)x\(h)")
            type(&app, "zz")
            assertSnapshot(render(app), named: "palette-none-\(w)x\(h)")
        }
        var app = Self.world(width: 40, height: 10, glyphs: .ascii)
        press(&app, .char("w"), .char(":"))
        assertSnapshot(render(app), named: "palette-week-40x10-ascii")
    }
}
