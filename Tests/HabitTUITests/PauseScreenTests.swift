import XCTest
import HabitCore
@testable import HabitTUI

/// Issue 41, point 4: `P` asks for a pause on the message line (first and last day, a
/// reason, or `end`), and the today row, the week grid and the calendar mark paused days.
final class PauseScreenTests: XCTestCase {
    private let today = World.today

    /// The app with Read selected.
    private func readSelected(_ changes: [Change] = World.changes, width: Int = 80, glyphs: Glyphs = .unicode) -> AppState {
        var app = World.app(width: width, glyphs: glyphs, changes: changes)
        for _ in 0..<10 where app.selected?.habit.id != World.read { press(&app, .char("j")) }
        XCTAssertEqual(app.selected?.habit.id, World.read)
        return app
    }

    private func prompt(_ app: AppState) -> PausePrompt? {
        if case .pause(let p) = app.overlay { return p }
        return nil
    }

    func testPOpensThePromptOnTheSelectedDayAndEnterWritesThePause() {
        var app = readSelected()
        press(&app, .char("P"))
        XCTAssertEqual(app.mode, .pause)
        XCTAssertEqual(prompt(app)?.text, "2026-11-21 ")
        type(&app, "+3 family visit")
        assertSnapshot(render(app), named: "pause-prompt-80x24")
        let effects = press(&app, .enter)
        XCTAssertEqual(effects, [.write(.pause(World.read, from: today, to: today.adding(3), reason: "family visit"))])
        XCTAssertNil(app.overlay)
    }

    func testOneDayAloneIsPausedAndAWordAfterItIsTheReason() throws {
        let p = PausePrompt(habit: World.read, day: today)
        XCTAssertEqual(try p.entry(today: today), .pause(from: today, to: today, reason: nil))
        var q = p
        q.text += "sick"
        XCTAssertEqual(try q.entry(today: today), .pause(from: today, to: today, reason: "sick"))
        q.text = "  END "
        XCTAssertEqual(try q.entry(today: today), .end)
        q.text = "mon fri"
        XCTAssertEqual(try q.entry(today: today), .pause(from: LocalDay("2026-11-16")!, to: LocalDay("2026-11-20")!, reason: nil))
    }

    func testTextTheRulesRefuseKeepsThePromptOpenWithTheReason() {
        var app = readSelected()
        press(&app, .char("P"))
        type(&app, "2026-11-01")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(prompt(app)?.error,
                       "a pause cannot end (2026-11-01) before it starts (2026-11-21)")
        assertSnapshot(render(World.app(width: 120, changes: World.changes).with(overlay: app.overlay)), named: "pause-prompt-refused-120x24")
        for _ in 0..<30 { press(&app, .backspace) }
        type(&app, "soon")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertTrue(prompt(app)?.error?.hasPrefix("'soon' is not a day: use YYYY-MM-DD") ?? false, prompt(app)?.error ?? "")
        for _ in 0..<4 { press(&app, .backspace) }
        type(&app, "end")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(prompt(app)?.error, "'Read' has no pause on or after 2026-11-21 to end")
        press(&app, .escape)
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.text, "Cancelled: nothing paused")
    }

    func testEndInThePromptEndsTheHabitsPause() {
        var app = readSelected(World.changes + [.pause(World.read, from: today.adding(-1), to: today.adding(4), reason: "")])
        press(&app, .char("P"))
        for _ in 0..<20 { press(&app, .backspace) }
        type(&app, "end")
        XCTAssertEqual(press(&app, .enter), [.write(.endPause(World.read))])
    }

    func testPIsRebindable() {
        let (map, problems) = KeyMap.defaults.applying("today.pause = Z", file: "keys")
        XCTAssertEqual(problems, [])
        var app = readSelected()
        app.keyMap = map
        press(&app, .char("P"))
        XCTAssertNil(app.overlay, "P is no longer bound")
        press(&app, .char("Z"))
        XCTAssertEqual(app.mode, .pause)
    }

    func testPausedDaysHaveTheirOwnMarkOnTheTodayRowWeekGridAndCalendar() {
        // Read paused from the day before yesterday through two days from now.
        let changes = World.changes + [.pause(World.read, from: today.adding(-2), to: today.adding(2), reason: "trip")]
        var app = readSelected(changes)
        let row = render(app).text.split(separator: "\n").first { $0.contains("Read") }.map(String.init) ?? ""
        XCTAssertEqual(Array(row).dropFirst(2).first, "‖", row)
        let asciiRow = render(readSelected(changes, glyphs: .ascii)).text.split(separator: "\n").first { $0.contains("Read") } ?? ""
        XCTAssertEqual(Array(asciiRow).dropFirst(2).first, "&", String(asciiRow))
        var week = app
        press(&week, .char("w"))
        assertSnapshot(render(week), named: "week-paused-80x24")
        press(&app, .enter)
        assertSnapshot(render(app), named: "detail-paused-80x24")
        XCTAssertTrue(render(app).text.contains("‖‖ paused"), "the calendar's legend names the mark")
    }

    func testTheOverviewMarksPausedDaysAndItsLegendNamesThem() {
        var plain = readSelected()
        press(&plain, .char("O"))
        XCTAssertFalse(render(plain).text.contains("paused"), "no pause, no legend for one")
        var app = readSelected(World.changes + [.pause(World.read, from: today.adding(-3), to: today.adding(-1), reason: "")])
        press(&app, .char("O"))
        let text = render(app).text
        let row = text.split(separator: "\n").first { $0.contains("Read") }.map(String.init) ?? ""
        XCTAssertTrue(row.contains("‖‖‖"), row)
        XCTAssertTrue(text.contains("‖ paused"), text)
    }
}

private extension AppState {
    /// The same state with `overlay` shown over it.
    func with(overlay: Overlay?) -> AppState {
        var s = self
        s.overlay = overlay
        return s
    }
}
