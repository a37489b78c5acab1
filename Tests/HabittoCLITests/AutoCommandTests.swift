import Foundation
import HabitStore
import XCTest

/// `habitto auto`: habits a command on this machine checks in, through the real binary.
final class AutoCommandTests: XCTestCase {
    private var box: Sandbox!

    override func setUp() { box = Sandbox() }
    override func tearDown() { box = nil }

    private var commandsFile: String { box.config + "/habitto/auto" }

    func testAYesNoHabitIsDoneWhenItsCommandExitsZeroAndExitOneRecordsNothing() {
        box.ok("add", "Walk")
        box.ok("add", "Stretch")
        XCTAssertEqual(box.ok("auto", "Walk", "exit 0"),
                       "'Walk' is an auto habit on this machine (done when it exits 0); 'habitto auto --run' runs it now\n")
        box.ok("auto", "Stretch", "exit 1")
        let before = box.journalBytes()
        XCTAssertEqual(box.ok("auto", "--run"), "Walk: done (recorded)\nStretch: not done\n")
        XCTAssertEqual(progress(box, "Walk"), 1)
        XCTAssertEqual(progress(box, "Stretch"), 0)
        XCTAssertGreaterThan(box.journalBytes().count, before.count)
        let after = box.journalBytes()
        XCTAssertEqual(box.ok("auto", "--run"), "Walk: done\nStretch: not done\n", "done once: nothing more is recorded")
        XCTAssertEqual(box.journalBytes(), after)
        XCTAssertEqual(progress(box, "Walk"), 1)
    }

    func testACountedHabitsCommandGivesItsReadingTwiceGivesOneTotalAndHandCheckInsAddToIt() {
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses")
        box.ok("check", "Water", "--amount", "2")
        box.ok("auto", "Water", "echo 3; echo 9")
        XCTAssertEqual(box.ok("auto", "--run"), "Water: 3 (recorded)\n")
        XCTAssertEqual(progress(box, "Water"), 5, "the command's reading adds to the 2 checked in by hand")
        XCTAssertEqual(box.ok("auto", "--run"), "Water: 3\n")
        XCTAssertEqual(progress(box, "Water"), 5, "running it twice gives the same total")
        box.ok("check", "Water")
        XCTAssertEqual(progress(box, "Water"), 6, "a check-in made later adds to it")
        box.ok("auto", "Water", "printf ' 5.5 \\nmore'")
        XCTAssertEqual(box.ok("auto", "--run"), "Water: 5.5 (recorded)\n")
        XCTAssertEqual((box.listEntry("Water")?["progress"] as? NSNumber)?.doubleValue, 8.5, "a new reading replaces the old one, not the hand part")
        // One undo step per result: undo gives back what the set moved.
        box.ok("undo")
        XCTAssertEqual(progress(box, "Water"), 6)
    }

    /// Issue 39.1, as reported: a second run no longer wipes a hand check-in.
    func testASecondRunKeepsAHandCheckInMadeAfterTheFirst() {
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses")
        box.ok("auto", "Water", "echo 3")
        XCTAssertEqual(box.ok("auto", "--run"), "Water: 3 (recorded)\n")
        box.ok("check", "water", "--amount", "2")
        XCTAssertEqual(progress(box, "Water"), 5)
        XCTAssertEqual(box.ok("auto", "--run"), "Water: 3\n")
        XCTAssertEqual(progress(box, "Water"), 5)
    }

