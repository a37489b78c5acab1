import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
@testable import HabitStore

/// A journal record damaged on disk after a snapshot was written over it: commands keep
/// working from the snapshot, so the damage must be found by the snapshot writer, the backup
/// and the doctor, and repaired from the snapshot.
final class DamageUnderSnapshotTests: StoreTestCase {
    /// Flips one payload byte of `record` in the journal file.
    private func damage(_ paths: DataPaths, _ record: Range<Int>) throws {
        var bytes = try fileBytes(paths.journal)
        bytes[record.upperBound - 2] ^= 0x08
        try writeFile(bytes, to: paths.journal)
    }

    private func commits(_ n: Int, from first: Int) -> [[Change]] {
        (first..<(first + n)).map { [.progress(Fixture.water, Fixture.day0.adding($0 % 5), delta: 1)] }
    }

    func testWritingASnapshotReadsBackTheRecordsItNewlyCoversAndReportsADamagedOne() async throws {
        // 25 records; snapshots after 10 and 20.
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock, snapshotEvery: 10)
        // Record 22 was read when the repository opened; then the disk damages it.
        try damage(history.paths, history.records[22])
        for changes in commits(5, from: 0) { try await repo.commit { _, _ in changes } }
        let warnings = repo.warnings.drain()
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.description.contains("damaged at byte \(history.records[22].lowerBound)") == true, "\(warnings)")
        XCTAssertTrue(warnings.first?.description.contains("habitto doctor --repair") == true, "\(warnings)")
        // The snapshot was written all the same (its state is right) and remembers how far
        // the records checked out, so that the next one reports the damage again.
        let (snap, why) = Snapshot.load(try fileBytes(history.paths.snapshot), journal: try Journal(path: history.paths.journal))
        XCTAssertNil(why)
        XCTAssertEqual(snap?.verifiedOffset, history.records[22].lowerBound)
        XCTAssertEqual(snap?.coveredOffset, try fileBytes(history.paths.journal).count)
    }

    func testEachSnapshotReadsOnlyTheRecordsNoSnapshotCheckedBefore() async throws {
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let (snap, _) = Snapshot.load(try fileBytes(history.paths.snapshot), journal: try Journal(path: history.paths.journal))
        XCTAssertEqual(snap?.verifiedOffset, history.records[19].upperBound, "everything the snapshot covers was checked")
        // Damage to a record an earlier snapshot checked is not looked for again by the next
        // (the doctor and backups find it): a snapshot's cost follows the new records only.
        try damage(history.paths, history.records[3])
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock, snapshotEvery: 10)
        for changes in commits(5, from: 0) { try await repo.commit { _, _ in changes } }
        XCTAssertEqual(repo.warnings.drain(), [])
        let (next, _) = Snapshot.load(try fileBytes(history.paths.snapshot), journal: try Journal(path: history.paths.journal))
        XCTAssertEqual(next?.verifiedOffset, try fileBytes(history.paths.journal).count)
    }

    func testABackupOfAJournalDamagedUnderTheSnapshotIsRefusedNotMadeUnrestorable() async throws {
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        try damage(history.paths, history.records[5])
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock, snapshotEvery: 10)
        let state = await repo.state
        XCTAssertEqual(state, history.states[25], "commands still work from the snapshot")
        let error = await asyncStoreError { try await repo.backup(reason: "manual") }
        assertCorrupt(error, path: history.paths.journal, offset: history.records[5].lowerBound)
        XCTAssertTrue(error?.description.contains("no backup was made") == true, "\(String(describing: error))")
        XCTAssertEqual(listing(Backups.directory(history.paths)).filter { $0.hasSuffix(".hbk") }, [])
    }

    func testBackupListAndTheDoctorOnlyOfferABackupThatRestores() async throws {
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock, snapshotEvery: 10)
        let good = try await repo.backup(reason: "manual")
        // Two later backups whose file checksums are right but whose insides are not (as a
        // version that copied damaged records made them): a damaged record, and records
        // that do not fold to what the header says.
        let bytes = try fileBytes(good.path)
        func resealed(_ body: [UInt8]) -> [UInt8] {
            var w = ByteWriter(capacity: body.count + 12)
            w.raw(body)
            w.u64le(UInt64(body.count))
            w.u32le(CRC32C.checksum(body))
            return w.bytes
        }
        var flipped = Array(bytes.dropLast(12))
        flipped[flipped.count - 2] ^= 0x08 // inside the last record
        let dir = Backups.directory(history.paths)
        try writeFile(resealed(flipped), to: dir + "/29990101-000000-manual.hbk")
        var short = Array(bytes.dropLast(12))
        short.removeLast(history.records[24].count) // one record fewer than the header says
        try writeFile(resealed(short), to: dir + "/29990102-000000-manual.hbk")

        let list = try Backups.list(history.paths)
        XCTAssertEqual(list.map(\.id), ["29990102-000000-manual", "29990101-000000-manual", good.id])
        guard case .failure(let e) = list[1].result else { return XCTFail("a backup with a damaged record is listed as fine") }
        XCTAssertTrue(e.description.contains("a record inside the backup is damaged"), e.description)
        XCTAssertThrowsError(try Backups.load(path: dir + "/29990102-000000-manual.hbk"))
        XCTAssertTrue(Doctor.restoreAdvice(history.paths).contains("habitto backup restore \(good.id) --replace"),
                      Doctor.restoreAdvice(history.paths))
    }

    func testDoctorRepairRebuildsAJournalDamagedUnderTheSnapshotFromTheSnapshot() async throws {
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water"), snapshotEvery: 10)
        let paths = history.paths
        try damage(paths, history.records[5])
        let before = await (try HabitRepository(directory: history.directory, now: Fixture.clock)).state

        let check = Doctor.checkLocal(paths: paths, configPath: nil)
        XCTAssertEqual(check.findings.map(\.check), ["journal"])
        XCTAssertEqual(check.findings.first?.repair, "rebuild-from-snapshot")
        XCTAssertTrue(check.findings.first?.problem.contains("damaged at byte \(history.records[5].lowerBound)") == true, "\(check.findings)")

        let (saved, written) = try await Doctor.rebuildFromSnapshot(paths: paths, check: check, now: Fixture.clock)
        XCTAssertGreaterThan(written, 0)
        // The damaged files are kept, the journal starts with the intact records before the
        // damage under a new device id, and the data are what the snapshot held.
        var damagedJournal = history.journal
        damagedJournal[history.records[5].upperBound - 2] ^= 0x08
        XCTAssertEqual(try fileBytes(saved + "/journal.hbj"), damagedJournal)
        XCTAssertEqual(try fileBytes(saved + "/device"), history.device)
        XCTAssertNotEqual(try fileBytes(paths.device), history.device)
        let journal = try fileBytes(paths.journal)
        XCTAssertEqual(Array(journal.prefix(history.records[5].lowerBound)), Array(history.journal.prefix(history.records[5].lowerBound)))
        let after = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let state = await after.state
        XCTAssertEqual(TargetHabit.all(of: state), TargetHabit.all(of: before))
        XCTAssertEqual(TargetHabit.all(of: try foldJournal(journal)), TargetHabit.all(of: before))
        XCTAssertEqual(Doctor.checkLocal(paths: paths, configPath: nil).findings, [])
        XCTAssertEqual(after.openingWarnings, [])
    }

    func testDamageInTheLastRecordUnderTheSnapshotIsNotMistakenForATornTail() async throws {
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water"), snapshotEvery: 5)
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock)
        try await repo.writeSnapshot() // covers all 25 records
        try damage(history.paths, history.records[24])
        let check = Doctor.checkLocal(paths: history.paths, configPath: nil)
        XCTAssertEqual(check.findings.map(\.repair), ["rebuild-from-snapshot"], "cutting it off would lose an acknowledged record")
    }
}
