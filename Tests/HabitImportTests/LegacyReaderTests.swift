import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
import HabitStore
@testable import HabitImport

/// The legacy UserDefaults reader on the shared fixture and on damaged copies of it, and the
/// reader for Habitto's own JSON export.
final class LegacyReaderTests: XCTestCase {
    /// The shared fixtures, copied unchanged into `Tests/Fixtures`.
    static let fixtures = fixturesDirectory
    static let dumpPath = fixtures + "/legacy-habitto/userdefaults-dump.json"

    static let meditate = "6513270e-269e-0d37-f2a7-4de452e6b438"
    static let water = "20203626-f3fe-39c0-5190-88f590fbbd11"
    static let smoking = "6471fde4-1f22-9dd0-6aa8-b9e0231b3e14"

    private var folder = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        var template = Array((NSTemporaryDirectory() + "/habitto-import-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw NSError(domain: "LegacyReaderTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot make a temporary folder"])
        }
        folder = String(cString: made)
    }

    override func tearDownWithError() throws {
        if !folder.isEmpty { try FileManager.default.removeItem(atPath: folder) }
        try super.tearDownWithError()
    }

    // MARK: Helpers

    func day(_ s: String) -> LocalDay {
        guard let d = LocalDay(s) else { preconditionFailure("bad day \(s) in a test") }
        return d
    }

    func fixturePlan() throws -> ImportPlan { try LegacyReader.read(path: Self.dumpPath) }

    func habit(_ plan: ImportPlan, _ key: String, file: StaticString = #filePath, line: UInt = #line) throws -> ImportedHabit {
        try XCTUnwrap(plan.habits.first { $0.sourceKey == key }, "no habit \(key)", file: file, line: line)
    }

    /// Writes bytes to a file in the test folder and returns its path.
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func write(_ name: String, json: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        return try write(name, [UInt8](data))
    }

