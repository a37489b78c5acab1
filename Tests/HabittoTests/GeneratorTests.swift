import Foundation
import XCTest
import HabitCore
@testable import HabittoCLI

/// The completion scripts and the man page are functions of the command table: a command
/// added to the table completes and is documented without editing the generators.
final class GeneratorTests: XCTestCase {
    /// The real table plus a command no release has.
    let table = Specs.all + [
        CommandSpec(name: "frobnicate", arguments: ["HABIT", "up|down"], summary: "Frobnicate a habit.",
                    options: [OptionSpec(name: "--level", value: "LEVEL", help: "how much", completes: .words(["low", "high"])),
                              OptionSpec(name: "--loud", value: nil, help: "say so")]),
    ]

    /// Runs `program` with `arguments` and `input` on standard input; its standard output.
    func run(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { XCTFail("\(program): \(error)", file: file, line: line); return "" }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "habitto-generated-\(UUID().uuidString)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// The bash script's answer for the command line `words` (the last one being completed).
    func bashCompletes(_ script: String, _ words: [String], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let program = "source \(script); COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _habitto; printf '%s\\n' \"${COMPREPLY[@]}\""
        return run("/bin/bash", ["-c", program], file: file, line: line).split(separator: "\n").map(String.init)
    }

    func testANewCommandInTheTableCompletesInBashWithItsOptionsAndValues() throws {
        let script = try write(try XCTUnwrap(Completions.script("bash", specs: table, globals: Specs.globalOptions)))
        XCTAssertEqual(bashCompletes(script, ["habitto", "frob"]), ["frobnicate"])
        XCTAssertEqual(bashCompletes(script, ["habitto", "frobnicate", "--l"]), ["--level", "--loud"])
        XCTAssertEqual(bashCompletes(script, ["habitto", "frobnicate", "--level", "h"]), ["high"])
        XCTAssertEqual(bashCompletes(script, ["habitto", "frobnicate", "Read", "d"]), ["down"])
        // The real script has no such command.
        let real = try write(try XCTUnwrap(Completions.script("bash", specs: Specs.all, globals: Specs.globalOptions)))
        XCTAssertEqual(bashCompletes(real, ["habitto", "frob"]), [])
    }

    func testANewCommandInTheTableIsInTheZshAndFishScriptsAndTheManPage() throws {
        let zsh = try XCTUnwrap(Completions.script("zsh", specs: table, globals: Specs.globalOptions))
        XCTAssertTrue(zsh.contains("'frobnicate:Frobnicate a habit.'"), zsh)
        XCTAssertTrue(zsh.contains("frobnicate/--level) REPLY='w:low high';;"), zsh)
        let fish = try XCTUnwrap(Completions.script("fish", specs: table, globals: Specs.globalOptions))
        XCTAssertTrue(fish.contains("complete -c habitto -n '__fish_seen_subcommand_from frobnicate' -l level -x -a 'low high' -d 'how much'"), fish)
        let man = ManPage.render(table)
        XCTAssertTrue(man.contains(".TP\n\\fBhabitto frobnicate\\fR \\fIHABIT\\fR \\fIup|down\\fR [\\fIOPTIONS\\fR]\nFrobnicate a habit.\n"), man)
        XCTAssertTrue(man.contains("\\fB\\-\\-level\\fR \\fILEVEL\\fR\nhow much\n"), man)
    }

    func testHiddenCommandsAreLeftOutOfTheScriptsTheManPageAndTheHelp() throws {
        let bash = try XCTUnwrap(Completions.script("bash", specs: Specs.all, globals: Specs.globalOptions))
        XCTAssertFalse(bash.contains("__man"))
        XCTAssertFalse(ManPage.render(Specs.all).contains("__complete"))
        XCTAssertFalse(Specs.overview.contains("__complete"))
        XCTAssertNil(Completions.script("tcsh", specs: Specs.all, globals: Specs.globalOptions))
    }

    func testArgumentPlaceholdersImplyWhatTheyComplete() {
        XCTAssertEqual(ValueKind.of(placeholder: "HABIT"), .habit)
        XCTAssertEqual(ValueKind.of(placeholder: "PATH"), .file)
        XCTAssertEqual(ValueKind.of(placeholder: "set|show"), .words(["set", "show"]))
        XCTAssertEqual(ValueKind.of(placeholder: "1-5|clear"), .words(["1", "2", "3", "4", "5", "clear"]))
        XCTAssertEqual(ValueKind.of(placeholder: "TEXT|clear"), .words(["clear"]))
        XCTAssertEqual(ValueKind.of(placeholder: "NAME"), .free)
    }

    func testTheSegmentFormatExpandsEveryPlaceholderAndRefusesUnknownOnes() throws {
        let v = Segment.Values(done: 3, due: 5, queue: 2, failed: true)
        XCTAssertEqual(try Segment.render("%g%d/%t%S", v, glyphs: .unicode), "✓3/5 ↑2!")
        XCTAssertEqual(try Segment.render("%d|%t|%q|%s|%%", v, glyphs: .ascii), "3|5|2|!|%")
        XCTAssertEqual(try Segment.render("%g%d/%t%S", Segment.Values(done: 1, due: 2), glyphs: .ascii), "+1/2")
        XCTAssertEqual(try Segment.render("[%s%q]", Segment.Values(done: 0, due: 0, queue: 0), glyphs: .unicode), "[✓0]")
        XCTAssertThrowsError(try Segment.render("%d%y", v, glyphs: .unicode)) { e in
            XCTAssertEqual((e as? CLIError)?.code, ExitCode.usage.rawValue)
        }
        XCTAssertThrowsError(try Segment.render("50%", v, glyphs: .unicode))
    }
}

/// "Today" through the C library agrees with Foundation's calendar in every time zone.
final class TodayThroughTheCLibraryTests: XCTestCase {
    func testTheCLibrarysLocalDayIsFoundationsInSeveralZonesAndAroundTheDayStart() throws {
        let base = Date(timeIntervalSince1970: 1_795_000_000) // 2026-11-18
        try inEachZone(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Kiritimati", "Pacific/Pago_Pago"]) { zone in
            let tz = try XCTUnwrap(TimeZone(identifier: zone))
            // Every 37 minutes over 200 days (two DST changes in the northern zones).
            for step in stride(from: 0, to: 200 * 24 * 60, by: 37) {
                let instant = base.addingTimeInterval(Double(step) * 60)
                for hour in [0, 4] {
                    XCTAssertEqual(AppEnvironment.localDay(instant, dayStartHour: hour),
                                   LocalDay.containing(instant, in: tz, dayStartHour: hour), "\(zone) \(instant) from \(hour):00")
                }
            }
        }
    }
}

/// HABITTO_NOW read through the C library gives the instants Foundation's calendar gives.
final class NowThroughTheCLibraryTests: XCTestCase {
    func testLocalAndZonedTimesAreTheCalendarsInSeveralZones() throws {
        try inEachZone(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]) { zone in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try XCTUnwrap(TimeZone(identifier: zone))
            for (text, components) in [("2026-11-21T09:30:00", (2026, 11, 21, 9, 30)), ("2026-07-01 23:59", (2026, 7, 1, 23, 59)),
                                       ("2026-03-29T12:00:00", (2026, 3, 29, 12, 0)), ("2026-01-01", (2026, 1, 1, 0, 0))] {
                let expected = calendar.date(from: DateComponents(year: components.0, month: components.1, day: components.2,
                                                                  hour: components.3, minute: components.4))
                XCTAssertEqual(AppEnvironment.parseNow(text), expected, "\(zone) \(text)")
            }
            XCTAssertEqual(AppEnvironment.parseNow("2026-11-21T09:30:00Z"), Date(timeIntervalSince1970: 1_795_253_400))
            XCTAssertEqual(AppEnvironment.parseNow("2026-11-21T11:30:00+02:00"), Date(timeIntervalSince1970: 1_795_253_400))
            XCTAssertEqual(AppEnvironment.parseNow("2026-11-21T09:30:00.250Z"), Date(timeIntervalSince1970: 1_795_253_400.25))
            XCTAssertNil(AppEnvironment.parseNow("2026-11-21T25:00"))
        }
    }
}

