import XCTest
import HabitCore

/// The "set" step (`Change.setProgress`): a day's running total set outright, as an auto
/// habit's command measures it, merging by the running-total rules.
final class SetStepTests: XCTestCase {
    let start = LocalDay("2026-11-01")!
    let today = LocalDay("2026-11-21")!

    func testASetStepMakesTheTotalAndLaterCheckInsAddToIt() {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        w.progress(water, today, 2 * Amount.scale)
        _ = w.apply(.setProgress(water.id, today, total: 5 * Amount.scale))
        XCTAssertEqual(w.state.progress(water.id, today), 5 * Amount.scale, "the set step replaces what was before it")
        w.progress(water, today, Amount.scale)
        XCTAssertEqual(w.state.progress(water.id, today), 6 * Amount.scale, "a later check-in adds to the set total")
        _ = w.apply(.setProgress(water.id, today, total: 0))
        XCTAssertEqual(w.state.progress(water.id, today), 0)
    }

    func testSettingTheSameTotalTwiceGivesOneTotal() {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        _ = w.apply(.setProgress(water.id, today, total: 3 * Amount.scale))
        _ = w.apply(.setProgress(water.id, today, total: 3 * Amount.scale))
        XCTAssertEqual(w.state.progress(water.id, today), 3 * Amount.scale)
    }

    func testTwoDevicesSettingTheTotalAgreeOnTheLaterStampWhateverTheOrder() {
        var a = TestDevice(1, wallMillis: 1_000), b = TestDevice(2, wallMillis: 1_000)
        let h = habitID(7)
        let create = a.op(.create(h, HabitFields(name: "Steps", kind: .build, goal: 10 * Amount.scale, startDate: start)))
        let setA = a.op(.setProgress(h, today, total: 4 * Amount.scale), at: 2_000)
        let checkB = b.op(.progress(h, today, delta: Amount.scale), at: 2_500)
        let setB = b.op(.setProgress(h, today, total: 7 * Amount.scale), at: 3_000)
        let checkA = a.op(.progress(h, today, delta: 2 * Amount.scale), at: 4_000)
        let orders = [[create, setA, checkA, checkB, setB], [checkB, setB, create, setA, checkA],
                      [create, checkB, setA, setB, checkA]]
        let states = orders.map { replica($0) }
        for s in states {
            XCTAssertEqual(s.progress(h, today), 9 * Amount.scale, "B's later set (7), then A's check-in (+2)")
            XCTAssertEqual(s.encoded(), states[0].encoded())
        }
    }

    func testRandomHistoriesWithSetStepsConvergeOnThreeReplicas() {
        var rng = SplitMix64(seed: 0x5E7_57E9)
        let h = habitID(0x42)
        let days = (0..<3).map { today.adding(-$0) }
        for trial in 0..<40 {
            var perDevice: [[HabitOperation]] = []
            for n in 1...3 {
                var device = TestDevice(UInt64(n), wallMillis: 1_000)
                var ops: [HabitOperation] = []
                if n == 1 { ops.append(device.op(.create(h, HabitFields(name: "Pages", kind: .build, goal: 20 * Amount.scale, startDate: start)))) }
                for _ in 0..<25 {
                    let d = days.randomElement(using: &rng)!
                    let change: Change = Bool.random(using: &rng)
                        ? .setProgress(h, d, total: Int.random(in: 0...12, using: &rng) * Amount.scale)
                        : .progress(h, d, delta: [-2, -1, 1, 2, 3].randomElement(using: &rng)! * Amount.scale)
                    ops.append(device.op(change, at: Int64.random(in: 1_000...1_100, using: &rng)))
                }
                perDevice.append(ops)
            }
            let history = RandomHistory(perDevice: perDevice)
            let states = (0..<3).map { _ in replica(history.interleaving(using: &rng)) }
            for d in days {
                XCTAssertEqual(states[0].progress(h, d), states[1].progress(h, d), "trial \(trial)")
                XCTAssertEqual(states[1].progress(h, d), states[2].progress(h, d), "trial \(trial)")
                XCTAssertEqual(states[0].progress(h, d), Self.runningTotal(history.perDevice.joined(), h, d), "trial \(trial)")
            }
            XCTAssertEqual(states[0].encoded(), states[1].encoded(), "trial \(trial)")
            XCTAssertEqual(states[1].encoded(), states[2].encoded(), "trial \(trial)")
            // The state with set steps in it decodes to itself (what a snapshot holds).
            var r = ByteReader(states[0].encoded())
            XCTAssertEqual(try HabitState(decoding: &r), states[0], "trial \(trial)")
        }
    }

