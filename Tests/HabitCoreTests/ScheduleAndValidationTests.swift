import Foundation
import XCTest
import HabitCore

final class ScheduleTests: XCTestCase {
    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Schedule? {
        do { return try Schedule(parsing: text) } catch {
            XCTFail("'\(text)' did not parse: \(error)", file: file, line: line)
            return nil
        }
    }

    private func assertRejected(_ text: String, mentioning words: [String] = [],
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Schedule(parsing: text), "'\(text)' must be rejected", file: file, line: line) { error in
            guard let message = (error as? CoreError)?.description else {
                return XCTFail("unexpected error \(error)", file: file, line: line)
            }
            switch error as? CoreError {
            case .scheduleNumber?, .scheduleNotUnderstood?: break
            default: XCTFail("not a schedule's refusal: \(error)", file: file, line: line)
            }
            for w in words {
                XCTAssertTrue(message.contains(w), "message '\(message)' should mention '\(w)'", file: file, line: line)
            }
        }
    }

    func testParsesEveryDocumentedScheduleForm() {
        XCTAssertEqual(parse("daily"), .daily)
        XCTAssertEqual(parse("weekdays"), .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]))
        XCTAssertEqual(parse("weekends"), .weekdays([.saturday, .sunday]))
        XCTAssertEqual(parse("mon,wed,fri"), .weekdays([.monday, .wednesday, .friday]))
        XCTAssertEqual(parse("every:3"), .everyNDays(3))
        XCTAssertEqual(parse("3/week"), .perWeek(3))
        XCTAssertEqual(parse("1/week"), .perWeek(1))
        XCTAssertEqual(parse("every:365"), .everyNDays(365))
    }

    func testParsingIgnoresCaseSurroundingSpaceAndSpacesAfterCommas() {
        XCTAssertEqual(parse("  Daily "), .daily)
        XCTAssertEqual(parse("Mon, Wed ,FRI"), .weekdays([.monday, .wednesday, .friday]))
        XCTAssertEqual(parse("tuesday,thursday"), .weekdays([.tuesday, .thursday]))
        XCTAssertEqual(parse("EVERY:2"), .everyNDays(2))
    }

    func testEquivalentFormsCanonicaliseToDaily() {
        XCTAssertEqual(parse("every:1"), .daily)
        XCTAssertEqual(parse("7/week"), .daily)
        XCTAssertEqual(parse("mon,tue,wed,thu,fri,sat,sun"), .daily)
        XCTAssertEqual(parse("mon,tue,wed,thu,fri")?.description, "weekdays")
        XCTAssertEqual(parse("sat,sun")?.description, "weekends")
    }

    func testASevenPerWeekHabitIsDailyAndCountsItsStreakInDays() {
        var w = World()
        let monday = LocalDay(year: 2026, month: 3, day: 2)!
        let h = w.build(start: monday, schedule: parse("7/week") ?? .perWeek(7))
        w.progress(h, days: days(from: monday, count: 3))
        let s = w.state.summary(h, on: monday.adding(2), today: monday.adding(2))
        XCTAssertEqual(s.streakUnit, "days")
        XCTAssertEqual(s.streak, 3)
    }

    func testRejectsOutOfRangeCountsAndUnknownWordsWithAHelpfulMessage() {
        assertRejected("every:0", mentioning: ["every:0"])
        assertRejected("every:-2")
        assertRejected("every:366")
        assertRejected("every:x")
        assertRejected("every:")
        assertRejected("8/week", mentioning: ["8/week", "1 to 7"])
        assertRejected("0/week")
        assertRejected("/week")
        assertRejected("fortnightly", mentioning: ["fortnightly", "daily", "3/week"])
        assertRejected("")
        assertRejected("mon,,fri")
        assertRejected("mon,funday")
        assertRejected("mon;wed")
    }

    func testCanonicalDescriptionReadsBackAsTheSameSchedule() {
        XCTAssertEqual(Schedule.daily.description, "daily")
        XCTAssertEqual(Schedule.weekdays([.friday, .monday, .wednesday]).description, "mon,wed,fri")
        XCTAssertEqual(Schedule.weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]).description, "weekdays")
        XCTAssertEqual(Schedule.weekdays([.sunday, .saturday]).description, "weekends")
        XCTAssertEqual(Schedule.everyNDays(3).description, "every:3")
        XCTAssertEqual(Schedule.perWeek(3).description, "3/week")

        var all: [Schedule] = [.daily]
        all += (2...365).map { .everyNDays($0) }
        all += (1...6).map { .perWeek($0) }
        for mask in 1..<127 { // every non-empty set of weekdays except all seven (which is daily)
            all.append(.weekdays(Set(Weekday.allCases.filter { mask & (1 << ($0.rawValue - 1)) != 0 })))
        }
        for s in all { XCTAssertEqual(try? Schedule(parsing: s.description), s, s.description) }
    }

    func testFrequencyIsTimesPerNumberOfDays() {
        XCTAssertTrue(Schedule.daily.frequency == (1, 1))
        XCTAssertTrue(Schedule.weekdays([.monday, .friday]).frequency == (2, 7))
        XCTAssertTrue(Schedule.everyNDays(3).frequency == (1, 3))
        XCTAssertTrue(Schedule.perWeek(4).frequency == (4, 7))
        XCTAssertTrue(Schedule.perWeek(2).isWeekly)
        XCTAssertFalse(Schedule.weekdays([.monday]).isWeekly)
    }

    func testScheduledDaysFollowWeekdaysAndEveryNFromTheStartDate() {
        let start = day("2026-03-02") // Monday
        let mwf = Habit(id: habitID(1), fields: HabitFields(name: "Gym", schedule: .weekdays([.monday, .wednesday, .friday]),
                                                           startDate: start))
        XCTAssertEqual(days(from: start, count: 7).map { mwf.isScheduledDay($0) },
                       [true, false, true, false, true, false, false])
        let every3 = Habit(id: habitID(2), fields: HabitFields(name: "Plants", schedule: .everyNDays(3), startDate: start))
        XCTAssertEqual(days(from: start, count: 8).map { every3.isScheduledDay($0) },
                       [true, false, false, true, false, false, true, false])
        XCTAssertTrue(every3.isScheduledDay(start.adding(-3)))
        XCTAssertFalse(every3.isScheduledDay(start.adding(-1)))
    }
}

