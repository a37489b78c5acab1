import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
import HabitStore
@testable import HabitImport

/// The Loop CSV and harsh readers against the shared fixtures (read as they are) and
/// against broken inputs written into a private temporary folder.
final class ImportReaderTests: XCTestCase {
    /// The shared fixtures, copied unchanged into `Tests/Fixtures`.
    static let fixtures = fixturesDirectory
    static var loopFolder: String { fixtures + "/loop-csv-export" }
    static var harshFolder: String { fixtures + "/harsh" }

    private var temp = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        var template = Array((NSTemporaryDirectory() + "/import-reader-tests-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkdtemp($0) != nil } ?? false }
        XCTAssertTrue(made, "mkdtemp failed")
        temp = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    override func tearDownWithError() throws {
        if !temp.isEmpty { try? FileManager.default.removeItem(atPath: temp) }
        try super.tearDownWithError()
    }

    // MARK: Helpers

    @discardableResult
    private func write(_ relative: String, _ text: String) throws -> String {
        let path = temp + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func day(_ text: String) -> LocalDay {
        guard let day = LocalDay(text) else { XCTFail("bad day \(text)"); return LocalDay(ordinal: 0) }
        return day
    }

    private func habit(_ plan: ImportPlan, _ name: String, file: StaticString = #filePath,
                       line: UInt = #line) throws -> ImportedHabit {
        try XCTUnwrap(plan.habits.first { $0.fields.name == name }, "no habit \(name)", file: file, line: line)
    }

    /// Copies a fixture folder into the temporary folder and returns the copy's path.
    private func copyFixture(_ folder: String) throws -> String {
        let destination = temp + "/" + (folder as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: folder, toPath: destination)
        return destination
    }

    private func run(_ tool: String, _ arguments: [String], in directory: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    private static let loopHeader = "Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?\n"

    // MARK: Loop: the fixture

    func testLoopFixtureHabits() throws {
        let plan = try LoopCSVReader.read(path: Self.loopFolder)
        XCTAssertEqual(plan.format, .loopCSV)
        XCTAssertEqual(plan.habits.map(\.fields.name), ["Meditate", "Wake up early"])
        XCTAssertEqual(plan.habits.map(\.sourceKey), ["001 Meditate", "002 Wake up early"])
        XCTAssertEqual(plan.habits.map(\.location), ["Habits.csv:2", "Habits.csv:3"])
        XCTAssertEqual(plan.files, [Self.loopFolder + "/Habits.csv", Self.loopFolder + "/001 Meditate/Checkmarks.csv",
                                    Self.loopFolder + "/002 Wake up early/Checkmarks.csv"])

        let meditate = try habit(plan, "Meditate")
        XCTAssertEqual(meditate.fields.schedule, .daily)
        XCTAssertEqual(meditate.fields.color, "#FF8F00")
        XCTAssertEqual(meditate.fields.kind, .build)
        XCTAssertEqual(meditate.fields.goal, Amount.scale)
        XCTAssertEqual(meditate.fields.notes, "Did you meditate this morning?")
        XCTAssertNil(meditate.fields.unit)
        XCTAssertNil(meditate.fields.archivedFrom)
        XCTAssertTrue(meditate.days.isEmpty)
        // No rows: it starts on the day of the import, not on a day the export invents.
        XCTAssertTrue(meditate.startsOnImportDay)
        XCTAssertEqual(try Importer.targets(plan, today: day("2026-12-04")).0.first?.fields.startDate, day("2026-12-04"))

        let wake = try habit(plan, "Wake up early")
        XCTAssertEqual(wake.fields.schedule, .perWeek(5)) // 2 in 3 days ≈ 4.67 a week
        XCTAssertEqual(wake.fields.color, "#00897B")
        XCTAssertEqual(wake.fields.notes, "Did you wake up before 6am?")
        XCTAssertEqual(wake.fields.startDate, day("2015-01-16"))
        XCTAssertEqual(plan.disagreements, [ImportNote(location: "Habits.csv:3",
            message: "2 times in 3 days has no exact Habitto schedule; imported as 5/week")])
    }

    func testLoopFixtureDays() throws {
        let plan = try LoopCSVReader.read(path: Self.loopFolder)
        let days = try habit(plan, "Wake up early").days
        XCTAssertEqual(days.count, 9)
        XCTAssertEqual(days[day("2015-01-25")], ImportedDay(progress: 1 * Amount.scale))
        XCTAssertEqual(days[day("2015-01-24")], ImportedDay(progress: 0, note: "Sick"))
        XCTAssertEqual(days[day("2015-01-23")], ImportedDay(progress: 0, note: "Forgot to do it, really"))
        XCTAssertEqual(days[day("2015-01-19")], ImportedDay(progress: 0, note: "\"Vacation\""))
        XCTAssertNil(days[day("2015-01-18")], "YES_AUTO without a note is no entry")
        XCTAssertEqual(days[day("2015-01-16")], ImportedDay(progress: 1 * Amount.scale))
        XCTAssertEqual(days.values.filter { $0.progress == Amount.scale }.count, 6)
        XCTAssertEqual(plan.skipped, [ImportNote(location: "002 Wake up early/Checkmarks.csv",
            message: "3 YES_AUTO days (filled in by Loop from the frequency) not imported as check-ins; Habitto works such days out from the schedule")])
    }

    func testLoopDigestIsStableAndFollowsTheBytes() throws {
        let copy = try copyFixture(Self.loopFolder)
        let first = try LoopCSVReader.read(path: copy)
        let second = try LoopCSVReader.read(path: copy)
        XCTAssertEqual(first.digest, second.digest)
        XCTAssertEqual(first.digest.count, 16)
        XCTAssertEqual(first.digest, try LoopCSVReader.read(path: Self.loopFolder).digest)
        let file = copy + "/002 Wake up early/Checkmarks.csv"
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: file))
        let sick = Array("Sick".utf8)
        let index = try XCTUnwrap(bytes.indices.first { Array(bytes[$0...].prefix(4)) == sick })
        bytes[index] = UInt8(ascii: "T")
        try bytes.write(to: URL(fileURLWithPath: file))
        let changed = try LoopCSVReader.read(path: copy)
        XCTAssertNotEqual(changed.digest, first.digest)
        XCTAssertEqual(try habit(changed, "Wake up early").days[day("2015-01-24")]?.note, "Tick")
    }

    func testLoopAcceptsHabitsCSVItself() throws {
        let plan = try LoopCSVReader.read(path: Self.loopFolder + "/Habits.csv")
        XCTAssertEqual(plan.habits.count, 2)
        XCTAssertEqual(try habit(plan, "Wake up early").days.count, 9)
    }

    func testLoopZipGivesTheSamePlanAsTheFolder() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") else {
            throw zipMissing()
        }
        let folderPlan = try LoopCSVReader.read(path: Self.loopFolder)
        // With the folder at the top of the zip, and with the files at the top.
        let nested = temp + "/nested.zip"
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-r", nested, "loop-csv-export"], in: Self.fixtures), 0)
        let flat = temp + "/flat.zip"
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-r", flat, "."], in: Self.loopFolder), 0)
        for zip in [nested, flat] {
            let plan = try LoopCSVReader.read(path: zip)
            XCTAssertEqual(plan.habits, folderPlan.habits, zip)
            XCTAssertEqual(plan.digest, folderPlan.digest, zip)
            XCTAssertEqual(plan.skipped, folderPlan.skipped, zip)
            XCTAssertEqual(plan.disagreements, folderPlan.disagreements, zip)
            XCTAssertEqual(plan.files.count, 3)
            XCTAssertTrue(plan.files.allSatisfy { $0.hasPrefix(zip + "/") }, "\(plan.files)")
        }
        XCTAssertEqual(try LoopCSVReader.read(path: nested).files.first, nested + "/loop-csv-export/Habits.csv")
    }

