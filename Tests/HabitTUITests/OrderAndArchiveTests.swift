import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// The move keys (K, J) and archiving both ways (A) on the today screen.
final class OrderAndArchiveTests: XCTestCase {
    /// The world with "No sugar" archived from yesterday (so v lists it, archived).
    private func archivedApp(width: Int = 80, height: Int = 24) -> AppState {
        World.app(width: width, height: height,
                  changes: World.changes + [.set(World.sugar, .archivedFrom(World.today.adding(-1)))])
    }

    private func names(_ app: AppState) -> [String] { app.rows.map(\.habit.name) }

    /// Applies a move write the reducer asked for, as the repository would.
    private func apply(_ effects: [Effect], to app: inout AppState, file: StaticString = #filePath, line: UInt = #line) {
        guard case .write(.move(let h, let target))? = effects.first, effects.count == 1 else {
            return XCTFail("expected one move write, got \(effects)", file: file, line: line)
        }
        var s = app.habits
        var seq = s.seen[World.device] ?? 0
        for change in (try? Edits.move(h, to: target, in: s)) ?? [] {
            seq += 1
            s.apply(HabitOperation(id: OpID(device: World.device, seq: seq), hlc: HLC(wallMillis: 1_900_000_000_000, counter: UInt32(seq)),
                                   change: change))
        }
        _ = reduce(&app, .stateChanged(s))
    }

    private func order(_ app: AppState) -> [String] { app.habits.habits.map(\.name) }

    func testTheMoveKeysAskToMoveTheSelectedHabitPastTheNextShownRow() {
        var app = World.app()
        XCTAssertEqual(names(app), ["Drink water", "Read", "No sugar"], "Gym is not due today")
        XCTAssertEqual(press(&app, .char("J")), [.write(.move(World.water, .after(World.read)))])
        XCTAssertEqual(press(&app, .char("j"), .char("K")), [.write(.move(World.read, .before(World.water)))])
    }

    func testMovingUpAndDownChangesTheRowsAndKeepsTheSelection() {
        var app = World.app()
        apply(press(&app, .char("J")), to: &app)
        XCTAssertEqual(names(app), ["Read", "Drink water", "No sugar"])
        XCTAssertEqual(app.selected?.habit.name, "Drink water", "the selection follows the moved habit")
        apply(press(&app, .char("J")), to: &app)
        XCTAssertEqual(order(app), ["Read", "No sugar", "Drink water", "Gym"])
        apply(press(&app, .char("K")), to: &app)
        XCTAssertEqual(order(app), ["Read", "Drink water", "No sugar", "Gym"])
    }

    func testMovingPastTheEndSaysSoAndWritesNothing() {
        var app = World.app()
        XCTAssertEqual(press(&app, .char("K")), [])
        XCTAssertEqual(app.message?.text, "'Drink water' is already first of those shown (v shows them all)")
        press(&app, .char("G"))
        XCTAssertEqual(press(&app, .char("J")), [])
        XCTAssertEqual(app.message?.text, "'No sugar' is already last of those shown (v shows them all)")
        press(&app, .char("v"), .char("G"))
        XCTAssertEqual(press(&app, .char("J")), [])
        XCTAssertEqual(app.message?.text, "'Gym' is already last")
    }

    func testWithGroupsAHabitMovesWithinItsGroupAsTheScreenShowsIt() {
        // Drink water and No sugar in Health, Read without a group: the screen shows Read first.
        var app = World.app(changes: World.changes + [.set(World.water, .group("Health")), .set(World.sugar, .group("Health"))])
        press(&app, .char("g"))
        XCTAssertEqual(app.selected?.habit.name, "Read", "the habits without a group come first")
        XCTAssertEqual(press(&app, .char("J")), [], "Read is the only habit without a group")
        XCTAssertEqual(app.message?.text, "'Read' is already last of the habits without a group of those shown (v shows them all)")
        press(&app, .char("j"))
        XCTAssertEqual(app.selected?.habit.name, "Drink water")
        XCTAssertEqual(press(&app, .char("J")), [.write(.move(World.water, .after(World.sugar)))], "past No sugar, not past Read")
        apply(press(&app, .char("J")), to: &app)
        XCTAssertEqual(press(&app, .char("J")), [])
        XCTAssertEqual(app.message?.text, "'Drink water' is already last in Health of those shown (v shows them all)")
    }

