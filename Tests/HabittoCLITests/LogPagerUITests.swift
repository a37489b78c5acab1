import Foundation
import SyncTestKit
import XCTest

/// `habitto log` on a real terminal (issue 42, point 3): paged like `git log`.
extension TerminalUITests {
    /// Starts `habitto log` in a 80×10 window with `pager` as $PAGER (nil: unset, so less
    /// with LESS=FRX), and has the shell record its exit status.
    private func startLog(pager: String?) {
        let env = box.environment
        let exports = ["HABITTO_HOME", "XDG_CONFIG_HOME", "HABITTO_NOW", "TZ"].compactMap { k in env[k].map { "export \(k)='\($0)';" } }
            .joined(separator: " ")
        let setPager = pager.map { "export PAGER='\($0)';" } ?? "unset PAGER;"
        let command = "unset LESS; \(setPager) export LANG=C.UTF-8; \(exports) '\(Sandbox.binary)' log; "
            + "echo \"EXIT=$?\" > '\(ui.exitFile).tmp'; mv '\(ui.exitFile).tmp' '\(ui.exitFile)'; sleep 600"
        ui.tmux(["new-session", "-d", "-s", "ui", "-x", "80", "-y", "10", "sh", "-c", command])
    }

    private func thirtyCheckIns() {
        box.ok("add", "Water", "--goal", "100")
        for _ in 0..<30 { box.ok("check", "Water") }
    }

    /// Without $PAGER the list goes through less: the first screen shows the newest changes
    /// and waits; q quits it and the command ends with status 0.
    func testTheLogIsPagedThroughLessOnATerminal() {
        thirtyCheckIns()
        startLog(pager: nil)
        ui.waitFor("less's prompt under the newest lines") { $0.contains("check 'Water' +1") && $0.split(separator: "\n").last == ":" }
        XCTAssertFalse(ui.screen().contains("add 'Water'"), "the oldest line is not on the first screen: \(ui.screen())")
        XCTAssertNil(try? String(contentsOfFile: ui.exitFile, encoding: .utf8), "the command waits for the pager")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    /// $PAGER's words are a program and its arguments (no shell reads them): a pager that
    /// stops reading early ends the command with status 0; an empty one prints directly.
    func testPagerWordsAreAProgramAndItsArgumentsAndAnEmptyOneIsNone() {
        thirtyCheckIns()
        startLog(pager: "head -n 3")
        XCTAssertEqual(ui.exitStatus().0, 0)
        let shown = ui.screen().split(separator: "\n").filter { $0.contains("check 'Water' +1") }
        XCTAssertEqual(shown.count, 3, ui.screen())
        ui.kill()
        ui = TmuxSession(box: box)
        startLog(pager: "")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertTrue(ui.screen().contains("add 'Water'"), "printed to its end: \(ui.screen())")
    }
}
