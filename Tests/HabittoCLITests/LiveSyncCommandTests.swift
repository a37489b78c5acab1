import Foundation
import XCTest
import SyncTestKit

/// Issue 40: a change made by a command is sent by a background round that outlives it, and
/// another device's open UI shows it soon after; a folder remote is watched by an open UI.
final class LiveSyncCommandTests: XCTestCase {
    var folder = ""
    var boxes: [Sandbox] = []
    var sessions: [TmuxSession] = []

    override func tearDown() {
        sessions.forEach { $0.kill() }
        sessions = []
        boxes = []
    }

    /// A device on one shared folder remote (the real binary), sending its commands' changes.
    private func device(sending: Bool = true) -> Sandbox {
        let box = Sandbox()
        if folder.isEmpty {
            folder = box.root + "/remote"
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        box.extraEnv = ["HABITTO_SYNC_AFTER_CHANGE": sending ? "true" : "false"]
        box.ok("remote", "set", "dir:" + folder)
        boxes.append(box)
        return box
    }

    /// Waits (polling, at most `seconds`) until `condition` holds.
    private func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    private func pending(_ box: Sandbox) -> Int? { (box.json("status", "--json") as? [String: Any])?["pending"] as? Int }

    func testACommandsChangeIsSentByABackgroundRoundAndTheCommandDoesNotWaitForIt() {
        let a = device()
        a.ok("add", "Walk")
        let check = a.run(["check", "Walk"])
        XCTAssertEqual(check.status, 0)
        XCTAssertEqual(check.stdout, "✓ 'Walk' today: 1/1, done · streak 1 day\n", "the command says only what it did")
        XCTAssertTrue(eventually { self.pending(a) == 0 }, "the change was not sent: \(a.ok("status"))")
        let b = device(sending: false)
        XCTAssertEqual(b.listEntry("Walk", [])?["completed"] as? Bool, true, "the remote has the check-in")
    }

    func testNothingIsSentAfterAChangeWhenTurnedOffOrOffline() throws {
        let a = device()
        try "sync_after_change = false\n".write(toFile: a.config + "/habitto/config", atomically: true, encoding: .utf8)
        // An empty variable is no switch: the config decides.
        a.extraEnv = ["HABITTO_SYNC_AFTER_CHANGE": ""]
        a.ok("add", "Walk")
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n", "the config's false kept it here")
        a.extraEnv = ["HABITTO_SYNC_AFTER_CHANGE": "true"]
        a.ok("offline", "on")
        a.ok("check", "Walk")
        XCTAssertEqual(pending(a), 1, "offline: kept")
        a.ok("offline", "off")
        XCTAssertEqual(pending(a), 0)
    }

    /// `habitto check` on A reaches B's open UI within 5 s: A's background round pushes, B's
    /// UI watches the folder and pulls.
    func testACheckOnOneDeviceReachesAnotherDevicesOpenUI() throws {
        let a = device(), b = device()
        a.ok("add", "Walk")
        XCTAssertTrue(eventually { self.pending(a) == 0 })
        b.ok("sync")
        let ui = try TmuxSession.forTest(box: b)
        sessions.append(ui)
        ui.start()
        ui.waitFor("B's UI with Walk open") { $0.contains("·  Walk") }
        let started = Date()
        a.ok("check", "Walk")
        ui.waitFor("A's check-in on B's screen", timeout: 5) { $0.contains("✓  Walk") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }
}