    func testWithVTheMoveIsAmongAllAndWithoutItAmongTheRowsShown() {
        var app = archivedApp()
        press(&app, .char("v"), .char("G"))
        XCTAssertEqual(names(app), ["Drink water", "Read", "No sugar", "Gym"], "v lists the archived habit and Gym")
        apply(press(&app, .char("K")), to: &app)
        apply(press(&app, .char("K")), to: &app)
        XCTAssertEqual(names(app), ["Drink water", "Gym", "Read", "No sugar"])
        press(&app, .char("v"), .char("g"))
        XCTAssertEqual(names(app), ["Drink water", "Read"])
        // Down past the next row shown: past the hidden Gym too.
        apply(press(&app, .char("J")), to: &app)
        XCTAssertEqual(names(app), ["Read", "Drink water"])
        XCTAssertEqual(order(app), ["Gym", "Read", "Drink water", "No sugar"])
    }

    func testAOnAnArchivedHabitAsksToUnarchiveIt() {
        var app = archivedApp()
        press(&app, .char("v"), .char("j"), .char("j"))
        XCTAssertEqual(app.selected?.habit.name, "No sugar")
        XCTAssertTrue(app.selectedIsArchived)
        press(&app, .char("A"))
        XCTAssertEqual(app.overlay, .confirmArchive(World.sugar))
        XCTAssertTrue(render(app).text.contains("Unarchive 'No sugar'? y yes, n no"))
        XCTAssertEqual(press(&app, .char("y")), [.write(.unarchive(World.sugar))])
    }

    func testAOnATrackedHabitStillAsksToArchiveIt() {
        var app = archivedApp()
        press(&app, .char("v"), .char("A"))
        XCTAssertTrue(render(app).text.contains("Archive 'Drink water'? Its history stays. y yes, n no"))
        XCTAssertEqual(press(&app, .char("y")), [.write(.archive(World.water))])
    }

    func testTheHelpLabelOfAFollowsTheSelectedHabit() {
        var app = archivedApp(width: 120, height: 50)
        press(&app, .char("v"), .char("?"))
        XCTAssertTrue(render(app).text.contains("archive"))
        XCTAssertFalse(render(app).text.contains("unarchive"))
        press(&app, .escape, .char("j"), .char("j"), .char("?"))
        XCTAssertTrue(render(app).text.contains("unarchive"))
        XCTAssertTrue(render(app).text.contains("move habit up"))
        XCTAssertEqual(KeyMap.defaults.footer(for: .today, archived: true).map(\.label),
                       KeyMap.defaults.footer(for: .today).map(\.label), "archive is not in the footer")
    }

    func testTheMoveKeysCollideWithNothing() {
        XCTAssertEqual(KeyMap.defaults.collisions, [])
        XCTAssertEqual(KeyMap.defaults.command(for: .char("K"), in: .today), .moveHabitUp)
        XCTAssertEqual(KeyMap.defaults.command(for: .char("J"), in: .today), .moveHabitDown)
    }

    func testArchivedHabitsAreMarkedInTheAllHabitsView() {
        var app = archivedApp()
        press(&app, .char("v"))
        let row = render(app).line(4)
        XCTAssertTrue(row.contains("No sugar") && row.contains("archived"), row)
        assertSnapshot(render(app), named: "today-all-archived-80x24")
        var narrow = archivedApp(width: 40, height: 10)
        press(&narrow, .char("v"))
        XCTAssertTrue(render(narrow).line(4).contains("archived"), render(narrow).line(4))
        assertSnapshot(render(narrow), named: "today-all-archived-40x10")
    }

    func testAMovedOrderShowsOnTheTodayScreen() {
        var app = World.app()
        apply(press(&app, .char("G"), .char("K")), to: &app)
        assertSnapshot(render(app), named: "today-moved-80x24")
    }
}