final class ValidationTests: XCTestCase {
    private func assertInvalidName(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Validate.name(name), "name \(name.debugDescription) must be rejected",
                             file: file, line: line) { error in
            XCTAssertTrue(error is CoreError, "unexpected error \(error)", file: file, line: line)
        }
    }

    private func fields(_ name: String = "Read", kind: HabitKind = .build, goal: Int = 1,
                        schedule: Schedule = .daily) -> HabitFields {
        HabitFields(name: name, kind: kind, goal: goal, schedule: schedule, startDate: day("2026-03-02"))
    }

    func testNamesOfOneToSixtyFourCharactersAreAccepted() {
        XCTAssertNoThrow(try Validate.name("R"))
        XCTAssertNoThrow(try Validate.name("Read 20 pages"))
        XCTAssertNoThrow(try Validate.name(String(repeating: "x", count: 64)))
        XCTAssertNoThrow(try Validate.name("Läsa böcker — 読書"))
    }

    func testEmptyBlankAndOverlongNamesAreRejected() {
        assertInvalidName("")
        assertInvalidName("   ")
        assertInvalidName(String(repeating: "x", count: 65))
        assertInvalidName(" Read")
        assertInvalidName("Read ")
    }

    func testEmojiNamesAreAcceptedAndCountedAsCharacters() {
        XCTAssertNoThrow(try Validate.name("🏃 Run"))
        XCTAssertNoThrow(try Validate.name("👨‍👩‍👧‍👦"))
        XCTAssertNoThrow(try Validate.name("🇸🇪🇯🇵"))
        XCTAssertNoThrow(try Validate.name(String(repeating: "🧘", count: 64)))
        assertInvalidName(String(repeating: "🧘", count: 65))
    }

    func testNamesWithControlCharactersAreRejectedNotStripped() {
        assertInvalidName("Read\u{1B}[31m")
        assertInvalidName("\u{7}")
        assertInvalidName("a\nb")
        assertInvalidName("a\rb")
        assertInvalidName("a\tb")
        assertInvalidName("a\u{0}b")
        assertInvalidName("a\u{7F}b")
        assertInvalidName("a\u{9B}b") // C1 CSI
        assertInvalidName("evil\u{202E}txt.exe") // right-to-left override
        assertInvalidName("a\u{2066}b") // left-to-right isolate
        assertInvalidName("a\u{2028}b") // line separator
        // Nothing is silently repaired: the text that was given is exactly what is judged.
        XCTAssertThrowsError(try fields("Read\u{1B}[31m").validate())
    }

    func testNamesWithInvisibleOrBlankLookingCharactersAreRejected() {
        for scalar: UInt32 in [0x200B, 0x200E, 0x200F, 0x061C, 0xFEFF, 0x00AD, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064,
                               0x180E, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0xE0001, 0xE0041] {
            let u = String(Unicode.Scalar(scalar)!)
            assertInvalidName(u)
            assertInvalidName("Read" + u)
            assertInvalidName("Re" + u + "ad")
            XCTAssertThrowsError(try Validate.name("Re" + u + "ad")) { error in
                let code = String(scalar, radix: 16, uppercase: true)
                let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
                XCTAssertEqual("\(error)", "habit name contains an invisible character (U+\(padded)): remove it")
            }
        }
        // Joiners and variation selectors with nothing visible to attach to.
        assertInvalidName("\u{200D}")
        assertInvalidName("Read\u{200D}")
        assertInvalidName("\u{200D}Read")
        assertInvalidName("Read \u{200C}now")
        assertInvalidName("\u{FE0F}")
        assertInvalidName("\u{FE0F}Read")
        assertInvalidName("Read \u{FE0F}")
        // Tag characters outside an emoji flag, or a flag sequence left open.
        assertInvalidName("Read\u{E0067}\u{E0062}\u{E007F}")
        assertInvalidName("\u{1F3F4}\u{E0067}\u{E0062}")
        // The same rule holds for the other labels.
        XCTAssertThrowsError(try Validate.icon("\u{3164}"))
        XCTAssertThrowsError(try Validate.unit("pa\u{200B}ges"))
        XCTAssertThrowsError(try Validate.group("\u{2800}"))
    }

    func testVisibleTextThatUsesJoinersAndSelectorsIsAccepted() {
        XCTAssertNoThrow(try Validate.name("👨‍👩‍👧 family time"))         // ZWJ between emoji
        XCTAssertNoThrow(try Validate.name("🏳️‍🌈 pride"))                // selector, then ZWJ
        XCTAssertNoThrow(try Validate.name("👩🏽‍💻 code"))                // skin tone, then ZWJ
        XCTAssertNoThrow(try Validate.name("❤️ cardio"))                  // emoji presentation selector
        XCTAssertNoThrow(try Validate.name("می\u{200C}خواهم"))           // Persian ZWNJ between letters
        XCTAssertNoThrow(try Validate.name("\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} tea")) // England flag
        XCTAssertNoThrow(try Validate.icon("❤️"))
        XCTAssertEqual(Sanitize.removingInvisible("\u{200B}Re\u{200E}ad\u{FEFF}"), "Read")
        XCTAssertEqual(Sanitize.removingInvisible("👨‍👩‍👧\u{200D}"), "👨‍👩‍👧")
    }

    func testControlCharacterMessageNamesTheOffendingCodePoint() {
        XCTAssertThrowsError(try Validate.name("Read\u{1B}[31m")) { error in
            XCTAssertTrue("\(error)".contains("U+001B"), "\(error)")
        }
        XCTAssertThrowsError(try Validate.name("x\u{202E}y")) { error in
            XCTAssertTrue("\(error)".contains("U+202E"), "\(error)")
        }
    }

    func testSanitizeReplacesForbiddenScalarsForDisplay() {
        XCTAssertEqual(Sanitize.display("Read\u{1B}[31m"), "Read\u{FFFD}[31m")
        XCTAssertEqual(Sanitize.display("plain 🙂"), "plain 🙂")
    }

    func testGoalRangesDependOnKind() {
        XCTAssertNoThrow(try Validate.goal(1, kind: .build))
        XCTAssertNoThrow(try Validate.goal(Limits.maxGoal, kind: .build))
        XCTAssertThrowsError(try Validate.goal(0, kind: .build))
        XCTAssertThrowsError(try Validate.goal(-1, kind: .build))
        XCTAssertThrowsError(try Validate.goal(Limits.maxGoal + 1, kind: .build))
        XCTAssertNoThrow(try Validate.goal(0, kind: .limit))
        XCTAssertNoThrow(try Validate.goal(Limits.maxGoal, kind: .limit))
        XCTAssertThrowsError(try Validate.goal(-1, kind: .limit))
        XCTAssertThrowsError(try Validate.goal(Limits.maxGoal + 1, kind: .limit))
    }

    func testLimitHabitsCannotUseAPerWeekSchedule() {
        XCTAssertThrowsError(try fields(kind: .limit, goal: 2, schedule: .perWeek(3)).validate())
        XCTAssertNoThrow(try fields(kind: .limit, goal: 2, schedule: .weekdays([.monday])).validate())
        XCTAssertNoThrow(try fields(kind: .build, goal: 2, schedule: .perWeek(3)).validate())
    }

    func testOtherFieldsAreCheckedToo() {
        var f = fields()
        f.icon = "📚"; f.color = "#12abEF"; f.unit = "pages"; f.notes = "line one\nline two"
        XCTAssertNoThrow(try f.validate())
        f.icon = "ab"; XCTAssertThrowsError(try f.validate()); f.icon = "📚"
        f.color = "mauve"; XCTAssertThrowsError(try f.validate()); f.color = "blue"
        f.unit = ""; XCTAssertThrowsError(try f.validate()); f.unit = "pages"
        f.notes = "bell\u{7}"; XCTAssertThrowsError(try f.validate()); f.notes = nil
        f.archivedFrom = day("2026-03-01"); XCTAssertThrowsError(try f.validate())
        f.archivedFrom = day("2026-03-02"); XCTAssertNoThrow(try f.validate())
    }

    func testIdentifiersAcceptOnlyLowerCaseHexOfTheRightLength() {
        XCTAssertNotNil(HabitID("0123456789abcdef"))
        XCTAssertNil(HabitID("0123456789ABCDEF"))
        XCTAssertNil(HabitID("0123456789abcde"))
        XCTAssertNil(HabitID("0123456789abcdeg"))
        XCTAssertNotNil(DeviceID(String(repeating: "a", count: 32)))
        XCTAssertNil(DeviceID(String(repeating: "a", count: 31)))
        var rng = SplitMix64(seed: 1)
        let a = HabitID.random(using: &rng), b = HabitID.random(using: &rng)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a.rawValue.count, 16)
        XCTAssertEqual(DeviceID.random(using: &rng).rawValue.count, 32)
    }
}
