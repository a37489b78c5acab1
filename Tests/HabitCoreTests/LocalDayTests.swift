import Foundation
import XCTest
import HabitCore

final class LocalDayTests: XCTestCase {
    private func zone(_ identifier: String, file: StaticString = #filePath, line: UInt = #line) throws -> TimeZone {
        try XCTUnwrap(TimeZone(identifier: identifier), "time zone \(identifier) is missing", file: file, line: line)
    }

    /// An instant written as an ISO 8601 UTC timestamp.
    private func instant(_ iso: String, file: StaticString = #filePath, line: UInt = #line) throws -> Date {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return try XCTUnwrap(f.date(from: iso), "bad timestamp \(iso)", file: file, line: line)
    }

    private func assertDay(_ iso: String, _ zoneID: String, dayStartHour: Int = 0, is expected: String,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let got = LocalDay.containing(try instant(iso, file: file, line: line),
                                      in: try zone(zoneID, file: file, line: line), dayStartHour: dayStartHour)
        XCTAssertEqual(got.description, expected, "\(iso) in \(zoneID) (day starts \(dayStartHour):00)",
                       file: file, line: line)
    }

    // MARK: Parsing

    func testParsingAcceptsStrictKeysIncludingLeapDaysAndTheRangeEnds() {
        for key in ["2026-03-02", "2024-02-29", "2000-02-29", "1900-01-01", "9999-12-31", "2026-12-31"] {
            XCTAssertEqual(LocalDay(key)?.description, key, key)
        }
        XCTAssertEqual(LocalDay("1970-01-01")?.ordinal, 0)
        XCTAssertEqual(LocalDay("1970-01-02")?.ordinal, 1)
        XCTAssertEqual(LocalDay("1969-12-31")?.ordinal, -1)
    }

    func testParsingRejectsImpossibleDatesLooseFormatsAndYearsBefore1900() {
        let bad = [
            "2026-02-30", "2026-02-29", "1900-02-29", "2100-02-29", "2026-04-31", "2026-13-01", "2026-00-10",
            "2026-01-00", "2026-01-32", "2026-1-01", "2026-01-1", "26-01-01", "1899-12-31", "0001-01-01",
            "2026/01/01", "2026-01-01 ", " 2026-01-01", "2026-01-01T00:00", "", "2026-0a-01", "+026-01-01",
            "-026-01-01", "2026--1-01", "２０２６-01-01", "20260101", "2026-01-01\n",
        ]
        for key in bad { XCTAssertNil(LocalDay(key), "'\(key)' must be rejected") }
    }

    func testComponentInitialiserRejectsDaysThatDoNotExist() {
        XCTAssertNil(LocalDay(year: 2026, month: 2, day: 29))
        XCTAssertNil(LocalDay(year: 2026, month: 0, day: 1))
        XCTAssertNil(LocalDay(year: 2026, month: 13, day: 1))
        XCTAssertNil(LocalDay(year: 2026, month: 6, day: 0))
        XCTAssertNotNil(LocalDay(year: 2028, month: 2, day: 29))
    }

    // MARK: Calendar arithmetic

    func testRoundTripThroughKeyAndComponentsOverTheWholeSupportedRange() {
        var d = LocalDay.earliest
        var checked = 0
        while d <= LocalDay.latest {
            let key = d.description
            XCTAssertEqual(LocalDay(key), d, "key \(key) does not parse back")
            let c = d.components
            XCTAssertEqual(LocalDay(year: c.year, month: c.month, day: c.day), d, key)
            checked += 1
            d = d.adding(97)
        }
        XCTAssertGreaterThan(checked, 30_000)
        XCTAssertEqual(LocalDay.earliest.description, "1900-01-01")
        XCTAssertEqual(LocalDay.latest.description, "9999-12-31")
    }

    func testConsecutiveDaysStepThroughTheCalendarWithoutGapsFrom1999To2101() {
        var d = day("1999-01-01")
        var previous = d.components
        while d < day("2101-01-01") {
            let next = d.adding(1)
            let c = next.components
            if c.day == 1 {
                XCTAssertTrue(c.month == previous.month + 1 && c.year == previous.year
                              || (c.month == 1 && previous.month == 12 && c.year == previous.year + 1),
                              "\(d) -> \(next)")
            } else {
                XCTAssertEqual(c.day, previous.day + 1, "\(d) -> \(next)")
                XCTAssertEqual(c.month, previous.month)
            }
            XCTAssertEqual(next.weekday.rawValue, d.weekday.rawValue % 7 + 1, "weekday after \(d)")
            previous = c
            d = next
        }
    }

