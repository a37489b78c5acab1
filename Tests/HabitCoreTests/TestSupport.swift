import Foundation
import XCTest
import HabitCore


/// A device id whose last hex digits are `n` (so `deviceID(1) < deviceID(2)`).
func deviceID(_ n: UInt64) -> DeviceID {
    let s = String(n, radix: 16)
    return DeviceID(String(repeating: "0", count: 32 - s.count) + s)!
}

/// A habit id whose last hex digits are `n`.
func habitID(_ n: UInt64) -> HabitID {
    let s = String(n, radix: 16)
    return HabitID(String(repeating: "0", count: 16 - s.count) + s)!
}

/// Parses a `YYYY-MM-DD` key, failing the calling test when it does not parse.
func day(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> LocalDay {
    guard let d = LocalDay(text) else {
        XCTFail("'\(text)' is not a valid day key", file: file, line: line)
        return LocalDay(ordinal: 0)
    }
    return d
}

/// Stamps operations for one device: sequence numbers from 1 and a ticking HLC.
struct TestDevice {
    let id: DeviceID
    private(set) var seq: UInt64 = 0
    private(set) var clock: HLC

    init(_ n: UInt64, wallMillis: Int64 = 1_000) {
        id = deviceID(n)
        clock = HLC(wallMillis: wallMillis, counter: 0)
    }

    /// The next operation from this device; `at` sets the wall clock it reads (it never goes back).
    mutating func op(_ change: Change, at wallMillis: Int64? = nil) -> HabitOperation {
        seq += 1
        clock = clock.tick(nowMillis: wallMillis ?? clock.wallMillis)
        return HabitOperation(id: OpID(device: id, seq: seq), hlc: clock, change: change)
    }

    /// An operation with an explicit HLC (for last-writer-wins ordering tests).
    mutating func op(_ change: Change, hlc: HLC) -> HabitOperation {
        seq += 1
        clock = clock.observing(hlc)
        return HabitOperation(id: OpID(device: id, seq: seq), hlc: hlc, change: change)
    }

    /// Moves the clock past a reading seen from elsewhere.
    mutating func observe(_ hlc: HLC) { clock = clock.observing(hlc) }
}

/// Applies `op`, failing the calling test unless it was applied.
func applyOrFail(_ op: HabitOperation, to state: inout HabitState,
                 file: StaticString = #filePath, line: UInt = #line) {
    let outcome = state.apply(op)
    XCTAssertEqual(outcome, .applied, "operation \(op.id) was not applied", file: file, line: line)
}

/// One device writing into one state: the quickest way to set up rule scenarios.
struct World {
    var state = HabitState()
    var device = TestDevice(1)
    private var nextHabit: UInt64 = 1

    /// Creates a habit (after validating its fields) and returns it as the state sees it.
    @discardableResult
    mutating func create(_ fields: HabitFields, file: StaticString = #filePath, line: UInt = #line) -> Habit {
        XCTAssertNoThrow(try fields.validate(), "fixture fields must be valid", file: file, line: line)
        let id = habitID(nextHabit)
        nextHabit += 1
        applyOrFail(device.op(.create(id, fields)), to: &state, file: file, line: line)
        return habit(id, file: file, line: line)
    }

    /// A build habit (goal one unit by default) starting on `start`.
    @discardableResult
    mutating func build(_ name: String = "Read", start: LocalDay, goal: Int = Amount.scale, schedule: Schedule = .daily,
                        file: StaticString = #filePath, line: UInt = #line) -> Habit {
        create(HabitFields(name: name, kind: .build, goal: goal, schedule: schedule, startDate: start),
               file: file, line: line)
    }

    /// A limit habit (at most `goal` per day) starting on `start`.
    @discardableResult
    mutating func limit(_ name: String = "Coffee", start: LocalDay, goal: Int, schedule: Schedule = .daily,
                        file: StaticString = #filePath, line: UInt = #line) -> Habit {
        create(HabitFields(name: name, kind: .limit, goal: goal, schedule: schedule, startDate: start),
               file: file, line: line)
    }

    /// The current value of a habit, failing the calling test when it does not exist.
    func habit(_ id: HabitID, file: StaticString = #filePath, line: UInt = #line) -> Habit {
        guard let h = state.habit(id) else {
            XCTFail("habit \(id) does not exist", file: file, line: line)
            return Habit(id: id, fields: HabitFields(name: "missing", startDate: .earliest))
        }
        return h
    }

    mutating func apply(_ change: Change, file: StaticString = #filePath, line: UInt = #line) -> HabitOperation {
        let op = device.op(change)
        applyOrFail(op, to: &state, file: file, line: line)
        return op
    }

    mutating func progress(_ h: Habit, _ d: LocalDay, _ delta: Int = Amount.scale,
                           file: StaticString = #filePath, line: UInt = #line) {
        _ = apply(.progress(h.id, d, delta: delta), file: file, line: line)
    }

    /// Records `delta` on every day in `days`.
    mutating func progress(_ h: Habit, days: [LocalDay], _ delta: Int = Amount.scale,
                           file: StaticString = #filePath, line: UInt = #line) {
        for d in days { progress(h, d, delta, file: file, line: line) }
    }

    mutating func skip(_ h: Habit, _ d: LocalDay, _ skipped: Bool = true,
                       file: StaticString = #filePath, line: UInt = #line) {
        _ = apply(.skip(h.id, d, skipped), file: file, line: line)
    }

    mutating func rate(_ h: Habit, _ d: LocalDay, _ rating: Int?,
                       file: StaticString = #filePath, line: UInt = #line) {
        _ = apply(.rate(h.id, d, rating), file: file, line: line)
    }

    /// Sets a field and returns the habit's new value.
    @discardableResult
    mutating func set(_ h: Habit, _ value: FieldValue,
                      file: StaticString = #filePath, line: UInt = #line) -> Habit {
        _ = apply(.set(h.id, value), file: file, line: line)
        return state.habit(h.id) ?? h
    }

    mutating func delete(_ h: Habit, file: StaticString = #filePath, line: UInt = #line) -> OpID {
        apply(.delete(h.id), file: file, line: line).id
    }
}

/// `count` consecutive days starting at `first`.
func days(from first: LocalDay, count: Int) -> [LocalDay] { (0..<count).map { first.adding($0) } }

/// Asserts two doubles agree within `accuracy`, naming both in the message.
func assertClose(_ actual: Double, _ expected: Double, accuracy: Double, _ message: String = "",
                 file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual, expected, accuracy: accuracy,
                   "\(message) got \(actual), expected \(expected)", file: file, line: line)
}

/// A change written and read back by the operation codec (which must read all of it).
func roundTrip(_ change: Change, file: StaticString = #filePath, line: UInt = #line) throws -> Change {
    var w = ByteWriter()
    w.change(change)
    var r = ByteReader(w.bytes)
    let back = try r.change()
    XCTAssertTrue(r.isAtEnd, "the whole encoding is read", file: file, line: line)
    return back
}
