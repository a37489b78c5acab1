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