    /// The rule written out once more, independently: steps in stamp order, a set step
    /// replacing the total, every step kept within 0…max.
    static func runningTotal(_ ops: some Sequence<HabitOperation>, _ h: HabitID, _ d: LocalDay) -> Int {
        var total = 0
        for op in ops.sorted(by: { $0.stamp < $1.stamp }) {
            switch op.change {
            case .progress(h, d, let delta): total = min(Limits.maxDayProgress, max(0, total + delta))
            case .setProgress(h, d, let t): total = t
            default: break
            }
        }
        return total
    }

    func testASetStepRoundTripsThroughTheOperationCodecAndAnOutOfRangeTotalIsRefused() throws {
        var device = TestDevice(3)
        let op = device.op(.setProgress(habitID(9), today, total: 2_500))
        var w = ByteWriter()
        w.operation(op)
        var r = ByteReader(w.bytes)
        XCTAssertEqual(try r.operation(), op)
        XCTAssertTrue(r.isAtEnd)

        var bad = ByteWriter()
        bad.opID(op.id); bad.hlc(op.hlc); bad.u8(13); bad.habit(habitID(9)); bad.day(today); bad.int(-1)
        var rb = ByteReader(bad.bytes)
        XCTAssertThrowsError(try rb.operation()) { XCTAssertEqual("\($0)", "day total out of range") }
        XCTAssertThrowsError(try Change.setProgress(habitID(9), today, total: Limits.maxDayProgress + 1).validate())
    }

    func testAnOperationKindThisVersionDoesNotKnowIsRefusedInOneLineThatSaysToUpdate() {
        var w = ByteWriter()
        w.opID(OpID(device: deviceID(1), seq: 1)); w.hlc(HLC(wallMillis: 5, counter: 0)); w.u8(200); w.habit(habitID(1))
        var r = ByteReader(w.bytes)
        XCTAssertThrowsError(try r.operation()) {
            XCTAssertEqual("\($0)", "unknown operation kind 200 (written by a newer version of Habitto: update this one)")
        }
    }

    func testADayWithoutSetStepsEncodesAsBeforeAndOneWithASetStepDecodesBack() throws {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        w.progress(water, today, 2 * Amount.scale)
        let before = w.state.encoded()
        // A day's change is written as a stamp and a non-zero delta; a set step alone adds a 0.
        _ = w.apply(.setProgress(water.id, today, total: 0))
        let after = w.state.encoded()
        XCTAssertNotEqual(before, after)
        var r = ByteReader(after)
        let decoded = try HabitState(decoding: &r)
        XCTAssertEqual(decoded.progress(water.id, today), 0)
        XCTAssertEqual(decoded, w.state)
        XCTAssertEqual(decoded.record(water.id, today)?.progressOps.map(\.setsTotal), [false, true])
    }

    func testASetStepIsDescribedAsSettingTheTotal() {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        XCTAssertEqual(Change.setProgress(water.id, today, total: 2_500).describe(in: w.state), "set 'Water' to 2.5 on 2026-11-21")
    }

    // MARK: AutoCheck

    func testAutoCheckSetsACountedDaysTotalToItsReadingPlusWhatWasCheckedInByHand() throws {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        w.progress(water, today, 2 * Amount.scale)
        XCTAssertEqual(try AutoCheck.changes(water, on: today, .total(5 * Amount.scale), today: today, in: w.state),
                       [.setProgress(water.id, today, total: 7 * Amount.scale)], "a check-in made before the run adds to it")
        _ = w.apply(.setProgress(water.id, today, total: 7 * Amount.scale))
        XCTAssertEqual(try AutoCheck.changes(water, on: today, .total(5 * Amount.scale), today: today, in: w.state), [])
        w.skip(water, today.adding(-1))
        XCTAssertEqual(try AutoCheck.changes(water, on: today.adding(-1), .total(Amount.scale), today: today, in: w.state),
                       [.skip(water.id, today.adding(-1), false), .setProgress(water.id, today.adding(-1), total: Amount.scale)])
    }

