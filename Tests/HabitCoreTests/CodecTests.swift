import Foundation
import XCTest
import HabitCore

private let monday = LocalDay(year: 2026, month: 3, day: 2)!

private func encode(_ op: HabitOperation) -> [UInt8] {
    var w = ByteWriter()
    w.operation(op)
    return w.bytes
}

/// One operation decoded from `bytes`, which must hold nothing more.
func decodeOperation(_ bytes: [UInt8]) throws -> HabitOperation {
    var r = ByteReader(bytes)
    let op = try r.operation()
    guard r.isAtEnd else { throw DecodeError("trailing bytes") }
    return op
}

private func decodeState(_ bytes: [UInt8]) throws -> HabitState {
    var r = ByteReader(bytes)
    let s = try HabitState(decoding: &r)
    guard r.isAtEnd else { throw DecodeError("trailing bytes") }
    return s
}

final class CodecTests: XCTestCase {
    private func assertRoundTrips(_ op: HabitOperation, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = encode(op)
        let label = "operation \(op.id) (\(bytes.count) bytes)"
        do {
            let decoded = try decodeOperation(bytes)
            XCTAssertTrue(decoded == op, "\(label) decoded to something else", file: file, line: line)
        } catch {
            XCTFail("\(label) did not decode: \(error)", file: file, line: line)
        }
        XCTAssertEqual(encode(op), bytes, "encoding is deterministic", file: file, line: line)
    }

