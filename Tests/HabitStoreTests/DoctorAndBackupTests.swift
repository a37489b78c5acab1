import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
import HabitSys
@testable import HabitStore

final class DoctorAndBackupTests: StoreTestCase {
    private func repository(_ dir: String, snapshotEvery: Int = 1000) throws -> HabitRepository {
        try HabitRepository(directory: dir, now: Fixture.clock, snapshotEvery: snapshotEvery)
    }

    private func commitStandard(_ repo: HabitRepository) async throws {
        for changes in Fixture.standardCommits { try await repo.commit { _, _ in changes } }
    }

    func testDoctorFindsAStaleSnapshotThatPassesItsOwnChecksAndRepairRebuildsIt() async throws {
        let dir = root + "/data"
        let repo = try repository(dir)
        try await commitStandard(repo)
        let paths = DataPaths(directory: dir)
        XCTAssertEqual(Doctor.checkLocal(paths: paths, configPath: nil).findings, [])
        // A snapshot that covers the journal exactly but holds another state (as a buggy
        // writer would leave it): only a full replay can tell.
        try await repo.writeSnapshot()
        let good = try fileBytes(paths.snapshot)
        let journal = try Journal(path: paths.journal)
        let (snap, why) = Snapshot.load(good, journal: journal)
        XCTAssertNil(why)
        var wrong = try XCTUnwrap(snap)
        var state = wrong.state
        let extra = HabitOperation(id: OpID(device: DeviceID(hi: 9, lo: 9), seq: 1), hlc: HLC(wallMillis: 1, counter: 0),
                                   change: .progress(Fixture.water, Fixture.day0, delta: 5))
        state.apply(extra)
        wrong.state = state
        try Sys.writeAtomically(wrong.encoded(), to: paths.snapshot)

        let check = Doctor.checkLocal(paths: paths, configPath: nil)
        XCTAssertEqual(check.findings.count, 1)
        XCTAssertEqual(check.findings.first?.check, "snapshot")
        XCTAssertTrue(check.findings.first?.problem.contains("stale") ?? false, "\(check.findings)")
        XCTAssertEqual(check.findings.first?.repair, "rebuild-snapshot")

        try await Doctor.rebuildSnapshot(paths: paths, now: SystemClock.now)
        XCTAssertEqual(Doctor.checkLocal(paths: paths, configPath: nil).findings, [])
        let reopened = try repository(dir)
        let a = await reopened.state, b = await repo.state
        XCTAssertEqual(a.encoded(), b.encoded())
    }

    func testDoctorFindsADamagedSnapshotBlockAndAJournalGap() async throws {
        let dir = root + "/data"
        let repo = try repository(dir)
        try await commitStandard(repo)
        try await repo.writeSnapshot()
        let paths = DataPaths(directory: dir)
        var bytes = try fileBytes(paths.snapshot)
        bytes[bytes.count - 3] ^= 0x10 // inside the last habit block
        try Sys.writeAtomically(bytes, to: paths.snapshot)
        let findings = Doctor.checkLocal(paths: paths, configPath: nil).findings
        XCTAssertEqual(findings.map(\.check), ["snapshot"])
        XCTAssertTrue(findings[0].problem.contains("fails its checksum"), findings[0].problem)
        XCTAssertTrue(FileManager.default.fileExists(atPath: paths.snapshot), "the doctor only reads")

        // A journal whose records are intact but skip a sequence number.
        let gap = root + "/gap"
        let device = DeviceID(hi: 1, lo: 2)
        try Sys.makeDirectories(gap)
        let j = try Journal(path: DataPaths(directory: gap).journal)
        for seq: UInt64 in [1, 3] {
            let op = HabitOperation(id: OpID(device: device, seq: seq), hlc: HLC(wallMillis: Int64(seq), counter: 0),
                                    change: seq == 1 ? .create(Fixture.water, Fixture.fields("Water")) : .progress(Fixture.water, Fixture.day0, delta: 1))
            try j.append(JournalEntry(ops: [op]).encoded())
        }
        let gapFindings = Doctor.checkLocal(paths: DataPaths(directory: gap), configPath: nil).findings
        XCTAssertEqual(gapFindings.count, 1)
        XCTAssertTrue(gapFindings[0].problem.contains("sequence gap"), gapFindings[0].problem)
    }

    func testABackupHoldsEveryOperationAndAnyDamageIsFound() async throws {
        let dir = root + "/data"
        let repo = try repository(dir)
        try await commitStandard(repo)
        let info = try await repo.backup(reason: "manual", note: "n")
        let loaded = try Backups.load(path: info.path)
        let state = await repo.state
        XCTAssertEqual(loaded.state.encoded(), state.encoded())
        XCTAssertEqual(loaded.operations.count, Int(state.operationCount))
        XCTAssertEqual(loaded.info.note, "n")
        let good = try fileBytes(info.path)
        // Every single flipped byte and every truncation is refused.
        for i in stride(from: 0, to: good.count, by: max(1, good.count / 97)) {
            var bad = good
            bad[i] ^= 0x04
            try Sys.writeAtomically(bad, to: info.path)
            XCTAssertThrowsError(try Backups.load(path: info.path), "flip at \(i)")
            try Sys.writeAtomically(Array(good.prefix(i)), to: info.path)
            XCTAssertThrowsError(try Backups.load(path: info.path), "cut at \(i)")
        }
        try Sys.writeAtomically(good, to: info.path)
        XCTAssertNoThrow(try Backups.load(path: info.path))
    }
}
