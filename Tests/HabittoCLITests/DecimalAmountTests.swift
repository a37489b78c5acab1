import Foundation
import XCTest

/// Goals and check-ins with up to three decimals, exact through every command and format.
final class DecimalAmountTests: XCTestCase {
    func testDecimalGoalsAndCheckInsAreExactInEveryOutput() throws {
        let box = Sandbox(inProcess: true)
        XCTAssertTrue(box.ok("add", "Run", "--goal", "2.5", "--unit", "km").contains("at least 2.5 km a day"))
        XCTAssertEqual(box.ok("check", "run", "--amount", "1.2"), "◐ 'Run' today: 1.2/2.5 km · streak 0 days\n")
        XCTAssertEqual(box.ok("check", "run", "--amount", "1.35"), "✓ 'Run' today: 2.55/2.5 km, done · streak 1 day\n")
        XCTAssertTrue(box.ok("list").contains("2.55/2.5 km"))
        XCTAssertTrue(box.ok("show", "Run").contains("at least 2.5 km a day"))

        let run = try XCTUnwrap(box.listEntry("Run"))
        XCTAssertEqual(run["goal"] as? Double, 2.5)
        XCTAssertEqual(run["progress"] as? Double, 2.55)
        XCTAssertEqual(run["completed"] as? Bool, true)
        let export = box.ok("export")
        XCTAssertTrue(export.contains("\"goal\": 2.5,"), export)
        XCTAssertTrue(export.contains("\"progress\": 2.55,"), export)
        XCTAssertTrue(box.ok("export", "--format", "csv").contains(",Run,2026-11-21,2.55,false,,"))
        XCTAssertEqual((box.json("stats", "--json") as? [String: Any])?["checkIns"] as? Int, 1)
        XCTAssertEqual((box.json("show", "Run", "--json") as? [String: Any])?["totalAmount"] as? Double, 2.55)

        // An export with decimals imports again to the same bytes.
        let again = Sandbox(inProcess: true)
        let path = again.root + "/export.json"
        try export.write(toFile: path, atomically: true, encoding: .utf8)
        _ = again.ok("import", path, "--from", "json")
        XCTAssertEqual(again.ok("export"), export)

        XCTAssertEqual(box.ok("undo"), "Undid: check 'Run' +1.35 on 2026-11-21\n")
        _ = box.ok("uncheck", "run", "--amount", "0.001")
        XCTAssertEqual(box.listEntry("Run")?["progress"] as? Double, 1.199)
    }

    func testTenThousandStepsIsOneCheckIn() {
        let box = Sandbox(inProcess: true)
        _ = box.ok("add", "Walk", "--goal", "10000", "--unit", "steps")
        XCTAssertEqual(box.ok("check", "walk", "--amount", "10000"), "✓ 'Walk' today: 10000/10000 steps, done · streak 1 day\n")
    }

    func testAmountsWithMoreThanThreeDecimalsAreRefusedAndNothingIsWritten() {
        let box = Sandbox(inProcess: true)
        _ = box.ok("add", "Run", "--goal", "2.5")
        let before = box.journalBytes()
        let r = box.run("check", "run", "--amount", "0.0005")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "habitto: --amount: amount '0.0005' has more than 3 decimals: round it to at most 3, like 2.125\n")
        XCTAssertEqual(box.journalBytes(), before)
    }
}
