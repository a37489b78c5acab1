import Foundation
import XCTest
import HabitCore

/// The standard-library stand-ins for what `habitto` used from swift-corelibs-foundation
/// (docs/architecture.md), each checked against the Foundation method it replaced.
final class TextWithoutFoundationTests: XCTestCase {
    let samples = ["", "a", "abc", "a\r\nb\nc", "'\u{301}quoted'", "x'y'z", "aaa", "é\u{301}e", "🏳️‍🌈'🏳️‍🌈", "%%", "a--b--", "--",
                   "\\\"", "tab\there", "日本語'", "e\u{301}'\u{301}"]
    let targets = ["'", "\n", "\r\n", "a", "aa", "--", "\u{301}", "e", "\\", "\"", "🏳️‍🌈", "x"]

    /// As Foundation's literal replacement (code unit by code unit): the default one of this
    /// toolchain compares whole characters, as the standard library's does, and leaves a quote
    /// that a combining accent follows unescaped.
    func testReplacingAllIsFoundationsLiteralReplacement() {
        for s in samples {
            for t in targets {
                let ns = s as NSString
                let literal = ns.replacingOccurrences(of: t, with: "<\(t.count)>", options: .literal, range: NSRange(location: 0, length: ns.length))
                XCTAssertEqual(s.replacingAll(t, with: "<\(t.count)>"), literal, "\(s.debugDescription) \(t.debugDescription)")
            }
            XCTAssertEqual(s.replacingAll("", with: "x"), s)
        }
        // The case the standard library's character-wise `replacing` misses: a quote followed
        // by a combining accent is still escaped for the shell.
        XCTAssertEqual("it'\u{301}s".replacingAll("'", with: "'\\''"), "it'\\''\u{301}s")
        XCTAssertEqual("it'\u{301}s".replacingOccurrences(of: "'", with: "'\\''"), "it'\u{301}s", "Foundation's default now escapes it: the comment above is out of date")
    }

    func testScalarRangeFindsWhatFoundationsRangeOfFinds() {
        for s in samples {
            for t in targets {
                for last in [false, true] {
                    let ours = s.scalarRange(of: t, last: last).map { String(s.unicodeScalars[..<$0.lowerBound]).utf16.count }
                    let theirs = (s as NSString).range(of: t, options: last ? [.literal, .backwards] : [.literal])
                    XCTAssertEqual(ours, theirs.location == NSNotFound ? nil : theirs.location, "\(s.debugDescription) \(t.debugDescription) \(last)")
                }
            }
        }
    }

    func testPercentDecodedIsFoundationsRemovingPercentEncoding() {
        for s in ["", "a%20b", "%E6%97%A5", "%e6%97%a5x", "100%", "%2", "%zz", "%FF", "%C3%A9%", "/dav/Habit%20Data/", "%00", "a+b", "%25"] {
            XCTAssertEqual(s.percentDecoded, s.removingPercentEncoding, s)
        }
    }

    func testPathTextIsNSStringsPathMethods() {
        // Foundation's `deletingLastPathComponent` traps on one relative component ("a",
        // "a/") in this toolchain; the path of a file in the current directory has none.
        XCTAssertEqual("a".pathParent, "")
        XCTAssertEqual("a/".pathParent, "")
        XCTAssertEqual("a/".pathLastComponent, "a")
        for p in ["", "/", "/a", "/a/", "/a/b", "/a/b/", "a/b", "a//b", "/a//b//", "./x.json", "/a/b.tar.gz", ".hidden",
                  "/x/.hidden", "a.", "/a.b/c", "name.hbk", "/d/20261121-090000-abcd.hbk"] {
            XCTAssertEqual(p.pathLastComponent, (p as NSString).lastPathComponent, p)
            XCTAssertEqual(p.pathParent, (p as NSString).deletingLastPathComponent, p)
            XCTAssertEqual(p.pathLastComponent.pathDroppingExtension, ((p as NSString).lastPathComponent as NSString).deletingPathExtension, p)
        }
    }

    func testFixedIsPrintfs() {
        var rng = SplitMix64(seed: 7)
        var values: [Double] = [0, -0.0, 0.05, 0.15, 0.25, 0.35, 1.45, 2.5, 3.5, -2.5, 99.95, 1e20, 123456.789, .ulpOfOne]
        for _ in 0..<2_000 { values.append(Double(Int.random(in: -100_000...100_000, using: &rng)) / Double([1, 10, 100, 1000, 7].randomElement(using: &rng)!)) }
        for v in values {
            for places in 0...3 {
                XCTAssertEqual(Format.fixed(v, places: places), String(format: "%.\(places)f", v), "\(v) \(places)")
            }
        }
        XCTAssertEqual(Format.right("7", 3), "  7")
        XCTAssertEqual(Format.right("7", 2, pad: "0"), "07")
        XCTAssertEqual(Format.right("1234", 2), "1234")
        XCTAssertEqual(Format.left("ab", 4), "ab  ")
    }

    func testHTTPDatesInTheirThreeForms() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        var rng = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            let instant = Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &rng)))
            XCTAssertEqual(UTCTime.httpDate(formatter.string(from: instant), now: now), instant, formatter.string(from: instant))
        }
        let expected = Date(timeIntervalSince1970: 784_111_777)
        XCTAssertEqual(UTCTime.httpDate("Sun, 06 Nov 1994 08:49:37 GMT", now: now), expected)
        XCTAssertEqual(UTCTime.httpDate("Sunday, 06-Nov-94 08:49:37 GMT", now: now), expected)
        XCTAssertEqual(UTCTime.httpDate("Sun Nov  6 08:49:37 1994", now: now), expected)
        XCTAssertEqual(UTCTime.httpDate("Friday, 27-Nov-26 00:00:00 GMT", now: now), Date(timeIntervalSince1970: 1_795_737_600))
        for bad in ["", "120", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 31 Feb 2026 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                    "Sun, 6 Nov 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 08:49 GMT", "Sun Nov  6 08:49:37 94", "Sun, 06 Nov +994 08:49:37 GMT"] {
            XCTAssertNil(UTCTime.httpDate(bad, now: now), bad)
        }
    }

    func testTrailingWhitespaceGoes() {
        XCTAssertEqual("a b \t\u{3000}\n".trimmingTrailingWhitespace, "a b")
        XCTAssertEqual("   ".trimmingTrailingWhitespace, "")
        XCTAssertEqual(" a".trimmingTrailingWhitespace, " a")
    }
}
