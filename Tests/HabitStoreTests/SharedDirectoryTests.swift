import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// Several repositories (processes) on one data directory: appends are serialised by the
/// lock, each sees the others' records, and sequence numbers never collide.
final class SharedDirectoryTests: StoreTestCase {

    func testCommitInOneRepositoryIsSeenByAnotherAfterRefresh() async throws {
        let dir = path("shared")
        let a = try HabitRepository(directory: dir, now: Fixture.clock)
        let b = try HabitRepository(directory: dir, now: Fixture.clock)
        XCTAssertEqual(a.device, b.device, "one data directory, one device")

        let created = try await a.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let bBefore = await b.state
        XCTAssertNil(bBefore.habit(Fixture.water), "b has not read the journal yet")
        let changed = try await b.refresh()
        XCTAssertTrue(changed)
        let bAfter = await b.state
        XCTAssertEqual(bAfter, created.state)
        XCTAssertEqual(bAfter.habit(Fixture.water)?.name, "Water")
        let changedAgain = try await b.refresh()
        XCTAssertFalse(changedAgain, "nothing new")

        let checked = try await b.commit(label: "check") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        let aChanged = try await a.refresh()
        XCTAssertTrue(aChanged)
        let aAfter = await a.state
        XCTAssertEqual(aAfter, checked.state)
        XCTAssertEqual(aAfter.progress(Fixture.water, Fixture.day0), 1)
    }

    func testRefreshLeavesARecordStillBeingWrittenForLaterAndThenReadsIt() async throws {
        let history = try await makeHistory()
        let reader = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let writer = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let result = try await writer.commit(label: "next") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 9)] }
        let full = try fileBytes(history.paths.journal)
        // The reader looks while only part of the record is there (another process mid-write).
        try writeFile(Array(full[..<(history.journal.count + 10)]), to: history.paths.journal)
        let early = try await reader.refresh()
        XCTAssertFalse(early)
        let stateEarly = await reader.state
        XCTAssertEqual(stateEarly, history.states.last)
        XCTAssertEqual(Array(try fileBytes(history.paths.journal).prefix(history.journal.count + 10)),
                       Array(full[..<(history.journal.count + 10)]), "a reader without the lock cuts nothing")
        try writeFile(full, to: history.paths.journal)
        let late = try await reader.refresh()
        XCTAssertTrue(late)
        let stateLate = await reader.state
        XCTAssertEqual(stateLate, result.state)
    }

    func testAlternatingCommitsFromTwoRepositoriesNeverReuseASequenceNumber() async throws {
        let dir = path("alternate")
        let a = try HabitRepository(directory: dir, now: Fixture.clock)
        let b = try HabitRepository(directory: dir, now: Fixture.clock)
        try await a.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        var written = 1
        for round in 0..<10 {
            for (repo, size) in [(a, 1 + round % 2), (b, 1 + (round + 1) % 3)] {
                let changes = [Change](repeating: .progress(Fixture.water, Fixture.day0, delta: 1), count: size)
                let expectedSeen = UInt64(written)
                // No refresh in between: the commit itself reads the other's records first.
                let result = try await repo.commit(label: "round \(round)") { state, device in
                    // `build` sees every record already written, whoever wrote it.
                    guard state.seen[device] == expectedSeen else { throw CountMismatch() }
                    return changes
                }
                XCTAssertEqual(result.operations.map(\.id.seq), (1...size).map { UInt64(written + $0) }, "round \(round)")
                written += size
                XCTAssertEqual(result.state.progress(Fixture.water, Fixture.day0), written - 1, "round \(round)")
            }
        }
        let reopened = try HabitRepository(directory: dir, now: Fixture.clock)
        let state = await reopened.state
        XCTAssertEqual(state.seen[a.device], UInt64(written))
        XCTAssertEqual(state.progress(Fixture.water, Fixture.day0), written - 1)
        let ops = try journalOperations(try fileBytes(reopened.paths.journal))
        XCTAssertEqual(ops.map(\.id.seq), (1...written).map(UInt64.init))
        XCTAssertEqual(try foldJournal(try fileBytes(reopened.paths.journal)), state)
    }

    func testConcurrentCommitsFromTwoRepositoriesAreAllKeptInOrder() async throws {
        let dir = path("concurrent")
        let a = try HabitRepository(directory: dir, now: Fixture.clock)
        let b = try HabitRepository(directory: dir, now: Fixture.clock)
        try await a.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let perRepository = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (repo, day) in [(a, Fixture.day0), (b, Fixture.day0.adding(1))] {
                group.addTask {
                    for i in 0..<perRepository {
                        let n = 1 + i % 2
                        try await repo.commit(label: "c\(i)") { _, _ in
                            [Change](repeating: .progress(Fixture.water, day, delta: 1), count: n)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let opsPerRepository = (0..<perRepository).reduce(0) { $0 + 1 + $1 % 2 }
        let total = 1 + 2 * opsPerRepository
        let reopened = try HabitRepository(directory: dir, now: Fixture.clock)
        let state = await reopened.state
        XCTAssertEqual(reopened.openingWarnings, [])
        XCTAssertEqual(state.seen[a.device], UInt64(total))
        XCTAssertEqual(state.progress(Fixture.water, Fixture.day0), opsPerRepository)
        XCTAssertEqual(state.progress(Fixture.water, Fixture.day0.adding(1)), opsPerRepository)
        let journal = try fileBytes(reopened.paths.journal)
        XCTAssertEqual(try journalOperations(journal).map(\.id.seq), (1...total).map(UInt64.init))
        XCTAssertEqual(try foldJournal(journal), state)
        _ = try await a.refresh()
        _ = try await b.refresh()
        let aState = await a.state
        let bState = await b.state
        XCTAssertEqual(aState, state)
        XCTAssertEqual(bState, state)
    }
}

private struct CountMismatch: Error {}
