import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// Subscribers get the current state first, then every change and warning.
final class EventsTests: StoreTestCase {

    func testEventsStartWithTheCurrentStateAndYieldChangedAfterACommit() async throws {
        let repo = try HabitRepository(directory: path("events"), now: Fixture.clock)
        let created = try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let stream = await repo.events()
        let initial = await firstEvent(in: stream, limit: 1) { _ in true }
        XCTAssertEqual(initial?.changedState, created.state)

        let checked = try await repo.commit(label: "check") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        let next = await firstEvent(in: stream) { $0.changedState != nil }
        XCTAssertEqual(next?.changedState, checked.state)
        XCTAssertEqual(next?.changedState?.progress(Fixture.water, Fixture.day0), 1)
    }

    func testFailedOrEmptyCommitsPublishNothing() async throws {
        let disk = FaultyDisk()
        let repo = try HabitRepository(directory: path("quiet"), now: Fixture.clock, io: disk.io)
        let created = try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let stream = await repo.events()
        let initial = await firstEvent(in: stream, limit: 1) { _ in true }
        XCTAssertEqual(initial?.changedState, created.state)

        disk.fillUp()
        let error = await asyncStoreError {
            try await repo.commit(label: "fails") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        }
        XCTAssertNotNil(error)
        disk.heal()
        let empty = try await repo.commit(label: "nothing") { _, _ in [] }
        XCTAssertEqual(empty.operations, [])
        let nothingUndone = try await repo.undo()
        XCTAssertNotNil(nothingUndone, "the create can be undone")

        // The very next event is the undo; the failed and empty commits published nothing.
        let next = await firstEvent(in: stream, limit: 1) { _ in true }
        XCTAssertNotNil(next?.changedState)
        XCTAssertNil(next?.changedState?.habit(Fixture.water))
        XCTAssertEqual(next?.changedState?.seen[repo.device], 2)
    }

    func testEventsReportRecordsAppendedByAnotherRepositoryAfterRefresh() async throws {
        let dir = path("shared")
        let viewer = try HabitRepository(directory: dir, now: Fixture.clock)
        let writer = try HabitRepository(directory: dir, now: Fixture.clock)
        let stream = await viewer.events()
        let initial = await firstEvent(in: stream, limit: 1) { _ in true }
        XCTAssertEqual(initial?.changedState, HabitState())

        let created = try await writer.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let changed = try await viewer.refresh()
        XCTAssertTrue(changed)
        let next = await firstEvent(in: stream) { $0.changedState != nil }
        XCTAssertEqual(next?.changedState, created.state)
    }

    func testEventsCarryAWarningWhenACommitFindsATornTailLeftByACrashedWriter() async throws {
        let history = try await makeHistory()
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let stream = await repo.events()
        let partial = Array(Journal.frame(Array(repeating: 3, count: 50)).prefix(20))
        try writeFile(history.journal + partial, to: history.paths.journal)

        let result = try await repo.commit(label: "check") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        let warning = await firstEvent(in: stream) { $0.warningText != nil }
        XCTAssertTrue(warning?.warningText?.contains("incomplete record at byte \(history.journal.count)") ?? false,
                      "\(String(describing: warning))")
        let change = await firstEvent(in: stream) { $0.changedState != nil }
        XCTAssertEqual(change?.changedState, result.state)
    }
}
