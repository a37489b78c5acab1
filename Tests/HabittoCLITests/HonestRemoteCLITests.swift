import Foundation
@testable import WebDAVHarness
import XCTest
import SyncTestKit

/// The real binary against a remote that shows one device less than another saw: `sync`
/// exits 4 naming the device and the range, `status` and `doctor` say so; and a device that
/// holds what the remote lost writes it back, on a folder and through Apache.
final class HonestRemoteCLITests: SyncCLITestCase {
    var a: Sandbox!, b: Sandbox!, c: Sandbox!
    var scratch = ""

    override func setUp() {
        super.setUp()
        (a, b, c) = (Sandbox(), Sandbox(), Sandbox())
        b.now = a.now
        c.now = a.now
        scratch = NSTemporaryDirectory() + "habitto-honest-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
        super.tearDown()
        (a, b, c) = (nil, nil, nil)
    }

    func device(_ box: Sandbox) throws -> String { try XCTUnwrap(try status(box)["device"] as? String) }

    func testAListingWithheldFromOneDeviceFailsItsSyncAndStatusAndDoctorNameTheDeviceAndRange() throws {
        let remote = scratch + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        a.ok("add", "Water", "--goal", "8", "--start", "2026-11-01")
        a.ok("check", "Water")
        XCTAssertEqual(run(a, "remote", "set", "dir:" + remote).status, 0)
        a.ok("check", "Water")
        _ = ok(a, "sync")
        let deviceA = try device(a)
        let ops = opsFolder(remote, deviceA)
        XCTAssertEqual(try sortedBatchFiles(inOps: ops), ["1-2.batch", "3-3.batch"])
        XCTAssertEqual(run(c, "remote", "set", "dir:" + remote).status, 0)
        c.ok("add", "Tea", "--start", "2026-11-01")
        _ = ok(c, "sync")
        let deviceC = try device(c)
        // What the server shows b: the remote without a's newest batch.
        let view = scratch + "/view"
        try FileManager.default.copyItem(atPath: remote, toPath: view)
        try FileManager.default.removeItem(atPath: opsFolder(view, deviceA) + "/3-3.batch")
        let line = "the remote holds device \(deviceA.prefix(8)) up to 2; device \(deviceC.prefix(8)) saw it up to 3 (operation 3 is withheld or lost)"
        let set = run(b, "remote", "set", "dir:" + view)
        XCTAssertEqual(set.status, 4, set.stderr)
        XCTAssertTrue(set.stderr.contains(line), set.stderr)
        let sync = run(b, "sync")
        XCTAssertEqual(sync.status, 4)
        XCTAssertEqual(sync.stderr, "habitto: sync: \(line) (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details\n")
        XCTAssertTrue(ok(b, "status").contains("Last error: \(line)\n"))
        XCTAssertEqual(try status(b)["lastError"] as? String, line)
        let doctor = run(b, "doctor")
        XCTAssertEqual(doctor.status, 5)
        XCTAssertTrue(doctor.stdout.contains("problem: remote: \(line); run habitto sync on device \(deviceC.prefix(8)) or another that holds them, which sends them again; if none holds them, they are lost\n"), doctor.stdout)
        XCTAssertEqual(progress(b, "Water"), 1, "what b was shown of a applies")
    }

    func testARemoteFolderRestoredFromAnOldCopyThroughApacheIsRefilledForANewDevice() throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "8", "--start", "2026-11-01")
        a.ok("check", "Water")
        XCTAssertEqual(connect(a, server).status, 0)
        a.ok("check", "Water", "--amount", "2")
        _ = ok(a, "sync")
        let deviceA = try device(a)
        let ops = opsFolder(server.dataDirectory, deviceA)
        XCTAssertEqual(try sortedBatchFiles(inOps: ops), ["1-2.batch", "3-3.batch"])
        XCTAssertEqual(connect(b, server).status, 0)
        b.ok("add", "Tea", "--start", "2026-11-01")
        _ = ok(b, "sync")
        let deviceB = try device(b)
        // a's folder restored from a copy older than its last batch; a never syncs again.
        try FileManager.default.removeItem(atPath: ops + "/3-3.batch")
        let line = "the remote holds device \(deviceA.prefix(8)) up to 2; device \(deviceB.prefix(8)) saw it up to 3 (operation 3 is withheld or lost)"
        let joined = connect(c, server)
        XCTAssertEqual(joined.status, 4, joined.stderr)
        XCTAssertTrue(joined.stderr.contains(line), joined.stderr)
        XCTAssertEqual(progress(c, "Water"), 1)
        // b holds operation 3 of a: its doctor says so, and its sync writes it back.
        let doctor = run(b, "doctor")
        XCTAssertEqual(doctor.status, 5)
        XCTAssertTrue(doctor.stdout.contains("problem: remote: the remote holds device \(deviceA.prefix(8)) up to 2; this device holds it up to 3 (operation 3 is withheld or lost); run habitto sync: this device sends them again\n"), doctor.stdout)
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(try sortedBatchFiles(inOps: ops), ["1-2.batch", "3-3.batch"])
        XCTAssertEqual(run(b, "doctor").status, 0)
        XCTAssertEqual(ok(c, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 1\n")
        XCTAssertNil(try status(c)["lastError"] as? String)
        XCTAssertEqual(progress(c, "Water"), 3)
        XCTAssertEqual(c.stat("operations"), a.stat("operations").map { $0 + 1 }, "every operation of a once, and b's")
        XCTAssertEqual(c.ok("export"), b.ok("export"))
    }
}