    func testLoopZipUnpacksIntoTMPDIRAndRemovesIt() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") else {
            throw zipMissing()
        }
        let zip = temp + "/export.zip"
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-r", zip, "loop-csv-export"], in: Self.fixtures), 0)
        let saved = getenv("TMPDIR").map { String(cString: $0) }
        defer { if let saved { setenv("TMPDIR", saved, 1) } else { unsetenv("TMPDIR") } }
        let scratch = temp + "/scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        setenv("TMPDIR", scratch, 1)
        XCTAssertEqual(try LoopCSVReader.read(path: zip).habits.count, 2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch), [], "the unpacked files are removed")
        // A temporary directory that does not exist: the zip cannot be unpacked, and says so.
        setenv("TMPDIR", temp + "/missing", 1)
        let message = importError { try LoopCSVReader.read(path: zip) }
        XCTAssertTrue(message.contains("cannot make a temporary folder"), message)
    }

    func testLoopZipWithoutUnzipSaysHowToGetIt() throws {
        let message = importError {
            try LoopZip.withUnpacked(temp + "/export.zip", tools: [temp + "/no-unzip"]) { _ in
                XCTFail("nothing can be unpacked without unzip")
                return ImportPlan(format: .loopCSV, files: [], digest: "", habits: [])
            }
        }
        XCTAssertTrue(message.hasPrefix(temp + "/export.zip: reading a zip needs the unzip program"), message)
        XCTAssertTrue(message.contains("apt install unzip"), message)
        XCTAssertTrue(message.contains("unpack the zip yourself"), message)
    }

    func testLoopZipWithASymbolicLinkIsRefused() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") else {
            throw zipMissing()
        }
        let copy = try copyFixture(Self.loopFolder)
        let link = copy + "/001 Meditate/Checkmarks.csv"
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/hostname")
        let zip = temp + "/linked.zip"
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-r", "-y", zip, "."], in: copy), 0)
        let message = importError { try LoopCSVReader.read(path: zip) }
        XCTAssertEqual(message, zip + ": holds a symbolic link (001 Meditate/Checkmarks.csv), which Loop's export never does; unpack it yourself and check it")
    }

    func testAnEncryptedLoopZipIsRefusedWithoutAskingForAPassword() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") else {
            throw zipMissing()
        }
        let saved = getenv("TMPDIR").map { String(cString: $0) }
        defer { if let saved { setenv("TMPDIR", saved, 1) } else { unsetenv("TMPDIR") } }
        let scratch = temp + "/scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        setenv("TMPDIR", scratch, 1)
        // Every file encrypted, and only one of them.
        let all = temp + "/all.zip", one = temp + "/one.zip"
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-r", "-P", "secret", all, "."], in: Self.loopFolder), 0)
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-r", one, "."], in: Self.loopFolder), 0)
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-d", one, "Habits.csv"], in: Self.loopFolder), 0)
        XCTAssertEqual(try run("/usr/bin/zip", ["-q", "-P", "secret", one, "Habits.csv"], in: Self.loopFolder), 0)
        for zip in [all, one] {
            let started = Date()
            let message = importError { try LoopCSVReader.read(path: zip) }
            XCTAssertEqual(message, zip + ": is encrypted (password-protected), which Loop's export never is; habitto does not ask for passwords. Unpack it yourself (unzip asks for the password) and import the folder")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch), [], "nothing unpacked is left behind")
    }

    func testUnzipThatDoesNotFinishIsStoppedAfterTheTimeLimit() throws {
        // A stand-in for unzip that never ends (as unzip waiting for a password did).
        let tool = temp + "/slow-unzip"
        try Data("#!/bin/sh\nexec sleep 300\n".utf8).write(to: URL(fileURLWithPath: tool))
        XCTAssertEqual(chmod(tool, 0o700), 0)
        let zip = try write("export.zip", "PK\u{3}\u{4}")
        let started = Date()
        let message = importError {
            try LoopZip.withUnpacked(zip, tools: [tool], timeLimit: 0.5) { _ in
                XCTFail("nothing was unpacked")
                return ImportPlan(format: .loopCSV, files: [], digest: "", habits: [])
            }
        }
        XCTAssertEqual(message, tool + ": did not finish within 1 second and was stopped; unpack the zip yourself and import the folder")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testUnzipRunsWithoutATerminalOrStandardInput() throws {
        // What the tool sees: a session of its own (no controlling terminal to ask on) and
        // /dev/null as standard input.
        let tool = temp + "/probe"
        try Data("#!/bin/sh\n{ ps -o sid= -p $$; ps -o pid= -p $$; readlink /proc/$$/fd/0; if sh -c \"exec </dev/tty\" 2>/dev/null; then echo tty; else echo no-tty; fi; } 2>/dev/null\n".utf8)
            .write(to: URL(fileURLWithPath: tool))
        XCTAssertEqual(chmod(tool, 0o700), 0)
        let (status, output) = try LoopZip.run(tool, [], timeLimit: 10)
        XCTAssertEqual(status, 0)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(lines.count, 4, "\(lines)")
        XCTAssertEqual(lines.first, lines.dropFirst().first, "it leads a session of its own: \(lines)")
        XCTAssertEqual(lines.dropFirst(2).first, "/dev/null")
        XCTAssertEqual(lines.last, "no-tty")
    }

    func testAHabitsCSVThatIsAFIFOOrAnythingButAFileIsRefusedUnread() throws {
        let copy = try copyFixture(Self.loopFolder)
        try FileManager.default.removeItem(atPath: copy + "/Habits.csv")
        XCTAssertEqual(mkfifo(copy + "/Habits.csv", 0o600), 0)
        // Opening a FIFO to read waits for a writer; nothing is ever written to this one.
        var message = importError { try LoopCSVReader.read(path: copy) }
        XCTAssertEqual(message, copy + "/Habits.csv: is a FIFO (named pipe), not a regular file; it was not read. Give the exported file itself")
        message = importError { try LoopCSVReader.read(path: copy + "/Habits.csv") }
        XCTAssertTrue(message.hasPrefix(copy + "/Habits.csv: "), message)
        // A habit's Checkmarks.csv, and the files of the other formats, alike.
        try FileManager.default.removeItem(atPath: copy + "/Habits.csv")
        try FileManager.default.copyItem(atPath: Self.loopFolder + "/Habits.csv", toPath: copy + "/Habits.csv")
        try FileManager.default.removeItem(atPath: copy + "/001 Meditate/Checkmarks.csv")
        XCTAssertEqual(mkfifo(copy + "/001 Meditate/Checkmarks.csv", 0o600), 0)
        message = importError { try LoopCSVReader.read(path: copy) }
        XCTAssertTrue(message.contains("Checkmarks.csv: is a FIFO (named pipe), not a regular file; it was not read"), message)
        XCTAssertEqual(mkfifo(temp + "/dump.json", 0o600), 0)
        message = importError { try ImportSupport.read(temp + "/dump.json") }
        XCTAssertEqual(message, temp + "/dump.json: is a FIFO (named pipe), not a regular file; it was not read. Give the exported file itself")
        message = importError { try ImportSupport.read("/dev/zero") }
        XCTAssertEqual(message, "/dev/zero: is a device file, not a regular file; it was not read. Give the exported file itself")
    }

    func testLoopZipThatIsNotAZip() throws {
        let path = try write("broken.zip", "PK\u{3}\u{4} not really a zip")
        let message = importError { try LoopCSVReader.read(path: path) }
        XCTAssertTrue(message.hasPrefix(path + ": "), message)
        XCTAssertTrue(message.contains("Loop's export"), message)
    }

    // MARK: Loop: broken and unusual inputs

    func testLoopMissingRequiredColumn() throws {
        try write("export/Habits.csv", "Position,Name,FrequencyNumerator\n001,Walk,1\n")
        let message = importError { try LoopCSVReader.read(path: temp + "/export") }
        XCTAssertTrue(message.hasPrefix("Habits.csv:1: the header has no 'FrequencyDenominator' column"), message)
    }

    func testLoopUnterminatedQuoteNamesItsLine() throws {
        try write("export/Habits.csv", Self.loopHeader + "001,Walk,YES_NO,,,1,1,,,,,false\n002,\"Run,YES_NO,,,1,1,,,,,false\n003,Swim,YES_NO,,,1,1,,,,,false\n")
        let message = importError { try LoopCSVReader.read(path: temp + "/export") }
        XCTAssertTrue(message.hasPrefix("Habits.csv:3: a quoted field starts on this line and never ends"), message)
    }

    func testLoopTextAfterClosingQuote() throws {
        try write("export/Habits.csv", Self.loopHeader + "001,\"Walk\"x,YES_NO,,,1,1,,,,,false\n")
        let message = importError { try LoopCSVReader.read(path: temp + "/export") }
        XCTAssertTrue(message.hasPrefix("Habits.csv:2: text after the closing quote"), message)
    }

    func testLoopBadDatesAndDuplicatesAreSkippedWithLocation() throws {
        try write("export/Habits.csv", Self.loopHeader + "001,Walk,YES_NO,,,1,1,,,,,false\n")
        try write("export/001 Walk/Checkmarks.csv", """
            Date,Value,Notes
            2024-03-02,YES_MANUAL,
            2024-02-30,YES_MANUAL,
            03/01/2024,YES_MANUAL,
            2024-03-02,NO,again
            2024-03-01,MAYBE,
            2024-03-03,2,legacy yes
            2024-03-04,1,
            2024-03-05,3,
            2024-03-06,0,
            2024-03-07,-1,
            """)
        let plan = try LoopCSVReader.read(path: temp + "/export")
        let walk = try habit(plan, "Walk")
        XCTAssertEqual(walk.days, [
            day("2024-03-02"): ImportedDay(progress: 1 * Amount.scale),
            day("2024-03-03"): ImportedDay(progress: 1 * Amount.scale, note: "legacy yes"),
            day("2024-03-05"): ImportedDay(skipped: true),
        ])
        XCTAssertEqual(walk.fields.startDate, day("2024-03-02"))
        XCTAssertEqual(plan.skipped, [
            ImportNote(location: "001 Walk/Checkmarks.csv:3", message: "date '2024-02-30' is not a real yyyy-MM-dd day; row not imported"),
            ImportNote(location: "001 Walk/Checkmarks.csv:4", message: "date '03/01/2024' is not a real yyyy-MM-dd day; row not imported"),
            ImportNote(location: "001 Walk/Checkmarks.csv:6", message: "value 'MAYBE' is not YES_MANUAL, YES_AUTO, NO, SKIP or UNKNOWN; row not imported"),
            ImportNote(location: "001 Walk/Checkmarks.csv", message: "1 YES_AUTO day (filled in by Loop from the frequency) not imported as check-ins; Habitto works such days out from the schedule"),
        ])
        XCTAssertEqual(plan.disagreements, [ImportNote(location: "001 Walk/Checkmarks.csv:5",
            message: "a second row for 2024-03-02 (the first is line 2); kept the first")])
    }

    func testLoopNumericalArchivedAndQuotedFields() throws {
        try write("export/Habits.csv", Self.loopHeader
            + "002,\"Coffee, cups\",NUMERICAL,\"How many \"\"cups\"\"?\",\"Line one\r\nline two\",3,7,#6D4C41,cups,AT_MOST,2.5,true\r\n"
            + "001,Pages,NUMERICAL,,,1,1,bad,pages,AT_LEAST,0,false") // no final line break
        try write("export/002 Coffee, cups/Checkmarks.csv", """
            Date,Value,Notes
            2024-05-03,2500,
            2024-05-02,-1000,
            2024-05-01,abc,
            2024-05-04,0,
            2024-05-05,3000,"late, again"
            """)
        try write("export/001 Pages/Checkmarks.csv", "Date,Value\r\n2024-04-01,12000\r\n")
        let plan = try LoopCSVReader.read(path: temp + "/export")
        XCTAssertEqual(plan.habits.map(\.fields.name), ["Pages", "Coffee, cups"])

        let coffee = try habit(plan, "Coffee, cups")
        XCTAssertEqual(coffee.fields.kind, .limit)
        XCTAssertEqual(coffee.fields.goal, 2_500, "2.5 kept exactly")
        XCTAssertEqual(coffee.fields.schedule, .daily, "a limit habit cannot be 3/week")
        XCTAssertEqual(coffee.fields.unit, "cups")
        XCTAssertEqual(coffee.fields.color, "#6D4C41")
        XCTAssertEqual(coffee.fields.notes, "How many \"cups\"?\nLine one\nline two")
        XCTAssertEqual(coffee.fields.startDate, day("2024-05-03"))
        XCTAssertEqual(coffee.fields.archivedFrom, day("2024-05-06"))
        XCTAssertEqual(coffee.days, [day("2024-05-03"): ImportedDay(progress: 2_500), // Loop's 2500 thousandths, exact
                                     day("2024-05-05"): ImportedDay(progress: 3 * Amount.scale, note: "late, again")])

        let pages = try habit(plan, "Pages")
        XCTAssertEqual(pages.fields.kind, .build)
        XCTAssertEqual(pages.fields.goal, Amount.scale, "AT_LEAST 0 becomes goal 1")
        XCTAssertNil(pages.fields.color)
        XCTAssertEqual(pages.days, [day("2024-04-01"): ImportedDay(progress: 12 * Amount.scale)])

        XCTAssertEqual(plan.skipped.map(\.text), [
            "Habits.csv:4: Color 'bad' is not #RRGGBB; the habit has no colour", // line 2's record spans two lines
            "002 Coffee, cups/Checkmarks.csv:3: value -1000 is negative; row not imported",
            "002 Coffee, cups/Checkmarks.csv:4: value 'abc' is not a whole number (Loop writes amounts in thousandths); row not imported",
        ])
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "Habits.csv:2: a limit habit cannot use the schedule 3/week; imported as daily",
            "Habits.csv:4: Target Value 0 imported as the goal 1",
        ])
    }

    func testLoopMissingFolderLongNameAndDuplicateName() throws {
        let long = String(repeating: "x", count: 70)
        try write("export/Habits.csv", Self.loopHeader
            + "001,Walk,YES_NO,,,1,2,,,,,false\n"
            + "002,walk,YES_NO,,,1,1,,,,,true\n"
            + "003,\(long),YES_NO,,,4,5,,,,,false\n"
            + "x,Bad,YES_NO,,,1,1,,,,,false\n")
        let plan = try LoopCSVReader.read(path: temp + "/export")
        XCTAssertEqual(plan.habits.map(\.fields.name), ["Walk", "walk (2)", String(repeating: "x", count: 64)])
        XCTAssertEqual(plan.habits.map(\.fields.schedule), [.everyNDays(2), .daily, .perWeek(6)])
        XCTAssertEqual(plan.habits.map(\.sourceKey), ["001 Walk", "002 walk", "003 " + long])
        // No rows anywhere: each starts on the day of the import; the archived one is
        // archived from that day, so it has no day at all (none missed).
        XCTAssertEqual(plan.habits.map(\.startsOnImportDay), [true, true, true])
        let targets = try Importer.targets(plan, today: day("2026-12-04")).0
        XCTAssertEqual(targets.map(\.fields.startDate), Array(repeating: day("2026-12-04"), count: 3))
        XCTAssertEqual(targets[1].fields.archivedFrom, day("2026-12-04"))
        XCTAssertNil(targets[0].fields.archivedFrom)
        XCTAssertEqual(plan.skipped.map(\.location), ["Habits.csv:5", "Habits.csv:2", "Habits.csv:3", "Habits.csv:4"])
        XCTAssertTrue(plan.skipped[0].message.hasPrefix("Position 'x' is not a whole number"), plan.skipped[0].message)
        XCTAssertTrue(plan.skipped[1].message.contains("without days"), plan.skipped[1].message)
        XCTAssertEqual(plan.disagreements.map(\.location), ["Habits.csv:3", "Habits.csv:4", "Habits.csv:4"])
    }

    func testLoopFileOver16MB() throws {
        try write("export/Habits.csv", "")
        XCTAssertEqual(truncate(temp + "/export/Habits.csv", off_t(17 << 20)), 0)
        let message = importError { try LoopCSVReader.read(path: temp + "/export") }
        XCTAssertTrue(message.contains("17 MB"), message)
        XCTAssertTrue(message.contains("16 MB"), message)
    }

    func testCSVParserFollowsRFC4180() throws {
        let text = "a,\"b,c\",\"d\"\"e\"\r\n\"multi\nline\",,\n\nlast,\"\""
        let records = try CSV.parse(Array(text.utf8), file: "t.csv")
        XCTAssertEqual(records, [
            CSVRecord(line: 1, fields: ["a", "b,c", "d\"e"]),
            CSVRecord(line: 2, fields: ["multi\nline", "", ""]),
            CSVRecord(line: 5, fields: ["last", ""]),
        ])
        XCTAssertEqual(try CSV.parse(Array("\u{FEFF}x,y\n".utf8), file: "t.csv"), [CSVRecord(line: 1, fields: ["x", "y"])])
        XCTAssertThrowsError(try CSV.parse(Array("ok\nab\"c\n".utf8), file: "t.csv")) { error in
            XCTAssertTrue("\(error)".hasPrefix("t.csv:2: a quote inside a field"), "\(error)")
        }
    }

    // MARK: harsh: the fixture

    func testHarshFixtureHabits() throws {
        let plan = try HarshReader.read(path: Self.harshFolder)
        XCTAssertEqual(plan.format, .harsh)
        XCTAssertEqual(plan.files, [Self.harshFolder + "/habits", Self.harshFolder + "/log"])
        XCTAssertEqual(plan.habits.map(\.fields.name), ["Daily standup", "Code review", "Sprint planning", "Gym", "Running",
                                                        "Water intake", "Sleep tracking", "Reading", "Meditation", "Call family"])
        XCTAssertEqual(plan.habits.map(\.sourceKey), plan.habits.map(\.fields.name))
        XCTAssertEqual(plan.habits.map(\.group), ["Work", "Work", "Work", "Health", "Health", "Health", "Health",
                                                 "Personal", "Personal", "Personal"])
        XCTAssertEqual(plan.habits.map(\.fields.schedule), [.daily, .perWeek(5), .everyNDays(14), .perWeek(3), .perWeek(2),
                                                           .daily, .perWeek(1), .daily, .daily, .everyNDays(7)])
        XCTAssertEqual(plan.habits.map(\.location), ["habits:3", "habits:4", "habits:5", "habits:8", "habits:9",
                                                    "habits:10", "habits:11", "habits:14", "habits:15", "habits:16"])
        XCTAssertTrue(plan.habits.allSatisfy { $0.fields.kind == .build && $0.fields.goal == Amount.scale })
        XCTAssertEqual(plan.disagreements.count, 1)
        XCTAssertEqual(plan.disagreements.first?.location, "habits:11")
        XCTAssertTrue(plan.disagreements.first?.message.contains("tracking only") == true)
        XCTAssertTrue(plan.disagreements.first?.message.contains("habitto edit") == true)
        XCTAssertEqual(plan.skipped, [])
        XCTAssertEqual(try habit(plan, "Call family").fields.startDate, day("2025-01-03"))
        XCTAssertEqual(plan.habits.filter(\.startsOnImportDay).map(\.fields.name), ["Sprint planning"], "no log lines")
        let targets = try Importer.targets(plan, today: day("2026-12-04")).0
        XCTAssertEqual(targets[2].fields.startDate, day("2026-12-04"), "Sprint planning starts on the day of the import")
        XCTAssertEqual(targets[0].fields.startDate, day("2025-01-01"), "Daily standup starts on its first log line")
        XCTAssertEqual(try habit(plan, "Sprint planning").days, [:])
    }

    func testHarshFixtureDays() throws {
        let plan = try HarshReader.read(path: Self.harshFolder)
        XCTAssertEqual(try habit(plan, "Gym").days, [
            day("2025-01-01"): ImportedDay(progress: 1 * Amount.scale, note: "Leg day (amount 1.5)"),
            day("2025-01-02"): ImportedDay(progress: 0, note: "Rest day"),
        ])
        XCTAssertEqual(try habit(plan, "Code review").days[day("2025-01-02")], ImportedDay(skipped: true, note: "Skipped today"))
        XCTAssertEqual(try habit(plan, "Code review").days[day("2025-01-01")], ImportedDay(progress: 1 * Amount.scale, note: "Reviewed 3 PRs (amount 3)"))
        XCTAssertEqual(try habit(plan, "Daily standup").days[day("2025-01-01")], ImportedDay(progress: 1 * Amount.scale, note: "Great meeting"))
        XCTAssertEqual(try habit(plan, "Daily standup").days[day("2025-01-03")], ImportedDay(progress: 0, note: "Missed meeting"))
        XCTAssertEqual(try habit(plan, "Reading").days[day("2025-01-03")], ImportedDay(progress: 1 * Amount.scale, note: "Articles (amount 0.25)"))
        XCTAssertEqual(try habit(plan, "Sleep tracking").days, [day("2025-01-01"): ImportedDay(progress: 1 * Amount.scale, note: "Tracked with app")])
        XCTAssertEqual(plan.habits.reduce(0) { $0 + $1.days.count }, 19)
    }

    func testHarshDigestIsStableAndFollowsTheBytes() throws {
        let copy = try copyFixture(Self.harshFolder)
        let first = try HarshReader.read(path: copy)
        XCTAssertEqual(first.digest, try HarshReader.read(path: copy).digest)
        XCTAssertEqual(first.digest, try HarshReader.read(path: Self.harshFolder).digest)
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: copy + "/log"))
        let index = try XCTUnwrap(bytes.lastIndex(of: UInt8(ascii: "0")))
        bytes[index] = UInt8(ascii: "2")
        try bytes.write(to: URL(fileURLWithPath: copy + "/log"))
        let changed = try HarshReader.read(path: copy)
        XCTAssertNotEqual(changed.digest, first.digest)
        XCTAssertEqual(try habit(changed, "Call family").days[day("2025-01-03")]?.note, "Talked to mom (amount 2)")
    }

    func testHarshAcceptsTheHabitsFileItself() throws {
        let plan = try HarshReader.read(path: Self.harshFolder + "/habits")
        XCTAssertEqual(plan.habits.count, 10)
        XCTAssertEqual(plan.files.last, Self.harshFolder + "/log")
        XCTAssertEqual(try habit(plan, "Gym").days.count, 2)
    }

    // MARK: harsh: broken and unusual inputs

    func testHarshLineWithoutColon() throws {
        try write("harsh/habits", "# habits\nGym 3/7\n")
        let message = importError { try HarshReader.read(path: temp + "/harsh") }
        XCTAssertTrue(message.hasPrefix("habits:2: expected 'Name: frequency'"), message)
    }

    func testHarshBadFrequencyAndDuplicateName() throws {
        try write("harsh/habits", "Gym: 3x\n")
        XCTAssertTrue(importError { try HarshReader.read(path: temp + "/harsh") }.hasPrefix("habits:1: frequency '3x' not understood"))
        try write("harsh/habits", "Gym: 1\n\n! Other\ngym: 2\n")
        let message = importError { try HarshReader.read(path: temp + "/harsh") }
        XCTAssertTrue(message.hasPrefix("habits:4: the habit 'gym' is already defined on habits:1"), message)
    }

    func testHarshHeadingLongerThanAGroupIsCutToOneTheRepositoryAccepts() throws {
        // Found by the fuzzer: a 33–64 character heading passed as a name but not as a group,
        // so the import was planned and then refused when written.
        let heading = String(repeating: "Long heading ", count: 4) // 52 characters
        try write("harsh/habits", "! \(heading)\nGym: 1\n!   \nSwim: 1\n")
        let plan = try HarshReader.read(path: temp + "/harsh")
        let group = try XCTUnwrap(plan.habits.first?.group)
        XCTAssertEqual(group, "Long heading Long heading Long h")
        XCTAssertNoThrow(try Validate.group(group))
        XCTAssertNil(plan.habits.last?.group)
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "habits:1: the heading '\(heading.trimmingCharacters(in: .whitespaces))' is not a valid Habitto group (1–32 characters, no control or invisible characters); used 'Long heading Long heading Long h'",
        ])
    }

    func testHarshFrequenciesAndNames() throws {
        try write("harsh/habits", "Time: 10:30: 3w  \r\nFloss: 7w\nSwim: 2/5\nDaily-ish: 9/7\nYearly: 400\nWeekly: 1/7\n")
        let plan = try HarshReader.read(path: temp + "/harsh")
        XCTAssertEqual(plan.habits.map(\.fields.name), ["Time: 10:30", "Floss", "Swim", "Daily-ish", "Yearly", "Weekly"])
        XCTAssertEqual(plan.habits.map(\.fields.schedule), [.perWeek(3), .daily, .perWeek(3), .daily, .everyNDays(365), .perWeek(1)])
        XCTAssertEqual(plan.habits.map(\.group), [nil, nil, nil, nil, nil, nil])
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "habits:3: 2 times in 5 days has no exact Habitto schedule; imported as 3/week",
            "habits:5: every 400 days is longer than Habitto allows; imported as every:365",
        ])
        XCTAssertEqual(plan.skipped.map(\.location), ["log"], "no log file")
        XCTAssertEqual(plan.files, [temp + "/harsh/habits"])
        XCTAssertTrue(plan.habits.allSatisfy { $0.fields.startDate == LocalDay(ordinal: 0) })
    }

    func testHarshLogProblemsAreSkippedNotFatal() throws {
        try write("harsh/habits", "Gym: 1\nRead: 1\n")
        let longComment = String(repeating: "a", count: 2100)
        try write("harsh/log", """
            # log
            2025-02-01 : Gym : y
            2025-02-30 : Gym : y
            2025-02-02 : Swim : y
            2025-02-02 : Gym : maybe
            2025-02-03:Gym:  n  :  sore
            2025-02-04 : Gym : n :  : 0
            2025-02-05 : Read : s :  : 2
            2025-02-01 : Gym : n
            2025-02-06 : Read : y : a\u{7}b\tc
            2025-02-07 : Read : y : \(longComment)
            2025-02-08 : Read : y : at 10:30 : 1
            """)
        let plan = try HarshReader.read(path: temp + "/harsh")
        XCTAssertEqual(try habit(plan, "Gym").days, [day("2025-02-03"): ImportedDay(progress: 0, note: "sore")],
                       "the later n line on 2025-02-01 replaces the y and, without a note, leaves no entry")
        XCTAssertEqual(try habit(plan, "Gym").fields.startDate, day("2025-02-01"))
        let read = try habit(plan, "Read")
        XCTAssertEqual(read.fields.startDate, day("2025-02-05"))
        XCTAssertEqual(read.days[day("2025-02-05")], ImportedDay(skipped: true, note: "amount 2"))
        XCTAssertEqual(read.days[day("2025-02-06")], ImportedDay(progress: 1 * Amount.scale, note: "ab c"))
        XCTAssertEqual(read.days[day("2025-02-07")]?.note, String(repeating: "a", count: 2000))
        XCTAssertEqual(read.days[day("2025-02-08")], ImportedDay(progress: 1 * Amount.scale, note: "at 10:30 (amount 1)"))
        XCTAssertEqual(plan.skipped.map(\.text), [
            "log:3: date '2025-02-30' is not a real YYYY-MM-DD day; line not imported",
            "log:4: no habit named 'Swim' in the habits file; line not imported",
            "log:5: status 'maybe' is not y, n or s; line not imported",
        ])
        XCTAssertEqual(plan.disagreements.map(\.text), [
            "log:9: a second line for 'Gym' on 2025-02-01 (the first is log:2); kept this later one",
            "log:10: removed 1 control character from the note",
            "log:11: the note is 2100 characters long; kept the first 2000",
        ])
    }

    func testHarshFileOver16MB() throws {
        try write("harsh/habits", "Gym: 1\n")
        try write("harsh/log", "")
        XCTAssertEqual(truncate(temp + "/harsh/log", off_t(20 << 20)), 0)
        let message = importError { try HarshReader.read(path: temp + "/harsh") }
        XCTAssertTrue(message.hasPrefix(temp + "/harsh/log: is 20 MB"), message)
        XCTAssertTrue(message.contains("16 MB"), message)
    }

    func testHarshMissingPath() throws {
        let message = importError { try HarshReader.read(path: temp + "/nothing") }
        XCTAssertTrue(message.hasPrefix(temp + "/nothing: cannot be read"), message)
    }
}

/// Loop's zips are made with the system `zip` here; `.ci/test.sh` installs it, so a missing
/// zip is an error that fails the test, never a skip.
private struct ZipMissing: Error, CustomStringConvertible {
    var description: String { "/usr/bin/zip is not installed; run the suite with 'bash .ci/test.sh', which installs it" }
}

private func zipMissing() -> Error { ZipMissing() }
