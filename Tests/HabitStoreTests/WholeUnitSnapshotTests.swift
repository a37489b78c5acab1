import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// A snapshot written before amounts had decimals (version 5, whole units) is read as whole
/// units, and the next snapshot is written in thousandths (version 6) with the same state.
final class WholeUnitSnapshotTests: StoreTestCase {
    func testAWholeUnitSnapshotIsReadInThousandthsAndRewrittenAsVersionSix() async throws {
        let home = path("home")
        try FileManager.default.copyItem(atPath: fixturesDirectory + "/format-v1/home", toPath: home)
        let paths = DataPaths(directory: home)
        let old = try fileBytes(paths.snapshot)
        XCTAssertEqual(Array(old.prefix(Snapshot.magic.count)), Snapshot.wholeUnitMagic)

        let repo = try HabitRepository(directory: home)
        XCTAssertEqual(repo.openingWarnings, [], "the old snapshot is used, not ignored")
        let state = await repo.state
        let water = try XCTUnwrap(state.habits.first { $0.name == "Drink water" })
        XCTAssertEqual(water.goal, 8_000)
        XCTAssertEqual(state.progress(water.id, LocalDay("2026-11-18")!), 8_000, "a day in the snapshot's block")
        XCTAssertEqual(state.progress(water.id, LocalDay("2026-11-20")!), 2_000, "a day only the journal holds")

        try await repo.writeSnapshot()
        let new = try fileBytes(paths.snapshot)
        XCTAssertEqual(Array(new.prefix(Snapshot.magic.count)), Snapshot.magic)
        let reopened = try HabitRepository(directory: home)
        XCTAssertEqual(reopened.openingWarnings, [])
        let again = await reopened.state
        XCTAssertEqual(again.encoded(), state.encoded())
        XCTAssertEqual(again.progress(water.id, LocalDay("2026-11-19")!), 3_000)
    }
}

/// A snapshot written before habits had an order key (version 6, eleven field registers) is
/// used as it is, and the next snapshot (version 7) holds the keys of moved habits.
final class BeforeOrderSnapshotTests: StoreTestCase {
    func testAVersionSixSnapshotIsUsedAndTheNextHoldsOrderKeys() async throws {
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water")
                                                + [[.create(Fixture.read, Fixture.fields("Read"))]], snapshotEvery: 10)
        let paths = history.paths
        let journal = try Journal(path: paths.journal)
        let (current, why) = Snapshot.load(try fileBytes(paths.snapshot), journal: journal)
        XCTAssertNil(why)
        let old = try XCTUnwrap(current).encoded(fieldCount: FieldValue.countBeforePosition)
        XCTAssertEqual(Array(old.prefix(Snapshot.magic.count)), Snapshot.beforePositionMagic)
        try Data(old).write(to: URL(fileURLWithPath: paths.snapshot))

        let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
        XCTAssertEqual(repo.openingWarnings, [], "the version 6 snapshot is used, not ignored")
        let opened = await repo.state
        XCTAssertEqual(opened.encoded(), try foldJournal(history.journal).encoded())
        XCTAssertEqual(opened.habits.map(\.name), ["Water", "Read"])

        try await repo.commit { state, _ in try Edits.move(Fixture.read, to: .top, in: state) }
        try await repo.writeSnapshot()
        XCTAssertEqual(Array(try fileBytes(paths.snapshot).prefix(Snapshot.magic.count)), Snapshot.magic)
        let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
        XCTAssertEqual(reopened.openingWarnings, [])
        let state = await reopened.state
        XCTAssertEqual(state.habits.map(\.name), ["Read", "Water"])
        XCTAssertEqual(state.encoded(), try foldJournal(try fileBytes(paths.journal)).encoded())
    }
}
