import Foundation
import XCTest
import HabitCore

private let start = LocalDay(year: 2026, month: 11, day: 2)!  // a Monday
private let utc = TimeZone(identifier: "UTC")!

private func times(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [ReminderTime] {
    do { return try ReminderTime.parseList(text) } catch {
        XCTFail("\(text): \(error)", file: file, line: line)
        return []
    }
}

final class ReminderTimeTests: XCTestCase {
    func testAListIsReadSortedWithoutDuplicates() {
        XCTAssertEqual(times("20:00, 8:05,08:05").map(\.description), ["08:05", "20:00"])
        XCTAssertEqual(times(""), [])
        XCTAssertEqual(times("00:00,23:59").map(\.minutes), [0, 1439])
        XCTAssertEqual(ReminderTime.format(times("21:30,07:00")), "07:00,21:30")
    }

    func testBadTimesAreRefusedWithWhatToWrite() {
        for bad in ["24:00", "8", "08:5", "08:60", "-1:00", "ab:cd", "08:00,", ",", "08:00:00", "０8:00", "8 :00x"] {
            XCTAssertThrowsError(try ReminderTime.parseList(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("HH:MM") || "\(error)".contains("at most"), "\(bad): \(error)")
            }
        }
        let nine = (0..<9).map { "0\($0):00" }.joined(separator: ",")
        XCTAssertThrowsError(try ReminderTime.parseList(nine)) { XCTAssertEqual("\($0)", "9 reminder times: a habit can have at most 8") }
        XCTAssertNoThrow(try ReminderTime.parseList((0..<8).map { "0\($0):00" }.joined(separator: ",")))
    }

    func testValidationRefusesUnsortedDuplicateAndOutOfRangeLists() {
        let a = ReminderTime(minutes: 60), b = ReminderTime(minutes: 120)
        XCTAssertNoThrow(try Validate.reminders([a, b]))
        XCTAssertThrowsError(try Validate.reminders([b, a]))
        XCTAssertThrowsError(try Validate.reminders([a, a]))
        XCTAssertThrowsError(try Validate.reminders([ReminderTime(minutes: 1440)]))
        XCTAssertThrowsError(try Validate.reminders([ReminderTime(minutes: -1)]))
        XCTAssertThrowsError(try HabitFields(name: "Read", startDate: start, reminders: [b, a]).validate())
        XCTAssertThrowsError(try Change.set(habitID(1), .reminders([a, a])).validate())
    }
}

final class ReminderCodecTests: XCTestCase {
    func testRemindersRoundTripInCreatesAndSets() throws {
        let fields = HabitFields(name: "Read", startDate: start, reminders: times("08:00,20:30"))
        XCTAssertEqual(try roundTrip(.create(habitID(1), fields)), .create(habitID(1), fields))
        var keyed = fields
        keyed.position = "V"
        XCTAssertEqual(try roundTrip(.create(habitID(1), keyed)), .create(habitID(1), keyed))
        XCTAssertEqual(try roundTrip(.set(habitID(1), .reminders(times("23:59")))), .set(habitID(1), .reminders(times("23:59"))))
        XCTAssertEqual(try roundTrip(.set(habitID(1), .reminders([]))), .set(habitID(1), .reminders([])))
    }

    func testACreateIsWrittenWithTheFieldsItUsesAsBefore() {
        func count(_ fields: HabitFields) -> UInt8 {
            var w = ByteWriter()
            w.change(.create(habitID(1), fields))
            return w.bytes[9]
        }
        XCTAssertEqual(count(HabitFields(name: "Read", startDate: start)), UInt8(FieldValue.countBeforePosition))
        XCTAssertEqual(count(HabitFields(name: "Read", startDate: start, position: "V")), UInt8(FieldValue.countBeforeReminders))
        XCTAssertEqual(count(HabitFields(name: "Read", startDate: start, reminders: times("09:00"))), UInt8(FieldValue.count))
    }

    func testHostileReminderTimesInAnOperationAreRefused() {
        for bad: [UInt64] in [[1440], [600, 60], [60, 60], Array(repeating: 1, count: 9), [1 << 40]] {
            var w = ByteWriter()
            w.u8(2); w.habit(habitID(1)); w.u8(12); w.varint(UInt64(bad.count)); for m in bad { w.varint(m) }
            var r = ByteReader(w.bytes)
            XCTAssertThrowsError(try r.change(), "\(bad)") { XCTAssertTrue($0 is DecodeError, "\($0)") }
        }
    }

    func testAStateEncodedWithTwelveFieldsReadsWithoutReminders() throws {
        var world = World()
        let h = world.build("Read", start: start)
        world.set(h, .position("V"))
        let old = world.state.encoded(as: StateFormat(fieldCount: FieldValue.countBeforeReminders))
        var r = ByteReader(old)
        r.format.fieldCount = FieldValue.countBeforeReminders
        let state = try HabitState(decoding: &r)
        XCTAssertTrue(r.isAtEnd)
        XCTAssertEqual(state, world.state)
        XCTAssertNotEqual(old, world.state.encoded(), "the current encoding holds the reminders register")
    }

    func testACreateWithoutRemindersLeavesTheRegisterUnset() {
        var world = World()
        let h = world.build("Read", start: start)
        XCTAssertNil(world.state.entries[h.id]?.fieldStamps[FieldValue.reminders([]).index] ?? nil)
        let set = world.set(h, .reminders(times("07:15")))
        XCTAssertEqual(set.fields.reminders, times("07:15"))
    }
}

final class ReminderMergeTests: XCTestCase {
    /// Two devices set a habit's reminder times at once: the later write wins on both,
    /// whichever order the operations arrive in.
    func testConcurrentReminderEditsConvergeOnTheLaterWrite() {
        var a = TestDevice(1), b = TestDevice(2)
        let h = habitID(1)
        let create = a.op(.create(h, HabitFields(name: "Read", startDate: start, reminders: times("08:00"))), at: 1_000)
        let fromA = a.op(.set(h, .reminders(times("09:00,21:00"))), at: 2_000)
        let fromB = b.op(.set(h, .reminders([])), at: 3_000)
        var one = HabitState(), two = HabitState()
        for op in [create, fromA, fromB] { applyOrFail(op, to: &one) }
        for op in [fromB, create, fromA] { applyOrFail(op, to: &two) }
        XCTAssertEqual(one, two)
        XCTAssertEqual(one.habit(h)?.fields.reminders, [])
        var three = HabitState()
        for op in [create, fromA] { applyOrFail(op, to: &three) }
        XCTAssertEqual(three.habit(h)?.fields.reminders, times("09:00,21:00"))
    }
}

final class DueReminderTests: XCTestCase {
    private func at(_ text: String) -> Date {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = utc
        let d = LocalDay(String(text.prefix(10)))!.components
        let hm = text.dropFirst(11).split(separator: ":").map { Int($0)! }
        return c.date(from: DateComponents(year: d.year, month: d.month, day: d.day, hour: hm[0], minute: hm[1]))!
    }

    private func due(_ state: HabitState, _ now: String, dayStart: Int = 0) -> [String] {
        let instant = at(now)
        let today = LocalDay.containing(instant, in: utc, dayStartHour: dayStart)
        return Reminders.due(in: state, now: instant, today: today, timeZone: utc, dayStartHour: dayStart, settings: RuleSettings())
            .map { "\($0.habit.name) \($0.day) \($0.time)" }
    }

    func testAReminderIsDueFromItsTimeForTheGraceWindow() {
        var world = World()
        world.create(HabitFields(name: "Read", startDate: start, reminders: times("08:00,20:00")))
        XCTAssertEqual(due(world.state, "2026-11-02T07:59"), [])
        XCTAssertEqual(due(world.state, "2026-11-02T08:00"), ["Read 2026-11-02 08:00"])
        XCTAssertEqual(due(world.state, "2026-11-02T10:00"), ["Read 2026-11-02 08:00"])
        XCTAssertEqual(due(world.state, "2026-11-02T10:01"), [], "older than \(Reminders.graceMinutes) minutes")
        XCTAssertEqual(due(world.state, "2026-11-02T21:00"), ["Read 2026-11-02 20:00"])
    }

    func testADoneSkippedOrNotDueHabitIsNotReminded() {
        var world = World()
        let read = world.create(HabitFields(name: "Read", startDate: start, reminders: times("08:00")))
        let gym = world.create(HabitFields(name: "Gym", schedule: .weekdays([.tuesday]), startDate: start, reminders: times("08:00")))
        let walk = world.create(HabitFields(name: "Walk", goal: 2_000, startDate: start, reminders: times("08:00")))
        let yoga = world.create(HabitFields(name: "Yoga", startDate: start, reminders: times("08:00")))
        world.create(HabitFields(name: "Later", startDate: start.adding(1), reminders: times("08:00")))
        world.progress(read, start)
        world.progress(walk, start)  // 1 of 2: not done yet
        world.skip(yoga, start)
        XCTAssertEqual(due(world.state, "2026-11-02T08:30"), ["Walk 2026-11-02 08:00"])
        world.set(walk, .archivedFrom(start))
        XCTAssertEqual(due(world.state, "2026-11-02T08:30"), [])
        XCTAssertEqual(due(world.state, "2026-11-03T08:30").sorted(), ["Gym 2026-11-03 08:00", "Later 2026-11-03 08:00",
                                                                       "Read 2026-11-03 08:00", "Yoga 2026-11-03 08:00"])
        _ = gym
    }

    func testALimitHabitIsRemindedUntilSomethingIsRecorded() {
        var world = World()
        let coffee = world.create(HabitFields(name: "Coffee", kind: .limit, goal: 3_000, startDate: start, reminders: times("21:00")))
        XCTAssertEqual(due(world.state, "2026-11-02T21:05"), ["Coffee 2026-11-02 21:00"])
        world.progress(coffee, start)
        XCTAssertEqual(due(world.state, "2026-11-02T21:05"), [])
    }

    func testATimeBeforeTheDayStartHourBelongsToTheDayBefore() {
        var world = World()
        world.create(HabitFields(name: "Read", startDate: start, reminders: times("01:00")))
        // With days starting at 04:00, 01:00 on the 3rd is still the habit day of the 2nd.
        XCTAssertEqual(due(world.state, "2026-11-03T01:30", dayStart: 4), ["Read 2026-11-02 01:00"])
        XCTAssertEqual(due(world.state, "2026-11-02T01:30", dayStart: 4), [], "the habit day of the 1st, before the start")
    }
}
