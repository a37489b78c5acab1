import Foundation
import SyncTestKit
import XCTest

/// Issue 39, point 12: a habit the source gives no day for (no harsh log line, no Loop
/// checkmark, no legacy start date) starts on the day of the import by the program's one
/// clock, and the import says so; no missed day is invented before it.
final class ImportStartDayTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.now = "2026-12-04T09:00:00Z"
    }

    override func tearDown() { box = nil }

    /// A fresh harsh setup: the fixture's habits file with an empty log.
    private func freshHarsh(log: String = "") throws -> String {
        let dir = box.root + "/harsh"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures + "/harsh/habits", toPath: dir + "/habits")
        try log.write(toFile: dir + "/log", atomically: true, encoding: .utf8)
        return dir
    }

    private func startDates() -> [String: String] {
        let list = box.json("list", "--all", "--json") as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0["startDate"] as? String ?? "") })
    }

    private let harshNames = ["Daily standup", "Code review", "Sprint planning", "Gym", "Running", "Water intake",
                              "Sleep tracking", "Reading", "Meditation", "Call family"]

    func testAFreshHarshSetupStartsTodayWithNoMissesAndTheImportNamesEveryHabit() throws {
        let dir = try freshHarsh()
        let dry = box.ok("import", dir, "--from", "harsh", "--dry-run")
        XCTAssertTrue(dry.contains("10 habits have no days in the source: they would start today, 2026-12-04: 'Daily standup', 'Code review',"), dry)
        let out = box.ok("import", dir, "--from", "harsh")
        let line = "10 habits have no days in the source: they start today, 2026-12-04: "
            + harshNames.map { "'\($0)'" }.joined(separator: ", ")
        XCTAssertTrue(out.split(separator: "\n").contains { $0 == line }, out)
        XCTAssertEqual(startDates(), Dictionary(uniqueKeysWithValues: harshNames.map { ($0, "2026-12-04") }))
        let gym = try XCTUnwrap(box.json("show", "Gym", "--json") as? [String: Any])
        XCTAssertEqual((gym["history"] as? [[String: Any]])?.compactMap { $0["date"] as? String }.filter { $0 < "2026-12-04" }, [],
                       "no day before the import")
        box.now = "2026-12-06T09:00:00Z"
        let standup = try XCTUnwrap(box.listEntry("Daily standup", ["--date", "2026-12-05"]))
        XCTAssertEqual(standup["startDate"] as? String, "2026-12-04")
    }

    func testTheDayOfTheImportIsTheProgramsClock() throws {
        box.now = "2026-11-20T23:30:00Z"
        box.ok("import", try freshHarsh(), "--from", "harsh")
        XCTAssertEqual(Set(startDates().values), ["2026-11-20"])
    }

    func testHarshFixtureOnlyTheHabitWithoutLogLinesStartsTodayAndJSONListsIt() throws {
        let dry = box.ok("import", fixtures + "/harsh", "--from", "harsh", "--dry-run")
        XCTAssertTrue(dry.split(separator: "\n").contains("'Sprint planning' has no days in the source: it would start today, 2026-12-04"), dry)
        let r = box.run("import", fixtures + "/harsh", "--from", "harsh", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["startingToday"] as? [String], ["Sprint planning"])
        XCTAssertEqual(report["today"] as? String, "2026-12-04")
        let starts = startDates()
        XCTAssertEqual(starts["Sprint planning"], "2026-12-04")
        XCTAssertEqual(starts["Daily standup"], "2025-01-01", "a habit with log lines starts on its first one")
        XCTAssertEqual(starts["Call family"], "2025-01-03")
    }

    func testAHabitAlreadyHereIsNotNamedAgainAndKeepsItsStart() throws {
        let dir = try freshHarsh()
        box.ok("import", dir, "--from", "harsh")
        box.now = "2026-12-10T09:00:00Z"
        try "2026-12-09 : Gym : y : : 0\n".write(toFile: dir + "/log", atomically: true, encoding: .utf8)
        let out = box.ok("import", dir, "--from", "harsh")
        XCTAssertFalse(out.contains("no days in the source"), "every habit is already here:\n\(out)")
        XCTAssertEqual(startDates()["Reading"], "2026-12-04")
    }

    func testLoopFixtureHabitWithoutCheckmarksStartsTodayFromTheFolderAndTheZip() throws {
        let out = box.ok("import", fixtures + "/loop-csv-export", "--from", "loop-csv")
        XCTAssertTrue(out.split(separator: "\n").contains("'Meditate' has no days in the source: it starts today, 2026-12-04"), out)
        XCTAssertEqual(startDates(), ["Meditate": "2026-12-04", "Wake up early": "2015-01-16"])

        let other = Sandbox(inProcess: true)
        other.now = "2026-12-05T09:00:00Z"
        let zip = try loopZip(at: other.root + "/loop.zip")
        let zipped = other.ok("import", zip, "--from", "loop-csv")
        XCTAssertTrue(zipped.contains("'Meditate' has no days in the source: it starts today, 2026-12-05"), zipped)
    }

    func testLegacyHabitWithoutStartCreatedAtOrDaysStartsTodayInsteadOfRefusingTheFile() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/legacy-habitto/userdefaults-dump.json"))
        var top = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var habits = try XCTUnwrap(top["SavedHabits"] as? [[String: Any]])
        for key in ["startDate", "createdAt"] { habits[0][key] = NSNull() }
        for key in ["completionHistory", "completionStatus", "completionTimestamps", "difficultyHistory"] { habits[0][key] = [String: Any]() }
        top["SavedHabits"] = habits
        let path = box.root + "/dump.json"
        try JSONSerialization.data(withJSONObject: top).write(to: URL(fileURLWithPath: path))
        let out = box.ok("import", path, "--from", "habitto-legacy")
        XCTAssertTrue(out.split(separator: "\n").contains("'Meditate' has no days in the source: it starts today, 2026-12-04"), out)
        XCTAssertEqual(startDates(), ["Meditate": "2026-12-04", "Drink water": "2025-09-22", "Smoking": "2025-09-22"])
    }

    func testHabittosOwnExportKeepsTheStartItGivesForAHabitWithoutDays() throws {
        let source = Sandbox(inProcess: true)
        source.now = "2026-11-01T09:00:00Z"
        source.ok("add", "Stretch", "--start", "2026-10-01")
        let path = box.root + "/export.json"
        source.ok("export", "--output", path)
        let out = box.ok("import", path, "--from", "json")
        XCTAssertFalse(out.contains("no days in the source"), out)
        XCTAssertEqual(startDates(), ["Stretch": "2026-10-01"])
    }
}
