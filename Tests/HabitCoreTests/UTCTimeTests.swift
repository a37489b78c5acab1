import Foundation
import XCTest
@testable import HabitCore

/// The hand-written UTC timestamps must be what Foundation's formatters wrote before them
/// (status JSON, import summaries, backup ids), to the character.
final class UTCTimeTests: XCTestCase {
    func testTimestampsMatchFoundationsFormattersFrom1900To2200() {
        let iso = ISO8601DateFormatter()
        let compact = DateFormatter()
        compact.locale = Locale(identifier: "en_US_POSIX")
        compact.timeZone = TimeZone(identifier: "UTC")
        compact.dateFormat = "yyyyMMdd-HHmmss"
        var rng = SplitMix64(seed: 17)
        // Day and second boundaries, before and after 1970, leap days, and random instants
        // with fractions of a second.
        var instants: [Double] = [0, -1, -0.5, 0.999, 86_399.999, 86_400, -86_400, -86_401, 951_782_400, 1_795_000_000.75,
                                  -2_208_988_800, 7_258_118_399.9, -0.0004, -0.0006, 59.9995, 59.9994, -1_580_577_966.0002418]
        for _ in 0..<5_000 { instants.append(Double.random(in: -2_208_988_800 ..< 7_258_118_400, using: &rng)) }
        for t in instants {
            let d = Date(timeIntervalSince1970: t)
            XCTAssertEqual(UTCTime.iso8601(d), iso.string(from: d), "\(t)")
            XCTAssertEqual(UTCTime.compact(d), compact.string(from: d), "\(t)")
        }
    }

    func testAKnownInstant() {
        let d = Date(timeIntervalSince1970: 1_795_253_400.4)   // 2026-11-21 09:30:00.4 UTC
        XCTAssertEqual(UTCTime.iso8601(d), "2026-11-21T09:30:00Z")
        XCTAssertEqual(UTCTime.compact(d), "20261121-093000")
    }
}
