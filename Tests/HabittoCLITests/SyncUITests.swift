import Foundation
import XCTest
import SyncTestKit
#if canImport(Glibc)
import Glibc
#endif

/// Sync state in the real UI, in tmux, against a folder remote with injected latency:
/// offline means offline, and every state the bar shows ends.
final class SyncUITests: XCTestCase {
    var box: Sandbox!
    var ui: TmuxSession!
    var folder = ""

    override func setUpWithError() throws {
        box = Sandbox()
        ui = try TmuxSession.forTest(box: box)
        folder = box.root + "/remote"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        ui?.kill()
        ui = nil
        box = nil
    }

    /// Batch files on the remote, of every device.
    func remoteBatches() -> [String] { batchFileNames(inRemote: folder, account: "default", byDevice: false) }

    /// Whether a sync round holds the data directory's sync lock, as the kernel lists it in
    /// /proc/locks. Looking takes no lock, so it never turns a round away.
    func roundInProgress() -> Bool {
        var st = stat()
        guard stat(box.home + "/sync.lock", &st) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
            return false
        }
        return locks.split(separator: "\n").contains { entry in
            // "1: FLOCK  ADVISORY  WRITE 1234 fd:00:5678 0 EOF" (a waiter's line has "->" after the number)
            let f = entry.split(separator: " ")
            return f.count >= 6 && f[1] == "FLOCK" && f[3] == "WRITE" && f[5].hasSuffix(":\(st.st_ino)")
        }
    }

    /// The status bar (the line above the footer).
    func bar(_ screen: String) -> String {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count >= 3 ? String(lines[lines.count - 3]) : ""
    }

    /// Right after a round the bar says it was just now by the program's one clock, which
    /// HABITTO_NOW sets (issue 39, point 5: the bar read the real time against the round's
    /// given one and said "synced 10d ago").
    func testRightAfterARoundTheBarSaysSyncedJustNowByTheGivenClock() {
        box.ok("add", "Read")
        box.ok("remote", "set", "dir:" + folder)
        let status = box.ok("status")
        XCTAssertTrue(status.contains("Last checked: 2026-11-21T09:00:00Z (0 s ago)"), status)
        ui.start()
        ui.waitFor("the bar after the round") { self.bar($0).contains("✓ online · queue 0 · checked 0s ago") }
    }

    func testGoingOfflineWithARoundInFlightSendsNothingMoreAndOnlineDrainsTheQueue() {
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses")
        box.ok("remote", "set", "dir:" + folder)
        XCTAssertEqual(remoteBatches(), ["1-1.batch"])
        // A latency long enough that `o` always lands while the batch is in flight, even on a
        // loaded machine (with 1.5 s, a slow key press once let the batch through first).
        ui.start(env: ["HABITTO_FAULTS": "latency=4000ms"])
        ui.waitFor(text: "0/8 glasses")
        ui.send("Space")
        // The round sends the check-in: the bar shows it in flight, then o.
        ui.waitFor("a batch in flight") { self.bar($0).contains("⟳ syncing 1") }
        XCTAssertTrue(roundInProgress(), "the round holds the sync lock while its request waits")
        ui.send("o")
        ui.waitFor("offline, nothing in flight") { self.bar($0).contains("↑ offline · queue 1") }
        // The round ends without its request's answer: had it waited for it, the batch would
        // be on the remote by the time the round let go of the lock. (That an abandoned
        // request never reaches the remote is SyncModeTests' to prove.)
        ui.waitFor("the round in flight to end") { _ in !self.roundInProgress() }
        XCTAssertEqual(remoteBatches(), ["1-1.batch"], "no batch was written after going offline")
        ui.send("Space")
        ui.waitFor("the second check-in queued") { self.bar($0).contains("↑ offline · queue 2") && $0.contains("2/8 glasses") }
        // S says how to go online and sends nothing.
        ui.send("S")
        ui.waitFor(text: "offline: press o to go online")
        XCTAssertTrue(bar(ui.screen()).contains("↑ offline · queue 2"), bar(ui.screen()))
        // Online: the queue drains in one batch and the result replaces "Online: syncing now".
        ui.send("o")
        // Every remote call of that round waits the injected latency.
        ui.waitFor(text: "synced · sent 2, received 0", timeout: 60)
        ui.waitFor("the queue drained", timeout: 30) { self.bar($0).contains("✓ online · queue 0") && !self.bar($0).contains("⟳") }
        // Both check-ins went in one batch once online: neither was sent while offline.
        XCTAssertEqual(remoteBatches(), ["1-1.batch", "2-3.batch"])
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    func testSyncNowShowsActivityThenTheRoundsResultOrItsError() {
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses")
        box.ok("remote", "set", "dir:" + folder)
        ui.start(env: ["HABITTO_FAULTS": "latency=600ms"])
        ui.waitFor("the first round to end") { self.bar($0).contains("✓ online · queue 0 · checked") && !self.bar($0).contains("⟳") }
        ui.send("S")
        ui.waitFor(text: "Syncing…")
        ui.waitFor("pulling shown as activity") { self.bar($0).contains("⟳ pulling") }
        ui.waitFor(text: "synced · sent 0, received 0")
        ui.waitFor("activity ended") { !self.bar($0).contains("⟳") }
        // The folder goes away: the round ends as failed, with its reason.
        try? FileManager.default.removeItem(atPath: folder)
        ui.send("S")
        ui.waitFor(text: "Sync: remote folder")
        ui.waitFor("the failed mode") { self.bar($0).contains("! sync failed") }
        // The same failure again (HABITTO_NOW freezes the clock: the two rounds are alike).
        ui.send("S")
        ui.waitFor(text: "Syncing…")
        ui.waitFor(text: "Sync: remote folder")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }
}
