import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 41 in the real binary under tmux: the recent days on a wide today screen, and the
/// mouse (raw SGR reports typed into the pane, as a terminal sends them).
extension TerminalUITests {
    /// A left press and release on a cell (1-based column and row, as the terminal reports).
    func click(_ x: Int, _ y: Int) { ui.type("\u{1B}[<0;\(x);\(y)M\u{1B}[<0;\(x);\(y)m") }
    func wheel(down: Bool, _ x: Int = 10, _ y: Int = 3) { ui.type("\u{1B}[<\(down ? 65 : 64);\(x);\(y)M") }

    /// What tmux knows of the pane: whether its program asked for mouse reports (SGR).
    func mouseFlags() -> String {
        ui.tmux(["display-message", "-p", "-t", "ui", "#{mouse_any_flag}#{mouse_sgr_flag}"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testTheDayKeysWorkOnARecentDayCellAt120x35() {
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("add", "Walk", "--start", "2026-11-01")
        ui.start(width: 120, height: 35)
        ui.waitFor(text: "Read")
        // The rows end with their days, today's cell selected on the first row.
        ui.waitFor("the recent days") { $0.contains("⌂") && $0.contains("│") && $0.contains("[ ]") }
        ui.send("j", "h", "h")
        ui.waitFor(text: "◀ 2 days ago")
        ui.waitFor("the cursor two cells back") { screen in
            screen.split(separator: "\n").contains { $0.contains("Walk") && $0.hasSuffix("[ ]") == false && $0.contains("[") }
        }
        checkInRateAndQuit("Walk", on: "2026-11-19", rating: 3)
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-19"])?["progress"] as? Int, 0)
    }

    /// `space` on the selected day, `rating` for the question, `q`: the day is done and
    /// rated, today is not.
    func checkInRateAndQuit(_ name: String, on day: String, rating: Int, file: StaticString = #filePath, line: UInt = #line) {
        ui.send("Space")
        ui.waitFor(text: "How hard was \(name)?", file: file, line: line)
        ui.send(String(rating))
        ui.waitFor(text: "'\(name)' on \(day)", file: file, line: line)
        ui.send("q")
        XCTAssertEqual(ui.exitStatus(file: file, line: line).0, 0, file: file, line: line)
        XCTAssertEqual(box.listEntry(name, ["--date", day])?["progress"] as? Int, 1, file: file, line: line)
        XCTAssertEqual(box.listEntry(name, ["--date", day])?["difficulty"] as? Int, rating, file: file, line: line)
        XCTAssertEqual(box.listEntry(name)?["progress"] as? Int, 0, file: file, line: line)
    }

    /// A click on a row's mark checks in and a second takes a yes/no habit back; the wheel
    /// moves the selection; a click on a day cell selects it; a click on a footer key runs
    /// it; reports are asked for while the UI runs and turned off when it ends.
    func testClicksTheWheelAndTheFootersKeys() {
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("add", "Walk", "--start", "2026-11-01")
        ui.start(width: 120, height: 35)
        ui.waitFor(text: "Walk")
        XCTAssertEqual(mouseFlags(), "11", "the UI asks for SGR mouse reports")
        // Row 2 (0-based) is Read's, row 3 Walk's; the state mark is in column 2 (0-based).
        click(3, 4)
        ui.waitFor(text: "How hard was Walk?")
        ui.send("Escape")
        ui.waitFor("Walk's mark done") { $0.split(separator: "\n").contains { $0.contains("✓  Walk          1/1") } }
        XCTAssertEqual(box.listEntry("Walk")?["progress"] as? Int, 1)
        click(3, 4)
        ui.waitFor("Walk taken back") { $0.split(separator: "\n").contains { $0.contains("·  Walk          0/1") } }
        XCTAssertEqual(box.listEntry("Walk")?["progress"] as? Int, 0)
        // The wheel: up to Read, down to Walk.
        wheel(down: false)
        ui.waitFor("Read selected") { $0.split(separator: "\n").contains { $0.hasPrefix("▶") && $0.contains("Read") } }
        wheel(down: true)
        ui.waitFor("Walk selected") { $0.split(separator: "\n").contains { $0.hasPrefix("▶") && $0.contains("Walk") } }
        // A footer key: "? help" on the last row.
        let footer = ui.screen().split(separator: "\n", omittingEmptySubsequences: false)
        let last = footer.lastIndex { $0.contains("? help") } ?? 0
        let column = footer[last][..<footer[last].range(of: "? help")!.lowerBound].count
        click(column + 3, last + 1)
        ui.waitFor(text: "What the symbols mean")
        ui.send("Escape")
        ui.waitFor(text: "Walk")
        ui.send("q")
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 0)
        XCTAssertTrue(stty.contains(" icanon") && stty.contains(" echo"), "terminal not restored:\n\(stty)")
        XCTAssertEqual(mouseFlags(), "00", "mouse reports are off after the UI ends")
    }

    /// A click on a recent day selects the habit and that day; the day keys then record it.
    func testAClickOnADayCellSelectsThatDay() {
        box.ok("add", "Read", "--start", "2026-11-01")
        ui.start(width: 120, height: 35)
        ui.waitFor(text: "Read")
        let rows = ui.screen().split(separator: "\n", omittingEmptySubsequences: false)
        guard let y = rows.firstIndex(where: { $0.contains("Read") }), let open = rows[y].range(of: "[ ]") else {
            return XCTFail("no cursor cell:\n\(rows.joined(separator: "\n"))")
        }
        // Today's cell is in the brackets; yesterday's two columns left of it.
        // (The rows hold no wide character: characters are columns.)
        let today = rows[y][..<open.lowerBound].count + 1
        click(today - 2 + 1, y + 1)
        ui.waitFor(text: "◀ yesterday")
        checkInRateAndQuit("Read", on: "2026-11-20", rating: 2)
    }

    /// Ctrl-Z gives the terminal back without mouse reports (ncurses's `endwin` knows nothing
    /// of them: the UI's SIGTSTP handler turns them off around it), `fg` turns them on again.
    func testMouseReportsAreOffWhileSuspended() {
        box.ok("add", "Read", "--start", "2026-11-01")
        ui.startInShell()
        ui.waitFor(text: "space check in")
        XCTAssertEqual(mouseFlags(), "11")
        ui.send("C-z")
        ui.waitFor(text: "Stopped")
        XCTAssertEqual(mouseFlags(), "00", "no mouse reports while the shell has the terminal")
        ui.type("fg")
        ui.send("Enter")
        ui.waitFor("the UI to be redrawn") { $0.contains("space check in") && !$0.contains("Stopped") }
        XCTAssertEqual(mouseFlags(), "11")
        click(3, 3)
        ui.waitFor(text: "How hard was Read?")
        ui.quitToShell()
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(mouseFlags(), "00")
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 1)
    }

    /// `mouse = false` in the config: no reports are asked for; the keys work as ever.
    func testMouseFalseInTheConfigTurnsItOff() throws {
        box.ok("add", "Read", "--start", "2026-11-01")
        try FileManager.default.createDirectory(atPath: box.config + "/habitto", withIntermediateDirectories: true)
        try "mouse = false\n".write(toFile: box.config + "/habitto/config", atomically: true, encoding: .utf8)
        ui.start()
        ui.waitFor(text: "Read")
        XCTAssertEqual(mouseFlags(), "00")
        ui.send("Space")
        ui.waitFor(text: "How hard was Read?")
        ui.send("Escape")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 1)
    }
}
