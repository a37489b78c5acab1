import XCTest
import HabitCore

/// The one parser of typed dates (issue 39, point 13): every form it takes, what it
/// refuses, and random text, which it never crashes on and reads exactly as an independent
/// reading of the forms does.
final class TypedDayTests: XCTestCase {
    /// Saturday 21 November 2026.
    let today = LocalDay("2026-11-21")!

    func parse(_ text: String) -> String? { TypedDay.parse(text, today: today)?.description }

    func testEveryFormNamesItsDay() {
        XCTAssertEqual(today.weekday, .saturday)
        let cases: [(String, String)] = [
            ("2026-11-16", "2026-11-16"), ("1900-01-01", "1900-01-01"), ("9999-12-31", "9999-12-31"),
            ("today", "2026-11-21"), ("yesterday", "2026-11-20"), ("tomorrow", "2026-11-22"),
            ("-3", "2026-11-18"), ("+1", "2026-11-22"), ("-0", "2026-11-21"), ("+0", "2026-11-21"),
            ("-36500", "1926-12-16"), ("+36500", "2126-10-28"), ("-00007", "2026-11-14"),
            // A weekday is the latest such day, today included.
            ("sat", "2026-11-21"), ("saturday", "2026-11-21"), ("fri", "2026-11-20"), ("sun", "2026-11-15"),
            ("mon", "2026-11-16"), ("monday", "2026-11-16"), ("tue", "2026-11-17"), ("wednesday", "2026-11-18"),
            ("thu", "2026-11-19"),
            // Case and blanks at either end do not matter.
            ("  Yesterday ", "2026-11-20"), ("MON", "2026-11-16"), ("\tToday", "2026-11-21"), ("Sunday", "2026-11-15"),
        ]
        for (text, day) in cases { XCTAssertEqual(parse(text), day, "'\(text)'") }
        XCTAssertEqual(TypedDay.parse("mon", today: LocalDay("2026-11-16")!)?.description, "2026-11-16", "on a Monday, mon is today")
        XCTAssertEqual(TypedDay.parse("sun", today: LocalDay("2026-11-16")!)?.description, "2026-11-15")
        XCTAssertEqual(LocalDay(typed: "thu", today: today)?.description, "2026-11-19", "LocalDay(typed:) is the same parser")
    }

    func testAnythingElseIsRefused() {
        for text in ["", " ", "-", "+", "--3", "-+3", "+-3", "- 3", "3", "-36501", "+100000", "-1e3", "-٣", "-３",
                     "2026-02-30", "1899-12-31", "2026-1-5", "21/11/2026", "2026-11-21T09:00", "mo", "mond", "tues",
                     "last monday", "next week", "yesterday!", "to day", "today\n", "tod", "now", "0x10", "-3 days"] {
            XCTAssertNil(parse(text), "'\(text)'")
        }
        // Outside the days Habitto accepts, counted from the edges.
        XCTAssertNil(TypedDay.parse("tomorrow", today: LocalDay.latest))
        XCTAssertNil(TypedDay.parse("-1", today: LocalDay.earliest))
        XCTAssertNil(TypedDay.parse("wed", today: LocalDay.earliest), "1900-01-01 was a Monday; the Wednesday before is out")
        XCTAssertEqual(TypedDay.parse("mon", today: LocalDay.earliest), LocalDay.earliest)
    }

    func testTheRefusalNamesEveryForm() {
        for form in ["YYYY-MM-DD", "today", "yesterday", "tomorrow", "-N", "+N", "mon"] {
            XCTAssertTrue(TypedDay.forms.contains(form), form)
        }
        XCTAssertFalse(TypedDay.forms.contains("\n"), "one line")
    }

    /// Random text, and near misses of the forms (a character changed, added or taken
    /// away): the parser returns, and what it reads agrees with `model`.
    func testRandomTextIsReadAsTheFormsSayOrRefused() {
        var rng = SplitMix64(seed: 0x5459_5045_4444_4159)
        let pieces = ["2026-11-16", "today", "yesterday", "tomorrow", "-3", "+12", "-36500", "mon", "monday", "Sun",
                      "friday", "9999-12-31", "1900-01-01", " ", "\t", "-", "+", "0", "9", "x", "é", "٣", "\n", "🙂", "T"]
        let alphabet = Array("0123456789-+ \tadeimnorstuwyTMSF/.:é٣🙂\u{0}")
        var accepted = 0
        for _ in 0..<20_000 {
            var text = pieces.randomElement(using: &rng)!
            if Bool.random(using: &rng) { text += pieces.randomElement(using: &rng)! }
            for _ in 0..<Int.random(in: 0...2, using: &rng) {
                var chars = Array(text)
                let i = Int.random(in: 0...chars.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: chars.insert(alphabet.randomElement(using: &rng)!, at: i)
                case 1: if i < chars.count { chars.remove(at: i) }
                default: if i < chars.count { chars[i] = alphabet.randomElement(using: &rng)! }
                }
                text = String(chars)
            }
            let got = TypedDay.parse(text, today: today)
            XCTAssertEqual(got, model(text), "'\(text.debugDescription)'")
            if let got {
                accepted += 1
                XCTAssertTrue((LocalDay.earliest...LocalDay.latest).contains(got))
            }
        }
        XCTAssertGreaterThan(accepted, 2_000, "the random text holds forms that are read")
        XCTAssertLessThan(accepted, 18_000, "and text that is refused")
    }

    /// The forms read independently of the parser: a weekday by walking back day by day,
    /// an offset by the standard library's integer reading of the digits.
    func model(_ text: String) -> LocalDay? {
        let s = String(text.drop { $0.isWhitespace && !$0.isNewline }.reversed().drop { $0.isWhitespace && !$0.isNewline }.reversed())
            .lowercased()
        var day: LocalDay?
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        if let d = LocalDay(s) { return d }
        if s == "today" { day = today } else if s == "yesterday" { day = today.adding(-1) } else if s == "tomorrow" { day = today.adding(1) }
        else if let i = names.firstIndex(where: { $0 == s || $0.prefix(3) == s }) {
            var d = today
            while d.weekday.rawValue != i + 1 { d = d.adding(-1) }
            day = d
        } else if let sign = s.first, sign == "-" || sign == "+", s.count >= 2, s.count <= 6,
                  s.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(s.dropFirst()), n <= 36_500 {
            day = today.adding(sign == "-" ? -n : n)
        }
        return day.flatMap { (LocalDay.earliest...LocalDay.latest).contains($0) ? $0 : nil }
    }
}