    func testFailuresAreShownByRunAndStatusAndRecordNothing() {
        box.ok("add", "Water", "--goal", "8")
        box.ok("add", "Walk")
        box.ok("auto", "Water", "echo lots")
        box.ok("auto", "Walk", "echo broken >&2; exit 3")
        let before = box.journalBytes()
        let r = box.run("auto", "--run")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, """
            auto: 'Water': the command printed 'lots' on its first line, not a number such as 3 or 1.5; nothing was recorded
            auto: 'Walk': the command failed (exit status 3: broken); nothing was recorded

            """)
        XCTAssertEqual(box.journalBytes(), before, "a failure writes nothing to the journal")
        XCTAssertEqual(progress(box, "Water"), 0)
        let status = box.ok("status")
        XCTAssertTrue(status.contains("Auto habit 'Water': on 2026-11-21 the command printed 'lots' on its first line, not a number such as 3 or 1.5\n"), status)
        XCTAssertTrue(status.contains("Auto habit 'Walk': on 2026-11-21 the command failed (exit status 3: broken)\n"), status)
        let json = box.json("status", "--json") as? [String: Any]
        XCTAssertEqual((json?["autoProblems"] as? [String])?.count, 2)
        // Fixed: the next run records, and status no longer shows the error.
        box.ok("auto", "Water", "echo 2")
        box.ok("auto", "Walk", "--clear")
        XCTAssertEqual(box.ok("auto", "--run"), "Water: 2 (recorded)\n")
        XCTAssertFalse(box.ok("status").contains("Auto habit"))
    }

    func testTheCommandHasNoStandardInputAndNoSecretsInItsEnvironment() {
        box.ok("add", "Pages", "--goal", "20")
        box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = "hunter2"
        box.extraEnv["VISIBLE_TO_IT"] = "yes"
        // Prints 7 only when standard input is empty, the secret is absent and the rest of the environment is there.
        box.ok("auto", "Pages", "test -z \"$HABITTO_WEBDAV_PASSWORD\" && test \"$VISIBLE_TO_IT\" = yes && test \"$(cat)\" = '' && echo 7")
        XCTAssertEqual(box.ok("auto", "--run"), "Pages: 7 (recorded)\n")
    }

    func testACommandStillRunningAtItsTimeLimitIsStoppedAndRecordsNothing() {
        box.ok("add", "Walk")
        // The limit shortened to half a second (the 10-second default is TimeLimitsTests').
        box.extraEnv[TimeLimits.variable] = "auto=0.5"
        box.ok("auto", "Walk", "sleep 60; exit 0")
        let before = box.journalBytes()
        let started = Date()
        let r = box.run("auto", "--run")
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "auto: 'Walk': the command did not finish within 1 second and was stopped; nothing was recorded\n")
        XCTAssertGreaterThanOrEqual(took, 0.5)
        XCTAssertLessThan(took, 30, "stopped at its limit, not waited out")
        XCTAssertEqual(box.journalBytes(), before)
    }

    func testSetListAndClearKeepTheCommandInThisMachinesConfigOnly() throws {
        box.ok("add", "Water", "--goal", "8")
        XCTAssertEqual(box.ok("auto", "--list"), "No auto habits on this machine; 'habitto auto HABIT COMMAND' makes one\n")
        box.ok("auto", "wat", "echo 1")
        XCTAssertEqual(box.ok("auto", "--list"), "Water: echo 1 · not run yet\n")
        box.ok("auto", "--run")
        XCTAssertEqual(box.ok("auto", "--list"), "Water: echo 1 · last: 2026-11-21 1\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: commandsFile)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(box.ok("auto", "Water", "--clear"), "'Water' is checked in by hand again on this machine\n")
        XCTAssertEqual(box.ok("auto", "--list"), "No auto habits on this machine; 'habitto auto HABIT COMMAND' makes one\n")
        let again = box.run("auto", "Water", "--clear")
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(again.stderr, "habitto: 'Water' is not an auto habit on this machine; 'habitto auto --list' shows them\n")
        for (args, message) in [(["auto", "Water"], "give the command too: habitto auto HABIT 'COMMAND' (or --clear)"),
                                (["auto", "Water", "a\nb"], "the command must be one line; put a longer script in a file and run that"),
                                (["auto", "Water", " "], "the command is empty; give one such as 'test -f ~/done-today'"),
                                (["auto", "--run", "--list"], "--list and --run contradict each other; give one")] {
            let r = box.run(args)
            XCTAssertNotEqual(r.status, 0, "\(args)")
            XCTAssertEqual(r.stderr, "habitto: \(message)\n", "\(args)")
        }
    }

    func testRemindRunsTheAutoHabitsButRemindJSONOnlyReports() {
        box.ok("add", "Walk", "--remind", "08:00")
        box.ok("auto", "Walk", "exit 0")
        box.now = "2026-11-21T08:30:00"
        let before = box.journalBytes()
        let listed = box.json("remind", "--json") as? [[String: Any]]
        XCTAssertEqual(listed?.map { $0["name"] as? String }, ["Walk"], "reported as not done: its command was not run")
        XCTAssertEqual(box.journalBytes(), before, "--json runs no command")
        box.extraEnv = ["DISPLAY": "", "WAYLAND_DISPLAY": ""]
        XCTAssertEqual(box.ok("remind"), "", "done by its command first: nothing to remind of")
        XCTAssertEqual(progress(box, "Walk"), 1)
    }

    /// The command never travels: a second device syncing through a folder sees the habit
    /// and its check-in, not the command, and no file under the remote, the journal, an
    /// export or a backup holds it.
    func testASecondDeviceSeesTheHabitButNeverTheCommand() throws {
        let marker = "AUTO-COMMAND-MARKER-31"
        let b = Sandbox()
        let folder = box.root + "/remote"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        box.ok("add", "Steps", "--goal", "10")
        box.ok("auto", "Steps", "echo 6 # \(marker)")
        box.ok("auto", "--run")
        box.ok("remote", "set", "dir:" + folder)
        box.ok("backup", "create")
        box.ok("export", "--output", box.root + "/export.json")
        b.ok("remote", "set", "dir:" + folder)
        XCTAssertEqual(progress(b, "Steps"), 6, "the second device sees the habit and what the command measured")
        XCTAssertEqual(b.ok("auto", "--list"), "No auto habits on this machine; 'habitto auto HABIT COMMAND' makes one\n")
        XCTAssertEqual(b.ok("auto", "--run"), "No auto habits on this machine; 'habitto auto HABIT COMMAND' makes one\n")
        var searched = 0
        for dir in [folder, box.home, b.home, b.config, box.root + "/export.json"] {
            for path in Self.files(under: dir) {
                searched += 1
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                XCTAssertNil(bytes.range(of: Data(marker.utf8)), "\(path) holds the command")
            }
        }
        XCTAssertGreaterThan(searched, 5, "the remote, the data directories and the export were searched")
        XCTAssertTrue(Self.files(under: folder).contains { $0.hasSuffix(".batch") }, "batches were written")
        XCTAssertTrue(try String(contentsOfFile: commandsFile, encoding: .utf8).contains(marker), "the command is in this machine's config")
    }

    /// Every regular file at or under `path`.
    static func files(under path: String) -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { return [] }
        guard isDir.boolValue else { return [path] }
        let all = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String]) ?? []
        return all.map { path + "/" + $0 }.filter {
            var d: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &d) && !d.boolValue
        }
    }
}
