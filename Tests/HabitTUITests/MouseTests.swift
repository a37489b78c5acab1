import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// The mouse (issue 41, point 3): what a click does is decided by what the screen drew there
/// (`ScreenBuffer.regions`); the wheel comes as keys of the key map.
final class MouseTests: XCTestCase {
    /// The x and y of the first cell of the rendered screen whose region is `target`.
    func spot(_ app: AppState, _ target: HitTarget, file: StaticString = #filePath, line: UInt = #line) throws -> (Int, Int) {
        let region = try XCTUnwrap(render(app).regions.last { $0.target == target }, "no \(target) on the screen", file: file, line: line)
        return (region.x, region.y)
    }

    func testAClickOnARowSelectsItAndNothingIsWritten() throws {
        var app = World.app()
        let (x, y) = try spot(app, .line(2))
        XCTAssertEqual(reduce(&app, .click(x: x + 10, y: y)), [])
        XCTAssertEqual(app.selectedID, World.sugar)
        XCTAssertEqual(app.date, World.today)
        // Nothing there (the blank rows under the list, the header): nothing happens.
        XCTAssertEqual(reduce(&app, .click(x: 5, y: 12)), [])
        XCTAssertEqual(reduce(&app, .click(x: 5, y: 0)), [])
        XCTAssertEqual(app.selectedID, World.sugar)
    }

    /// A click on a row's state mark checks in, as space does: a second click on a yes/no
    /// habit takes it back (`Intent.toggle` decides on the data the second write sees).
    func testAClickOnARowsMarkChecksIn() throws {
        var app = World.app()
        let (x, y) = try spot(app, .mark(1))
        XCTAssertEqual(render(app)[x, y].text, "·")
        XCTAssertEqual(reduce(&app, .click(x: x, y: y)), [.write(.toggle(World.read, World.today))])
        XCTAssertEqual(app.selectedID, World.read)
        // The write done: the mark shows done, and a second click toggles it back.
        app.habits = World.state(World.changes + [.progress(World.read, World.today, delta: Amount.scale)])
        XCTAssertEqual(render(app)[x, y].text, "✓")
        XCTAssertEqual(reduce(&app, .click(x: x, y: y)), [.write(.toggle(World.read, World.today))])
        let changes = try Intent.toggle(World.read, World.today).changes(today: World.today, in: app.habits)
        guard case .progress(World.read, World.today, let delta)? = changes.first, changes.count == 1, delta < 0 else {
            return XCTFail("the second click takes it back: \(changes)")
        }
    }

    /// A click on a recent day selects the habit and that day: the day keys then act on it.
    func testAClickOnADayCellSelectsTheHabitAndTheDay() throws {
        var app = World.app(width: 120, height: 35)
        let day = World.today.adding(-3)
        let (x, y) = try spot(app, .day(line: 1, day))
        XCTAssertEqual(reduce(&app, .click(x: x, y: y)), [])
        XCTAssertEqual(app.selectedID, World.read)
        XCTAssertEqual(app.date, day)
        XCTAssertEqual(render(app)[x - 1, y].text, "[")
        XCTAssertEqual(press(&app, .char("2")), [.write(.rate(World.read, day, 2))])
    }

    func testAClickOnAFooterKeyPressesIt() throws {
        var app = World.app()
        let (x, y) = try spot(app, .key(.char("?")))
        XCTAssertEqual(y, 23)
        XCTAssertTrue(render(app).line(23).dropFirst(x).hasPrefix("? help"))
        XCTAssertEqual(reduce(&app, .click(x: x + 3, y: y)), [])
        XCTAssertEqual(app.screen, .help(from: .today))
        var quit = World.app()
        let (qx, qy) = try spot(quit, .key(.char("q")))
        XCTAssertEqual(reduce(&quit, .click(x: qx, y: qy)), [.quit])
        // The check-in entry runs the check-in on the selected row, as its key does.
        var check = World.app()
        let (cx, cy) = try spot(check, .key(.char(" ")))
        XCTAssertEqual(reduce(&check, .click(x: cx, y: cy)), [.write(.toggle(World.water, World.today))])
        // Every footer entry's region is its key and label, and its key's binding is shown there.
        for region in render(World.app()).regions where region.y == 23 {
            guard case .key(let key) = region.target else { return XCTFail("\(region)") }
            let text = String(render(World.app()).line(23).dropFirst(region.x).prefix(region.width))
            XCTAssertTrue(text.hasPrefix(key.description), text)
        }
    }

    /// Under a form or a prompt a click does nothing but press the footer's keys; the
    /// "how hard was it?" question goes, as with any other key.
    func testUnderAFormOrPromptOnlyTheFootersKeysWork() throws {
        var app = World.app()
        press(&app, .char("a"))
        let form = app.overlay
        let row = try spot(World.app(), .line(1))
        XCTAssertEqual(reduce(&app, .click(x: row.0 + 8, y: row.1)), [])
        XCTAssertEqual(app.overlay, form)
        let (x, y) = try spot(app, .key(.escape))
        XCTAssertEqual(reduce(&app, .click(x: x, y: y)), [])
        XCTAssertNil(app.overlay)
        var rating = World.app()
        rating.overlay = .rating(World.read, World.today)
        XCTAssertEqual(reduce(&rating, .click(x: row.0 + 8, y: row.1)), [])
        XCTAssertNil(rating.overlay)
        XCTAssertEqual(rating.selectedID, World.read)
    }

