import Foundation
import XCTest

/// Every reading of a clock in `Sources` is in the one clock's file (`SystemClock` in
/// HabitSys): the time of day through `SystemClock.now` (which the program's clock,
/// `AppEnvironment.clock`, uses unless `HABITTO_NOW` is set), timeouts through
/// `SystemClock.monotonicSeconds`. This scan fails when a direct reading is added
/// elsewhere (issue 39, point 5: the status bar said "synced 10d ago" right after a round
/// and `import` recorded the real time, where both were to use HABITTO_NOW's).
///
/// A line may keep a direct reading only with a `// direct: REASON` comment.
final class ClockReadingTests: XCTestCase {
    /// The clock's own file, which reads the system's clocks.
    static let clockFile = "Sources/HabitSys/Clock.swift"

    /// The readings looked for: Foundation's, the C library's, Swift's and Dispatch's clocks.
    static let readings = [
        "Date()", "Date.now", "Date(timeIntervalSinceNow", ".timeIntervalSinceNow", "time(nil)", "time(&", "gettimeofday(",
        "clock_gettime(", "ContinuousClock", "SuspendingClock", "systemUptime", "DispatchTime.now", "DispatchWallTime.now",
        "CFAbsoluteTimeGetCurrent", "uptimeNanoseconds",
    ]

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testNoDirectClockReadingInSources() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted() ?? []
        XCTAssertGreaterThan(files.count, 100, "the scan found the sources")
        XCTAssertTrue(files.contains { "Sources/" + $0 == Self.clockFile }, "the clock's file is where the scan says")
        var found: [String] = []
        for file in files where "Sources/" + file != Self.clockFile {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            found += Self.directReadings(in: text).map { "Sources/\(file):\($0.line): \($0.reading)" }
        }
        XCTAssertEqual(found, [], "read the time through the program's clock (AppEnvironment.clock, or the clock a type is given), timeouts through SystemClock.monotonicSeconds")
    }

    /// The scan itself: it finds what it must, and nothing else.
    func testTheScanTellsDirectReadingsFromOthers() {
        let text = """
        let now = Date()
        let t = time(nil) - 60
        let clock = ContinuousClock()
        record.updated = Date() ; let x = 1
        let a = Date(timeIntervalSince1970: 0)
        let b = clock.now()
        // let c = Date() in a comment
        let s = "Date() in a string"
        let d = Date() // direct: the reason
        let e = Date() // direct:
        let f = deadline.timeIntervalSinceNow
        let g = SystemClock.now()
        let h = Date.now
        """
        XCTAssertEqual(Self.directReadings(in: text).map { "\($0.line) \($0.reading)" },
                       ["1 Date()", "2 time(nil)", "3 ContinuousClock", "4 Date()", "10 Date()", "11 .timeIntervalSinceNow", "13 Date.now"])
    }

    /// The direct readings in `text`: line number (from 1) and what was read.
    static func directReadings(in text: String) -> [(line: Int, reading: String)] {
        var found: [(Int, String)] = []
        for (i, raw) in text.components(separatedBy: "\n").enumerated() {
            if let marker = raw.range(of: "// direct:"),
               !raw[marker.upperBound...].trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let line = DirectSystemCallTests.code(of: raw)
            for r in readings where line.contains(r) {
                // `Date()` inside a longer name (`MyDate()`) is another function.
                if let range = line.range(of: r), r.first?.isLetter == true, range.lowerBound > line.startIndex {
                    let before = line[line.index(before: range.lowerBound)]
                    if before.isLetter || before.isNumber || before == "_" { continue }
                }
                found.append((i + 1, r))
            }
        }
        return found
    }
}
