import XCTest
import HabitCore
@testable import HabitTUI

/// The catch-up screen (`c`), its hint on the today screen, and yes/no toggling.
final class CatchUpScreenTests: XCTestCase {
    /// The demo world with nothing recorded on the three days before today (the skip of
    /// Read on the 19th stays).
    private static let missedChanges: [Change] = World.changes.filter { c in
        switch c {
        case .progress(_, let d, _), .rate(_, let d, _): return d < World.today.adding(-3) || d == World.today
        default: return true
        }
    }

    private func app(_ changes: [Change] = missedChanges) -> AppState { World.app(changes: changes) }

    func testTheTodayScreenSaysWhatIsLeftToCatchUp() {
        let app = app()
        XCTAssertEqual(app.missed, CatchUp.missed(app.habits, today: World.today))
        XCTAssertEqual(render(app).line(app.height - 3).trimmingCharacters(in: .whitespaces),
                       "\(app.missed.count) habit-days not recorded from Tue 17 Nov to yesterday · c to catch up")
        assertSnapshot(render(app), named: "today-catch-up-hint-80x24")
        // Only yesterday missed: said so.
        let yesterday = World.today.adding(-1)
        let onlyYesterday = World.app(changes: World.changes.filter {
            if case .progress(let h, let d, _) = $0 { return d != yesterday || h == World.gym }
            return true
        })
        XCTAssertEqual(catchUpHint(onlyYesterday.missed, today: World.today), "2 habits not recorded yesterday · c to catch up")
        XCTAssertNil(catchUpHint(World.app().missed, today: World.today), "nothing missed, no hint")
    }

    func testCatchUpAsksTheItemsOldestFirstAndEachAnswerIsOneWrite() {
        var app = app()
        press(&app, .char("c"))
        XCTAssertEqual(app.screen, .catchUp)
        XCTAssertEqual(app.mode, .catchUp)
        let items = CatchUp.items(app.habits, today: World.today)
        XCTAssertEqual(app.catchUp, items)
        XCTAssertEqual(items.map(\.day), items.map(\.day).sorted(), "oldest first")
        XCTAssertEqual(items.first?.day, World.today.adding(-4), "Gym (3/week) was due and not done on the 17th")
        func at(_ i: Int) -> (HabitID, LocalDay) { (items[i].habit.id, items[i].day) }
        XCTAssertEqual(press(&app, .char("y")), [.write(.answer(at(0).0, at(0).1, .done(difficulty: nil)))])
        XCTAssertEqual(app.catchUpIndex, 1)
        XCTAssertEqual(press(&app, .char("4")), [.write(.answer(at(1).0, at(1).1, .done(difficulty: 4)))])
        XCTAssertEqual(press(&app, .char("s")), [.write(.answer(at(2).0, at(2).1, .skip))])
        XCTAssertEqual(press(&app, .char("n")), [.write(.answer(at(3).0, at(3).1, .notDone))], "not done is recorded as an answer")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(app.catchUpIndex, 5)
        press(&app, .char("k"), .char("k"))
        XCTAssertEqual(app.catchUpIndex, 3)
        XCTAssertEqual(press(&app, .char("u")), [.undo])
        press(&app, .escape)
        XCTAssertEqual(app.screen, .today)
    }

    func testTheCatchUpScreenShowsWhatEachAnswerRecorded() throws {
        var app = app()
        press(&app, .char("c"))
        let items = app.catchUp
        var changes = Self.missedChanges
        for (i, answer) in [CatchUp.Answer.done(difficulty: 2), .skip, .amount(3 * Amount.scale, difficulty: nil)].enumerated() {
            changes += try CatchUp.changes(answer, for: items[i], today: World.today, in: World.state(changes))
        }
        _ = reduce(&app, .stateChanged(World.state(changes)))
        press(&app, .char("j"), .char("j"), .char("j"))
        XCTAssertEqual(app.catchUp, items, "the list stays while it is answered")
        assertSnapshot(render(app), named: "catch-up-80x24")
        let before = items.filter { $0.day < World.today }.count
        XCTAssertTrue(render(app).line(0).contains("catching up: \(before) habit-days before today, \(items.count - before) today · \(items.count - 3) open"),
                      render(app).line(0))
        var narrow = app
        _ = reduce(&narrow, .resized(width: 40, height: 10))
        assertSnapshot(render(narrow), named: "catch-up-40x10")
    }

    func testNothingToCatchUpStaysOnTodayAndSaysSo() {
        let everything = World.changes + [.progress(World.read, World.today, delta: Amount.scale), .progress(World.gym, World.today, delta: Amount.scale)]
        var app = World.app(changes: everything)
        press(&app, .char("c"))
        XCTAssertEqual(app.screen, .today)
        XCTAssertTrue(app.message?.text.hasPrefix("Nothing to catch up") == true, "\(String(describing: app.message))")
    }

