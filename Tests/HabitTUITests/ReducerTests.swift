import XCTest
import HabitCore
@testable import HabitTUI

final class ReducerTests: XCTestCase {
    func testRowsAreTheHabitsDueOnTheDayInCreationOrder() {
        let app = World.app()
        // Saturday: Gym (3/week) already met its quota this week? Rows show what is due or done.
        XCTAssertEqual(app.rows.map(\.habit.name).prefix(3), ["Drink water", "Read", "No sugar"])
        XCTAssertEqual(app.selectedID, World.water)
    }

    func testMovingTheSelectionStopsAtTheEnds() {
        var app = World.app()
        press(&app, .char("k"))
        XCTAssertEqual(app.selectedIndex, 0)
        press(&app, .char("j"), .down)
        XCTAssertEqual(app.selectedIndex, 2)
        press(&app, .char("G"))
        XCTAssertEqual(app.selectedIndex, app.rows.count - 1)
        press(&app, .char("j"))
        XCTAssertEqual(app.selectedIndex, app.rows.count - 1)
        press(&app, .char("g"))
        XCTAssertEqual(app.selectedIndex, 0)
    }

    func testSpaceAsksToCheckInOnceAndCompletingAsksHowHardItWas() {
        var app = World.app()
        // Water has 3/8 today: a check-in that does not complete it asks nothing.
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.water, World.today))])
        XCTAssertNil(app.overlay)
        // Read has nothing today; one check-in completes it, so the rating prompt opens.
        press(&app, .char("j"))
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.read, World.today))])
        XCTAssertEqual(app.overlay, .rating(World.read, World.today))
        XCTAssertEqual(app.mode, .rating)
        XCTAssertEqual(press(&app, .char("3")), [.write(.rate(World.read, World.today, 3))])
        XCTAssertNil(app.overlay)
    }

    func testEscapeDismissesTheRatingAndOtherKeysWorkAsUsual() {
        var app = World.app()
        press(&app, .char("j"), .char(" "))
        XCTAssertEqual(press(&app, .escape), [])
        XCTAssertNil(app.overlay)
        press(&app, .char("k"), .char("j"), .char(" "))
        XCTAssertNotNil(app.overlay)
        // 'u' is not a rating key: it closes the question and undoes.
        XCTAssertEqual(press(&app, .char("u")), [.undo])
        XCTAssertNil(app.overlay)
    }

    func testDigitsRateTheSelectedHabitAtAnyTime() {
        var app = World.app()
        XCTAssertEqual(press(&app, .char("5")), [.write(.rate(World.water, World.today, 5))])
    }

    func testTakingBackWithNothingRecordedExplainsAndWritesNothing() {
        var app = World.app()
        press(&app, .char("j"))
        XCTAssertEqual(press(&app, .char("x")), [])
        XCTAssertEqual(app.message?.kind, .error)
        XCTAssertTrue(app.message?.text.contains("nothing to take back") == true, "\(String(describing: app.message))")
        press(&app, .char("k"))
        XCTAssertEqual(press(&app, .backspace), [.write(.takeBack(World.water, World.today))])
    }

    func testBackfillingMovesToEarlierDaysButNeverBeyondToday() {
        var app = World.app()
        press(&app, .char("l"))
        XCTAssertEqual(app.date, World.today)
        XCTAssertNotNil(app.message)
        press(&app, .char("h"))
        XCTAssertEqual(app.date, World.today.adding(-1))
        XCTAssertEqual(press(&app, .char(" ")).first, .write(.toggle(World.water, World.today.adding(-1))))
        press(&app, .left, .left)
        XCTAssertEqual(app.date, World.today.adding(-3))
        press(&app, .char("0"))
        XCTAssertEqual(app.date, World.today)
    }

    func testCheckingInBeforeAHabitStartsIsRefusedWithTheReason() {
        var app = World.app(changes: [.create(World.read, HabitFields(name: "Read", startDate: World.today))])
        press(&app, .char("v"), .char("h"))
        XCTAssertEqual(app.rows.count, 1)
        XCTAssertEqual(press(&app, .char(" ")), [])
        XCTAssertTrue(app.message?.text.contains("before") == true)
    }

    func testSkipTogglesTheDay() {
        var app = World.app()
        XCTAssertEqual(press(&app, .char("s")), [.write(.skip(World.water, World.today, true))])
        var skipped = World.changes
        skipped.append(.skip(World.water, World.today, true))
        _ = reduce(&app, .stateChanged(World.state(skipped)))
        XCTAssertEqual(press(&app, .char("s")), [.write(.skip(World.water, World.today, false))])
    }

    func testArchiveAsksFirstAndOnlyYesArchives() {
        var app = World.app()
        XCTAssertEqual(press(&app, .char("A")), [])
        XCTAssertEqual(app.overlay, .confirmArchive(World.water))
        XCTAssertEqual(press(&app, .char("n")), [])
        XCTAssertNil(app.overlay)
        press(&app, .char("A"))
        XCTAssertEqual(press(&app, .char("y")), [.write(.archive(World.water))])
    }

    func testDeleteNeedsTypingYAndAnythingElseKeepsTheHabit() {
        var app = World.app()
        press(&app, .char("D"))
        XCTAssertEqual(app.overlay, .confirmDelete(World.water))
        XCTAssertEqual(press(&app, .char(" ")), [], "space must not confirm a delete")
        XCTAssertNil(app.overlay)
        XCTAssertTrue(app.message?.text.contains("nothing changed") == true)
        press(&app, .char("D"))
        XCTAssertEqual(press(&app, .char("y")), [.write(.delete(World.water))])
    }

    func testAddFormValidatesInlineAndSavesTheFields() {
        var app = World.app()
        press(&app, .char("a"))
        guard case .form(let empty)? = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(empty.problem(.name, in: app.habits), "habit name is empty: give 1 to 64 characters")
        XCTAssertEqual(press(&app, .enter), [], "an empty name cannot be saved")
        guard case .form(let refused)? = app.overlay else { return XCTFail("the form closed") }
        XCTAssertNotNil(refused.formError)
        type(&app, "read")
        guard case .form(let duplicate)? = app.overlay else { return XCTFail() }
        XCTAssertTrue(duplicate.problem(.name, in: app.habits)?.contains("already exists") == true)
        press(&app, .backspace, .backspace, .backspace, .backspace)
        type(&app, "Stretch")
        press(&app, .tab)
        type(&app, "🧘")
        press(&app, .tab, .tab) // kind stays build; to goal
        press(&app, .backspace)
        type(&app, "2")
        press(&app, .tab)
        type(&app, "sets")
        press(&app, .tab)
        for _ in 0..<5 { press(&app, .backspace) }
        type(&app, "mon,wed,fri")
        let effects = press(&app, .enter)
        var expected = HabitFields(name: "Stretch", icon: "🧘", goal: 2 * Amount.scale, unit: "sets", startDate: World.today)
        expected.schedule = .weekdays([.monday, .wednesday, .friday])
        XCTAssertEqual(effects, [.write(.add(expected))])
        XCTAssertNil(app.overlay)
    }

    func testTheFormTakesAGoalWithDecimalsAndShowsItBack() {
        var form = HabitForm.new(today: World.today)
        form.values[.name] = "Run"
        form.values[.goal] = "2.5"
        XCTAssertEqual(try form.fields(base: nil, in: HabitState()).get().goal, 2_500)
        form.values[.goal] = "2.5001"
        XCTAssertEqual(form.problem(.goal, in: HabitState()), "amount '2.5001' has more than 3 decimals: round it to at most 3, like 2.125")
        let habit = Habit(id: World.water, fields: HabitFields(name: "Run", goal: 2_500, unit: "km", startDate: World.today))
        XCTAssertEqual(HabitForm.edit(habit).text(.goal), "2.5")
    }

    func testEditFormStartsWithTheHabitsValuesAndEscapeCancels() {
        var app = World.app()
        press(&app, .char("e"))
        guard case .form(let form)? = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(form.text(.name), "Drink water")
        XCTAssertEqual(form.text(.goal), "8")
        XCTAssertEqual(form.text(.unit), "glasses")
        XCTAssertEqual(press(&app, .escape), [], "an untouched form closes at once")
        XCTAssertNil(app.overlay)
        press(&app, .char("e"))
        type(&app, "!")
        XCTAssertEqual(press(&app, .escape, .char("y")), [], "a changed form closes after a yes, writing nothing")
        XCTAssertNil(app.overlay)
        press(&app, .char("e"))
        press(&app, .backspace, .backspace, .backspace, .backspace, .backspace)
        type(&app, "Water")
        let fields = World.app().habits.habit(World.water)!.fields
        var renamed = fields
        renamed.name = "Drink Water"
        XCTAssertEqual(press(&app, .enter), [.write(.edit(World.water, renamed, from: nil))])
    }

    func testScreensOpenAndCloseWithTheirKeys() {
        var app = World.app()
        press(&app, .enter)
        XCTAssertEqual(app.screen, .detail(World.water))
        press(&app, .char("j"))
        XCTAssertEqual(app.screen, .detail(World.read))
        press(&app, .escape)
        XCTAssertEqual(app.screen, .today)
        press(&app, .char("w"))
        XCTAssertEqual(app.screen, .week)
        press(&app, .char("H"))
        XCTAssertEqual(app.cursorDay, World.today.adding(-7))
        press(&app, .char("?"))
        XCTAssertEqual(app.screen, .help(from: .week))
        press(&app, .escape)
        XCTAssertEqual(app.screen, .week)
        press(&app, .char("q"))
        XCTAssertEqual(app.screen, .today)
        XCTAssertEqual(press(&app, .char("q")), [.quit])
    }

    func testThemeKeyAsksForTheNextThemeAndItsProblemsAreShown() {
        var app = World.app()
        XCTAssertEqual(press(&app, .char("T")), [.loadTheme("gruvbox")])
        _ = reduce(&app, .themeLoaded("gruvbox", problems: []))
        XCTAssertEqual(press(&app, .char("T")), [.loadTheme("light")])
        _ = reduce(&app, .themeLoaded("light", problems: ["light.theme line 3: unknown role 'hedaer', using the default for it"]))
        XCTAssertEqual(app.message?.kind, .warning)
        XCTAssertEqual(press(&app, .char("T")), [.loadTheme("default")])
    }

    func testStateFromElsewhereKeepsTheSelectionOnTheSameHabit() {
        var app = World.app()
        press(&app, .char("j"))
        XCTAssertEqual(app.selectedID, World.read)
        var more = World.changes
        more.insert(.create(HabitID("0000000000000001")!, HabitFields(name: "Aaa first", startDate: World.start)), at: 0)
        _ = reduce(&app, .stateChanged(World.state(more)))
        XCTAssertEqual(app.selectedID, World.read)
        XCTAssertEqual(app.selected?.habit.name, "Read")
    }

    func testAQuestionAboutAHabitDeletedElsewhereCloses() {
        var app = World.app()
        press(&app, .char("A"))
        var deleted = World.changes
        deleted.append(.delete(World.water))
        _ = reduce(&app, .stateChanged(World.state(deleted)))
        XCTAssertNil(app.overlay)
        XCTAssertNotEqual(app.selectedID, World.water)
    }

    func testMidnightMovesTodayAndTheShownDayWhenItWasToday() {
        var app = World.app()
        _ = reduce(&app, .dayChanged(World.today.adding(1)))
        XCTAssertEqual(app.date, World.today.adding(1))
        press(&app, .char("h"), .char("h"))
        _ = reduce(&app, .dayChanged(World.today.adding(2)))
        XCTAssertEqual(app.date, World.today.adding(-1), "a backfilled day stays shown")
    }

    func testWriteResultsAndFailuresShowInTheMessageLine() {
        var app = World.app()
        _ = reduce(&app, .failed("cannot write journal.hbj: No space left on device"))
        XCTAssertEqual(app.message, Message("cannot write journal.hbj: No space left on device", .error))
        press(&app, .char("j"))
        XCTAssertNil(app.message, "messages last until the next key")
        // A finished write comes back as its outcome, and the reducer words it; a refusal as its error.
        let skip = Intent.skip(World.read, World.today, true)
        let after = World.state(World.changes + [.skip(World.read, World.today, true)])
        _ = reduce(&app, .written(skip.outcome(changed: true, state: after, today: World.today)))
        XCTAssertEqual(app.message, Message("Skipped 'Read' on 2026-11-21: the day neither counts nor breaks the streak"))
        _ = reduce(&app, .refused(.archivedFrom(habit: "Read", from: World.today)))
        XCTAssertEqual(app.message, Message("'Read' is archived from 2026-11-21; unarchive it first", .error))
        _ = reduce(&app, .undone(nil))
        XCTAssertEqual(app.message, Message("Nothing to undo on this device"))
    }

    /// The day commands are one list: each screen that records a day binds every one of them,
    /// and each of them records the day the screen's selection is on.
    func testEveryDayCommandIsBoundOnEveryScreenThatRecordsADay() {
        for mode in [Mode.today, .detail, .week] {
            let bound = Set(KeyMap.defaults.bindings(in: mode).map(\.command))
            XCTAssertEqual(Command.dayCommands.subtracting(bound), [], "\(mode)")
        }
        XCTAssertTrue(Command.skip.isDayCommand)
        XCTAssertFalse(Command.undo.isDayCommand)
        var app = World.app()
        XCTAssertEqual(today(.skip, &app), [.write(.skip(World.water, World.today, true))])
    }

    func testDefaultKeyMapHasNoCollisionsInAnyMode() {
        XCTAssertEqual(KeyMap.defaults.collisions, [])
        for mode in Mode.allCases { XCTAssertFalse(KeyMap.defaults.bindings(in: mode).isEmpty, "\(mode)") }
    }

    func testUserKeyFileRebindsAndRejectsCollisionsAndNonsense() {
        let text = """
        # my keys
        today.check-in = i, space
        today.undo = j
        today.nope = z
        week.back = esc
        today.skip = F13
        bogus
        """
        let (map, problems) = KeyMap.defaults.applying(text, file: "keys")
        XCTAssertEqual(map.command(for: .char("i"), in: .today), .checkIn)
        XCTAssertEqual(map.command(for: .char("j"), in: .today), .moveDown, "the colliding rebinding was ignored")
        XCTAssertEqual(map.command(for: .char("w"), in: .week), nil)
        XCTAssertEqual(map.collisions, [])
        XCTAssertEqual(problems.count, 4, problems.joined(separator: "\n"))
        XCTAssertTrue(problems[0].hasPrefix("keys line 3: ignored"), problems[0])
        XCTAssertTrue(problems[1].hasPrefix("keys line 4:"), problems[1])
        XCTAssertTrue(problems[2].hasPrefix("keys line 6: unknown key 'F13'"), problems[2])
        XCTAssertTrue(problems[3].hasPrefix("keys line 7:"), problems[3])
    }

    func testEveryProblemOfAKeyFileIsShownOneAfterAnother() {
        let text = """
        today.chek-in = i
        today.skip = F13, F14, s
        today.undo = u
        bogus
        """
        let (_, problems) = KeyMap.defaults.applying(text, file: "keys")
        XCTAssertEqual(problems.count, 3, problems.joined(separator: "\n"))
        XCTAssertTrue(problems[0].hasPrefix("keys line 1: 'chek-in' is not a command of today (did you mean 'check-in'? commands: "), problems[0])
        XCTAssertTrue(problems[1].hasPrefix("keys line 2: unknown keys 'F13', 'F14' "), problems[1])
        XCTAssertEqual(problems[2], "keys line 4: expected 'mode.command = key, key'")
        var app = World.app()
        app.show(problems.map { Message($0, .warning) })
        XCTAssertEqual(app.message?.text, "[1/3] " + problems[0])
        press(&app, .char("j")) // a key that says nothing shows the next problem
        XCTAssertEqual(app.message?.text, "[2/3] " + problems[1])
        press(&app, .char("k"))
        XCTAssertEqual(app.message?.text, "[3/3] " + problems[2])
        XCTAssertEqual(app.message?.kind, .warning)
        press(&app, .char("j"))
        XCTAssertNil(app.message, "all shown")
        // One problem is shown without a number; a key's own message goes first.
        app.show([Message("only", .warning)])
        XCTAssertEqual(app.message?.text, "only")
        app.show([Message("a"), Message("b")])
        XCTAssertEqual(press(&app, .char("s")).count, 1)
        XCTAssertNil(app.message, "a key that writes waits for its confirmation")
        _ = reduce(&app, .undone("skip 'Read'"))
        XCTAssertEqual(app.message?.text, "Undid: skip 'Read'")
        press(&app, .char("j"))
        XCTAssertEqual(app.message?.text, "[2/2] b", "then the queue goes on")
    }

    func testFooterAndHelpComeFromTheKeyMap() {
        var map = KeyMap.defaults
        (map, _) = map.applying("today.check-in = i", file: "keys")
        var app = World.app()
        app.keyMap = map
        XCTAssertTrue(render(app).line(23).contains("i check in"), render(app).line(23))
        press(&app, .char("?"))
        var pages = ""
        for _ in 0..<helpLayout(app).pages { pages += render(app).text + "\n"; press(&app, .char("j")) }
        let help = pages.split(separator: "\n")
        XCTAssertTrue(help.contains { $0.contains("  i             check in") }, help.joined(separator: "\n"))
        XCTAssertEqual(pages.components(separatedBy: "space         check in").count - 1, 2,
                       "the old binding is gone from today, and stays in the detail screen and the week grid")
    }
}
