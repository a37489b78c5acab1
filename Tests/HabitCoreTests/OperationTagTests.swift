import XCTest
import HabitCore

/// The one table of operation tags (`OperationTag`): every tag written round-trips, the
/// tags older versions wrote are read, and every other byte is refused.
final class OperationTagTests: XCTestCase {
    private let h = habitID(0xabcdef)
    private let day = LocalDay(year: 2026, month: 3, day: 2)!

    /// A change of each kind the tag is written for (the switch has no default, so a new tag
    /// needs a sample here).
    private func samples(_ tag: OperationTag) -> [Change] {
        switch tag {
        case .create:
            return [.create(h, HabitFields(name: "Read", goal: 2_500, startDate: day)),
                    .create(h, HabitFields(name: "Read", startDate: day, position: "V")),
                    .create(h, HabitFields(name: "Read", startDate: day, reminders: [ReminderTime(minutes: 480)]))]
        case .set: return [.set(h, .name("Run")), .set(h, .schedule(.perWeek(3))), .set(h, .unit(nil))]
        case .setGoal: return [.set(h, .goal(0)), .set(h, .goal(1_500)), .set(h, .goal(Limits.maxGoal))]
        case .setFrom: return [.setFrom(h, day, .goal(7_250)), .setFrom(h, day, .kind(.limit)), .setFrom(h, day, .schedule(.perMonth(31)))]
        case .clearFrom: return HabitRule.fieldIndices.map { .clearFrom(h, day, index: $0) }
        case .delete: return [.delete(h)]
        case .restore: return [.restore(h, deleteOp: OpID(device: deviceID(9), seq: 42))]
        case .progress: return [.progress(h, day, delta: 1), .progress(h, day, delta: -Limits.maxChange)]
        case .setProgress: return [.setProgress(h, day, total: 0), .setProgress(h, day, total: Limits.maxDayProgress)]
        case .skip: return [.skip(h, day, true), .skip(h, day, false)]
        case .rate: return [.rate(h, day, nil)] + Limits.difficulty.map { .rate(h, day, $0) }
        case .note: return [.note(h, day, "ran\n5k"), .note(h, day, nil)]
        case .notDone: return [.notDone(h, day, true), .notDone(h, day, false)]
        case .pause:
            return [.pause(h, from: day, to: day, reason: ""), .pause(h, from: day, to: day.adding(Limits.maxPauseDays - 1), reason: "holiday"),
                    .pause(h, from: day, to: day.adding(3), reason: nil)]
        }
    }

    private func operation(_ change: Change) -> HabitOperation {
        HabitOperation(id: OpID(device: deviceID(3), seq: 7), hlc: HLC(wallMillis: 5, counter: 1), change: change)
    }

    /// An operation's bytes: its id and clock, then `tail` (a tag and what follows).
    private func bytes(tag: UInt8, then tail: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.opID(OpID(device: deviceID(3), seq: 7)); w.hlc(HLC(wallMillis: 5, counter: 1))
        w.u8(tag)
        w.raw(tail)
        return w.bytes
    }

    func testEveryTagRoundTripsItsChanges() throws {
        var prefix = ByteWriter()
        prefix.opID(OpID(device: deviceID(3), seq: 7)); prefix.hlc(HLC(wallMillis: 5, counter: 1))
        for tag in OperationTag.allCases {
            for change in samples(tag) {
                XCTAssertEqual(OperationTag(of: change), tag, "\(change)")
                let op = operation(change)
                var w = ByteWriter()
                w.operation(op)
                XCTAssertEqual(w.bytes[prefix.bytes.count], tag.rawValue, "\(change) is written with tag \(tag)")
                XCTAssertEqual(try decodeOperation(w.bytes), op, "\(change) decodes to itself")
            }
        }
    }

    func testTagsAreDistinctAndNoOldTagIsWritten() {
        let written = Set(OperationTag.allCases.map(\.rawValue)), old = Set(LegacyOperationTag.allCases.map(\.rawValue))
        XCTAssertEqual(written.count, OperationTag.allCases.count)
        XCTAssertTrue(written.isDisjoint(with: old), "a tag is either written or only read")
    }

    func testOldTagsAreReadInWholeUnits() throws {
        let fields = HabitFields(name: "Read", goal: 3 * Amount.scale, startDate: day)
        var tenFields = ByteWriter(), counted = ByteWriter(), progress = ByteWriter()
        tenFields.habit(h); counted.habit(h); counted.varint(11)
        for f in FieldValue.all(of: fields).prefix(11) {
            let stored: FieldValue = if case .goal = f { .goal(3) } else { f }
            if f.index < 10 { tenFields.field(stored) }
            counted.field(stored)
        }
        progress.habit(h); progress.day(day); progress.int(-2)
        XCTAssertEqual(try decodeOperation(bytes(tag: LegacyOperationTag.createTenFields.rawValue, then: tenFields.bytes)).change,
                       .create(h, fields))
        XCTAssertEqual(try decodeOperation(bytes(tag: LegacyOperationTag.createWholeUnits.rawValue, then: counted.bytes)).change,
                       .create(h, fields))
        XCTAssertEqual(try decodeOperation(bytes(tag: LegacyOperationTag.progressWholeUnits.rawValue, then: progress.bytes)).change,
                       .progress(h, day, delta: -2 * Amount.scale))
        var goal = ByteWriter()
        goal.habit(h); goal.field(.goal(4))
        XCTAssertEqual(try decodeOperation(bytes(tag: OperationTag.set.rawValue, then: goal.bytes)).change, .set(h, .goal(4 * Amount.scale)),
                       "a goal under the set tag is whole units")
    }

    func testEveryUnknownTagIsRefusedWithItsNumber() {
        let known = Set(OperationTag.allCases.map(\.rawValue) + LegacyOperationTag.allCases.map(\.rawValue))
        // Enough bytes after the tag for any change, so that only the tag can be refused.
        var tail = ByteWriter()
        tail.habit(h); tail.day(day); tail.raw([UInt8](repeating: 1, count: 64))
        for tag in UInt8.min...UInt8.max where !known.contains(tag) {
            XCTAssertThrowsError(try decodeOperation(bytes(tag: tag, then: tail.bytes)), "tag \(tag)") { error in
                XCTAssertEqual(error as? DecodeError,
                               DecodeError("unknown operation kind \(tag) (written by a newer version of Habitto: update this one)"))
            }
        }
    }

    func testABadPauseIsRefused() {
        func tail(_ from: LocalDay, _ to: LocalDay, _ reason: String?) -> [UInt8] {
            var w = ByteWriter()
            w.habit(h); w.day(from); w.day(to); w.optionalString(reason)
            return w.bytes
        }
        let tag = OperationTag.pause.rawValue
        for (bad, why) in [(tail(day, day.adding(-1), ""), "ends before it starts"),
                           (tail(day, day.adding(Limits.maxPauseDays), ""), "one day too long"),
                           (tail(day, day, " spaced "), "a reason Validate refuses"),
                           (tail(day, day, "a\u{1b}[2J"), "an escape in the reason"),
                           (Array(tail(day, day, "trip").dropLast(2)), "cut short")] {
            XCTAssertThrowsError(try decodeOperation(bytes(tag: tag, then: bad)), why)
        }
        XCTAssertEqual(try decodeOperation(bytes(tag: tag, then: tail(day, day.adding(2), "trip"))).change,
                       .pause(h, from: day, to: day.adding(2), reason: "trip"))
    }
}
