import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// Undo of a pause and of its end gives every day's pause register back as it was (its
/// reason too), also after a reopen from a snapshot.
final class PauseUndoTests: StoreTestCase {
    let day = Fixture.day0

    private func pauses(_ state: HabitState, days: Int) -> [String?] {
        (0..<days).map { state.record(Fixture.water, day.adding($0))?.pauseRegister?.value ?? nil }
    }

    func testUndoOfAPauseOverAnOlderOneGivesTheOlderOneBack() async throws {
        let repo = try HabitRepository(directory: path("pause"), now: Fixture.clock)
        let day = self.day
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        try await repo.commit { _, _ in [.pause(Fixture.water, from: day.adding(2), to: day.adding(3), reason: "ill")] }
        let before = await repo.state
        try await repo.commit { _, _ in [.pause(Fixture.water, from: day, to: day.adding(4), reason: "trip")] }
        var state = await repo.state
        XCTAssertEqual(pauses(state, days: 6), ["trip", "trip", "trip", "trip", "trip", nil])
        let item = try await repo.undo()
        XCTAssertEqual(item?.label, "pause 'Water' from 2026-11-01 to 2026-11-05")
        state = await repo.state
        XCTAssertEqual(pauses(state, days: 6), pauses(before, days: 6))
        XCTAssertEqual(pauses(state, days: 6), [nil, nil, "ill", "ill", nil, nil])
        XCTAssertEqual(Pauses.runs(state.habit(Fixture.water)!, in: state), [PauseRun(from: day.adding(2), to: day.adding(3), reason: "ill")])
    }

    func testUndoOfAnEndAfterASnapshotGivesThePauseBack() async throws {
        let dir = path("end")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        let day = self.day
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        try await repo.commit { _, _ in [.pause(Fixture.water, from: day, to: day.adding(9), reason: "")] }
        try await repo.commit { state, _ in try Pauses.end([state.habit(Fixture.water)!], today: day.adding(5), in: state) }
        try await repo.writeSnapshot()
        let reopened = try HabitRepository(directory: dir, now: Fixture.clock)
        var state = await reopened.state
        XCTAssertEqual(pauses(state, days: 10).map { $0 != nil }, (0..<10).map { $0 < 5 }, "ended: days 5–9 given back")
        _ = try await reopened.undo()
        state = await reopened.state
        XCTAssertEqual(pauses(state, days: 11), Array(repeating: "", count: 10) + [nil])
        XCTAssertTrue(state.isSkipped(Fixture.water, day.adding(7)), "a paused day reads as skipped")
    }
}
