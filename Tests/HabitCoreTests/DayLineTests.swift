import Foundation
import XCTest
import HabitCore

/// A check-in's confirmation (`dayLine`) walks only the recent weeks when a streak broke
/// within them: on random histories, schedules, kinds, skips and windows it must say what
/// `summary` (which walks the whole history) says, on every day, with today before, on or
/// after the day, also when the habit's definition changed part way.
final class DayLineTests: XCTestCase {
    func testTheRecentWalkAgreesWithTheWholeHistoryOnRandomHabits() {
        var rng = SplitMix64(seed: 0x5EED_DA7E)
        let start = LocalDay(year: 2025, month: 1, day: 6)!
        let schedules: [Schedule] = [.daily, .weekdays([.monday, .wednesday, .friday]), .everyNDays(3), .perWeek(3), .perWeek(1)]
        var windowed = 0, whole = 0
        for round in 0..<120 {
            var w = World()
            let schedule = schedules[round % schedules.count]
            var weekly = false
            if case .perWeek = schedule { weekly = true }
            // Limit habits cannot be N-per-week.
            let kind = round % 7 == 3 && !weekly ? HabitKind.limit : .build
            let goal = round % 4 == 0 ? 3 * Amount.scale : Amount.scale
            var fields = HabitFields(name: "H\(round)", kind: kind, goal: goal, schedule: schedule, startDate: start)
            if round % 5 == 2 { fields.unit = "times" }
            let created = w.create(fields)
            // Long runs of success with the odd miss, or sparse days: streaks of every length.
            let length = Int.random(in: 60...420, using: &rng)
            let missEvery = [3, 12, 40, 1000][Int.random(in: 0..<4, using: &rng)]
            for i in 0..<length {
                let d = start.adding(i)
                if Int.random(in: 0..<50, using: &rng) == 0 { w.skip(created, d); continue }
                guard Int.random(in: 0..<missEvery, using: &rng) != 0 else {
                    if kind == .limit { w.progress(created, d, goal + Amount.scale) }
                    continue
                }
                if kind == .build { w.progress(created, d, Int.random(in: 0..<4, using: &rng) == 0 ? goal / 3 + 1 : goal) }
            }
            let end = start.adding(length - 1)
            // Some habits change definition part way: a goal, or a schedule counting other
            // units, from a day (a limit habit keeps fixed days).
            switch round % 4 {
            case 1: _ = w.apply(.setFrom(created.id, start.adding(length / 2), .goal(goal * 2)))
            case 2:
                let next: Schedule = kind == .limit ? .weekdays([.tuesday]) : weekly ? .daily : .perWeek(2)
                _ = w.apply(.setFrom(created.id, start.adding(length / 3), .schedule(next)))
            default: break
            }
            let h = w.habit(created.id)
            for recentDays in [7, 20, 45, 100, 400] {
                for offset in [0, 1, 3, 10] {
                    let day = end.adding(-offset)
                    for today in [day, day.adding(1), end] {
                        let s = w.state.summary(h, on: day, today: today)
                        let line = w.state.dayLine(h, on: day, today: today, recentDays: recentDays)
                        let label = "round \(round) \(schedule) \(kind) window \(recentDays) day \(day) today \(today)"
                        XCTAssertEqual(line.streak, s.streak, label)
                        XCTAssertEqual([line.progress, line.difficulty ?? -1], [s.progress, s.difficulty ?? -1], label)
                        XCTAssertEqual([line.completed, line.skipped, line.exceeded, line.scheduled],
                                       [s.completed, s.skipped, s.exceeded, s.scheduled], label)
                        XCTAssertEqual(line.streakUnit, s.streakUnit, label)
                        if s.streak < recentDays / 8 { windowed += 1 } else { whole += 1 }
                    }
                }
            }
        }
        // Both paths ran: streaks shorter than the window and streaks longer than it.
        XCTAssertGreaterThan(windowed, 1000)
        XCTAssertGreaterThan(whole, 1000)
    }
}