    /// The fixture as a JSON object, to be changed and written back.
    func fixtureObject() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.dumpPath))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The fixture with `SavedHabits[index]` changed by `change`, written to the test folder.
    func fixtureChanging(habit index: Int, _ change: (inout [String: Any]) -> Void) throws -> String {
        var top = try fixtureObject()
        var list = try XCTUnwrap(top["SavedHabits"] as? [Any])
        var h = try XCTUnwrap(list[index] as? [String: Any])
        change(&h)
        list[index] = h
        top["SavedHabits"] = list
        return try write("changed.json", json: top)
    }

    /// A minimal legacy habit with the given keys changed.
    func legacyHabit(_ id: String, _ name: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        var h: [String: Any] = ["id": id, "name": name, "habitType": "formation", "schedule": "Everyday",
                                "goal": "1 time per day", "startDate": "2025-09-22T00:00:00Z", "endDate": NSNull()]
        for (k, v) in extra { h[k] = v }
        return h
    }

    func readLegacy(_ habits: [[String: Any]], guests: [[String: Any]] = [], extra: [String: Any] = [:]) throws -> ImportPlan {
        var top: [String: Any] = ["SavedHabits": habits, "guest_habits": guests]
        for (k, v) in extra { top[k] = v }
        return try LegacyReader.read(path: try write("dump.json", json: top))
    }


    // MARK: The fixture

    func testFixtureHabitsKindsAndGoals() throws {
        let plan = try fixturePlan()
        XCTAssertEqual(plan.format, .habittoLegacy)
        XCTAssertEqual(plan.files, [Self.dumpPath])
        XCTAssertEqual(plan.habits.map(\.sourceKey), [Self.meditate, Self.water, Self.smoking])
        XCTAssertEqual(plan.habits.map(\.location), ["SavedHabits[0]", "SavedHabits[1]", "SavedHabits[2]"])
        XCTAssertEqual(plan.habits.map(\.fields.name), ["Meditate", "Drink water", "Smoking"])
        XCTAssertEqual(plan.habits.map(\.fields.kind), [.build, .build, .limit])
        XCTAssertEqual(plan.habits.map(\.fields.goal), [1, 8, 2].map { $0 * Amount.scale })
        XCTAssertEqual(plan.habits.map(\.fields.unit), [nil, nil, nil])
        XCTAssertEqual(plan.habits.map(\.fields.schedule), [.daily, .daily, .daily])
        XCTAssertEqual(plan.habits.map(\.fields.icon), ["🧘", "💧", "🚬"])
        XCTAssertEqual(plan.habits.map(\.fields.color), ["#FF8F00", "#1E88E5", "#6D4C41"])
        XCTAssertEqual(plan.habits.map(\.fields.startDate), Array(repeating: day("2025-09-22"), count: 3))
        XCTAssertEqual(plan.habits.map(\.fields.archivedFrom), [nil, nil, nil])
        XCTAssertEqual(plan.habits.map(\.fields.notes), [nil, nil, "Baseline before quitting: 8 per day"])
        XCTAssertEqual(plan.habits.map(\.id), [nil, nil, nil])
        for h in plan.habits { XCTAssertNoThrow(try h.fields.validate()) }
        XCTAssertEqual(plan.skipped, [])
    }

    func testFixtureDays() throws {
        let plan = try fixturePlan()
        let meditate = try habit(plan, Self.meditate), water = try habit(plan, Self.water), smoking = try habit(plan, Self.smoking)
        XCTAssertEqual(meditate.days.count, 22)
        XCTAssertEqual(water.days.count, 25)
        XCTAssertEqual(smoking.days.count, 25)

        // ISO-keyed in completionHistory, plain in the others: one day, done, with its rating.
        XCTAssertEqual(meditate.days[day("2025-09-28")], ImportedDay(progress: 1 * Amount.scale, difficulty: 2))
        XCTAssertEqual(meditate.days[day("2025-10-04")], ImportedDay(progress: 1 * Amount.scale, difficulty: 4))
        XCTAssertNil(meditate.days[day("2025-09-30")], "0 in completionHistory, false in completionStatus")
        XCTAssertNil(meditate.days[day("2025-10-10")])

        // Only completionStatus says done: counted as done, at the goal.
        XCTAssertEqual(water.days[day("2025-09-23")], ImportedDay(progress: 8 * Amount.scale))
        // 7 of 8, and every source agrees it was not done.
        XCTAssertEqual(water.days[day("2025-10-06")], ImportedDay(progress: 7 * Amount.scale))
        XCTAssertFalse(Habit(id: HabitID(value: 1), fields: water.fields).succeeds(progress: 7 * Amount.scale))
        XCTAssertEqual(water.days[day("2025-10-11")], ImportedDay(progress: 3 * Amount.scale))
        XCTAssertEqual(water.days[day("2025-10-02")], ImportedDay(progress: 8 * Amount.scale, difficulty: 1))
        XCTAssertEqual(water.days[day("2025-10-10")], ImportedDay(progress: 8 * Amount.scale, difficulty: 5))

        XCTAssertEqual(smoking.days[day("2025-09-23")], ImportedDay(progress: 3 * Amount.scale))
        XCTAssertEqual(smoking.days[day("2025-09-26")], ImportedDay(progress: 1 * Amount.scale))
        XCTAssertEqual(smoking.days[day("2025-10-17")], ImportedDay(progress: 6 * Amount.scale))
        XCTAssertNil(smoking.days[day("2025-09-22")], "usage 0 without a rating is the default")
        XCTAssertNil(smoking.days[day("2025-10-01")])
        XCTAssertEqual(smoking.days.values.map(\.progress).reduce(0, +), 80 * Amount.scale)
    }

    func testFixtureDisagreements() throws {
        let plan = try fixturePlan()
        let water = plan.disagreements.filter { $0.location.hasSuffix("SavedHabits[1]") }
        XCTAssertEqual(water.count, 3)
        XCTAssertEqual(water.map(\.text), [
            "userdefaults-dump.json: SavedHabits[1]: \"Drink water\" 2025-09-23: completionStatus says done, completionHistory has no entry, completionTimestamps has none; counted as done (8 of 8)",
            "userdefaults-dump.json: SavedHabits[1]: \"Drink water\" 2025-10-03: completionStatus says done, completionHistory has no entry, completionTimestamps has none; counted as done (8 of 8)",
            "userdefaults-dump.json: SavedHabits[1]: \"Drink water\" 2025-10-08: completionStatus says done, completionHistory has no entry, completionTimestamps has none; counted as done (8 of 8)",
        ])
        // Meditate's three sources agree on every day; the XP lists match the stored total.
        XCTAssertEqual(plan.disagreements.count, 3)
    }

    func testFixtureStoredValues() throws {
        let plan = try fixturePlan()
        XCTAssertEqual(plan.storedXP, 50)
        XCTAssertEqual(plan.storedLevel, 1)
        XCTAssertEqual(plan.storedStreaks, [Self.meditate: 9, Self.water: 7, Self.smoking: 6])
    }

    func testDigestIsStableAndFollowsTheBytes() throws {
        let a = try fixturePlan(), b = try fixturePlan()
        XCTAssertEqual(a.digest, b.digest)
        XCTAssertEqual(a.digest.count, 16)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.dumpPath)))
        XCTAssertEqual(a.digest, ImportSupport.digest([bytes]))
        // A copy reads the same; one more byte of white space gives another digest.
        let copy = try LegacyReader.read(path: try write("copy.json", bytes))
        XCTAssertEqual(copy.digest, a.digest)
        XCTAssertEqual(copy.habits, a.habits)
        let changed = try LegacyReader.read(path: try write("changed.json", bytes + [0x0A]))
        XCTAssertNotEqual(changed.digest, a.digest)
        XCTAssertEqual(changed.habits, a.habits)
    }

    // MARK: Damaged input

    func testTruncatedJSONNamesTheFileAndLine() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.dumpPath)))
        let path = try write("userdefaults-dump.json", Array(bytes.prefix(bytes.count / 2)))
        let message = importError { try LegacyReader.read(path: path) }
        XCTAssertTrue(message.hasPrefix(path + ": line "), message)
        XCTAssertTrue(message.contains("not valid JSON"), message)
        XCTAssertTrue(message.contains("cut short"), message)
        XCTAssertTrue(message.contains("export the legacy app's UserDefaults to JSON again"), message)
    }

    func testSyntaxErrorNamesTheLine() throws {
        let path = try write("bad.json", Array("{\n  \"SavedHabits\": [\n    {\"id\": x}\n  ]\n}\n".utf8))
        let message = importError { try LegacyReader.read(path: path) }
        XCTAssertTrue(message.hasPrefix(path + ": line 3: not valid JSON (invalid value around character "), message)
        let empty = try write("empty.json", Array("  \n".utf8))
        XCTAssertTrue(importError { try LegacyReader.read(path: empty) }.hasPrefix(empty + ": is empty;"))
    }

    func testWrongTypeIsFatalWithKeyPath() throws {
        let path = try fixtureChanging(habit: 1) { $0["name"] = 42 }
        let message = importError { try LegacyReader.read(path: path) }
        XCTAssertTrue(message.hasPrefix(path + ": SavedHabits[1].name: expected a string, found the number 42; "), message)

        let history = try fixtureChanging(habit: 0) { $0["completionHistory"] = [1, 2] }
        XCTAssertTrue(importError { try LegacyReader.read(path: history) }
            .hasPrefix(history + ": SavedHabits[0].completionHistory: expected an object of days, found an array; "))
    }

    func testWrongDayValueIsSkippedWithKeyPath() throws {
        let path = try fixtureChanging(habit: 1) { h in
            var history = h["completionHistory"] as? [String: Any] ?? [:]
            history["2025-09-30"] = "8"
            h["completionHistory"] = history
        }
        let plan = try LegacyReader.read(path: path)
        XCTAssertEqual(plan.skipped.map(\.text),
                       ["changed.json: SavedHabits[1].completionHistory[\"2025-09-30\"]: expected a number, found a string; day left out"])
        XCTAssertEqual(plan.habits.count, 3)
        XCTAssertNil(try habit(plan, Self.water).days[day("2025-09-30")])
        XCTAssertEqual(try habit(plan, Self.water).days.count, 25)
    }

    func testBadDateKeyIsSkippedAndTheRestImported() throws {
        let path = try fixtureChanging(habit: 0) { h in
            var history = h["completionHistory"] as? [String: Any] ?? [:]
            history["2025-13-45"] = 1
            history["yesterday"] = 1
            h["completionHistory"] = history
        }
        let plan = try LegacyReader.read(path: path)
        XCTAssertEqual(plan.skipped.map(\.location), [
            "changed.json: SavedHabits[0].completionHistory[\"2025-13-45\"]",
            "changed.json: SavedHabits[0].completionHistory[\"yesterday\"]",
        ])
        XCTAssertTrue(plan.skipped.allSatisfy { $0.message.hasPrefix("not a date (expected yyyy-MM-dd or an ISO-8601 timestamp") })
        XCTAssertEqual(plan.habits.count, 3)
        XCTAssertEqual(try habit(plan, Self.meditate).days.count, 22)
        XCTAssertEqual(try habit(plan, Self.water).days.count, 25)
        XCTAssertEqual(plan.disagreements.count, 3)
    }

    func testOversizedFileIsRefusedInMegabytes() throws {
        let path = folder + "/huge.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 17 << 20)
        try handle.close()
        let message = importError { try LegacyReader.read(path: path) }
        XCTAssertEqual(message, "\(path): is 17 MB; imports read files of at most 16 MB, so this is not an export of that format")
        XCTAssertTrue(importError { try JSONExportReader.read(path: path) }.contains("17 MB"))
    }

    func testUnknownScheduleBecomesDailyWithADisagreement() throws {
        let path = try fixtureChanging(habit: 0) { $0["schedule"] = "Every Blue Moon" }
        let plan = try LegacyReader.read(path: path)
        XCTAssertEqual(try habit(plan, Self.meditate).fields.schedule, .daily)
        XCTAssertEqual(plan.disagreements.filter { $0.location.hasSuffix("SavedHabits[0].schedule") }.map(\.message),
                       ["\"Every Blue Moon\" not understood; used daily"])
        XCTAssertEqual(plan.disagreements.count, 4)
    }

    func testStructureErrorsAreFatal() throws {
        let array = try write("a.json", json: [1, 2])
        XCTAssertTrue(importError { try LegacyReader.read(path: array) }
            .hasPrefix(array + ": the top level is an array, not an object with SavedHabits"))
        let other = try write("b.json", json: ["something": 1])
        XCTAssertTrue(importError { try LegacyReader.read(path: other) }.contains("has neither SavedHabits nor guest_habits"))
        let notArray = try write("c.json", json: ["SavedHabits": ["id": "x"]])
        XCTAssertTrue(importError { try LegacyReader.read(path: notArray) }
            .hasPrefix(notArray + ": SavedHabits: expected an array of habits, found an object"))
        let notObject = try write("d.json", json: ["SavedHabits": [legacyHabit("a", "A"), "B"]])
        XCTAssertTrue(importError { try LegacyReader.read(path: notObject) }
            .hasPrefix(notObject + ": SavedHabits[1]: expected an object (a habit), found a string"))
        var noID = legacyHabit("a", "A")
        noID["id"] = nil
        XCTAssertTrue(importError { try self.readLegacy([noID]) }.contains(": SavedHabits[0].id: missing;"))
        XCTAssertTrue(importError { try self.readLegacy([self.legacyHabit("a", " \t ")]) }
            .contains(": SavedHabits[0].name: is empty;"))
        XCTAssertTrue(importError { try self.readLegacy([self.legacyHabit("a", "A", ["habitType": "neutral"])]) }
            .contains(": SavedHabits[0].habitType: \"neutral\" not understood; expected \"formation\""))
    }

    // MARK: Mapping rules

    func testSchedules() throws {
        let cases: [(String, Schedule)] = [
            ("Everyday", .daily), ("Daily", .daily), ("Weekdays", .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday])),
            ("Weekends", .weekdays([.saturday, .sunday])), ("Every 3 days", .everyNDays(3)), ("Every 1 days", .daily),
            ("Monday, Wednesday, Friday", .weekdays([.monday, .wednesday, .friday])),
            ("tue, THU", .weekdays([.tuesday, .thursday])), ("3 days a week", .perWeek(3)),
            ("2 times a week", .perWeek(2)), ("4 times per week", .perWeek(4)), ("7 days a week", .daily),
        ]
        let habits = cases.enumerated().map { legacyHabit("s\($0.offset)", "S\($0.offset)", ["schedule": $0.element.0]) }
        let plan = try readLegacy(habits)
        XCTAssertEqual(plan.habits.map(\.fields.schedule), cases.map(\.1))
        XCTAssertEqual(plan.disagreements, [])

        let bad = try readLegacy([legacyHabit("a", "A", ["schedule": "Every 0 days"]),
                                  legacyHabit("b", "B", ["schedule": "3 times a week", "habitType": "breaking", "target": 1]),
                                  legacyHabit("c", "C", ["schedule": 5])])
        XCTAssertEqual(bad.habits.map(\.fields.schedule), [.daily, .daily, .daily])
        XCTAssertEqual(bad.disagreements.map(\.text), [
            "dump.json: SavedHabits[0].schedule: \"Every 0 days\" not understood; used daily",
            "dump.json: SavedHabits[1].schedule: \"3 times a week\" counts per week, which a habit to quit cannot use; used daily",
            "dump.json: SavedHabits[2].schedule: expected a string, found the number 5; used daily",
        ])
    }

    func testGoalsUnitsAndTargets() throws {
        let plan = try readLegacy([
            legacyHabit("a", "Read", ["goal": "20 pages per day"]),
            legacyHabit("b", "Run", ["goal": "30 minutes per day"]),
            legacyHabit("c", "Odd", ["goal": "lots"]),
            legacyHabit("d", "Zero", ["goal": "0 times per day"]),
            legacyHabit("e", "Snack", ["habitType": "breaking", "goal": "5 times per day", "target": 3, "baseline": 6,
                                       "description": "Evening snacks"]),
            legacyHabit("f", "Coffee", ["habitType": "breaking", "goal": "2 cups per day", "target": 0, "baseline": 0]),
        ])
        XCTAssertEqual(plan.habits.map(\.fields.goal), [20, 30, 1, 1, 3, 2].map { $0 * Amount.scale })
        XCTAssertEqual(plan.habits.map(\.fields.unit), ["pages", "minutes", nil, nil, nil, "cups"])
        XCTAssertEqual(plan.habits.map(\.fields.notes), [nil, nil, nil, nil, "Evening snacks\nBaseline before quitting: 6 per day", nil])
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "dump.json: SavedHabits[2].goal: goal \"lots\" not understood (expected a number first, like \"8 times per day\"); used 1 per day",
            "dump.json: SavedHabits[3].goal: goal \"0 times per day\" is out of range (a habit to build needs 1 to 1000000); used 1 per day",
            "dump.json: SavedHabits[4].target: target is 3 but goal \"5 times per day\" says 5; used the target, 3",
        ])
    }

    func testNamesIconsColorsAndDates() throws {
        let long = String(repeating: "x", count: 70)
        let plan = try readLegacy([
            legacyHabit("a", "Tab\there", ["icon": "figure.walk", "color": "chartreuse"]),
            legacyHabit("b", long, ["endDate": "2025-10-05T00:00:00Z", "startDate": "2025-10-01",
                                    "completionHistory": ["2025-09-28": 1, "2025-10-03": 1]]),
        ])
        XCTAssertEqual(plan.habits.map(\.fields.name), ["Tab here", String(repeating: "x", count: 64)])
        XCTAssertEqual(plan.habits.map(\.fields.icon), [nil, nil])
        XCTAssertEqual(plan.habits.map(\.fields.color), [nil, nil])
        XCTAssertEqual(plan.skipped.map(\.location), ["dump.json: SavedHabits[0].icon", "dump.json: SavedHabits[0].color"])
        XCTAssertEqual(plan.habits[1].fields.startDate, day("2025-09-28"))
        XCTAssertEqual(plan.habits[1].fields.archivedFrom, day("2025-10-06"))
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "dump.json: SavedHabits[0].name: \"Tab\u{FFFD}here\" contains control characters; replaced them with spaces",
            "dump.json: SavedHabits[1].name: \"\(String(repeating: "x", count: 70))\" is 70 characters long; cut to the first 64",
            "dump.json: SavedHabits[1].startDate: 2025-10-01 is after the first recorded day, 2025-09-28; the habit starts on 2025-09-28",
        ])
    }

    func testDuplicateDaysRatingsAndIgnoredSources() throws {
        let plan = try readLegacy([
            legacyHabit("a", "Walk", ["goal": "2 times per day",
                                      "completionHistory": ["2025-09-28": 1, "2025-09-28T00:00:00Z": 2, "2025-09-29": 2],
                                      "difficultyHistory": ["2025-09-29": 7, "2025-09-30": 3],
                                      "actualUsage": ["2025-09-29": 4]]),
            legacyHabit("b", "Sugar", ["habitType": "breaking", "goal": "1 time per day",
                                       "actualUsage": ["2025-09-22": 0, "2025-09-23": 0, "2025-09-24": 2],
                                       "difficultyHistory": ["2025-09-23": 4],
                                       "completionHistory": ["2025-09-22": 1]]),
        ])
        let walk = plan.habits[0], sugar = plan.habits[1]
        XCTAssertEqual(walk.days, [day("2025-09-28"): ImportedDay(progress: 2 * Amount.scale), day("2025-09-29"): ImportedDay(progress: 2 * Amount.scale),
                                   day("2025-09-30"): ImportedDay(progress: 0, difficulty: 3)])
        XCTAssertEqual(sugar.days, [day("2025-09-23"): ImportedDay(progress: 0, difficulty: 4),
                                    day("2025-09-24"): ImportedDay(progress: 2 * Amount.scale)])
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "dump.json: SavedHabits[0].completionHistory: \"Walk\" 2025-09-28 is given twice: \"2025-09-28\" has 1, \"2025-09-28T00:00:00Z\" has 2; took 2",
        ])
        XCTAssertEqual(plan.skipped.map(\.text), [
            "dump.json: SavedHabits[0].difficultyHistory[\"2025-09-29\"]: expected a difficulty from 1 to 5, found the number 7; day left out",
            "dump.json: SavedHabits[0].actualUsage: 1 entry ignored: a habit to build records completionHistory",
            "dump.json: SavedHabits[1].completionHistory: 1 entry ignored: a habit to quit records actualUsage",
        ])
    }

    func testGuestHabitsAndXP() throws {
        let plan = try readLegacy([legacyHabit("a", "A", ["streak": 4])],
                                  guests: [legacyHabit("a", "A again"), legacyHabit("g", "Guest", ["streak": 2])],
                                  extra: ["user_progress": ["xpTotal": 50, "level": 2],
                                          "daily_xp_awards": [["xpGranted": 30], ["xpGranted": 10]],
                                          "recent_xp_transactions": [["amount": 50]]])
        XCTAssertEqual(plan.habits.map(\.fields.name), ["A", "Guest"])
        XCTAssertEqual(plan.habits.map(\.location), ["SavedHabits[0]", "guest_habits[1]"])
        XCTAssertEqual(plan.storedStreaks, ["a": 4, "g": 2])
        XCTAssertEqual(plan.storedXP, 50)
        XCTAssertEqual(plan.storedLevel, 2)
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "dump.json: guest_habits[0]: has the same id as SavedHabits[0] (\"a\"); kept SavedHabits[0]",
            "dump.json: daily_xp_awards: daily_xp_awards grant 40 XP, user_progress says 50; neither is imported: Habitto works XP out from the imported days",
        ])
    }

    // MARK: Habitto's own JSON export

    static let exportDocument = """
    {
      "format": "habitto-export",
      "version": 1,
      "habits": [
        {
          "id": "00000000000000a1", "name": "Drink water", "icon": "💧", "color": "blue", "kind": "build",
          "goal": 8, "unit": "glasses", "schedule": "mon,wed,fri", "startDate": "2026-10-01",
          "archivedFrom": null, "notes": "Big glass", "group": "Health",
          "days": [
            {"date": "2026-10-01", "progress": 8, "skipped": false, "difficulty": 3, "note": "easy"},
            {"date": "2026-10-03", "progress": 0, "skipped": true, "difficulty": null}
          ]
        },
        {
          "id": "00000000000000b2", "name": "No sugar", "icon": null, "color": null, "kind": "limit",
          "goal": 0, "unit": null, "schedule": "daily", "startDate": "2026-09-01",
          "archivedFrom": "2026-10-10", "notes": null, "days": []
        }
      ]
    }
    """

    func testJSONExportReadsEveryField() throws {
        let path = try write("export.json", Array(Self.exportDocument.utf8))
        let plan = try JSONExportReader.read(path: path)
        XCTAssertEqual(plan.format, .json)
        XCTAssertEqual(plan.files, [path])
        XCTAssertEqual(plan.digest, ImportSupport.digest([Array(Self.exportDocument.utf8)]))
        XCTAssertEqual(plan.habits.count, 2)
        let water = plan.habits[0], sugar = plan.habits[1]
        XCTAssertEqual(water.id, HabitID("00000000000000a1"))
        XCTAssertEqual(water.sourceKey, "00000000000000a1")
        XCTAssertEqual(water.location, "habits[0]")
        XCTAssertEqual(water.group, "Health")
        XCTAssertEqual(water.fields, HabitFields(name: "Drink water", icon: "💧", color: "blue", kind: .build, goal: 8 * Amount.scale,
                                                 unit: "glasses", schedule: .weekdays([.monday, .wednesday, .friday]),
                                                 startDate: day("2026-10-01"), notes: "Big glass"))
        XCTAssertEqual(water.days, [day("2026-10-01"): ImportedDay(progress: 8 * Amount.scale, difficulty: 3, note: "easy"),
                                    day("2026-10-03"): ImportedDay(progress: 0, skipped: true)])
        XCTAssertEqual(sugar.id, HabitID("00000000000000b2"))
        XCTAssertNil(sugar.group)
        XCTAssertEqual(sugar.fields, HabitFields(name: "No sugar", kind: .limit, goal: 0, startDate: day("2026-09-01"),
                                                 archivedFrom: day("2026-10-10")))
        XCTAssertEqual(sugar.days, [:])
        XCTAssertEqual(plan.skipped, [])
        XCTAssertEqual(plan.disagreements, [])
    }

    /// The state one device's changes make, stamped one after another.
    private func folded(_ changes: [Change], device: DeviceID) -> HabitState {
        var state = HabitState()
        for (i, change) in changes.enumerated() {
            state.apply(HabitOperation(id: OpID(device: device, seq: UInt64(i + 1)),
                                       hlc: HLC(wallMillis: 1_800_000_000_000, counter: UInt32(i)), change: change))
        }
        return state
    }

    func testJSONExportReadsWhatExportWrites() throws {
        let device = try XCTUnwrap(DeviceID("0000000000000000000000000000000d"))
        let id = try XCTUnwrap(HabitID("00000000000000c3"))
        let fields = HabitFields(name: "Read", icon: "📚", goal: 20, unit: "pages", schedule: .everyNDays(2),
                                 startDate: day("2026-10-01"), notes: "Line one\nline two")
        let changes: [Change] = [.create(id, fields), .progress(id, day("2026-10-01"), delta: 25),
                                 .rate(id, day("2026-10-01"), 4), .skip(id, day("2026-10-03"), true)]
        let state = folded(changes, device: device)
        let path = try write("export.json", Array(Export.document(state, today: day("2026-11-21")).serialized().utf8))
        let plan = try JSONExportReader.read(path: path)
        XCTAssertEqual(plan.habits.count, 1)
        XCTAssertEqual(plan.habits.first?.id, id)
        XCTAssertEqual(plan.habits.first?.fields, fields)
        XCTAssertEqual(plan.habits.first?.days, [day("2026-10-01"): ImportedDay(progress: 25, difficulty: 4),
                                                 day("2026-10-03"): ImportedDay(progress: 0, skipped: true)])
    }

    func testJSONExportRefusesAnotherFormatOrVersion() throws {
        let v2 = try write("v2.json", Array(Self.exportDocument.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2").utf8))
        XCTAssertEqual(importError { try JSONExportReader.read(path: v2) },
                       "\(v2): version: expected 1, found 2; it was written by a newer Habitto: update Habitto and import it again")
        let other = try write("other.json", Array(Self.exportDocument.replacingOccurrences(of: "habitto-export", with: "loop").utf8))
        XCTAssertTrue(importError { try JSONExportReader.read(path: other) }
            .hasPrefix("\(other): format: expected \"habitto-export\", found \"loop\", so this is not a Habitto JSON export;"))
        let dump = importError { try JSONExportReader.read(path: Self.dumpPath) }
        XCTAssertTrue(dump.hasPrefix("\(Self.dumpPath): format: expected \"habitto-export\", found no format"), dump)
    }

    func testJSONExportBadValuesNameTheirKeyPath() throws {
        func message(_ from: String, _ to: String) throws -> String {
            let path = try write("bad.json", Array(Self.exportDocument.replacingOccurrences(of: from, with: to).utf8))
            return importError { try JSONExportReader.read(path: path) }
        }
        let goal = try message("\"goal\": 8", "\"goal\": 0")
        XCTAssertTrue(goal.contains(": habits[0].goal: goal 0 is out of range: a build habit needs more than 0 and at most 1000000;"), goal)
        let goalType = try message("\"goal\": 8", "\"goal\": \"8\"")
        XCTAssertTrue(goalType.contains(": habits[0].goal: expected a number with at most three decimals, found \"8\"; "), goalType)
        XCTAssertTrue(try message("00000000000000b2", "00000000000000B2").contains(": habits[1].id: \"00000000000000B2\" is not a habit id"))
        XCTAssertTrue(try message("\"difficulty\": 3", "\"difficulty\": 6")
            .contains(": habits[0].days[0].difficulty: expected a difficulty from 1 to 5 or null, found the number 6"))
        XCTAssertTrue(try message("\"schedule\": \"daily\"", "\"schedule\": \"3/week\"")
            .contains(": habits[1].schedule: a limit habit cannot use an N/week schedule"))
        XCTAssertTrue(try message("\"schedule\": \"mon,wed,fri\"", "\"schedule\": \"sometimes\"")
            .contains(": habits[0].schedule: schedule 'sometimes' not understood"))
        XCTAssertTrue(try message("\"2026-10-03\"", "\"2026-10-01\"").contains(": habits[0].days[1].date: 2026-10-01 is given twice"))
        XCTAssertTrue(try message("\"skipped\": true", "\"skipped\": 1").contains(": habits[0].days[1].skipped: expected true or false, found the number 1"))
        XCTAssertTrue(try message("\"archivedFrom\": \"2026-10-10\"", "\"archivedFrom\": \"2026-08-10\"")
            .contains(": habits[1].archivedFrom: archive date 2026-08-10 is before the start date 2026-09-01"))
        XCTAssertTrue(try message("\"group\": \"Health\"", "\"group\": \"\"").contains(": habits[0].group: group \"\" is not a group name"))
        // As if typed: nothing before the start date or from the archive date on.
        let early = try message("\"2026-10-01\", \"progress\": 8", "\"2026-09-30\", \"progress\": 8")
        XCTAssertTrue(early.contains(": habits[0].days[0].date: 2026-09-30 is before 'Drink water' starts (2026-10-01)"), early)
        let archived = try message("\"days\": []", "\"days\": [{\"date\": \"2026-10-10\", \"progress\": 1, \"skipped\": false}]")
        XCTAssertTrue(archived.contains(": habits[1].days[0].date: 'No sugar' is archived from 2026-10-10"), archived)
        let huge = try message("\"progress\": 8", "\"progress\": 1000001")
        XCTAssertTrue(huge.contains(": habits[0].days[0].progress: expected a number from 0 to 1000000, found 1000001"), huge)
    }

    func testJSONImportOfAFutureCheckInRefusesTheWholeFileButAFutureSkipIsKept() throws {
        let future = try write("future.json", Array(Self.exportDocument.utf8))
        let plan = try JSONExportReader.read(path: future)
        // The document's only day after 2026-10-01 holds a skip: a future skip is fine.
        let (targets, notes) = try Importer.targets(plan, today: day("2026-10-01"))
        XCTAssertEqual(targets[0].days[day("2026-10-03")]?.skipped, true)
        XCTAssertEqual(notes, [])
        let checked = try write("checked.json", Array(Self.exportDocument
            .replacingOccurrences(of: "\"progress\": 0, \"skipped\": true", with: "\"progress\": 2, \"skipped\": false").utf8))
        let message = importError { _ = try Importer.targets(try JSONExportReader.read(path: checked), today: day("2026-10-02")) }
        XCTAssertTrue(message.contains("habits[0]: 2026-10-03 is in the future (today is 2026-10-02)"), message)
        XCTAssertTrue(message.contains("nothing was imported"), message)
    }

    func testExportLeavesOutWhatAMergeKeptOutsideTheHabitsDays() throws {
        // A check-in made before another device moved the start date later, one on a day
        // ahead of today (a device whose clock is ahead), and a skip in the future.
        let device = DeviceID(hi: 1, lo: 2)
        let id = HabitID(value: 0xAB)
        // (Counted, in pages: a yes/no habit's day would read 1.)
        let changes: [Change] = [.create(id, HabitFields(name: "Read", unit: "pages", startDate: day("2026-10-01"))),
                                 .progress(id, day("2026-10-02"), delta: 1), .set(id, .startDate(day("2026-10-05"))),
                                 .progress(id, day("2026-10-06"), delta: 2), .progress(id, day("2026-10-09"), delta: 3),
                                 .rate(id, day("2026-10-09"), 2), .skip(id, day("2026-10-12"), true)]
        let state = folded(changes, device: device)
        let path = try write("merged.json", Array(Export.document(state, today: day("2026-10-08")).serialized().utf8))
        let plan = try JSONExportReader.read(path: path)
        XCTAssertEqual(plan.habits[0].days, [day("2026-10-06"): ImportedDay(progress: 2),
                                             day("2026-10-12"): ImportedDay(progress: 0, skipped: true)])
        XCTAssertNoThrow(try Importer.targets(plan, today: day("2026-10-08")))
    }

    func testAHabitWithNoStartDateCreatedAtOrDayStartsOnTheDayOfTheImport() throws {
        let plan = try readLegacy([
            legacyHabit("a", "Walk", ["startDate": NSNull()]),
            legacyHabit("b", "Run", ["startDate": NSNull(), "endDate": "2025-10-05T00:00:00Z"]),
            legacyHabit("c", "Read"),
        ])
        XCTAssertEqual(plan.habits.map(\.startsOnImportDay), [true, true, false])
        let targets = try Importer.targets(plan, today: day("2026-12-04")).0
        XCTAssertEqual(targets.map(\.fields.startDate), [day("2026-12-04"), day("2026-12-04"), day("2025-09-22")])
        XCTAssertEqual(targets[1].fields.archivedFrom, day("2026-12-04"), "archived from its start: no day of it is missed")
    }
}
