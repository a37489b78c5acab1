import Foundation
import XCTest
import HabitCore
import HabitStore
import HabitTUI

/// Issue 39, point 10: `list`, `list --json`, `graph` and the UI's today screen show the
/// habits in one order: the habits without a group first, then each group's.
final class ListingOrderCommandTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.now = "2026-11-21T09:00:00"
        box.ok("add", "Walk", "--group", "Health", "--start", "2026-11-01")
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("add", "Gym", "--group", "Fitness", "--start", "2026-11-01")
        box.ok("add", "Stretch", "--start", "2026-11-01")
        box.ok("add", "Water", "--group", "Health", "--start", "2026-11-01")
        box.ok("move", "Gym", "--top")
    }

    override func tearDown() { box = nil }

    func testListAndTheTodayScreenShowGroupedAndUngroupedHabitsInTheSameOrder() async throws {
        // The habit order is Gym, Walk, Read, Stretch, Water; the listing order puts the
        // ungrouped first, then Fitness (Gym is first), then Health.
        let expected = ["Read", "Stretch", "Gym", "Walk", "Water"]
        let text = box.ok("list").split(separator: "\n").dropFirst()
        let names = text.compactMap { line in expected.first { line.contains(" \($0) ") } }
        XCTAssertEqual(names, expected, text.joined(separator: "\n"))
        let json = box.json("list", "--json") as? [[String: Any]] ?? []
        XCTAssertEqual(json.compactMap { $0["name"] as? String }, expected)
        let graph = box.json("graph", "--weeks", "2", "--json") as? [String: Any] ?? [:]
        XCTAssertEqual((graph["habits"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }, expected)
        let clock = try XCTUnwrap(ISO8601DateFormatter().date(from: box.now + "Z"))
        let repo = try HabitRepository(directory: box.home, now: { clock })
        let app = AppState(habits: await repo.state, today: LocalDay("2026-11-21")!)
        XCTAssertEqual(app.rows.map(\.habit.name), expected, "the today screen")
        // A move within the ungrouped habits moves them in both.
        box.ok("move", "Stretch", "--top")
        let moved = (box.json("list", "--json") as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(moved, ["Stretch", "Read", "Gym", "Walk", "Water"])
    }

    func testMoveSaysWhereListShowsTheHabit() {
        // Water is last of all; moved to the top, Health (its group) comes before Fitness and
        // list shows Water first of Health, after the ungrouped Read and Stretch.
        XCTAssertEqual(box.ok("move", "Water", "--top"), "Moved 'Water': now after 'Stretch' ('habitto undo' takes it back)\n")
        XCTAssertEqual(box.ok("move", "Read", "--top"), "Moved 'Read': now first ('habitto undo' takes it back)\n")
    }
}