/// A reminder's instant through the C library is the one Foundation's calendar gives, on
/// ordinary days and on the nights clocks change (a skipped time is taken as after the jump).
final class ReminderInstantThroughTheCLibraryTests: XCTestCase {
    func testLocalInstantsAreTheCalendarsIncludingDaylightSavingChanges() throws {
        try inEachZone(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]) { zone in
            let calendarInstant = Reminders.calendarInstant(try XCTUnwrap(TimeZone(identifier: zone)))
            let days = ["2026-03-08", "2026-03-29", "2026-04-05", "2026-10-04", "2026-10-25", "2026-11-01", "2026-11-27"]
            for text in days {
                let day = try XCTUnwrap(LocalDay(text))
                for minutes in stride(from: 0, to: 24 * 60, by: 10) {
                    XCTAssertEqual(AppEnvironment.localInstant(day, minutes), calendarInstant(day, minutes), "\(zone) \(text) \(minutes) min")
                }
            }
        }
    }
}

/// Runs `body` with the process's TZ set to each of `zones` in turn, then restores it.
func inEachZone(_ zones: [String], _ body: (String) throws -> Void) rethrows {
    let saved = ProcessInfo.processInfo.environment["TZ"]
    defer {
        if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
        tzset()
    }
    for zone in zones {
        setenv("TZ", zone, 1)
        tzset()
        try body(zone)
    }
}
