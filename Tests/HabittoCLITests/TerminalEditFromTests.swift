import Foundation
import XCTest

/// The edit form's "from today or from the start?" in the real binary under tmux.
final class TerminalEditFromTests: XCTestCase {
    var box: Sandbox!
    var ui: TmuxSession!

    override func setUpWithError() throws {
        box = Sandbox()
        ui = try TmuxSession.forTest(box: box)
    }

    override func tearDown() {
        ui?.kill()
        ui = nil
        box = nil
    }

    func testANewGoalTypedInTheFormCountsFromTodayWhenTheAnswerIsT() {
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses", "--start", "2026-11-10")
        for d in 10...20 { box.ok("check", "Water", "--amount", "9", "--date", "2026-11-\(d)") }
        ui.start()
        ui.waitFor(text: "Water")
        ui.send("e")
        ui.waitFor(text: "Edit habit")
        for _ in 0..<3 { ui.send("Tab") }  // name, icon, kind, then the goal
        ui.type("10")
        ui.send("Enter")
        ui.waitFor(text: "Goal 8 → 10: from today (t) or from the start 2026-11-10 (s)?")
        ui.send("t")
        ui.waitFor(text: "Saved 'Water'")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Water")?["goal"] as? Int, 10)
        XCTAssertEqual(box.listEntry("Water")?["streak"] as? Int, 11, "the eleven days of 9 glasses still count")
        XCTAssertEqual(box.listEntry("Water", ["--date", "2026-11-20"])?["goal"] as? Int, 8)
    }
}
