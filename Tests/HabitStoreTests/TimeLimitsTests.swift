import XCTest
import HabitStore

/// The product's limits on outside programs and lock waits, and the variable that lets a test
/// shorten them (the tests that prove each limit run with a fraction of a second).
final class TimeLimitsTests: XCTestCase {
    func testTheProductsDefaultsOnceEach() {
        let d = TimeLimits.defaults
        XCTAssertEqual(d[.passwordCommand], 30)
        XCTAssertEqual(d[.systemctl], 15)
        XCTAssertEqual(d[.notifySend], 5)
        XCTAssertEqual(d[.auto], 10)
        XCTAssertEqual(d[.unzip], 60)
        XCTAssertEqual(d[.age], 30)
        XCTAssertEqual(d[.lock], 10)
        XCTAssertEqual(try TimeLimits.parse(nil), d)
        XCTAssertEqual(try TimeLimits.parse(""), d)
        XCTAssertEqual(TimeLimits.current, d, "a process that sets nothing runs with the defaults")
        XCTAssertEqual(Sys.commandLockWait, 10)
    }

    func testTheVariableShortensTheNamedLimitsOnly() throws {
        let limits = try TimeLimits.parse("lock=1.5, age=0.05,notify-send=5")
        XCTAssertEqual(limits[.lock], 1.5)
        XCTAssertEqual(limits[.age], 0.05)
        XCTAssertEqual(limits[.notifySend], 5)
        XCTAssertEqual(limits[.passwordCommand], 30)
        XCTAssertEqual(limits[.unzip], 60)
    }

    func testAValueOutsideItsRangeOrAnUnknownNameIsRefused() {
        func problem(_ text: String) -> TimeLimits.Problem? {
            do { _ = try TimeLimits.parse(text); return nil } catch { return error }
        }
        XCTAssertEqual(problem("lock=10.5"), .outOfRange(.lock, "10.5"), "it never lengthens a limit")
        XCTAssertEqual(problem("auto=0.04"), .outOfRange(.auto, "0.04"))
        XCTAssertEqual(problem("auto=-1"), .outOfRange(.auto, "-1"))
        XCTAssertEqual(problem("auto=inf"), .outOfRange(.auto, "inf"))
        XCTAssertEqual(problem("auto="), .outOfRange(.auto, ""))
        XCTAssertEqual(problem("auto"), .notASetting("auto"))
        XCTAssertEqual(problem("lock=1,"), .notASetting(""))
        XCTAssertEqual(problem("LOCK=1"), .notASetting("LOCK=1"))
        XCTAssertEqual(problem("lock=1\u{1b}[2J").map(String.init(describing:)),
                       "HABITTO_TIME_LIMITS: lock=1\u{FFFD}[2J must be from 0.05 to 10 seconds (its default); unset it to run with the default limits")
    }
}
