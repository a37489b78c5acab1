import Foundation
import XCTest
import HabitCore
import HabitStore
import SyncTestKit
@testable import HabitSync

/// A remote that shows less than a device saw (withheld from one reader, or restored from an
/// old copy) is reported by name and range, and any device that holds what it lost writes it
/// back, also for a device that never syncs again.
final class HonestRemoteTests: SyncTestCase {
    let water = HabitID(value: 0xA1), tea = HabitID(value: 0xB2)
    var remote: String { root + "/remote" }
    var fm: FileManager { FileManager.default }

    /// A copy of the shared remote as it is now, at `root/name`.
    func copyRemote(_ name: String) throws -> String {
        let copy = root + "/" + name
        try? fm.removeItem(atPath: copy)
        try fm.copyItem(atPath: remote, toPath: copy)
        return copy
    }

    /// The shared remote replaced by the copy `copy` (a restore from an old backup).
    func restore(_ copy: String) throws {
        try fm.removeItem(atPath: remote)
        try fm.copyItem(atPath: copy, toPath: remote)
    }

    /// Only `device`'s folder of the shared remote replaced by the one in the copy `copy` (a
    /// backup taken folder by folder).
    func restoreFolder(of device: DeviceID, from copy: String) throws {
        let folder = "/users/me/devices/\(device.rawValue)"
        try fm.removeItem(atPath: remote + folder)
        try fm.copyItem(atPath: copy + folder, toPath: remote + folder)
    }

    /// Device a writes operations 1–2 (the remote copied to `old` after them), then 3–4; b
    /// pulls all of them, then pushes a batch that says so.
    func aWritesFourAndBHoldsThem() async throws
        -> (a: HabitRepository, b: (repo: HabitRepository, engine: SyncEngine, remote: FaultyRemote), old: String) {
        let a = try await device("a")
        try await checkIn(a.repo, water)
        await syncOK(a.engine)
        let old = try copyRemote("old")
        try await checkIn(a.repo, water)
        try await checkIn(a.repo, water)
        await syncOK(a.engine)
        let b = try await faultyDevice("b")
        await syncOK(b.engine)
        try await checkIn(b.repo, tea)
        await syncOK(b.engine)
        let seen = await b.repo.state.seen[a.repo.device]
        XCTAssertEqual(seen, 4)
        return (a.repo, b, old)
    }

    func testARemoteRestoredFromAnOldCopyIsRefilledAndANewDeviceSeesEveryOperationOfTheGoneDeviceOnce() async throws {
        let (a, b, old) = try await aWritesFourAndBHoldsThem()
        try restore(old)
        // Device a is gone (a lost laptop): it never syncs again.
        let report = await b.engine.syncOnce()
        XCTAssertNil(report.error)
        XCTAssertEqual(report.refilledOthers, 2, "operations 3-4 of a, written back by b")
        XCTAssertEqual(try files(a.device).map(\.fileName), ["1-2.batch", "3-4.batch"])
        let c = try await device("c")
        await syncOK(c.engine)
        let cSeen = await c.repo.state.seen
        XCTAssertEqual(cSeen[a.device], 4)
        let held = try await c.repo.operations(of: a.device, afterSeq: 0, limit: 100)
        XCTAssertEqual(held.map(\.id.seq), [1, 2, 3, 4], "every operation of a, once")
        let written = try await a.operations(of: a.device, afterSeq: 0, limit: 100)
        XCTAssertEqual(held, written)
        let cWater = await progress(c.repo, water), cTea = await progress(c.repo, tea)
        XCTAssertEqual(cWater, 3)
        XCTAssertEqual(cTea, 1)
        // Nothing more to write: the next round refills nothing and reports nothing.
        let again = await b.engine.syncOnce()
        XCTAssertNil(again.error)
        XCTAssertEqual(again.refilledOthers, 0)
    }

    func testADeviceFolderTheRestoredRemoteLacksEntirelyIsWrittenAgain() async throws {
        let empty = try copyRemote("empty")
        let (a, b, _) = try await aWritesFourAndBHoldsThem()
        // The copy predates device a's folder (and b's).
        try restore(empty)
        let report = await b.engine.syncOnce()
        XCTAssertNil(report.error)
        XCTAssertEqual(report.refilledOthers, 4)
        XCTAssertEqual(try files(a.device).map(\.fileName), ["1-4.batch"])
        let c = try await device("c")
        await syncOK(c.engine)
        let cWater = await progress(c.repo, water)
        XCTAssertEqual(cWater, 3)
    }