    private func assertDecodeError(_ message: String, file: StaticString = #filePath, line: UInt = #line,
                                   _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), message, file: file, line: line) { error in
            XCTAssertTrue(error is DecodeError, "\(message): expected DecodeError, got \(error)", file: file, line: line)
        }
    }

    private func randomState(seed: UInt64, devices: Int = 3, opsPerDevice: Int = 50) -> HabitState {
        var rng = SplitMix64(seed: seed)
        return replica(RandomHistory(devices: devices, opsPerDevice: opsPerDevice, using: &rng).interleaving(using: &rng))
    }

    // MARK: Round trips

    func testEveryOperationKindRoundTrips() {
        var a = TestDevice(0xfeed)
        let h = habitID(0xdeadbeef)
        let full = HabitFields(name: "Läsa 📚", icon: "📚", color: "#a0b1c2", kind: .limit, goal: Limits.maxGoal,
                               unit: "pages", schedule: .weekdays([.monday, .sunday]), startDate: .earliest,
                               archivedFrom: .latest, notes: "line one\nline two", group: "Health")
        let changes: [Change] = [
            .create(h, full),
            .create(h, HabitFields(name: "R", startDate: monday)),
            .set(h, .name("New name")), .set(h, .icon(nil)), .set(h, .icon("🔥")), .set(h, .color(nil)),
            .set(h, .color("red")), .set(h, .kind(.build)), .set(h, .kind(.limit)), .set(h, .goal(0)),
            .set(h, .goal(Limits.maxGoal)), .set(h, .goal(2_500)), .set(h, .unit(nil)), .set(h, .unit("km")), .set(h, .schedule(.daily)),
            .set(h, .schedule(.everyNDays(365))), .set(h, .schedule(.perWeek(1))),
            .set(h, .schedule(.weekdays(Set(Weekday.allCases)))), .set(h, .startDate(monday)),
            .set(h, .archivedFrom(nil)), .set(h, .archivedFrom(monday)), .set(h, .notes(nil)), .set(h, .notes("")),
            .delete(h), .restore(h, deleteOp: OpID(device: deviceID(7), seq: 123_456_789)),
            .progress(h, monday, delta: 1), .progress(h, monday, delta: -1), .progress(h, .latest, delta: Limits.maxChange),
            .progress(h, .earliest, delta: -Limits.maxChange), .progress(h, monday, delta: 1_500),
            .skip(h, monday, true), .skip(h, monday, false),
            .rate(h, monday, 1), .rate(h, monday, 5), .rate(h, monday, nil),
            .set(h, .group("Work")), .set(h, .group(nil)),
            .note(h, monday, "ran 5k, \"easy\"\nsecond line"), .note(h, monday, nil),
        ]
        for c in changes { assertRoundTrips(a.op(c)) }
    }

    func testACreateWrittenBeforeHabitsHadGroupsStillDecodes() throws {
        // The first journal format wrote tag 1 and exactly ten fields (no group), with the
        // goal in whole units.
        let h = habitID(0x1234)
        let fields = HabitFields(name: "Read", goal: 3 * Amount.scale, unit: "pages", startDate: monday, notes: "n")
        var w = ByteWriter()
        w.opID(OpID(device: deviceID(3), seq: 1)); w.hlc(HLC(wallMillis: 5, counter: 0))
        w.u8(1); w.habit(h)
        for f in FieldValue.all(of: fields).prefix(10) {
            if case .goal = f { w.field(.goal(3)) } else { w.field(f) }
        }
        let op = try decodeOperation(w.bytes)
        XCTAssertEqual(op.change, .create(h, fields))
        // Today's encoding of the same change is tag 11 with a field count, and reads back.
        XCTAssertEqual(encode(op)[19], 11) // 16-byte device, seq, wall, counter, then the tag
        assertRoundTrips(op)
    }

    func testClockReadingsAndSequenceNumbersRoundTripAtTheirExtremes() {
        let h = habitID(1)
        for hlc in [HLC.zero, HLC(wallMillis: 1_767_225_600_000, counter: 1), HLC(wallMillis: .max, counter: .max),
                    HLC(wallMillis: -1, counter: 0), HLC(wallMillis: .min, counter: 7)] {
            for seq: UInt64 in [1, 127, 128, .max] {
                assertRoundTrips(HabitOperation(id: OpID(device: deviceID(.max), seq: seq), hlc: hlc, change: .delete(h)))
            }
        }
    }

    func testPrimitiveIntegersRoundTrip() throws {
        var w = ByteWriter()
        let ints = [0, 1, -1, 63, -64, 64, Int.max, Int.min, 1 << 40, -(1 << 40)]
        for v in ints { w.int(v) }
        w.u32le(0xDEAD_BEEF)
        w.u64le(.max)
        w.varint(300)
        var r = ByteReader(w.bytes)
        for v in ints { XCTAssertEqual(try r.int(), v) }
        XCTAssertEqual(try r.u32le(), 0xDEAD_BEEF)
        XCTAssertEqual(try r.u64le(), .max)
        XCTAssertEqual(try r.varint(), 300)
        XCTAssertTrue(r.isAtEnd)
    }

    func testRandomOperationsRoundTripOneByOneAndAsAStream() throws {
        var rng = SplitMix64(seed: 42)
        let ops = RandomHistory(devices: 4, opsPerDevice: 100, using: &rng).all
        var stream = ByteWriter()
        for op in ops {
            assertRoundTrips(op)
            stream.operation(op)
        }
        var r = ByteReader(stream.bytes)
        var read: [HabitOperation] = []
        while !r.isAtEnd { read.append(try r.operation()) }
        XCTAssertEqual(read, ops)
    }

    func testStatesRoundTripAndReencodeToTheSameBytes() throws {
        XCTAssertEqual(try decodeState(HabitState().encoded()), HabitState())
        for seed: UInt64 in [1, 2, 3, 4, 5] {
            let state = randomState(seed: seed)
            let bytes = state.encoded()
            let decoded = try decodeState(bytes)
            XCTAssertEqual(decoded, state, "seed \(seed)")
            XCTAssertEqual(decoded.encoded(), bytes, "seed \(seed)")
            XCTAssertEqual(decoded.stats(today: monday.adding(9)), state.stats(today: monday.adding(9)))
        }
    }

    func testAStateCanBeRebuiltFromADecodedSnapshotPlusLaterOperations() throws {
        var rng = SplitMix64(seed: 77)
        let history = RandomHistory(devices: 3, opsPerDevice: 40, using: &rng)
        let order = history.interleaving(using: &rng)
        var snapshot = try decodeState(replica(Array(order.prefix(50))).encoded())
        for op in order.dropFirst(50) { applyOrFail(op, to: &snapshot) }
        XCTAssertEqual(snapshot.encoded(), replica(order).encoded())
    }

    func testLongestValidNamesAndNotesRoundTrip() throws {
        // 64 characters is the limit however many bytes each character takes.
        let family = "👨‍👩‍👧‍👦" // one character, 25 bytes of UTF-8
        let longName = String(repeating: family, count: 64)
        XCTAssertNoThrow(try Validate.name(longName))
        let notes = String(repeating: family, count: 2000)
        XCTAssertNoThrow(try Validate.notes(notes))
        var a = TestDevice(1)
        let h = habitID(1)
        let create = a.op(.create(h, HabitFields(name: longName, startDate: monday, notes: notes)))
        let rename = a.op(.set(h, .name(String(repeating: "🧑🏽‍💻", count: 64))))
        assertRoundTrips(create)
        assertRoundTrips(rename)
        let state = replica([create, rename])
        XCTAssertEqual(try decodeState(state.encoded()), state)
    }

    func testTextThatValidatesAlwaysDecodes() throws {
        // One character can carry any number of combining marks: whatever Validate accepts
        // must come back out of the journal, and what could not is refused up front.
        let marked = "a" + String(repeating: "\u{301}", count: 3_000) // 1 character, 6,001 bytes
        let heavy = "a" + String(repeating: "\u{301}", count: 40_000) // 1 character, 80,001 bytes
        XCTAssertNoThrow(try Validate.name(marked))
        XCTAssertThrowsError(try Validate.name(heavy))
        var a = TestDevice(1)
        let h = habitID(1)
        for text in [marked, heavy] {
            for value in [FieldValue.name(text), .unit(text), .icon(text), .notes(text)] {
                var fields = HabitFields(name: "Read", startDate: monday)
                value.apply(to: &fields)
                if (try? fields.validate()) != nil { assertRoundTrips(a.op(.set(h, value))) }
            }
        }
        XCTAssertEqual(a.seq, 4, "every field accepted the 6,001-byte character")
    }

    // MARK: Damaged input

    func testEveryTruncationOfAnOperationThrowsADecodeError() {
        var rng = SplitMix64(seed: 5)
        var a = TestDevice(3)
        var ops = RandomHistory(devices: 2, opsPerDevice: 30, using: &rng).all
        ops.append(a.op(.create(habitID(2), HabitFields(name: "Läsa 📚", icon: "📚", color: "red", unit: "pages",
                                                        startDate: monday, archivedFrom: monday, notes: "n"))))
        for op in ops {
            let bytes = encode(op)
            for n in 0..<bytes.count {
                assertDecodeError("\(op.change) cut to \(n) of \(bytes.count) bytes") {
                    var r = ByteReader(Array(bytes[..<n]))
                    _ = try r.operation()
                }
                assertDecodeError("\(op.change) read up to \(n) of \(bytes.count) bytes") {
                    var r = ByteReader(bytes, to: n)
                    _ = try r.operation()
                }
            }
        }
    }

    func testEveryTruncationOfAStateThrowsADecodeError() {
        let bytes = randomState(seed: 11, devices: 2, opsPerDevice: 12).encoded()
        XCTAssertGreaterThan(bytes.count, 100)
        for n in 0..<bytes.count {
            assertDecodeError("state cut to \(n) of \(bytes.count) bytes") {
                var r = ByteReader(Array(bytes[..<n]))
                _ = try HabitState(decoding: &r)
            }
        }
    }

    func testCorruptedBytesAreRejectedOrDecodedButNeverCrash() {
        var rng = SplitMix64(seed: 0xDEFACED)
        let state = randomState(seed: 21, devices: 2, opsPerDevice: 20).encoded()
        let ops = RandomHistory(devices: 2, opsPerDevice: 40, using: &rng).all.map(encode)
        var rejected = 0
        for trial in 0..<3_000 {
            var bytes = trial % 3 == 0 ? state : ops.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                if trial % 3 == 0 { _ = try decodeState(bytes).encoded() } else { _ = encode(try decodeOperation(bytes)) }
            } catch {
                XCTAssertTrue(error is DecodeError, "unexpected \(error)")
                rejected += 1
            }
        }
        XCTAssertGreaterThan(rejected, 0)
        // Pure noise, too.
        for _ in 0..<2_000 {
            let noise = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do { _ = try decodeOperation(noise) } catch { XCTAssertTrue(error is DecodeError, "unexpected \(error)") }
            do { _ = try decodeState(noise) } catch { XCTAssertTrue(error is DecodeError, "unexpected \(error)") }
        }
    }

    func testOutOfRangeValuesAreRejected() {
        let h = habitID(1)
        let d = deviceID(1)
        func op(_ body: (inout ByteWriter) -> Void) -> [UInt8] {
            var w = ByteWriter()
            w.opID(OpID(device: d, seq: 1))
            w.hlc(HLC(wallMillis: 1, counter: 0))
            body(&w)
            return w.bytes
        }
        let cases: [(String, [UInt8])] = [
            ("unknown operation kind 0", op { $0.u8(0) }),
            ("unknown operation kind 8", op { $0.u8(8) }),
            ("difficulty 6", op { $0.u8(7); $0.habit(h); $0.day(monday); $0.u8(6) }),
            ("zero progress", op { $0.u8(5); $0.habit(h); $0.day(monday); $0.int(0) }),
            ("huge progress", op { $0.u8(5); $0.habit(h); $0.day(monday); $0.int(1_000_001) }),
            ("huge negative progress", op { $0.u8(5); $0.habit(h); $0.day(monday); $0.int(-1_000_001) }),
            ("progress Int.min", op { $0.u8(5); $0.habit(h); $0.day(monday); $0.int(.min) }),
            ("progress Int.max", op { $0.u8(5); $0.habit(h); $0.day(monday); $0.int(.max) }),
            ("goal Int.min", op { $0.u8(2); $0.habit(h); $0.u8(4); $0.int(.min) }),
            ("goal above the maximum", op { $0.u8(2); $0.habit(h); $0.u8(4); $0.int(1_000_001) }),
            ("goal in thousandths above the maximum", op { $0.u8(12); $0.habit(h); $0.u8(4); $0.int(Limits.maxGoal + 1) }),
            ("tag 12 with another field", op { $0.u8(12); $0.habit(h); $0.u8(0); $0.string("x") }),
            ("zero progress in thousandths", op { $0.u8(10); $0.habit(h); $0.day(monday); $0.int(0) }),
            ("huge progress in thousandths", op { $0.u8(10); $0.habit(h); $0.day(monday); $0.int(Limits.maxChange + 1) }),
            ("progress in thousandths Int.min", op { $0.u8(10); $0.habit(h); $0.day(monday); $0.int(.min) }),
            ("bad boolean", op { $0.u8(6); $0.habit(h); $0.day(monday); $0.u8(2) }),
            ("day before 1900", op { $0.u8(6); $0.habit(h); $0.int(LocalDay.earliest.ordinal - 1); $0.bool(true) }),
            ("day after 9999", op { $0.u8(6); $0.habit(h); $0.int(LocalDay.latest.ordinal + 1); $0.bool(true) }),
            ("unknown field", op { $0.u8(2); $0.habit(h); $0.u8(10) }),
            ("unknown kind", op { $0.u8(2); $0.habit(h); $0.u8(3); $0.u8(2) }),
            ("every:1", op { $0.u8(2); $0.habit(h); $0.u8(6); $0.u8(2); $0.int(1) }),
            ("8/week", op { $0.u8(2); $0.habit(h); $0.u8(6); $0.u8(3); $0.int(8) }),
            ("no weekdays", op { $0.u8(2); $0.habit(h); $0.u8(6); $0.u8(1); $0.u8(0) }),
            ("weekday bit 8", op { $0.u8(2); $0.habit(h); $0.u8(6); $0.u8(1); $0.u8(0x81) }),
            ("unknown schedule", op { $0.u8(2); $0.habit(h); $0.u8(6); $0.u8(4) }),
            ("invalid UTF-8", op { $0.u8(2); $0.habit(h); $0.u8(0); $0.varint(2); $0.raw([0xC3, 0x28]) }),
            ("fields out of order", op { $0.u8(1); $0.habit(h); $0.field(.icon(nil)) }),
            ("sequence 0", { var w = ByteWriter(); w.device(d); w.varint(0); w.hlc(.zero); w.change(.delete(h)); return w.bytes }()),
            ("counter above UInt32", { var w = ByteWriter(); w.opID(OpID(device: d, seq: 1)); w.varint(1); w.varint(1 << 32)
                                        w.change(.delete(h)); return w.bytes }()),
            ("varint too long", { var w = ByteWriter(); w.raw(Array(repeating: 0xFF, count: 32)); w.raw([1]); return w.bytes }()),
        ]
        for (name, bytes) in cases { assertDecodeError(name) { _ = try decodeOperation(bytes) } }
        assertDecodeError("string longer than the input") {
            var w = ByteWriter(); w.varint(1_000); w.raw([65, 66])
            var r = ByteReader(w.bytes)
            _ = try r.string()
        }
    }

    // MARK: Day columns

    private func encodedDays(_ days: [LocalDay: DayRecord]) -> [UInt8] {
        var w = ByteWriter()
        w.days(days)
        return w.bytes
    }

    func testColumnsReadFromBytesAgreeWithTheDecodedRecordsDayByDay() throws {
        var checkedDays = 0, skipped = 0, rated = 0, floored = 0
        for seed: UInt64 in 1...8 {
            let state = randomState(seed: seed, devices: 3, opsPerDevice: 80)
            for (id, entry) in state.entries {
                let days = entry.days
                var r = ByteReader(encodedDays(days))
                let read = try r.dayColumns()
                XCTAssertTrue(r.isAtEnd)
                XCTAssertEqual(read, DayColumns(days), "seed \(seed) habit \(id)")
                XCTAssertEqual(read.count, days.count)
                XCTAssertEqual(read.totalProgress, days.values.reduce(0) { $0 + $1.progress })
                for (day, rec) in days {
                    XCTAssertEqual(read.progress(on: day), rec.progress, "seed \(seed) \(day)")
                    XCTAssertEqual(read.isSkipped(on: day), rec.isSkipped, "seed \(seed) \(day)")
                    XCTAssertEqual(read.rating(on: day), rec.rating, "seed \(seed) \(day)")
                    checkedDays += 1
                    if rec.isSkipped { skipped += 1 }
                    if rec.rating != nil { rated += 1 }
                    if rec.progressOps.reduce(0, { $0 + $1.delta }) < 0 { floored += 1 }
                }
                // Days around the recorded ones that have no record read as nothing.
                for day in days.keys.flatMap({ [$0.adding(-1), $0.adding(1)] }) where days[day] == nil {
                    XCTAssertEqual(read.progress(on: day), 0)
                    XCTAssertFalse(read.isSkipped(on: day))
                    XCTAssertNil(read.rating(on: day))
                }
            }
        }
        // The random histories exercised every kind of value.
        XCTAssertGreaterThan(checkedDays, 100)
        XCTAssertGreaterThan(skipped, 0)
        XCTAssertGreaterThan(rated, 0)
        XCTAssertGreaterThan(floored, 0, "no day had more taken back than recorded")
    }

    func testColumnsRefuseDaysOutOfOrderAndEveryTruncation() throws {
        var a = TestDevice(1)
        var state = HabitState()
        let h = habitID(9)
        applyOrFail(a.op(.create(h, HabitFields(name: "Read", startDate: monday))), to: &state)
        applyOrFail(a.op(.progress(h, monday, delta: 2)), to: &state)
        applyOrFail(a.op(.progress(h, monday.adding(3), delta: 1)), to: &state)
        applyOrFail(a.op(.rate(h, monday.adding(3), 4)), to: &state)
        applyOrFail(a.op(.note(h, monday.adding(3), "tired")), to: &state)
        let days = try XCTUnwrap(state.entries[h]?.days)
        let early = encodedDays([monday: days[monday]!]), late = encodedDays([monday.adding(3): days[monday.adding(3)]!])
        XCTAssertEqual(early.first, 1)
        // Two days, the later first: the records decode, the columns do not.
        let swapped = [2] + late.dropFirst() + early.dropFirst()
        var records = ByteReader(swapped)
        XCTAssertEqual(try records.days(), days)
        assertDecodeError("days out of order") {
            var r = ByteReader(swapped)
            _ = try r.dayColumns()
        }
        let bytes = encodedDays(days)
        for n in 0..<bytes.count {
            assertDecodeError("days cut to \(n) of \(bytes.count) bytes") {
                var r = ByteReader(Array(bytes[..<n]))
                _ = try r.dayColumns()
            }
        }
    }
}
