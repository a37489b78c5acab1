import XCTest
import HabitCore

/// `Edits.setTotal`: the day's total set outright, as one progress change.
final class EditsSetTotalTests: XCTestCase {
    let start = LocalDay("2026-11-01")!
    let today = LocalDay("2026-11-21")!

    func testRaisingTheTotalIsOneProgressChangeOfTheDifference() throws {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        _ = w.apply(.progress(water.id, today, delta: 3 * Amount.scale))
        let changes = try Edits.setTotal(water, on: today, 8 * Amount.scale, today: today, in: w.state)
        XCTAssertEqual(changes, [.progress(water.id, today, delta: 5 * Amount.scale)])
    }

    func testLoweringTheTotalTakesBackTheDifferenceAndZeroClearsTheDay() throws {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        _ = w.apply(.progress(water.id, today, delta: 9 * Amount.scale))
        XCTAssertEqual(try Edits.setTotal(water, on: today, 8 * Amount.scale, today: today, in: w.state),
                       [.progress(water.id, today, delta: -Amount.scale)])
        XCTAssertEqual(try Edits.setTotal(water, on: today, 0, today: today, in: w.state),
                       [.progress(water.id, today, delta: -9 * Amount.scale)])
    }

    func testTheSameTotalChangesNothing() throws {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        _ = w.apply(.progress(water.id, today, delta: 3 * Amount.scale))
        XCTAssertEqual(try Edits.setTotal(water, on: today, 3 * Amount.scale, today: today, in: w.state), [])
        XCTAssertEqual(try Edits.setTotal(water, on: today.adding(-1), 0, today: today, in: w.state), [])
    }

    func testRaisingASkippedDayUnskipsItAsACheckInDoes() throws {
        var w = World()
        let read = w.build("Read", start: start)
        _ = w.apply(.skip(read.id, today, true))
        XCTAssertEqual(try Edits.setTotal(read, on: today, Amount.scale, today: today, in: w.state),
                       [.skip(read.id, today, false), .progress(read.id, today, delta: Amount.scale)])
    }

    func testDaysOutsideTheHabitAndNegativeTotalsAreRefusedWithAReason() {
        var w = World()
        let read = w.build("Read", start: start)
        XCTAssertThrowsError(try Edits.setTotal(read, on: start.adding(-1), Amount.scale, today: today, in: w.state)) {
            XCTAssertTrue("\($0)".contains("before 'Read' starts"), "\($0)")
        }
        XCTAssertThrowsError(try Edits.setTotal(read, on: today.adding(1), Amount.scale, today: today, in: w.state))
        XCTAssertThrowsError(try Edits.setTotal(read, on: today, -1, today: today, in: w.state))
    }

    func testAddingMonthsKeepsTheDayOrTheMonthsLastDay() {
        XCTAssertEqual(LocalDay("2026-11-21")!.addingMonths(-1), LocalDay("2026-10-21"))
        XCTAssertEqual(LocalDay("2026-03-31")!.addingMonths(-1), LocalDay("2026-02-28"))
        XCTAssertEqual(LocalDay("2024-03-31")!.addingMonths(-1), LocalDay("2024-02-29"))
        XCTAssertEqual(LocalDay("2026-01-15")!.addingMonths(-1), LocalDay("2025-12-15"))
        XCTAssertEqual(LocalDay("2025-12-15")!.addingMonths(1), LocalDay("2026-01-15"))
        XCTAssertEqual(LocalDay("2026-05-31")!.addingMonths(-14), LocalDay("2025-03-31"))
    }
}
