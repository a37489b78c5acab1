import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Fixtures`: the project's shared fixtures, copied unchanged.
/// Loop's fixture export zipped with a password (`secret`) into the sandbox, with the
/// system's zip (installed by `.ci/test.sh`; its absence fails the test).
func encryptedLoopZip(in box: Sandbox, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    try loopZip(at: box.root + "/locked.zip", password: "secret", file: file, line: line)
}

/// Loop's fixture export zipped (with a password when given) to `zip`, with the system's zip.
func loopZip(at zip: String, password: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") else {
        struct Missing: Error, CustomStringConvertible {
            var description: String { "/usr/bin/zip is not installed; run the suite with 'bash .ci/test.sh', which installs it" }
        }
        throw Missing()
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
    p.arguments = ["-q", "-r"] + (password.map { ["-P", $0] } ?? []) + [zip, "."]
    p.currentDirectoryURL = URL(fileURLWithPath: fixtures + "/loop-csv-export")
    try p.run()
    p.waitUntilExit()
    XCTAssertEqual(p.terminationStatus, 0, "zip failed", file: file, line: line)
    return zip
}

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path

/// Backups, restore, import, export and the doctor, through the real binary on real files.
final class DataSafetyTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
    }

    override func tearDown() { box = nil }

    private func export() -> String { box.ok("export") }

    private func backups() -> [[String: Any]] { box.json("backup", "list", "--json") as? [[String: Any]] ?? [] }

    private func entry(_ name: String, date: String) -> [String: Any]? { box.listEntry(name, ["--date", date]) }

    // MARK: Imports of the fixtures

    func testLoopExportImportsWithItsCountsStreaksAndNotesAndASecondRunChangesNothing() throws {
        let path = fixtures + "/loop-csv-export"
        let dry = box.run("import", path, "--from", "loop-csv", "--dry-run", "--json")
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: box.journalPath) && box.journalBytes().count > 16,
                       "a dry run wrote to the journal")
        let dryReport = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(dryReport["dryRun"] as? Bool, true)
        XCTAssertEqual(dryReport["habitsCreated"] as? Int, 2)

        let out = box.ok("import", path, "--from", "loop-csv")
        XCTAssertTrue(out.contains("2 habits new"), out)
        XCTAssertTrue(out.contains("3 YES_AUTO days"), out)
        XCTAssertEqual(box.stat("checkIns"), 6, "YES_MANUAL days only; YES_AUTO days are not check-ins")
        let wake = try XCTUnwrap(entry("Wake up early", date: "2015-01-21"))
        XCTAssertEqual(wake["schedule"] as? String, "5/week", "2 in 3 days has no exact equivalent")
        XCTAssertEqual(wake["progress"] as? Int, 1)
        XCTAssertEqual(entry("Wake up early", date: "2015-01-23")?["progress"] as? Int, 0)
        XCTAssertEqual(entry("Meditate", date: "2015-01-21")?["schedule"] as? String, "daily")
        let show = try XCTUnwrap(box.json("show", "Wake up early", "--json") as? [String: Any])
        let history = try XCTUnwrap(show["history"] as? [[String: Any]])
        XCTAssertEqual(history.first { $0["date"] as? String == "2015-01-23" }?["note"] as? String, "Forgot to do it, really")
        XCTAssertEqual(history.first { $0["date"] as? String == "2015-01-19" }?["note"] as? String, "\"Vacation\"")
        XCTAssertEqual(history.first { $0["date"] as? String == "2015-01-24" }?["note"] as? String, "Sick")
        XCTAssertEqual(history.filter { ($0["progress"] as? Int ?? 0) > 0 }.map { $0["date"] as? String ?? "" },
                       ["2015-01-16", "2015-01-17", "2015-01-20", "2015-01-21", "2015-01-22", "2015-01-25"])

        let before = export(), journal = box.journalBytes()
        let again = box.ok("import", path, "--from", "loop-csv")
        XCTAssertTrue(again.hasPrefix("Already imported"), again)
        XCTAssertEqual(export(), before)
        XCTAssertEqual(box.journalBytes(), journal, "a second import wrote something")
        XCTAssertEqual(backups().filter { $0["reason"] as? String == "before-import" }.count, 1)
    }

    func testHarshFilesImportWithGroupsNotesSkipsAndCheckIns() throws {
        let out = box.ok("import", fixtures + "/harsh", "--from", "harsh")
        XCTAssertTrue(out.contains("10 habits new"), out)
        XCTAssertEqual(box.stat("checkIns"), 13)
        XCTAssertEqual(entry("Reading", date: "2025-01-03")?["streak"] as? Int, 3)
        XCTAssertEqual(entry("Code review", date: "2025-01-02")?["skipped"] as? Bool, true)
        XCTAssertEqual(entry("Gym", date: "2025-01-01")?["group"] as? String, "Health")
        let gym = try XCTUnwrap(box.json("show", "Gym", "--json") as? [String: Any])
        let day = (gym["history"] as? [[String: Any]])?.first { $0["date"] as? String == "2025-01-01" }
        XCTAssertEqual(day?["note"] as? String, "Leg day (amount 1.5)")
        XCTAssertTrue(out.contains("frequency 0 (tracking only"), "the tracking-only habit is listed as a disagreement: \(out)")
        XCTAssertEqual(entry("Sleep tracking", date: "2025-01-01")?["schedule"] as? String, "1/week")
        XCTAssertTrue(box.ok("import", fixtures + "/harsh", "--from", "harsh").hasPrefix("Already imported"))
    }

    func testLegacyDumpImportsDoneIfAnySourceSaysSoAndComparesStoredXP() throws {
        let r = box.run("import", fixtures + "/legacy-habitto/userdefaults-dump.json", "--from", "habitto-legacy", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["habitsCreated"] as? Int, 3)
        XCTAssertEqual(report["phase"] as? String, "completed")
        let disagreements = try XCTUnwrap(report["disagreements"] as? [[String: Any]])
        XCTAssertTrue(disagreements.contains { ($0["message"] as? String ?? "").contains("2025-09-23") }, "\(disagreements)")
        let comparisons = try XCTUnwrap(report["comparisons"] as? [String])
        XCTAssertTrue(comparisons.contains { $0.contains("stored 50 XP") }, "\(comparisons)")
        // Drink water 2025-09-23: completionStatus says done, there is no count: done.
        XCTAssertEqual(entry("Drink water", date: "2025-09-23")?["completed"] as? Bool, true)
        XCTAssertEqual(entry("Drink water", date: "2025-10-06")?["progress"] as? Int, 7)
        XCTAssertEqual(entry("Drink water", date: "2025-10-06")?["completed"] as? Bool, false)
        XCTAssertEqual(entry("Meditate", date: "2025-09-28")?["completed"] as? Bool, true, "an ISO-8601 key")
        XCTAssertEqual(entry("Smoking", date: "2025-09-23")?["progress"] as? Int, 3)
        XCTAssertEqual(entry("Smoking", date: "2025-09-23")?["kind"] as? String, "limit")
        // The migration is recorded, and a second run says it is done.
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: box.home + "/imports.json"))) as? [String: Any])
        XCTAssertEqual((log["imports"] as? [[String: Any]])?.first?["phase"] as? String, "completed")
        let again = box.ok("import", fixtures + "/legacy-habitto/userdefaults-dump.json", "--from", "habitto-legacy")
        XCTAssertTrue(again.hasPrefix("Already imported"), again)
    }

    /// The import log records the program's clock (HABITTO_NOW here), as the backup made
    /// before the import is named by it (issue 39, point 5: the log had the real time).
    func testAnImportRecordsTheClocksTimeLikeItsBackup() throws {
        box.ok("import", fixtures + "/harsh", "--from", "harsh")
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: box.home + "/imports.json"))) as? [String: Any])
        let record = try XCTUnwrap((log["imports"] as? [[String: Any]])?.first)
        XCTAssertEqual(record["started"] as? String, "2026-11-21T09:00:00Z", "HABITTO_NOW is \(box.now) in UTC")
        XCTAssertEqual(record["updated"] as? String, "2026-11-21T09:00:00Z")
        XCTAssertTrue((record["backup"] as? String ?? "").hasPrefix("20261121"), "\(record)")
    }

    func testAFailedVerificationRollsBackAndARetryCompletes() throws {
        box.ok("add", "Mine")
        box.ok("check", "Mine")
        let before = export()
        box.extraEnv["HABITTO_IMPORT_FAULT"] = "verify"
        let r = box.run("import", fixtures + "/harsh", "--from", "harsh")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("rolled back"), r.stderr)
        XCTAssertEqual(export(), before, "the rollback left the data as it was")
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: box.home + "/imports.json"))) as? [String: Any]
        XCTAssertEqual((log?["imports"] as? [[String: Any]])?.first?["phase"] as? String, "rolled back")
        box.extraEnv["HABITTO_IMPORT_FAULT"] = nil
        let retry = box.ok("import", fixtures + "/harsh", "--from", "harsh")
        XCTAssertTrue(retry.contains("0 habits new, 10 brought back"), retry)
        XCTAssertEqual(box.stat("checkIns"), 14)
        XCTAssertEqual(box.listEntry("Gym")?["group"] as? String, "Health")
    }

    // MARK: Bad input

    func testCorruptSourcesAreRefusedNamingTheFileAndNothingIsWritten() throws {
        box.ok("add", "Mine")
        let journal = box.journalBytes()
        let dir = box.root + "/bad"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let legacy = try String(contentsOfFile: fixtures + "/legacy-habitto/userdefaults-dump.json", encoding: .utf8)
        try String(legacy.prefix(3000)).write(toFile: dir + "/truncated.json", atomically: true, encoding: .utf8)
        try legacy.replacingOccurrences(of: "\"SavedHabits\": [", with: "\"SavedHabits\": \"none\", \"x\": [")
            .write(toFile: dir + "/types.json", atomically: true, encoding: .utf8)
        try Data(count: 50 << 20).write(to: URL(fileURLWithPath: dir + "/huge.json"))
        try FileManager.default.createDirectory(atPath: dir + "/loop", withIntermediateDirectories: true)
        try "Position,Name,Type\n001,Meditate,YES_NO\n".write(toFile: dir + "/loop/Habits.csv", atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["import", dir + "/truncated.json", "--from", "habitto-legacy"], "truncated.json"),
            (["import", dir + "/types.json", "--from", "habitto-legacy"], "SavedHabits"),
            (["import", dir + "/huge.json", "--from", "json"], "MB"),
            (["import", dir + "/loop", "--from", "loop-csv"], "Habits.csv"),
            (["import", dir + "/missing", "--from", "harsh"], "missing"),
            (["import", dir + "/loop", "--from", "tracker9000"], "unknown import format"),
        ]
        for (args, mention) in cases {
            let r = box.run(args)
            XCTAssertNotEqual(r.status, 0, args.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(mention), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
        XCTAssertEqual(box.journalBytes(), journal)
        XCTAssertEqual(backups().count, 0, "a refused import makes no backup")
    }

    // MARK: Export

    func testJSONExportImportedIntoAnEmptyDirectoryExportsTheSameBytes() throws {
        box.ok("import", fixtures + "/harsh", "--from", "harsh")
        box.ok("add", "Läsa, \"bok\"", "--goal", "20", "--unit", "pages", "--group", "Personal", "--schedule", "3/week")
        box.ok("check", "Läsa", "--amount", "12", "--difficulty", "4", "--note", "line one\nline two")
        box.ok("skip", "Gym", "--date", "2026-11-20")
        box.ok("archive", "Running")
        let file = box.root + "/export.json"
        box.ok("export", "--output", file)
        let first = try String(contentsOfFile: file, encoding: .utf8)
        let other = Sandbox()
        other.ok("import", file, "--from", "json")
        XCTAssertEqual(other.ok("export"), first)
        XCTAssertTrue(other.ok("import", file, "--from", "json").hasPrefix("Already imported"))
    }

    func testCSVExportHasAHabitsAndACheckInsFileWithQuotedFields() throws {
        box.ok("add", "Read, slowly", "--group", "Mind")
        box.ok("add", "Stretch", "--remind", "20:30,07:00")
        box.ok("check", "Read", "--difficulty", "2", "--note", "said \"hi\"")
        let dir = box.root + "/csv"
        box.ok("export", "--format", "csv", "--output", dir)
        let habits = try String(contentsOfFile: dir + "/habits.csv", encoding: .utf8)
        let checkins = try String(contentsOfFile: dir + "/checkins.csv", encoding: .utf8)
        XCTAssertTrue(habits.hasPrefix("id,name,kind,goal,unit,schedule,start_date,archived_from,icon,color,group,notes,reminders\r\n"), habits)
        XCTAssertTrue(habits.contains(",\"Read, slowly\",build,1,,daily,2026-11-21,,,,Mind,,\r\n"), habits)
        XCTAssertTrue(habits.contains(",Stretch,build,1,,daily,2026-11-21,,,,,,\"07:00,20:30\"\r\n"), habits)
        XCTAssertTrue(checkins.hasSuffix(",\"Read, slowly\",2026-11-21,1,false,2,\"said \"\"hi\"\"\"\r\n"), checkins)
        XCTAssertEqual(box.ok("export", "--format", "csv"), habits + "\r\n" + checkins)
    }

    func testExportNeverWritesInsideTheDataDirectory() throws {
        box.ok("add", "Water")
        let journal = box.journalBytes()
        let link = box.root + "/alias"
        XCTAssertEqual(symlink(box.home, link), 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: box.home).sorted()
        for args in [["--output", box.journalPath], ["--output", box.home + "/export.json"], ["--output", link + "/journal.hbj"],
                     ["--output", box.root + "/x/../data/sync.json"], ["--format", "csv", "--output", box.home],
                     ["--format", "csv", "--output", box.home + "/backups/new"], ["--format", "csv", "--output", link]] {
            let r = box.run(["export"] + args)
            XCTAssertEqual(r.status, 1, "export \(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is inside the data directory"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertEqual(r.stdout, "")
        }
        XCTAssertEqual(box.journalBytes(), journal, "the journal is untouched")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: box.home).sorted(), before)
        XCTAssertEqual(box.run("doctor").status, 0)
        // Beside the data directory is fine.
        box.ok("export", "--output", box.root + "/data.json")
        box.ok("export", "--format", "csv", "--output", box.root + "/data-csv")
    }

    // MARK: Hostile files and leftovers

    /// Runs `habitto ARGS`, failing (and killing it) if it takes more than `seconds`.
    private func runWithin(_ seconds: Double, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> RunResult {
        let (p, tag) = try box.start(args)
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning {
            XCTFail("habitto \(args.joined(separator: " ")) did not finish within \(seconds) s", file: file, line: line)
            kill(p.processIdentifier, SIGKILL)
        }
        return box.finish(p, tag)
    }

    func testAnImportWhoseFileIsAFIFOIsRefusedAtOnce() throws {
        let folder = box.root + "/loop"
        try FileManager.default.copyItem(atPath: fixtures + "/loop-csv-export", toPath: folder)
        try FileManager.default.removeItem(atPath: folder + "/Habits.csv")
        XCTAssertEqual(mkfifo(folder + "/Habits.csv", 0o600), 0)
        let r = try runWithin(10, ["import", folder, "--from", "loop-csv"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "habitto: \(folder)/Habits.csv: is a FIFO (named pipe), not a regular file; it was not read. Give the exported file itself; nothing was written\n")
        XCTAssertEqual(mkfifo(box.root + "/dump.json", 0o600), 0)
        let json = try runWithin(10, ["import", box.root + "/dump.json", "--from", "habitto-legacy"])
        XCTAssertEqual(json.status, 1, json.stderr)
        XCTAssertTrue(json.stderr.contains("is a FIFO (named pipe), not a regular file"), json.stderr)
    }

    func testAnEncryptedLoopZipIsRefusedAndLeavesNothingUnpacked() throws {
        let zip = try encryptedLoopZip(in: box)
        let tmp = box.root + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        box.extraEnv["TMPDIR"] = tmp
        let r = try runWithin(10, ["import", zip, "--from", "loop-csv"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "habitto: \(zip): is encrypted (password-protected), which Loop's export never is; habitto does not ask for passwords. Unpack it yourself (unzip asks for the password) and import the folder; nothing was written\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [], "nothing unpacked is left")
    }

    func testLeftoversOfAKilledProcessAreRemovedAtTheNextStartAndNothingElse() throws {
        box.ok("add", "Water")
        box.ok("backup", "create")
        let tmp = box.root + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        box.extraEnv["TMPDIR"] = tmp
        // Imports of a zip killed with kill -9 at random moments leave their unpacking folder.
        let zip = try loopZip(at: box.root + "/loop.zip")
        var rng = SystemRandomNumberGenerator()
        var killedPID: pid_t = 0
        for _ in 0..<10 {
            let (p, tag) = try box.start(["import", zip, "--from", "loop-csv", "--dry-run"])
            usleep(UInt32.random(in: 0...60_000, using: &rng))
            kill(p.processIdentifier, SIGKILL)
            _ = box.finish(p, tag)
            killedPID = p.processIdentifier
        }
        // What a write killed between its temporary file and the rename leaves, by that process.
        // Also in recovered/ and a restore's recovered/damaged-…/ (entered only when listed).
        try FileManager.default.createDirectory(atPath: box.home + "/recovered/damaged-20261121-090000",
                                                withIntermediateDirectories: true)
        let stale = [box.home + "/sync.json.tmp-\(killedPID)-123", box.home + "/snapshot.bin.tmp-\(killedPID)-9",
                     box.home + "/backups/20261121-090000-manual.hbk.tmp-\(killedPID)-77",
                     box.home + "/recovered/device.tmp-\(killedPID)-3",
                     box.home + "/recovered/damaged-20261121-090000/journal.hbj.tmp-\(killedPID)-4"]
        for f in stale { XCTAssertTrue(FileManager.default.createFile(atPath: f, contents: Data([1]))) }
        try FileManager.default.createDirectory(atPath: tmp + "/habitto-import-\(killedPID)-Qx81Zp/files", withIntermediateDirectories: true)
        // A killed import left its marker too (made before its folder): the next start looks.
        XCTAssertTrue(FileManager.default.createFile(atPath: tmp + "/habitto-imports-\(getuid())", contents: nil))
        // Not this program's, or of a process that still runs: kept.
        let mine = getpid()
        let kept = [box.home + "/sync.json.tmp-\(mine)-1", box.home + "/notes.tmp", tmp + "/habitto-import-\(mine)-Qx81Zp",
                    tmp + "/other-\(killedPID)-Qx81Zp"]
        XCTAssertTrue(FileManager.default.createFile(atPath: kept[0], contents: Data([1])))
        XCTAssertTrue(FileManager.default.createFile(atPath: kept[1], contents: Data([1])))
        for d in kept.suffix(2) { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }

        box.ok("list")
        for f in stale { XCTAssertFalse(FileManager.default.fileExists(atPath: f), f) }
        for f in kept { XCTAssertTrue(FileManager.default.fileExists(atPath: f), f) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp).filter { $0.hasPrefix("habitto-import-") },
                       ["habitto-import-\(mine)-Qx81Zp"], "every folder of a killed import is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: tmp + "/habitto-imports-\(getuid())"),
                      "the marker stays while an import folder (of a running process) is there")
        try FileManager.default.removeItem(atPath: tmp + "/habitto-import-\(mine)-Qx81Zp")
        box.ok("list")
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp + "/habitto-imports-\(getuid())"),
                       "with no import folder left, the marker goes: later starts do not list the folder")
        XCTAssertEqual(backups().count, 1)
        XCTAssertEqual(box.run("doctor").status, 0)
    }

    func testBackupsAndRecoveredFoldersThatAreLinksAreRefused() throws {
        box.ok("add", "Water")
        let outside = box.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(outside, box.home + "/backups"), 0)
        for args in [["backup", "create"], ["backup", "list"], ["import", fixtures + "/harsh", "--from", "harsh"]] {
            let r = box.run(args)
            XCTAssertEqual(r.status, 3, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(box.home + "/backups: is a symbolic link; Habitto never follows links inside its data directory"), r.stderr)
        }
        let doctor = box.run("doctor")
        XCTAssertEqual(doctor.status, 5)
        XCTAssertTrue(doctor.stdout.contains("problem: folders: \(box.home)/backups is a symbolic link, not a folder"), doctor.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing went through the link")
        XCTAssertEqual(box.listEntry("Water")?["name"] as? String, "Water", "the data is untouched")
        XCTAssertNil(box.listEntry("Gym"), "the import wrote nothing")
        // recovered/ as a link: a torn tail is not saved through it, and not cut off unsaved.
        unlink(box.home + "/backups")
        XCTAssertEqual(symlink(outside, box.home + "/recovered"), 0)
        let journal = box.journalBytes()
        let fd = open(box.journalPath, O_WRONLY | O_APPEND)
        XCTAssertEqual(write(fd, [UInt8]([1, 2, 3]), 3), 3)
        close(fd)
        let torn = box.run("list")
        XCTAssertEqual(torn.status, 3, torn.stderr)
        XCTAssertTrue(torn.stderr.contains(box.home + "/recovered: is a symbolic link"), torn.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [])
        XCTAssertEqual(box.journalBytes(), journal + [1, 2, 3])
        unlink(box.home + "/recovered")
        box.ok("list")
        XCTAssertEqual(box.journalBytes(), journal)
    }

    // MARK: Backups

    func testRestoreReplaceReturnsToTheBackupAndMergeOnlyAdds() throws {
        box.ok("add", "Water", "--goal", "8")
        box.ok("check", "Water", "--amount", "3")
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("check", "Read", "--date", "yesterday")
        let created = box.ok("backup", "create", "--note", "before the changes")
        XCTAssertTrue(created.hasPrefix("Backup "), created)
        let atBackup = export()
        let id = try XCTUnwrap(backups().first?["id"] as? String)
        XCTAssertEqual(backups().first?["note"] as? String, "before the changes")
        box.ok("check", "Water", "--amount", "2")
        box.ok("delete", "Read", "--yes")
        box.ok("add", "Stretch")
        let changed = export()

        box.ok("backup", "restore", id, "--merge")
        XCTAssertEqual(progress(box, "Water"), 5, "a merge keeps what is here")
        XCTAssertNotNil(box.listEntry("Read"), "a merge brings back a habit the backup has")
        XCTAssertNotNil(box.listEntry("Stretch"))
        box.ok("undo")
        XCTAssertEqual(export(), changed, "undo takes the restore back")

        let out = box.ok("backup", "restore", id, "--replace")
        XCTAssertTrue(out.contains("the data before is in backup"), out)
        XCTAssertEqual(export(), atBackup)
        XCTAssertTrue(box.ok("backup", "restore", id, "--replace").contains("nothing to change"))
        XCTAssertEqual(backups().filter { $0["reason"] as? String == "before-restore" }.count, 3)
    }

    func testADamagedBackupIsRefusedBeforeAnythingChanges() throws {
        box.ok("add", "Water")
        box.ok("backup", "create")
        let info = try XCTUnwrap(backups().first)
        let path = try XCTUnwrap(info["path"] as? String)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        box.ok("check", "Water")
        let before = export()
        let r = box.run("backup", "restore", info["id"] as! String, "--replace")
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("fails its checksum"), r.stderr)
        XCTAssertEqual(export(), before)
        XCTAssertTrue(box.ok("backup", "list").contains("DAMAGED"))
        let bad = box.run("backup", "restore", "../../etc/passwd", "--merge")
        XCTAssertEqual(bad.status, 1, "an id that names no backup is a refusal, not a storage failure")
        XCTAssertTrue(bad.stderr.contains("not a backup id"), bad.stderr)
    }

    func testPruneKeepsRecentBackupsAndAlwaysTheNewest() throws {
        box.ok("add", "Water")
        // Automatic pruning after each backup would keep 30 days; keep a year here.
        try "backup_keep_days = 365\n".write(toFile: box.config + "/habitto/config", atomically: true, encoding: .utf8)
        box.now = "2026-09-01T09:00:00"
        box.ok("backup", "create")
        box.now = "2026-10-01T09:00:00"
        box.ok("backup", "create")
        box.now = "2026-11-21T09:00:00"
        box.ok("backup", "create")
        XCTAssertEqual(backups().count, 3)
        let out = box.ok("backup", "prune", "--keep-days", "30")
        XCTAssertTrue(out.contains("Deleted 2"), out)
        XCTAssertEqual(backups().count, 1)
        box.now = "2027-06-01T09:00:00"
        box.ok("backup", "prune", "--keep-days", "1")
        XCTAssertEqual(backups().count, 1, "the newest backup is always kept")
    }

    // MARK: kill -9

    func testKillNineDuringImportLeavesTheStateBeforeOrAfter() throws {
        let legacy = fixtures + "/legacy-habitto/userdefaults-dump.json"
        let full = Sandbox()
        full.ok("add", "Mine")
        let before = full.ok("export")
        let started = Date()
        full.ok("import", legacy, "--from", "habitto-legacy")
        let life = max(0.01, Date().timeIntervalSince(started))
        let after = full.ok("export")
        var rng = SystemRandomNumberGenerator()
        var killed = 0
        for _ in 0..<16 {
            // Each round starts from the same state, so each kill lands somewhere new.
            let box = Sandbox(inProcess: true)
            box.ok("add", "Mine")
            let (p, tag) = try box.start(["import", legacy, "--from", "habitto-legacy"])
            usleep(UInt32.random(in: 0...UInt32(life * 1_200_000), using: &rng))
            kill(p.processIdentifier, SIGKILL)
            if box.finish(p, tag).killed { killed += 1 }
            let names = Set(((box.json("export") as? [String: Any])?["habits"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            XCTAssertTrue(names == ["Mine"] || names == ["Mine", "Meditate", "Drink water", "Smoking"], "a partial import: \(names)")
            let doctor = box.run("doctor")
            XCTAssertEqual(doctor.status, 0, doctor.stdout + doctor.stderr)
            // Running it again finishes (or says it is done), with the same result as an
            // import that was never interrupted (ids and days; the device differs).
            box.ok("import", legacy, "--from", "habitto-legacy")
            XCTAssertEqual(box.stat("checkIns"), full.stat("checkIns"))
            XCTAssertEqual(box.ok("export").count, after.count)
        }
        XCTAssertGreaterThan(killed, 0, "no import was interrupted")
        XCTAssertNotEqual(before, after)
    }

    func testKillNineDuringRestoreLeavesTheStateBeforeOrAfter() throws {
        box.ok("import", fixtures + "/harsh", "--from", "harsh")
        box.ok("backup", "create")
        let id = try XCTUnwrap(backups().first?["id"] as? String)
        let atBackup = export()
        box.ok("delete", "Gym", "--yes")
        box.ok("check", "Reading", "--amount", "4")
        let changed = export()
        let started = Date()
        box.ok("backup", "restore", id, "--replace")
        let life = max(0.01, Date().timeIntervalSince(started))
        box.ok("undo")
        XCTAssertEqual(export(), changed)
        var rng = SystemRandomNumberGenerator()
        var killed = 0, restored = 0
        for _ in 0..<30 {
            let (p, tag) = try box.start(["backup", "restore", id, "--replace"])
            usleep(UInt32.random(in: 0...UInt32(life * 2_000_000), using: &rng))
            kill(p.processIdentifier, SIGKILL)
            if box.finish(p, tag).killed { killed += 1 }
            let now = export()
            XCTAssertTrue(now == changed || now == atBackup, "a partial restore")
            XCTAssertEqual(box.run("doctor").status, 0)
            if now == atBackup { restored += 1; box.ok("undo") }
        }
        XCTAssertGreaterThan(killed, 0)
        XCTAssertEqual(export(), changed)
    }

    // MARK: Doctor

    func testDoctorIsHealthyOnFreshDataAndFindsAFlippedJournalByte() throws {
        box.ok("add", "Water", "--goal", "8")
        for _ in 0..<5 { box.ok("check", "Water") }
        box.ok("backup", "create")
        let id = try XCTUnwrap(backups().first?["id"] as? String)
        box.ok("check", "Water")
        let healthy = box.run("doctor")
        XCTAssertEqual(healthy.status, 0, healthy.stdout)
        XCTAssertTrue(healthy.stdout.hasSuffix("Healthy\n"), healthy.stdout)
        var bytes = box.journalBytes()
        let offset = 16 + 40
        bytes[offset] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: box.journalPath))
        let sick = box.run("doctor", "--json")
        XCTAssertEqual(sick.status, 5)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(sick.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["healthy"] as? Bool, false)
        let problem = try XCTUnwrap((report["problems"] as? [[String: Any]])?.first)
        XCTAssertTrue((problem["problem"] as? String ?? "").contains("damaged at byte"), "\(problem)")
        XCTAssertEqual(problem["repairable"] as? Bool, false)
        XCTAssertTrue((problem["fix"] as? String ?? "").contains("habitto backup restore \(id) --replace"), "\(problem)")
        // --repair never touches a damaged journal; the restore the doctor names recovers it.
        XCTAssertEqual(box.run("doctor", "--repair").status, 5)
        XCTAssertEqual(box.run("list").status, 3)
        let restore = box.run("backup", "restore", id, "--replace")
        XCTAssertEqual(restore.status, 0, restore.stderr)
        XCTAssertTrue(restore.stderr.contains("recovered/damaged-"), restore.stderr)
        XCTAssertEqual(progress(box, "Water"), 5)
        XCTAssertEqual(box.run("doctor").status, 0)
        box.ok("check", "Water")
        XCTAssertEqual(progress(box, "Water"), 6)
    }

    func testDoctorRepairsATornTailAndAForeignSnapshotAfterABackup() throws {
        box.ok("add", "Water", "--goal", "8")
        for _ in 0..<3 { box.ok("check", "Water") }
        let good = export()
        XCTAssertEqual(box.run("doctor").status, 0)
        // Tear the tail: half a record appended.
        let fd = open(box.journalPath, O_WRONLY | O_APPEND)
        _ = [UInt8](repeating: 0x41, count: 7).withUnsafeBytes { write(fd, $0.baseAddress, 7) }
        close(fd)
        let sick = box.run("doctor")
        XCTAssertEqual(sick.status, 5)
        XCTAssertTrue(sick.stdout.contains("incomplete record"), sick.stdout)
        let fixed = box.run("doctor", "--repair")
        XCTAssertEqual(fixed.status, 0, fixed.stdout + fixed.stderr)
        XCTAssertTrue(fixed.stdout.contains("repaired: journal"), fixed.stdout)
        XCTAssertEqual(backups().filter { $0["reason"] as? String == "before-repair" }.count, 1)
        XCTAssertEqual(export(), good)

        // A snapshot that is not what this journal wrote: found, and rebuilt by --repair.
        try Data("HABITTO-SNAPSHOT garbage".utf8).write(to: URL(fileURLWithPath: box.home + "/snapshot.bin"))
        let stale = box.run("doctor", "--json")
        XCTAssertEqual(stale.status, 5)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stale.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((report["problems"] as? [[String: Any]])?.map { $0["check"] as? String }, ["snapshot"])
        XCTAssertEqual((report["problems"] as? [[String: Any]])?.first?["repairable"] as? Bool, true)
        let rebuilt = box.run("doctor", "--repair")
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stdout)
        XCTAssertTrue(rebuilt.stdout.contains("repaired: snapshot: rebuilt from the journal"), rebuilt.stdout)
        XCTAssertTrue(rebuilt.stdout.contains("ok: snapshot: matches a full replay"), rebuilt.stdout)
        XCTAssertEqual(backups().filter { $0["reason"] as? String == "before-repair" }.count, 2)
        XCTAssertEqual(export(), good)
    }

    /// Runs the doctor, which must exit 5 naming `problem`, then `doctor --repair`, which must
    /// exit 0 saying `repaired`; returns what the repair printed.
    @discardableResult
    private func doctorFindsAndRepairs(_ problem: String, _ repaired: String,
                                       file: StaticString = #filePath, line: UInt = #line) -> String {
        let sick = box.run(["doctor"], file: file, line: line)
        XCTAssertEqual(sick.status, 5, sick.stdout, file: file, line: line)
        XCTAssertTrue(sick.stdout.contains(problem), sick.stdout, file: file, line: line)
        let fixed = box.run(["doctor", "--repair"], file: file, line: line)
        XCTAssertEqual(fixed.status, 0, fixed.stdout + fixed.stderr, file: file, line: line)
        XCTAssertTrue(fixed.stdout.contains(repaired), fixed.stdout, file: file, line: line)
        return fixed.stdout
    }

    /// A habit added, then `checkIns` check-ins each synced to a new directory remote.
    private func syncedToDirectoryRemote(checkIns: Int, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let remote = box.root + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        box.ok("add", "Water", "--goal", "8", file: file, line: line)
        box.ok("remote", "set", "dir:" + remote, file: file, line: line)
        for _ in 0..<checkIns { box.ok("check", "Water", file: file, line: line); box.ok("sync", file: file, line: line) }
        return remote
    }

    func testDoctorFindsABatchMissingOnTheRemoteAndRepairRequeuesIt() throws {
        // Two check-ins: operations 1 to 3 in three batches, which no compaction merges yet.
        let remote = try syncedToDirectoryRemote(checkIns: 2)
        let healthy = box.run("doctor")
        XCTAssertEqual(healthy.status, 0, healthy.stdout)
        XCTAssertTrue(healthy.stdout.contains("remote: has 3 of this device's 3 operations"), healthy.stdout)
        // Lose the second batch on the remote (someone cleaned the folder up).
        let device = try String(contentsOfFile: box.home + "/device", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let ops = remote + "/users/default/devices/\(device)/ops"
        let batches = try FileManager.default.contentsOfDirectory(atPath: ops).filter { $0.hasSuffix(".batch") }
            .sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        XCTAssertEqual(batches, ["1-1.batch", "2-2.batch", "3-3.batch"])
        try FileManager.default.removeItem(atPath: ops + "/2-2.batch")
        doctorFindsAndRepairs("the remote lacks this device's operations 2–3", "re-queued")
        XCTAssertEqual(backups().filter { $0["reason"] as? String == "before-repair" }.count, 1)
        box.ok("sync")
        // Re-sent, and compacted with what was there: the batches left hold 1 to 3 with no gap.
        let after = try FileManager.default.contentsOfDirectory(atPath: ops).filter { $0.hasSuffix(".batch") }
        var covered = Set<Int>()
        for name in after {
            let range = name.dropLast(".batch".count).split(separator: "-").compactMap { Int($0) }
            XCTAssertEqual(range.count, 2, name)
            if range.count == 2 { covered.formUnion(range[0]...range[1]) }
        }
        XCTAssertEqual(covered, [1, 2, 3], "\(after)")
        XCTAssertEqual(box.run("doctor").status, 0)
        // A second device starting from the remote sees every check-in.
        let other = Sandbox()
        other.ok("remote", "set", "dir:" + remote)
        XCTAssertEqual(progress(other, "Water"), 2)
    }

    func testDoctorFindsEveryDamagedFileThatMakesOtherCommandsFail() throws {
        box.ok("add", "Water")
        let device = box.home + "/device", lock = box.home + "/lock", sync = box.home + "/sync.json"
        let id = try Data(contentsOf: URL(fileURLWithPath: device))
        func expectProblem(_ check: String, _ words: String, otherCommand: [String], exit: Int32,
                           file: StaticString = #filePath, line: UInt = #line) {
            let other = box.run(otherCommand, file: file, line: line)
            XCTAssertEqual(other.status, exit, "\(otherCommand): \(other.stderr)", file: file, line: line)
            let doctor = box.run("doctor")
            XCTAssertEqual(doctor.status, 5, doctor.stdout + doctor.stderr, file: file, line: line)
            XCTAssertTrue(doctor.stdout.contains("problem: \(check): ") && doctor.stdout.contains(words), doctor.stdout, file: file, line: line)
            XCTAssertEqual(doctor.stderr, "habitto: doctor found 1 problem\n", file: file, line: line)
        }
        for bad in ["garbage\n", ""] {
            try Data(bad.utf8).write(to: URL(fileURLWithPath: device))
            expectProblem("device", "is damaged", otherCommand: ["list"], exit: 3)
        }
        try FileManager.default.removeItem(atPath: device)
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: false)
        expectProblem("device", "is a folder, not a regular file", otherCommand: ["list"], exit: 3)
        try FileManager.default.removeItem(atPath: device)
        try id.write(to: URL(fileURLWithPath: device))

        try Data("{not json".utf8).write(to: URL(fileURLWithPath: sync))
        expectProblem("sync", "sync.json is damaged", otherCommand: ["status"], exit: 3)
        try FileManager.default.removeItem(atPath: sync)

        try FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createDirectory(atPath: lock, withIntermediateDirectories: false)
        expectProblem("files", "lock is a directory", otherCommand: ["list"], exit: 3)
        try FileManager.default.removeItem(atPath: lock)

        try Data("day_start_hour = 4\nweek_start monday\n".utf8).write(to: URL(fileURLWithPath: box.config + "/habitto/config"))
        expectProblem("config", "config line 2: expected 'key = value'", otherCommand: ["list"], exit: 1)
        try FileManager.default.removeItem(atPath: box.config + "/habitto/config")
        XCTAssertEqual(box.run("doctor").status, 0)
        XCTAssertEqual(progress(box, "Water"), 0)
    }

    func testDoctorFindsABatchOfThisDeviceWhoseBytesDifferFromTheJournal() throws {
        let remote = try syncedToDirectoryRemote(checkIns: 2)
        XCTAssertEqual(box.run("doctor").status, 0)
        let device = try String(contentsOfFile: box.home + "/device", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let ops = remote + "/users/default/devices/\(device)/ops"
        // The remote's copy of batch 2 replaced by other (valid) bytes.
        try FileManager.default.removeItem(atPath: ops + "/2-2.batch")
        try FileManager.default.copyItem(atPath: ops + "/3-3.batch", toPath: ops + "/2-2.batch")
        let sick = box.run("doctor")
        XCTAssertEqual(sick.status, 5, sick.stdout)
        XCTAssertTrue(sick.stdout.contains("problem: remote: this device's batch 2-2.batch on the remote differs from the journal's operations 2–2"), sick.stdout)
        // Removing it, as the doctor says, and repairing puts it back.
        try FileManager.default.removeItem(atPath: ops + "/2-2.batch")
        XCTAssertEqual(box.run("doctor", "--repair").status, 0)
        box.ok("sync")
        XCTAssertEqual(box.run("doctor").status, 0)
    }

    func testDoctorRepairRebuildsAJournalDamagedUnderTheSnapshotAndBackupsNeverCopyTheDamage() throws {
        // An import of 10,001 days is one record, covered at once by a snapshot.
        var days: [[String: Any]] = []
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let start = formatter.date(from: "1999-06-01")!
        for i in 0...10_000 {
            days.append(["date": formatter.string(from: start.addingTimeInterval(Double(i) * 86_400)), "progress": 1 + i % 3,
                         "skipped": false, "difficulty": NSNull(), "note": NSNull()])
        }
        let habit: [String: Any] = ["id": "00000000000000a1", "name": "Water", "kind": "build", "goal": 2, "unit": NSNull(),
                                    "schedule": "daily", "startDate": "1999-06-01", "archivedFrom": NSNull(), "icon": NSNull(),
                                    "color": NSNull(), "group": NSNull(), "notes": NSNull(), "days": days]
        let file = box.root + "/big.json"
        try JSONSerialization.data(withJSONObject: ["format": "habitto-export", "version": 1, "habits": [habit]]).write(to: URL(fileURLWithPath: file))
        box.ok("import", file, "--from", "json")
        XCTAssertTrue(FileManager.default.fileExists(atPath: box.home + "/snapshot.bin"))
        box.ok("backup", "create")
        box.ok("check", "Water")
        let before = export()
        var bytes = box.journalBytes()
        bytes[bytes.count / 2] ^= 0x10 // inside the import's record, which the snapshot covers
        try Data(bytes).write(to: URL(fileURLWithPath: box.journalPath))
        XCTAssertEqual(export(), before, "every command still works from the snapshot")

        let backup = box.run("backup", "create")
        XCTAssertEqual(backup.status, 3, backup.stderr)
        XCTAssertTrue(backup.stderr.contains("no backup was made"), backup.stderr)
        let fixed = doctorFindsAndRepairs("run habitto doctor --repair to rebuild the journal from the snapshot",
                                          "repaired: journal: rebuilt from the snapshot under a new device id")
        XCTAssertTrue(fixed.contains("recovered/damaged-"), fixed)
        XCTAssertEqual(export(), before)
        box.ok("backup", "create")
        XCTAssertEqual(backups().filter { $0["valid"] as? Bool != true }.count, 0)
        box.ok("check", "Water")
        XCTAssertEqual(progress(box, "Water"), 2, "today's check-in before the damage and the one after")
    }
}
