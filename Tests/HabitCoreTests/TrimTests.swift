import Foundation
import XCTest
import HabitCore

/// The standard-library trims agree with Foundation's on what config lines, device ids,
/// schedules and HABITTO_NOW hold: spaces, tabs, no-break and ideographic spaces, line breaks.
final class TrimTests: XCTestCase {
    func testTheTrimsAgreeWithFoundationsCharacterSets() {
        let samples = ["", " ", "\t", "a", " a ", "\ta b\t", "\u{A0}x\u{3000}", " \n", "\nkey = value\r\n", "  é  ",
                       "\u{2003}ид\u{2003}", "a\n", "\n a \n", "🙂 ", " x y z ", "\r\n\t"]
        for s in samples {
            XCTAssertEqual(s.trimmingBlanks, s.trimmingCharacters(in: .whitespaces), s.debugDescription)
            XCTAssertEqual(s.trimmingWhitespace, s.trimmingCharacters(in: .whitespacesAndNewlines), s.debugDescription)
            XCTAssertEqual(Substring(s).trimmingBlanks, s.trimmingCharacters(in: .whitespaces), s.debugDescription)
        }
        XCTAssertEqual("\"quoted\"".trimming { $0 == "\"" }, "quoted")
        XCTAssertEqual("\"\"".trimming { $0 == "\"" }, "")
    }
}