    func testDaysAgreeWithFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try zone("UTC")
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let ordinal = Int.random(in: LocalDay.earliest.ordinal...LocalDay.latest.ordinal, using: &rng)
            let d = LocalDay(ordinal: ordinal)
            let c = calendar.dateComponents([.year, .month, .day, .weekday],
                                            from: Date(timeIntervalSince1970: Double(ordinal) * 86_400))
            XCTAssertEqual(d.components.year, c.year, "\(d)")
            XCTAssertEqual(d.components.month, c.month, "\(d)")
            XCTAssertEqual(d.components.day, c.day, "\(d)")
            // Foundation: Sunday = 1 … Saturday = 7; ISO: Monday = 1 … Sunday = 7.
            XCTAssertEqual(d.weekday.rawValue, (c.weekday! + 5) % 7 + 1, "\(d)")
        }
    }

    func testWeekdayOfKnownDates() {
        XCTAssertEqual(day("1970-01-01").weekday, .thursday)
        XCTAssertEqual(day("1900-01-01").weekday, .monday)
        XCTAssertEqual(day("2000-01-01").weekday, .saturday)
        XCTAssertEqual(day("2026-03-02").weekday, .monday)
        XCTAssertEqual(day("2026-03-08").weekday, .sunday)
        XCTAssertEqual(day("9999-12-31").weekday, .friday)
        XCTAssertEqual(day("1969-12-29").weekday, .monday)
    }

    func testStartOfWeekHonoursTheChosenFirstWeekday() {
        XCTAssertEqual(day("2026-03-05").startOfWeek(.monday), day("2026-03-02"))
        XCTAssertEqual(day("2026-03-05").startOfWeek(.sunday), day("2026-03-01"))
        XCTAssertEqual(day("2026-03-08").startOfWeek(.monday), day("2026-03-02"))
        XCTAssertEqual(day("2026-03-08").startOfWeek(.sunday), day("2026-03-08"))
        XCTAssertEqual(day("2026-03-02").startOfWeek(.monday), day("2026-03-02"))
        XCTAssertEqual(day("2026-03-02").startOfWeek(.saturday), day("2026-02-28"))
    }

    func testAddingAndDistanceAreInverse() {
        let a = day("2026-02-27")
        XCTAssertEqual(a.adding(2), day("2026-03-01"))
        XCTAssertEqual(a.adding(-58), day("2025-12-31"))
        XCTAssertEqual(a.days(to: day("2026-03-01")), 2)
        XCTAssertEqual(day("2026-03-01").days(to: a), -2)
        XCTAssertLessThan(a, a.adding(1))
    }

    func testWeekdayNamesParseInShortLongAndMixedCase() {
        XCTAssertEqual(Weekday(name: "mon"), .monday)
        XCTAssertEqual(Weekday(name: "Tuesday"), .tuesday)
        XCTAssertEqual(Weekday(name: "SUN"), .sunday)
        XCTAssertNil(Weekday(name: "mo"))
        XCTAssertNil(Weekday(name: "funday"))
        XCTAssertEqual(Weekday.allCases.map(\.shortName), ["mon", "tue", "wed", "thu", "fri", "sat", "sun"])
    }

    // MARK: Instants to habit days

    func testInstantsMapToTheLocalCalendarDayAcrossTheSpringForwardInNewYork() throws {
        // 2026-03-08: 02:00 EST jumps to 03:00 EDT.
        try assertDay("2026-03-08T04:59:59Z", "America/New_York", is: "2026-03-07") // 23:59:59 EST
        try assertDay("2026-03-08T05:00:00Z", "America/New_York", is: "2026-03-08") // 00:00 EST
        try assertDay("2026-03-08T06:59:59Z", "America/New_York", is: "2026-03-08") // 01:59:59 EST
        try assertDay("2026-03-08T07:00:00Z", "America/New_York", is: "2026-03-08") // 03:00 EDT
        try assertDay("2026-03-09T03:59:59Z", "America/New_York", is: "2026-03-08") // 23:59:59 EDT
        try assertDay("2026-03-09T04:00:00Z", "America/New_York", is: "2026-03-09") // 00:00 EDT
    }

    func testInstantsMapToTheLocalCalendarDayAcrossTheFallBackInNewYork() throws {
        // 2026-11-01: 02:00 EDT falls back to 01:00 EST, so 01:30 happens twice.
        try assertDay("2026-11-01T03:59:59Z", "America/New_York", is: "2026-10-31") // 23:59:59 EDT
        try assertDay("2026-11-01T04:00:00Z", "America/New_York", is: "2026-11-01") // 00:00 EDT
        try assertDay("2026-11-01T05:30:00Z", "America/New_York", is: "2026-11-01") // 01:30 EDT
        try assertDay("2026-11-01T06:30:00Z", "America/New_York", is: "2026-11-01") // 01:30 EST
        try assertDay("2026-11-02T04:59:59Z", "America/New_York", is: "2026-11-01") // 23:59:59 EST
        try assertDay("2026-11-02T05:00:00Z", "America/New_York", is: "2026-11-02") // 00:00 EST
    }

    func testInstantsMapToTheLocalCalendarDayAcrossBerlinsClockChanges() throws {
        // 2026-03-29: 02:00 CET jumps to 03:00 CEST; 2026-10-25: 03:00 CEST falls back to 02:00 CET.
        try assertDay("2026-03-28T22:59:59Z", "Europe/Berlin", is: "2026-03-28") // 23:59:59 CET
        try assertDay("2026-03-28T23:00:00Z", "Europe/Berlin", is: "2026-03-29") // 00:00 CET
        try assertDay("2026-03-29T21:59:59Z", "Europe/Berlin", is: "2026-03-29") // 23:59:59 CEST
        try assertDay("2026-03-29T22:00:00Z", "Europe/Berlin", is: "2026-03-30") // 00:00 CEST
        try assertDay("2026-10-24T22:00:00Z", "Europe/Berlin", is: "2026-10-25") // 00:00 CEST
        try assertDay("2026-10-25T22:59:59Z", "Europe/Berlin", is: "2026-10-25") // 23:59:59 CET
        try assertDay("2026-10-25T23:00:00Z", "Europe/Berlin", is: "2026-10-26") // 00:00 CET
    }

    func testBeforeTheDayStartHourTheInstantBelongsToThePreviousDay() throws {
        // 01:30 local with the day starting at 04:00 is still "yesterday" for a night owl.
        try assertDay("2026-03-04T01:30:00Z", "UTC", dayStartHour: 4, is: "2026-03-03")
        try assertDay("2026-03-04T03:59:59Z", "UTC", dayStartHour: 4, is: "2026-03-03")
        try assertDay("2026-03-04T04:00:00Z", "UTC", dayStartHour: 4, is: "2026-03-04")
        try assertDay("2026-03-04T01:30:00Z", "UTC", dayStartHour: 0, is: "2026-03-04")
        // New year: 01:30 on 1 January belongs to 31 December.
        try assertDay("2027-01-01T01:30:00Z", "UTC", dayStartHour: 4, is: "2026-12-31")
        // Across the spring-forward night in New York (03:30 EDT is before 04:00).
        try assertDay("2026-03-08T07:30:00Z", "America/New_York", dayStartHour: 4, is: "2026-03-07")
        try assertDay("2026-03-08T08:00:00Z", "America/New_York", dayStartHour: 4, is: "2026-03-08")
        // Both 01:30s of the fall-back night belong to the previous day.
        try assertDay("2026-11-01T05:30:00Z", "America/New_York", dayStartHour: 4, is: "2026-10-31")
        try assertDay("2026-11-01T06:30:00Z", "America/New_York", dayStartHour: 4, is: "2026-10-31")
        try assertDay("2026-11-01T09:00:00Z", "America/New_York", dayStartHour: 4, is: "2026-11-01")
        // Berlin's spring-forward night: 01:30 CET and 03:30 CEST are both before 04:00.
        try assertDay("2026-03-29T00:30:00Z", "Europe/Berlin", dayStartHour: 4, is: "2026-03-28")
        try assertDay("2026-03-29T01:30:00Z", "Europe/Berlin", dayStartHour: 4, is: "2026-03-28")
        try assertDay("2026-03-29T02:00:00Z", "Europe/Berlin", dayStartHour: 4, is: "2026-03-29")
    }

    func testTheSameInstantIsADifferentDayInDifferentZones() throws {
        let t = try instant("2026-03-10T02:00:00Z")
        XCTAssertEqual(LocalDay.containing(t, in: try zone("America/New_York")), day("2026-03-09"))
        XCTAssertEqual(LocalDay.containing(t, in: try zone("Europe/Berlin")), day("2026-03-10"))
        XCTAssertEqual(LocalDay.containing(t, in: try zone("Asia/Tokyo")), day("2026-03-10"))
        XCTAssertEqual(LocalDay.containing(t, in: try zone("Pacific/Honolulu")), day("2026-03-09"))
    }

    func testChangingTimeZoneDoesNotMoveRecordedDays() throws {
        // A check-in made in New York late on 9 March is recorded on that day key.
        let t = try instant("2026-03-10T02:00:00Z")
        let newYorkDay = LocalDay.containing(t, in: try zone("America/New_York"))
        var w = World()
        let h = w.build(start: day("2026-03-01"))
        w.progress(h, newYorkDay)
        let before = w.state.encoded()

        // The user flies to Berlin: "today" is now a different key, history stays where it was.
        let berlinToday = LocalDay.containing(t, in: try zone("Europe/Berlin"))
        XCTAssertEqual(berlinToday, day("2026-03-10"))
        XCTAssertEqual(w.state.progress(h.id, day("2026-03-09")), Amount.scale)
        XCTAssertEqual(w.state.progress(h.id, berlinToday), 0)
        XCTAssertEqual(w.state.encoded(), before)
        XCTAssertEqual(w.state.summary(h, on: day("2026-03-09"), today: berlinToday).completed, true)
        // Today (10 March) is pending in Berlin: the 9 March check-in still carries the streak.
        XCTAssertEqual(w.state.streaks(h, asOf: berlinToday, today: berlinToday).current, 1)
    }
}
