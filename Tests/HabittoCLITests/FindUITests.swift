import Foundation
import SyncTestKit
import XCTest

/// `/` and `:` in the real binary, keys into tmux and the screen read back (issue 41).
extension TerminalUITests {
    func testFilterAndPaletteAt40x10() { filterAndPalette(width: 40, height: 10) }

    func testFilterAndPaletteAt120x35() { filterAndPalette(width: 120, height: 35) }

    /// `/` filters as it is typed (keys bound elsewhere are text there), enter keeps it and
    /// the screen's keys act on what it shows, esc clears it; `:` finds an action and enter
    /// runs it, as its key would.
    private func filterAndPalette(width: Int, height: Int, file: StaticString = #filePath, line: UInt = #line) {
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses", "--group", "Health", "--start", "2026-11-01")
        box.ok("add", "Stretch", "--group", "Health", "--start", "2026-11-01")
        ui.start(width: width, height: height)
        ui.waitFor(text: "Drink water", file: file, line: line)
        ui.send("/")
        ui.waitFor(text: "find: _", file: file, line: line)
        // q would quit and D delete: in the prompt they are text.
        ui.type("qD")
        ui.waitFor(text: "No habits match 'qD'", file: file, line: line)
        ui.send("BSpace", "BSpace")
        ui.type("heal")
        ui.waitFor(text: "find: heal_", file: file, line: line)
        XCTAssertFalse(ui.screen().contains("Read"), ui.screen(), file: file, line: line)
        ui.send("Enter")
        ui.waitFor(text: "filter 'heal'", file: file, line: line)
        // The selection is on the first habit shown: space checks Drink water in.
        ui.send("Space")
        ui.waitFor(text: "1/8", file: file, line: line)
        XCTAssertEqual(box.listEntry("Drink water")?["progress"] as? Double, 1, file: file, line: line)
        ui.send("Escape")
        ui.waitFor(text: "Read", file: file, line: line)
        XCTAssertFalse(ui.screen().contains("filter 'heal'"), ui.screen(), file: file, line: line)
        // The palette: typed letters find "week", enter opens it as w would.
        ui.send(":")
        ui.waitFor(text: "Actions", file: file, line: line)
        ui.type("week")
        ui.waitFor(text: ": week_", file: file, line: line)
        ui.send("Enter")
        ui.waitFor(text: "days to 2026-11-21", file: file, line: line)
        ui.send("Escape")
        ui.waitFor(text: "Drink water", file: file, line: line)
        ui.send(":")
        ui.waitFor(text: "Actions", file: file, line: line)
        ui.type("quit")
        ui.send("Enter")
        XCTAssertEqual(ui.exitStatus(file: file, line: line).0, 0, file: file, line: line)
    }
}