    func testAClickInTheWeekGridPutsTheCursorOnTheCell() throws {
        var app = World.app()
        press(&app, .char("w"))
        let day = World.today.adding(-4)
        let (x, y) = try spot(app, .weekCell(World.gym, day))
        XCTAssertEqual(reduce(&app, .click(x: x + 1, y: y)), [])
        XCTAssertEqual(app.cursorHabit, World.gym)
        XCTAssertEqual(app.cursorDay, day)
        XCTAssertEqual(press(&app, .char("s")), [.write(.skip(World.gym, day, true))])
    }

    func testAClickOnACalendarDayOrACatchUpRowSelectsIt() throws {
        var app = World.app()
        press(&app, .char("j"), .enter)
        let day = World.today.adding(-9)
        let (x, y) = try spot(app, .calendarDay(day))
        XCTAssertEqual(reduce(&app, .click(x: x + 1, y: y)), [])
        XCTAssertEqual(app.cursorDay, day)
        XCTAssertEqual(press(&app, .char("s")), [.write(.skip(World.read, day, true))])
        // A week-grid row's name: the habit, on the cursor's day.
        var week = World.app()
        press(&week, .char("w"), .char("h"))
        let (nx, ny) = try spot(week, .weekCell(World.sugar, World.today.adding(-1)))
        XCTAssertEqual(reduce(&week, .click(x: nx + 2, y: ny)), [])
        XCTAssertEqual(week.cursorHabit, World.sugar)
        XCTAssertEqual(week.cursorDay, World.today.adding(-1))
        // The catch-up screen (its habit-days from the data's unrecorded ones).
        var catchUp = World.app(changes: World.changes.filter {
            if case .progress(_, let d, _) = $0 { return d < World.today.adding(-2) }
            return true
        })
        press(&catchUp, .char("c"))
        XCTAssertEqual(catchUp.screen, .catchUp)
        XCTAssertGreaterThan(catchUp.catchUp.count, 2)
        let (cx, cy) = try spot(catchUp, .catchUpItem(2))
        XCTAssertEqual(reduce(&catchUp, .click(x: cx + 20, y: cy)), [])
        XCTAssertEqual(catchUp.catchUpIndex, 2)
    }

    /// The wheel is a pair of keys in the key map: it moves the selection on the today
    /// screen, pages the help, goes a month on in the calendar, and can be rebound.
    func testTheWheelScrollsThroughTheKeyMap() {
        var app = World.app()
        press(&app, .wheelDown, .wheelDown)
        XCTAssertEqual(app.selectedID, World.sugar)
        press(&app, .wheelUp)
        XCTAssertEqual(app.selectedID, World.read)
        XCTAssertEqual(Key(name: "wheel-down"), .wheelDown)
        XCTAssertEqual(Key.wheelUp.description, "wheel-up")
        let (map, problems) = KeyMap.defaults.applying("today.move-down = j\ntoday.check-in = space, wheel-down\n", file: "keys")
        XCTAssertEqual(problems, [])
        var rebound = World.app()
        rebound.keyMap = map
        XCTAssertEqual(press(&rebound, .wheelDown), [.write(.toggle(World.water, World.today))])
        for mode in [Mode.today, .week, .overview, .catchUp, .help, .detail] {
            XCTAssertNotNil(KeyMap.defaults.command(for: .wheelDown, in: mode), "\(mode)")
            XCTAssertNotNil(KeyMap.defaults.command(for: .wheelUp, in: mode), "\(mode)")
        }
    }

    /// The terminal's SGR mouse reports, parsed in one place: a left press is a click (from
    /// 0), the wheel its keys; a release, another button, motion or anything malformed, nothing.
    func testSGRMouseReports() {
        XCTAssertEqual(MouseReport.sgr("0;10;5M"), .click(x: 9, y: 4))
        XCTAssertEqual(MouseReport.sgr("4;1;1M"), .click(x: 0, y: 0), "with shift")
        XCTAssertEqual(MouseReport.sgr("64;3;3M"), .wheel(.wheelUp))
        XCTAssertEqual(MouseReport.sgr("65;3;3M"), .wheel(.wheelDown))
        for bad in ["0;10;5m", "2;10;5M", "1;10;5M", "32;10;5M", "0;0;5M", "0;10M", "0;10;5", "0;;5M", "0;10;5;1M",
                    "0;999999;5M", "-1;2;3M", "a;b;cM", "", "M", String(repeating: "1", count: 100) + "M", "0;１;5M"] {
            XCTAssertNil(MouseReport.sgr(bad), bad)
        }
        // Arbitrary bytes as a report's body: nothing crashes, and what parses is on the screen's grid.
        var random = SplitMix64(seed: 7)
        let alphabet = Array("0123456789;Mm-+ \u{1b}[<a\u{0}\u{ff}é")
        for _ in 0..<5_000 {
            let body = String((0..<Int(random.next() % 24)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            if case .click(let x, let y)? = MouseReport.sgr(body) { XCTAssertTrue(x >= 0 && y >= 0, body) }
        }
    }
}
