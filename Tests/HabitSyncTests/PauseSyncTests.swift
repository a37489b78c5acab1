import Foundation
import XCTest
import HabitCore
import HabitStore
@testable import HabitSync
import SyncTestKit

/// Pauses on two devices (issue 41, point 4): each day's pause register merges last writer
/// wins, so both devices end with the same days paused, whatever order the rounds ran in.
final class PauseSyncTests: SyncTestCase {
    private let h = HabitID(value: 0xBA05E)
    private let first = syncTestDay

    /// Two devices whose clocks read fixed times, B's a minute after A's (so B's writes are
    /// the later ones in hybrid-logical-clock order).
    private func twoDevices() async throws -> (a: (repo: HabitRepository, engine: SyncEngine), b: (repo: HabitRepository, engine: SyncEngine)) {
        let a = try await device("a", now: { Date(timeIntervalSince1970: 1_795_000_000) })
        let b = try await device("b", now: { Date(timeIntervalSince1970: 1_795_000_060) })
        let habit = h, start = first
        try await a.repo.commit { _, _ in [.create(habit, HabitFields(name: "Read", startDate: start))] }
        await syncOK(a.engine)
        await syncOK(b.engine)
        return (a, b)
    }

    private func paused(_ repo: HabitRepository, days: Int) async -> [Bool] {
        let state = await repo.state
        return (0..<days).map { state.isPaused(h, first.adding($0)) }
    }

    func testConcurrentPausesOnTwoDevicesMergeToTheSameDays() async throws {
        let (a, b) = try await twoDevices()
        let habit = h, start = first
        // Offline from each other: A pauses days 3–9 for a trip; B pauses days 7–11. Once
        // both are synced, B checks in on day 4 (which gives that day back).
        try await a.repo.commit { _, _ in [.pause(habit, from: start.adding(3), to: start.adding(9), reason: "trip")] }
        try await b.repo.commit { state, _ in
            try Pauses.pause([state.habit(habit)!], from: start.adding(7), to: start.adding(11), reason: "ill", in: state)
        }
        for engine in [a.engine, b.engine, a.engine] { await syncOK(engine) }
        try await b.repo.commit { state, _ in
            try Edits.checkIn(state.habit(habit)!, on: start.adding(4), amount: Amount.scale, today: start.adding(20), in: state)
        }
        for engine in [b.engine, a.engine] { await syncOK(engine) }
        let stateA = await a.repo.state, stateB = await b.repo.state
        XCTAssertEqual(stateA.encoded(), stateB.encoded(), "both devices hold the same state")
        // Day 4 is B's check-in (later than A's pause); 7–9 are B's illness.
        let expected = [false, false, false, true, false, true, true, true, true, true, true, true, false]
        let onA = await paused(a.repo, days: 13), onB = await paused(b.repo, days: 13)
        XCTAssertEqual(onA, expected)
        XCTAssertEqual(onB, expected)
        XCTAssertEqual(stateA.record(h, start.adding(8))?.pauseReason, "ill")
        XCTAssertEqual(stateA.record(h, start.adding(5))?.pauseReason, "trip")
        XCTAssertEqual(stateA.progress(h, start.adding(4)), Amount.scale)
    }

    func testAPauseEndedOnOneDeviceEndsOnTheOtherAndUndoSyncsToo() async throws {
        let (a, b) = try await twoDevices()
        let habit = h, start = first
        try await a.repo.commit { _, _ in [.pause(habit, from: start.adding(30), to: start.adding(40), reason: "")] }
        await syncOK(a.engine)
        await syncOK(b.engine)
        let onB = await paused(b.repo, days: 41)
        XCTAssertEqual(onB.filter { $0 }.count, 11, "B sees the pause to come")
        try await b.repo.commit { state, _ in try Pauses.end([state.habit(habit)!], today: start.adding(20), in: state) }
        await syncOK(b.engine)
        await syncOK(a.engine)
        let ended = await paused(a.repo, days: 41)
        XCTAssertFalse(ended.contains(true), "called off on B, gone on A")
        _ = try await b.repo.undo()
        await syncOK(b.engine)
        await syncOK(a.engine)
        let back = await paused(a.repo, days: 41)
        XCTAssertEqual(back.filter { $0 }.count, 11, "B's undo gives the pause back on A")
    }
}