    func testSpaceTogglesAYesNoDayAndCountedHabitsKeepAdding() {
        var app = World.app(changes: World.changes + [.progress(World.read, World.today, delta: Amount.scale)])
        press(&app, .char("j"))
        XCTAssertEqual(app.selected?.habit.id, World.read)
        XCTAssertEqual(app.selected?.progress, Amount.scale)
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.read, World.today))])
        XCTAssertEqual(try Intent.toggle(World.read, World.today).changes(today: World.today, in: app.habits),
                       [.progress(World.read, World.today, delta: -Limits.maxDayProgress)], "space on a done yes/no day marks it not done")
        XCTAssertNil(app.overlay, "marking not done asks nothing")
        press(&app, .char("k"))
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(World.water, World.today))])
    }

    func testANewHabitCanStartInThePastSoItsDaysCanBeCaughtUp() throws {
        var app = World.app()
        press(&app, .char("a"))
        type(&app, "Stretch")
        press(&app, .tab, .tab, .tab, .tab, .tab, .tab)
        guard case .form(let form)? = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(form.focus, .start)
        for _ in 0..<10 { press(&app, .backspace) }
        type(&app, "-x")
        guard case .form(let bad)? = app.overlay else { return XCTFail("no form") }
        XCTAssertEqual(bad.problem(.start, in: app.habits), "use YYYY-MM-DD, today, yesterday, -N, +N or a weekday such as mon")
        press(&app, .backspace, .backspace)
        type(&app, "-3")
        let effects = press(&app, .enter)
        guard case .write(.add(let fields))? = effects.first else { return XCTFail("\(effects)") }
        XCTAssertEqual(fields.startDate, World.today.adding(-3))
        // A typed date works too, and once added its past days are there to catch up on.
        var dated = HabitForm.new(today: World.today)
        dated.values[.start] = "2026-11-01"
        XCTAssertEqual(dated.startDate, LocalDay("2026-11-01"))
        let id = HabitID("00000000000000e5")!
        let state = World.state(World.changes + [.create(id, fields)])
        let asked = CatchUp.items(state, today: World.today).filter { $0.habit.id == id }.map(\.day)
        XCTAssertEqual(asked, (0...3).map { World.today.adding($0 - 3) })
    }
}

/// The catch-up screen takes an amount (as `ask` does), records "not done", and its title
/// counts the days before today as the today screen's hint does.
final class CatchUpAnswersTests: XCTestCase {
    private static let missedChanges: [Change] = World.changes.filter { c in
        switch c {
        case .progress(_, let d, _), .rate(_, let d, _): return d < World.today.adding(-3) || d == World.today
        default: return true
        }
    }

    func testTheHintAndTheScreenCountTheSameDaysBeforeTodayAndSaySo() {
        var app = World.app(changes: Self.missedChanges)
        let before = app.missed.count
        XCTAssertTrue(catchUpHint(app.missed, today: World.today)!.hasPrefix("\(before) habit-days not recorded from Tue 17 Nov to yesterday"))
        XCTAssertEqual(catchUpHint(app.missed, today: World.today, width: 45), "\(before) not recorded before today · c to catch up")
        XCTAssertEqual(catchUpHint(app.missed, today: World.today, width: 38), "\(before) open before today · c to catch up")
        press(&app, .char("c"))
        let today = app.catchUp.filter { $0.day == World.today }.count
        XCTAssertGreaterThan(today, 0, "today's open habit-days are on the screen too")
        XCTAssertEqual(app.catchUp.count - today, before)
        XCTAssertEqual(render(app).line(0).trimmingCharacters(in: .whitespaces),
                       "Habitto · catching up: \(before) habit-days before today, \(today) today · \(before + today) open")
    }

    func testAnAmountAnswersTheHabitDayAndMovesOn() {
        var app = World.app(changes: Self.missedChanges)
        press(&app, .char("c"))
        let i = app.catchUp.firstIndex { $0.habit.id == World.water }!
        app.catchUpIndex = i
        let item = app.catchUp[i]
        XCTAssertEqual(press(&app, .char("a")), [])
        XCTAssertEqual(app.overlay, .amount(AmountPrompt(habit: World.water, day: item.day)))
        type(&app, "5")
        XCTAssertEqual(press(&app, .enter), [.write(.checkIn(World.water, item.day, amount: 5 * Amount.scale))])
        XCTAssertEqual(app.catchUpIndex, i + 1, "the next habit-day is selected")
        XCTAssertEqual(app.screen, .catchUp)
    }

    func testNotDoneIsShownAndNoLongerOpen() throws {
        var app = World.app(changes: Self.missedChanges)
        press(&app, .char("c"))
        let item = app.catchUp[0]
        let effects = press(&app, .char("n"))
        XCTAssertEqual(effects, [.write(.answer(item.habit.id, item.day, .notDone))])
        let changes = try Intent.answer(item.habit.id, item.day, .notDone).changes(today: World.today, in: app.habits)
        XCTAssertEqual(changes, [.notDone(item.habit.id, item.day, true)])
        _ = reduce(&app, .stateChanged(World.state(Self.missedChanges + changes)))
        let screen = render(app)
        XCTAssertTrue(screen.line(2).hasSuffix("not done"), screen.line(2))
        XCTAssertTrue(screen.line(0).hasSuffix("· \(app.catchUp.count - 1) open"), screen.line(0))
        XCTAssertFalse(CatchUp.items(app.habits, today: World.today).contains(item), "not asked again")
    }
}
