import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// The text charts: exact lines for small series worked out by hand, and snapshots of every
/// chart of the fixed world at 80×24 and 40×10, Unicode and ASCII
/// (HABITTO_RECORD_SNAPSHOTS=1 re-records).
final class ChartDrawingTests: XCTestCase {
    let monday = LocalDay("2026-11-16")!

    func testAreaChartFillsEighthsUnderALabelledAxis() {
        let lines = TextChart.area([0, 0.5, 1, 0.25], first: monday, last: monday.adding(3), width: 40, height: 10,
                                   glyphs: .unicode)
        XCTAssertEqual(lines.count, 10)
        // 34 plot columns, 8 rows: the four values take 9, 8, 9 and 8 columns; 50% fills
        // four rows up to the 50% line, 25% two.
        XCTAssertEqual(lines[0], "100% ┤" + String(repeating: " ", count: 17) + String(repeating: "█", count: 9))
        XCTAssertEqual(lines[4], " 50% ┤" + String(repeating: "·", count: 9) + String(repeating: "█", count: 17)
                       + String(repeating: "·", count: 8))
        XCTAssertEqual(lines[6], "     │" + String(repeating: " ", count: 9) + String(repeating: "█", count: 25))
        XCTAssertEqual(lines[7], "  0% ┤" + String(repeating: " ", count: 9) + String(repeating: "█", count: 25))
        XCTAssertEqual(lines[8], "     └" + String(repeating: "─", count: 34))
        XCTAssertEqual(lines[9], "      2026-11-16  2026-11-17  2026-11-19")
    }

    func testBarsMarkTheGoalWhereTheBarDoesNotReachIt() {
        let lines = TextChart.bars([2, 4], goals: [4, 4], labels: ["W1", "W2"], width: 40, height: 10, glyphs: .ascii,
                                   format: { String(Int($0)) })
        XCTAssertEqual(lines, [
            "4 +--#-",
            "  |  #",
            "  |  #",
            "  |  #",
            "  |# #",
            "  |# #",
            "  |# #",
            "0 +# #",
            "  +----",
            "   W1 W2",
        ])
    }

    func testSparklineUsesOneCellPerValueAndBlankForNone() {
        XCTAssertEqual(TextChart.sparkline([0, 0.5, 1, nil], glyphs: .unicode), "▁▅█ ")
        XCTAssertEqual(TextChart.sparkline([0, 0.5, 1, nil], glyphs: .ascii), "_=# ")
    }

    func testStreakListMarksTheCurrentRun() {
        let runs = [StreakRun(start: monday, end: monday.adding(9), length: 10, isCurrent: true),
                    StreakRun(start: monday.adding(-20), end: monday.adding(-16), length: 5, isCurrent: false)]
        let lines = TextChart.streakList(runs, unit: "days", width: 80, glyphs: .ascii)
        XCTAssertEqual(lines[0], "2026-11-16 - 2026-11-25  10 days  " + String(repeating: "#", count: 37) + "  current")
        XCTAssertEqual(lines[1], "2026-10-27 - 2026-10-31  5 days   " + String(repeating: "#", count: 19))
    }

    func testWeekdayBarsShowRatioAndCounts() {
        var counts = [WeekdayCount](repeating: WeekdayCount(done: 4, due: 4), count: 7)
        counts[4] = WeekdayCount(done: 1, due: 4)
        counts[6] = WeekdayCount()
        let lines = TextChart.weekdayBars(counts, width: 40, glyphs: .ascii)
        // 40 − "Mon " − two spaces − the widest tail ("   -  not due") = a 21-cell bar.
        XCTAssertEqual(lines[0], "Mon " + String(repeating: "#", count: 21) + "   100%  4/4")
        XCTAssertEqual(lines[4], "Fri #####" + String(repeating: ".", count: 16) + "    25%  1/4")
        XCTAssertEqual(lines[6], "Sun" + String(repeating: " ", count: 27) + "-  not due")
    }

    // MARK: Snapshots of the fixed world

    func testEveryChartOfTheWorldAtBothSizesInUnicodeAndASCII() {
        let state = World.state(World.changes)
        for (w, h) in [(80, 24), (40, 10)] {
            for ascii in [false, true] {
                let g = ChartGlyphs.of(ascii: ascii)
                let name = "\(w)x\(h)\(ascii ? "-ascii" : "")"
                let charts = self.charts(state, width: w, height: h, glyphs: g)
                for (chart, lines) in charts {
                    for l in lines {
                        XCTAssertLessThanOrEqual(TextWidth.of(l), w, "\(chart) \(name): \(l)")
                        if ascii { XCTAssertTrue(l.allSatisfy(\.isASCII), "\(chart) \(name): \(l)") }
                    }
                    XCTAssertLessThanOrEqual(lines.count, max(h, 10), "\(chart) \(name)")
                    assertSnapshot(text: lines.joined(separator: "\n") + "\n", named: "chart-\(chart)-\(name)")
                }
            }
        }
    }

    func charts(_ state: HabitState, width: Int, height: Int, glyphs g: ChartGlyphs) -> [(String, [String])] {
        let read = state.habit(World.read)!, water = state.habit(World.water)!
        let score = state.scoreSeries(read, today: World.today, span: .all, points: width - 6)
        let history = state.historySeries(water, today: World.today, bucket: .week)
        let weekday = state.weekdayFrequency(read, today: World.today)
        let o = state.overview(today: World.today, weeks: 8)
        return [
            ("score", TextChart.area(score.map(\.score), first: score[0].day, last: score.last!.day, width: width,
                                     height: height, glyphs: g)),
            ("history", TextChart.bars(history.buckets.map { Double($0.value) }, goals: history.buckets.map(\.goal),
                                       labels: history.buckets.map { String($0.start.description.dropFirst(5)) },
                                       width: width, height: height, glyphs: g, format: { Amount.format(Int($0)) })),
            ("weekday", TextChart.weekdayBars(weekday.weekdays, width: width, glyphs: g)),
            ("weekday-grid", TextChart.weekdayGrid(weekday.months, width: width, glyphs: g)),
            ("streaks", TextChart.streakList(state.bestStreaks(read, today: World.today, top: height - 2), unit: "days",
                                             width: width, glyphs: g)),
            ("overview", TextChart.consistency(names: o.rows.map(\.habit.name), rows: o.rows.map(\.days),
                                               completion: o.completion, first: o.first, width: width, height: height,
                                               glyphs: g)),
            ("xp", TextChart.bars(o.xpWeeks.map { Double($0.xp) }, goals: [], labels: o.xpWeeks.map { String($0.weekStart.description.dropFirst(5)) },
                                  width: width, height: height, glyphs: g, format: { String(Int($0)) },
                                  marks: o.xpWeeks.map(\.levelUp))),
        ]
    }
}