    func testTwoDevicesRefillingTheSameRangeAtOnceWriteOneBatch() async throws {
        let (a, b, old) = try await aWritesFourAndBHoldsThem()
        let c = try await faultyDevice("c")
        await syncOK(c.engine)
        try restoreFolder(of: a.device, from: old)
        let bRemote = b.remote
        // Each waits at its write of a's batch until the other has reached its own: both
        // listed a's folder without it, and both write it.
        let bThere = DispatchSemaphore(value: 0), cThere = DispatchSemaphore(value: 0)
        let arrived = Counter()
        let aDevice = a.device
        func meet(_ mine: DispatchSemaphore, _ theirs: DispatchSemaphore) -> @Sendable (FaultyRemote.Call) throws -> Void {
            { call in
                guard case .create(aDevice, _) = call else { return }
                mine.signal()
                if theirs.wait(timeout: .now() + 60) == .success { arrived.add() }
            }
        }
        bRemote.intercept = meet(bThere, cThere)
        c.remote.intercept = meet(cThere, bThere)
        async let bReport = b.engine.syncOnce()
        async let cReport = c.engine.syncOnce()
        let (br, cr) = await (bReport, cReport)
        XCTAssertEqual(arrived.value, 2, "both reached their write of a's batch before either wrote it")
        XCTAssertNil(br.error)
        XCTAssertNil(cr.error)
        XCTAssertEqual(br.refilledOthers, 2, "b wrote (or found) operations 3-4")
        XCTAssertEqual(cr.refilledOthers, 2, "c wrote (or found) operations 3-4")
        XCTAssertEqual(try files(a.device).map(\.fileName), ["1-2.batch", "3-4.batch"], "one batch, the same bytes")
        let d = try await device("d")
        await syncOK(d.engine)
        let dSeen = await d.repo.state.seen[a.device]
        XCTAssertEqual(dSeen, 4)
        let dWater = await progress(d.repo, water)
        XCTAssertEqual(dWater, 3)
    }

    func testAListingWithheldFromOneReaderIsReportedByDeviceAndRangeUntilItIsShown() async throws {
        let a = try await device("a")
        try await checkIn(a.repo, water)
        await syncOK(a.engine)
        try await checkIn(a.repo, water)
        await syncOK(a.engine)
        XCTAssertEqual(try files(a.repo.device).map(\.fileName), ["1-2.batch", "3-3.batch"])
        let c = try await device("c")
        await syncOK(c.engine)
        try await checkIn(c.repo, tea)
        await syncOK(c.engine)
        // The server shows b the remote without a's newest batch.
        let view = try copyRemote("withheld")
        let newest = "/users/me/devices/\(a.repo.device.rawValue)/ops/3-3.batch"
        try fm.removeItem(atPath: view + newest)
        let b = try await device("b", remote: "dir:" + view)
        let line = "the remote holds device \(a.repo.device.rawValue.prefix(8)) up to 2; device \(c.repo.device.rawValue.prefix(8)) saw it up to 3 (operation 3 is withheld or lost)"
        for round in 1...2 {
            let report = await b.engine.syncOnce()
            XCTAssertEqual(report.error, line, "round \(round)")
            let status = await b.engine.status()
            XCTAssertEqual(status.lastError, line, "round \(round)")
        }
        let bWater = await progress(b.repo, water)
        XCTAssertEqual(bWater, 1, "what b was shown of a applies")
        // The server shows it again: nothing is reported.
        try fm.copyItem(atPath: remote + newest, toPath: view + newest)
        await syncOK(b.engine)
        let shown = await progress(b.repo, water)
        XCTAssertEqual(shown, 2)
    }

    func testARollbackIsReportedUntilADeviceThatHoldsTheOperationsRefillsThem() async throws {
        let (a, b, old) = try await aWritesFourAndBHoldsThem()
        // Only a's folder comes from the old copy (a backup taken folder by folder): b's batch,
        // which says b saw a up to 4, is there.
        try restoreFolder(of: a.device, from: old)
        let d = try await device("d")
        let line = "the remote holds device \(a.device.rawValue.prefix(8)) up to 2; device \(b.repo.device.rawValue.prefix(8)) saw it up to 4 (operations 3-4 are withheld or lost)"
        let before = await d.engine.syncOnce()
        XCTAssertEqual(before.error, line)
        let still = await d.engine.syncOnce()
        XCTAssertEqual(still.error, line, "reported every round until refilled")
        let refill = await b.engine.syncOnce()
        XCTAssertNil(refill.error)
        XCTAssertEqual(refill.refilledOthers, 2)
        await syncOK(d.engine)
        let status = await d.engine.status()
        XCTAssertNil(status.lastError)
        let dWater = await progress(d.repo, water)
        XCTAssertEqual(dWater, 3)
    }
}
