import Foundation
import XCTest

/// `Tests/Fixtures/format-v1`: a data directory, its backups and a sync remote written by
/// the version before decimal amounts (whole units), with what that version printed.
private let formatV1 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/format-v1").path

/// `Tests/Fixtures/format-released`: a data directory written by the released version this
/// one replaces (commit 4039ae4), with its version 4 snapshot and the export it printed.
private let formatReleased = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/format-released").path

/// Data written before amounts had decimals keeps working: it reads, prints, exports, backs
/// up and syncs as it did, and new amounts with decimals go on top of it.
final class WholeUnitDataTests: XCTestCase {
    /// A sandbox holding a copy of the fixture's data directory, at the fixture's "now".
    private func upgradedBox(file: StaticString = #filePath, line: UInt = #line) throws -> Sandbox {
        let box = Sandbox(inProcess: true)
        try FileManager.default.copyItem(atPath: formatV1 + "/home", toPath: box.home)
        box.now = "2026-11-20T10:00:00"
        return box
    }

    private func expected(_ name: String) throws -> String {
        try String(contentsOfFile: formatV1 + "/" + name, encoding: .utf8)
    }

    func testADataDirectoryWrittenInWholeUnitsListsAndExportsExactlyAsBefore() throws {
        let box = try upgradedBox()
        let list = box.run("list")
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout, try expected("expected-list.txt"))
        XCTAssertEqual(list.stderr, "", "the old snapshot is read, not ignored and rebuilt")
        let export = box.run("export")
        XCTAssertEqual(export.stdout, try expected("expected-export.json"))
        XCTAssertEqual(box.listEntry("Drink water")?["goal"] as? Int, 8)
        XCTAssertEqual(box.listEntry("Run", ["--date", "2026-11-19"])?["progress"] as? Int, 4)
    }

    func testADataDirectoryOfTheReleasedVersionRebuildsItsSnapshotOnceAndExportsTheSame() throws {
        let box = Sandbox(inProcess: true)
        try FileManager.default.copyItem(atPath: formatReleased + "/home", toPath: box.home)
        box.now = "2026-11-20T10:00:00"
        let first = box.run("list")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertLessThanOrEqual(first.stderr.split(separator: "\n").count, 1, first.stderr)
        let export = box.run("export")
        XCTAssertEqual(export.stdout, try String(contentsOfFile: formatReleased + "/expected-export.json", encoding: .utf8))
        XCTAssertEqual(export.stderr, "", "the version 4 snapshot was replaced when first read")
        XCTAssertEqual(box.run("doctor").status, 0)
        XCTAssertEqual(box.listEntry("Drink water", ["--date", "2026-11-19"])?["progress"] as? Int, 2)
        // The released version's undo history undoes here.
        XCTAssertTrue(box.ok("undo").contains("check 'Drink water' +2"))
        XCTAssertEqual(box.listEntry("Drink water")?["progress"] as? Int, 0)
    }

    func testDecimalAmountsGoOnTopOfWholeUnitDataAndSurviveARestart() throws {
        let box = try upgradedBox()
        XCTAssertTrue(box.ok("check", "Run", "--amount", "1.25").contains("1.25/3 km"))
        XCTAssertTrue(box.ok("edit", "Run", "--goal", "2.5").contains("Run"))
        let run = box.listEntry("Run")
        XCTAssertEqual(run?["progress"] as? Double, 1.25)
        XCTAssertEqual(run?["goal"] as? Double, 2.5)
        // The undo history written by the old version still undoes (the edit, then the check-in).
        _ = box.ok("undo")
        XCTAssertEqual(box.listEntry("Run")?["goal"] as? Int, 3)
        let show = box.ok("show", "Run")
        XCTAssertTrue(show.contains("at least 3 km a day"), show)
        XCTAssertTrue(show.contains("today: 1.25/3 km"), show)
    }

    func testABackupWrittenInWholeUnitsRestores() throws {
        let box = try upgradedBox()
        guard let backups = box.json("backup", "list", "--json") as? [[String: Any]],
              let manual = backups.first(where: { ($0["id"] as? String)?.hasSuffix("manual") == true })?["id"] as? String
        else { return XCTFail("backup list --json did not list the fixture's manual backup") }
        let restore = box.run("backup", "restore", manual, "--replace")
        XCTAssertEqual(restore.status, 0, restore.stderr)
        // The backup was made before the last check-in of 2 glasses.
        XCTAssertEqual(box.listEntry("Drink water")?["progress"] as? Int, 0)
        XCTAssertEqual(box.listEntry("Drink water", ["--date", "2026-11-19"])?["progress"] as? Int, 3)
        XCTAssertEqual(box.listEntry("Run")?["goal"] as? Int, 3)
    }

    func testANewDeviceSyncsWithARemoteWrittenInWholeUnits() throws {
        let old = try upgradedBox()
        let remote = old.root + "/remote"
        try FileManager.default.copyItem(atPath: formatV1 + "/remote", toPath: remote)
        // The upgraded device connects again: its whole-unit batch 1-16 is already there
        // with other bytes for the same operations, which is an ack, not a conflict.
        let set = old.run("remote", "set", "dir:" + remote, "--account", "fixture")
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(old.run("sync").status, 0)
        let doctor = old.run("doctor")
        XCTAssertEqual(doctor.status, 0, doctor.stdout + doctor.stderr)

        let new = Sandbox(inProcess: true)
        new.now = old.now
        XCTAssertEqual(new.run("remote", "set", "dir:" + remote, "--account", "fixture").status, 0)
        XCTAssertEqual(new.run("sync").status, 0)
        XCTAssertEqual(new.run("export").stdout, try expected("expected-export.json"))

        _ = new.ok("check", "Drink water", "--amount", "0.25")
        XCTAssertEqual(new.run("sync").status, 0)
        XCTAssertEqual(old.run("sync").status, 0)
        XCTAssertEqual(old.listEntry("Drink water")?["progress"] as? Double, 2.25)
        XCTAssertEqual(old.run("export").stdout, new.run("export").stdout)
    }
}
