import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// A check-in's confirmation on data read from a snapshot the way commands read it (day
/// records not kept): the recent days come through the block's index, the journal's later
/// changes are applied on top, and what it says equals the summary of the whole history.
final class DayLineStoreTests: StoreTestCase {
    func testTheConfirmationFromTheSnapshotsRecentDaysEqualsTheWholeSummary() async throws {
        let today = LocalDay("2026-11-21")!
        let start = today.adding(-1500)
        let dir = path("data")
        do {
            let repo = try HabitRepository(directory: dir, now: Fixture.clock)
            var water = HabitFields(name: "Water", startDate: start)
            water.unit = "glasses"
            let fields = water
            try await repo.commit { _, _ in [.create(Fixture.water, fields), .create(Fixture.read, HabitFields(name: "Read", schedule: .perWeek(2), startDate: start))] }
            var changes: [Change] = []
            for i in 0..<1500 where i % 37 != 0 {
                changes.append(.progress(Fixture.water, start.adding(i), delta: Amount.scale))
                if i % 3 == 0 { changes.append(.progress(Fixture.read, start.adding(i), delta: Amount.scale)) }
                if i % 101 == 0 { changes.append(.skip(Fixture.water, start.adding(i + 1), true)) }
            }
            let all = changes
            try await repo.commit { _, _ in all }
            try await repo.writeSnapshot()
            // Later changes stay in the journal, over the snapshot.
            try await repo.commit { _, _ in [.progress(Fixture.water, today.adding(-2), delta: Amount.scale),
                                             .skip(Fixture.water, today.adding(-40), true)] }
        }
        let repo = try HabitRepository(directory: dir, now: Fixture.clock, keepDecodedDays: false)
        XCTAssertEqual(repo.openingWarnings, [])
        let result = try await repo.commit { _, _ in [.progress(Fixture.water, today, delta: Amount.scale)] }
        let whole = try HabitRepository(directory: dir, now: Fixture.clock)
        let wholeState = await whole.state
        for id in [Fixture.water, Fixture.read] {
            let habit = try XCTUnwrap(result.state.habit(id))
            for day in [today, today.adding(-1), today.adding(-2), today.adding(-39), today.adding(-40)] {
                let line = result.state.dayLine(habit, on: day, today: today)
                let s = wholeState.summary(habit, on: day, today: today)
                XCTAssertEqual([line.streak, line.progress], [s.streak, s.progress], "\(habit.name) \(day)")
                XCTAssertEqual([line.completed, line.skipped, line.scheduled], [s.completed, s.skipped, s.scheduled], "\(habit.name) \(day)")
            }
        }
        XCTAssertEqual(result.state.dayLine(try XCTUnwrap(result.state.habit(Fixture.water)), on: today, today: today).progress,
                       Amount.scale, "today's check-in is in the line")
    }
}
