import Foundation
import XCTest
import SyncTestKit

/// `P` in the real UI (issue 41, point 4): the prompt on the message line, the pause written
/// to the journal, its mark on the row, and `u` taking it back.
extension TerminalUITests {
    func testPPausesTheSelectedHabitFromTheDayAndUUndoesIt() {
        box.ok("add", "Read", "--start", "2026-11-01")
        ui.start()
        ui.waitFor(text: "Read")
        ui.send("P")
        ui.waitFor(text: "Read: pause 2026-11-21 _")
        ui.type("+2 flu")
        ui.waitFor(text: "+2 flu_")
        ui.send("Enter")
        ui.waitFor(text: "Paused 'Read' 2026-11-21 to 2026-11-23 (3 days)")
        ui.waitFor(text: "‖")
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-23"])?["paused"] as? Bool, true)
        ui.send("u")
        ui.waitFor(text: "Undid: pause 'Read' from 2026-11-21 to 2026-11-23")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Read")?["paused"] as? Bool, false)
    }
}
