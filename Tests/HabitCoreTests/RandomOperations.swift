import Foundation
import XCTest
import HabitCore

/// Random but reproducible operation histories for several devices.
struct RandomHistory {
    /// Each device's operations, in its own sequence order.
    var perDevice: [[HabitOperation]]

    var all: [HabitOperation] { perDevice.flatMap { $0 } }

    init(perDevice: [[HabitOperation]]) { self.perDevice = perDevice }

    static let habits = (1...4).map { habitID(UInt64($0)) }
    static let firstDay = LocalDay(year: 2026, month: 3, day: 2)!
    static let names = ["Read", "Walk 🚶", "Läsa", "Meditate", "水を飲む", "Stretch"]
    static let schedules: [Schedule] = [.daily, .weekdays([.monday, .thursday]), .everyNDays(3), .perWeek(2), .perMonth(5)]

    /// `devices` devices each making `opsPerDevice` operations. Wall clocks are drawn from a
    /// narrow range so that equal HLC readings on different devices happen often.
    init(devices: Int, opsPerDevice: Int, using rng: inout SplitMix64) {
        var clocks = (0..<devices).map { TestDevice(UInt64($0 + 1) * 0x1_0001, wallMillis: 1_000) }
        var deletes: [HabitID: [OpID]] = [:]
        perDevice = Array(repeating: [], count: devices)
        for _ in 0..<(devices * opsPerDevice) {
            var d = Int.random(in: 0..<devices, using: &rng)
            if perDevice[d].count == opsPerDevice { d = perDevice.firstIndex { $0.count < opsPerDevice }! }
            // Sometimes a device hears from another one first (its clock moves past theirs).
            if Bool.random(using: &rng), let other = (0..<devices).randomElement(using: &rng) {
                clocks[d].observe(clocks[other].clock)
            }
            let change = RandomHistory.change(deletes: deletes, using: &rng)
            let wall = Int64.random(in: 1_000...1_030, using: &rng)
            let op = clocks[d].op(change, at: wall)
            if case .delete(let h) = change { deletes[h, default: []].append(op.id) }
            perDevice[d].append(op)
        }
    }

    static func fields(using rng: inout SplitMix64) -> HabitFields {
        let kind: HabitKind = Int.random(in: 0..<4, using: &rng) == 0 ? .limit : .build
        var schedule = schedules.randomElement(using: &rng)!
        if kind == .limit, schedule.isWeekly { schedule = .daily }
        return HabitFields(name: names.randomElement(using: &rng)!, icon: Bool.random(using: &rng) ? "📚" : nil,
                           kind: kind, goal: Int.random(in: 1...3, using: &rng), schedule: schedule,
                           startDate: firstDay.adding(Int.random(in: -3...3, using: &rng)))
    }

    static func fieldValue(using rng: inout SplitMix64) -> FieldValue {
        switch Int.random(in: 0..<13, using: &rng) {
        case 0: return .name(names.randomElement(using: &rng)!)
        case 1: return .icon(Bool.random(using: &rng) ? "🔥" : nil)
        case 2: return .color(["red", "#00ff88", nil].randomElement(using: &rng)!)
        case 3: return .kind(Bool.random(using: &rng) ? .build : .limit)
        case 4: return .goal(Int.random(in: 0...5, using: &rng))
        case 5: return .unit(["pages", "km", nil].randomElement(using: &rng)!)
        case 6: return .schedule(schedules.randomElement(using: &rng)!)
        case 7: return .startDate(firstDay.adding(Int.random(in: -5...5, using: &rng)))
        case 8: return .archivedFrom(Bool.random(using: &rng) ? firstDay.adding(Int.random(in: 0...9, using: &rng)) : nil)
        case 9: return .notes(["", "line one\nline two", nil].randomElement(using: &rng)!)
        case 10: return .group(["Health", "Work", nil].randomElement(using: &rng)!)
        case 11: return .position(["V", "a", "0V", "V", nil].randomElement(using: &rng)!)
        default:
            let minutes = [[], [480], [480, 1230], [0, 1439]].randomElement(using: &rng)!
            return .reminders(minutes.map { ReminderTime(minutes: $0) })
        }
    }

    static func change(deletes: [HabitID: [OpID]], using rng: inout SplitMix64) -> Change {
        let h = habits.randomElement(using: &rng)!
        let d = firstDay.adding(Int.random(in: 0..<10, using: &rng))
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<8: return .create(h, fields(using: &rng))
        case 8..<18: return .set(h, fieldValue(using: &rng))
        case 18..<22:
            // A rule field from a day on: each of the four, on one of the ten days.
            let values: [FieldValue] = [.kind(Bool.random(using: &rng) ? .build : .limit), .goal(Int.random(in: 0...5, using: &rng)),
                                        .unit(["km", nil].randomElement(using: &rng)!), .schedule(schedules.randomElement(using: &rng)!)]
            let value = values.randomElement(using: &rng)!
            // Now and then the register cleared instead (`Change.clearFrom`).
            return Int.random(in: 0..<3, using: &rng) == 0 ? .clearFrom(h, d, index: value.index) : .setFrom(h, d, value)
        case 22..<26: return .delete(h)
        case 26..<30:
            if let op = deletes[h]?.randomElement(using: &rng) { return .restore(h, deleteOp: op) }
            return .delete(h)
        case 30..<70:
            var delta = Int.random(in: -2...3, using: &rng)
            if delta == 0 { delta = 1 }
            return .progress(h, d, delta: delta)
        case 70..<85: return .skip(h, d, Bool.random(using: &rng))
        case 85..<90: return .rate(h, d, Bool.random(using: &rng) ? Int.random(in: 1...5, using: &rng) : nil)
        case 90..<94:
            // A pause over a few of the days, with a reason, without, or given back.
            let to = d.adding(Int.random(in: 0...3, using: &rng))
            return .pause(h, from: d, to: to, reason: ["", "trip", nil].randomElement(using: &rng)!)
        default: return .note(h, d, ["ran in the rain", "tired, \"but\" done", nil].randomElement(using: &rng)!)
        }
    }

    /// A random interleaving that keeps each device's operations in sequence order.
    func interleaving(using rng: inout SplitMix64) -> [HabitOperation] {
        var next = Array(repeating: 0, count: perDevice.count)
        var out: [HabitOperation] = []
        out.reserveCapacity(perDevice.reduce(0) { $0 + $1.count })
        while true {
            let ready = perDevice.indices.filter { next[$0] < perDevice[$0].count }
            guard let d = ready.randomElement(using: &rng) else { return out }
            out.append(perDevice[d][next[d]])
            next[d] += 1
        }
    }
}

/// A replica fed in the given order, failing the test unless every operation applies.
func replica(_ ops: [HabitOperation], file: StaticString = #filePath, line: UInt = #line) -> HabitState {
    var s = HabitState()
    for op in ops { applyOrFail(op, to: &s, file: file, line: line) }
    return s
}