    /// Issue 39.1: run 3, check in 2 by hand, run again reading 3: the day keeps 5; a new
    /// reading of 4 gives 6, and a third run still counts the hand check-in.
    func testARunAfterAHandCheckInKeepsItWhateverTheCommandReadsNext() throws {
        var w = World()
        let water = w.build("Water", start: start, goal: 8 * Amount.scale)
        func run(_ reading: Int) throws {
            for c in try AutoCheck.changes(water, on: today, .total(reading * Amount.scale), today: today, in: w.state) {
                _ = w.apply(c)
            }
        }
        try run(3)
        XCTAssertEqual(w.state.progress(water.id, today), 3 * Amount.scale)
        w.progress(water, today, 2 * Amount.scale)
        try run(3)
        XCTAssertEqual(w.state.progress(water.id, today), 5 * Amount.scale, "the hand check-in is kept")
        try run(4)
        XCTAssertEqual(w.state.progress(water.id, today), 6 * Amount.scale)
        try run(4)
        try run(1)
        XCTAssertEqual(w.state.progress(water.id, today), 3 * Amount.scale, "a lower reading keeps the hand part")
        _ = w.apply(.progress(water.id, today, delta: -3 * Amount.scale))
        try run(1)
        XCTAssertEqual(w.state.progress(water.id, today), 0, "a take-back by hand stays taken")
        try run(6)
        XCTAssertEqual(w.state.progress(water.id, today), 5 * Amount.scale, "6 read, 2 added and 3 taken back by hand")
    }

    func testAYesNoDayTakenBackByHandStaysTakenBackWhenTheCommandStillSaysDone() throws {
        var w = World()
        let walk = w.build("Walk", start: start)
        for c in try AutoCheck.changes(walk, on: today, .done, today: today, in: w.state) { _ = w.apply(c) }
        XCTAssertEqual(w.state.progress(walk.id, today), Amount.scale)
        for c in try Edits.uncheck(walk, on: today, amount: Amount.scale, today: today, in: w.state) { _ = w.apply(c) }
        XCTAssertEqual(try AutoCheck.changes(walk, on: today, .done, today: today, in: w.state), [])
        XCTAssertEqual(w.state.progress(walk.id, today), 0)
    }

    func testAutoCheckMarksAYesNoHabitDoneOnceAndNotDoneRecordsNothing() throws {
        var w = World()
        let walk = w.build("Walk", start: start)
        XCTAssertEqual(try AutoCheck.changes(walk, on: today, .done, today: today, in: w.state),
                       [.setProgress(walk.id, today, total: Amount.scale)])
        XCTAssertEqual(try AutoCheck.changes(walk, on: today, .notDone, today: today, in: w.state), [])
        w.progress(walk, today)
        XCTAssertEqual(try AutoCheck.changes(walk, on: today, .done, today: today, in: w.state), [])
        XCTAssertThrowsError(try AutoCheck.changes(walk, on: today, .total(3), today: today, in: w.state))
    }

    func testACommandsOutputIsReadAsADayTotalOrRefusedWithWhatItPrinted() throws {
        XCTAssertEqual(try AutoCheck.total(fromOutput: "  7 \nsecond line"), 7 * Amount.scale)
        XCTAssertEqual(try AutoCheck.total(fromOutput: "1.25\n"), 1_250)
        XCTAssertThrowsError(try AutoCheck.total(fromOutput: "seven\n")) {
            XCTAssertEqual("\($0)", "printed 'seven' on its first line, not a number such as 3 or 1.5")
        }
        XCTAssertThrowsError(try AutoCheck.total(fromOutput: "")) { XCTAssertEqual("\($0)", "printed no number on its first line") }
        XCTAssertThrowsError(try AutoCheck.total(fromOutput: "-3"))
        XCTAssertThrowsError(try AutoCheck.total(fromOutput: "\n5"), "the number must be on the first line")
    }
}
