import Foundation
import XCTest
import HabitCore

private let monday = LocalDay(year: 2026, month: 3, day: 2)!
private let h = habitID(0xabc)

private func fields(_ name: String = "Read") -> HabitFields { HabitFields(name: name, startDate: monday) }

final class MergeTests: XCTestCase {
    /// Applies `ops` in every order given and asserts all replicas end byte-identical.
    private func assertConverges(_ orders: [[HabitOperation]], file: StaticString = #filePath, line: UInt = #line)
        -> HabitState
    {
        let states = orders.map { replica($0, file: file, line: line) }
        for s in states.dropFirst() {
            XCTAssertEqual(s, states[0], "replicas differ", file: file, line: line)
            XCTAssertEqual(s.encoded(), states[0].encoded(), "encodings differ", file: file, line: line)
        }
        return states[0]
    }

    // MARK: Convergence

    func testThreeReplicasConvergeByteForByteWhateverTheArrivalOrder() {
        var rng = SplitMix64(seed: 0xC0FFEE)
        for trial in 0..<30 {
            let history = RandomHistory(devices: 3 + trial % 3, opsPerDevice: 60, using: &rng)
            let orders = (0..<3).map { _ in history.interleaving(using: &rng) }
            XCTAssertNotEqual(orders[0], orders[1], "the interleavings should differ (trial \(trial))")
            let states = orders.map { replica($0) }
            XCTAssertEqual(states[0], states[1], "trial \(trial)")
            XCTAssertEqual(states[1], states[2], "trial \(trial)")
            XCTAssertEqual(states[0].encoded(), states[1].encoded(), "trial \(trial)")
            XCTAssertEqual(states[1].encoded(), states[2].encoded(), "trial \(trial)")
            // Everything derived from the state agrees too.
            let today = monday.adding(9)
            XCTAssertEqual(states[0].habits, states[2].habits, "trial \(trial)")
            XCTAssertEqual(states[0].stats(today: today), states[2].stats(today: today), "trial \(trial)")
            for habit in states[0].habits {
                XCTAssertEqual(states[0].summary(habit, on: today, today: today),
                               states[1].summary(habit, on: today, today: today), "trial \(trial)")
            }
            XCTAssertEqual(states[0].operationCount, UInt64(history.all.count))
        }
    }

    func testReplicasThatSawTheSameOperationsAgreeBeforeEverythingHasArrived() {
        var rng = SplitMix64(seed: 0xFACADE)
        for _ in 0..<20 {
            let full = RandomHistory(devices: 3, opsPerDevice: 40, using: &rng)
            // The same prefix of each device's history, delivered in two different orders.
            let cut = RandomHistory(perDevice: full.perDevice.map { Array($0.prefix(Int.random(in: 0...40, using: &rng))) })
            _ = assertConverges([cut.interleaving(using: &rng), cut.interleaving(using: &rng),
                                 cut.interleaving(using: &rng)])
        }
    }

    func testChaoticDeliveryWithDuplicatesAndGapsStillConverges() {
        var rng = SplitMix64(seed: 0xBAD_5EED)
        for trial in 0..<10 {
            let history = RandomHistory(devices: 3, opsPerDevice: 40, using: &rng)
            let reference = replica(history.interleaving(using: &rng))
            // Every operation delivered one to three times, in a fully random order; a
            // receiver keeps what arrives too early and retries it after each success.
            var inbox = history.all.flatMap { op in Array(repeating: op, count: Int.random(in: 1...3, using: &rng)) }
            inbox.shuffle(using: &rng)
            var state = HabitState()
            var pending: [HabitOperation] = []
            var duplicates = 0, gaps = 0
            for op in inbox {
                switch state.apply(op) {
                case .applied:
                    var progressed = true
                    while progressed {
                        progressed = false
                        for (i, p) in pending.enumerated() where state.apply(p) == .applied {
                            pending.remove(at: i)
                            progressed = true
                            break
                        }
                    }
                case .duplicate: duplicates += 1
                case .outOfOrder(let expected):
                    XCTAssertEqual(expected, (state.seen[op.id.device] ?? 0) + 1)
                    XCTAssertGreaterThan(op.id.seq, expected)
                    gaps += 1
                    pending.append(op)
                }
            }
            // Whatever is still waiting arrived again meanwhile: it is now a duplicate.
            XCTAssertTrue(pending.allSatisfy { state.apply($0) == .duplicate }, "trial \(trial): operations were stuck")
            XCTAssertGreaterThan(duplicates, 0)
            XCTAssertGreaterThan(gaps, 0)
            XCTAssertEqual(state, reference, "trial \(trial)")
            XCTAssertEqual(state.encoded(), reference.encoded(), "trial \(trial)")
        }
    }

    // MARK: At most once

    func testRedeliveryOfTheSameOperationIsANoOp() {
        var a = TestDevice(1)
        var state = HabitState()
        let create = a.op(.create(h, fields()))
        let progress = a.op(.progress(h, monday, delta: 1))
        applyOrFail(create, to: &state)
        applyOrFail(progress, to: &state)
        let before = state.encoded()
        XCTAssertEqual(state.apply(progress), .duplicate)
        XCTAssertEqual(state.apply(create), .duplicate)
        XCTAssertEqual(state.progress(h, monday), 1, "the check-in is not counted twice")
        XCTAssertEqual(state.encoded(), before)
        XCTAssertEqual(state.operationCount, 2)
    }

    func testAGapInADevicesSequenceIsRejectedUntilFilled() {
        var a = TestDevice(1)
        let ops = [a.op(.create(h, fields())), a.op(.progress(h, monday, delta: 1)), a.op(.progress(h, monday, delta: 1))]
        var state = HabitState()
        XCTAssertEqual(state.apply(ops[1]), .outOfOrder(expected: 1))
        XCTAssertEqual(state, HabitState(), "nothing was applied")
        applyOrFail(ops[0], to: &state)
        XCTAssertEqual(state.apply(ops[2]), .outOfOrder(expected: 2))
        XCTAssertEqual(state.progress(h, monday), 0)
        applyOrFail(ops[1], to: &state)
        applyOrFail(ops[2], to: &state)
        XCTAssertEqual(state.progress(h, monday), 2)
        XCTAssertEqual(state.seen[a.id], 3)
    }

    // MARK: Last writer wins

    func testLaterHLCWinsAFieldWhateverTheArrivalOrder() {
        var a = TestDevice(9), b = TestDevice(1)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        // B has the smaller device id but the later clock reading.
        let fromA = a.op(.set(h, .name("From A")), hlc: HLC(wallMillis: 200, counter: 5))
        let fromB = b.op(.set(h, .name("From B")), hlc: HLC(wallMillis: 200, counter: 6))
        let s = assertConverges([[create, fromA, fromB], [fromB, create, fromA], [create, fromB, fromA]])
        XCTAssertEqual(s.habit(h)?.name, "From B")
    }

    func testEqualHLCsAreOrderedByDeviceID() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let tie = HLC(wallMillis: 300, counter: 2)
        let fromA = a.op(.set(h, .goal(4)), hlc: tie)
        let fromB = b.op(.set(h, .goal(7)), hlc: tie)
        XCTAssertLessThan(a.id, b.id)
        let s = assertConverges([[create, fromA, fromB], [fromB, create, fromA]])
        XCTAssertEqual(s.habit(h)?.goal, 7, "the greater device id wins a tie")
    }

    func testFieldsAreIndependentRegisters() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let name = a.op(.set(h, .name("Read more")), hlc: HLC(wallMillis: 200, counter: 0))
        let goal = b.op(.set(h, .goal(3)), hlc: HLC(wallMillis: 150, counter: 0))
        let s = assertConverges([[create, name, goal], [goal, create, name]])
        XCTAssertEqual(s.habit(h)?.name, "Read more")
        XCTAssertEqual(s.habit(h)?.goal, 3)
    }

    func testAnOlderCreateArrivingLateDoesNotUndoNewerEdits() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields("Old")), hlc: HLC(wallMillis: 100, counter: 0))
        let rename = b.op(.set(h, .name("New")), hlc: HLC(wallMillis: 500, counter: 0))
        var s = HabitState()
        applyOrFail(rename, to: &s)
        XCTAssertNil(s.habit(h), "edits alone do not make a habit exist")
        applyOrFail(create, to: &s)
        XCTAssertEqual(s.habit(h)?.name, "New")
        XCTAssertEqual(s.habit(h)?.startDate, monday, "untouched fields come from the create")
    }

    func testSkipAndDifficultyAreLastWriterWinsPerDay() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 1, counter: 0))
        let skipA = a.op(.skip(h, monday, true), hlc: HLC(wallMillis: 10, counter: 0))
        let unskipB = b.op(.skip(h, monday, false), hlc: HLC(wallMillis: 11, counter: 0))
        let rateB = b.op(.rate(h, monday, 2), hlc: HLC(wallMillis: 12, counter: 0))
        let rateA = a.op(.rate(h, monday, 5), hlc: HLC(wallMillis: 13, counter: 0))
        let s = assertConverges([[create, skipA, rateA, unskipB, rateB], [unskipB, rateB, create, skipA, rateA]])
        XCTAssertFalse(s.isSkipped(h, monday))
        XCTAssertEqual(s.difficulty(h, monday), 5)
    }

    // MARK: Deletion

    func testDeleteBeatsConcurrentAndLaterEdits() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let delete = a.op(.delete(h), hlc: HLC(wallMillis: 200, counter: 0))
        let concurrent = b.op(.set(h, .name("Concurrent")), hlc: HLC(wallMillis: 200, counter: 0))
        let later = b.op(.set(h, .name("Later")), hlc: HLC(wallMillis: 900, counter: 0))
        let checkIn = b.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 950, counter: 0))
        let s = assertConverges([[create, delete, concurrent, later, checkIn],
                                 [concurrent, later, checkIn, create, delete],
                                 [create, concurrent, delete, later, checkIn]])
        XCTAssertNil(s.habit(h))
        XCTAssertTrue(s.isDeleted(h))
        XCTAssertTrue(s.habits.isEmpty)
        XCTAssertEqual(s.liveDeletes(of: h), [delete.id])
    }

    func testRestoreCancelsExactlyTheDeleteItNames() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let deleteA = a.op(.delete(h), hlc: HLC(wallMillis: 200, counter: 0))
        let deleteB = b.op(.delete(h), hlc: HLC(wallMillis: 210, counter: 0))
        let restoreA = a.op(.restore(h, deleteOp: deleteA.id), hlc: HLC(wallMillis: 300, counter: 0))
        let rename = b.op(.set(h, .name("Renamed")), hlc: HLC(wallMillis: 400, counter: 0))
        let restoreB = b.op(.restore(h, deleteOp: deleteB.id), hlc: HLC(wallMillis: 500, counter: 0))

        let halfway = assertConverges([[create, deleteA, deleteB, restoreA, rename],
                                       [deleteB, rename, create, deleteA, restoreA]])
        XCTAssertNil(halfway.habit(h), "B's delete is still live")
        XCTAssertEqual(halfway.liveDeletes(of: h), [deleteB.id])

        let done = assertConverges([[create, deleteA, deleteB, restoreA, rename, restoreB],
                                    [deleteB, rename, restoreB, create, deleteA, restoreA]])
        XCTAssertEqual(done.habit(h)?.name, "Renamed", "edits made while deleted reappear with the habit")
        XCTAssertEqual(done.liveDeletes(of: h), [])
    }

    func testARestoreArrivingBeforeItsDeleteStillCancelsIt() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let delete = a.op(.delete(h), hlc: HLC(wallMillis: 200, counter: 0))
        let restore = b.op(.restore(h, deleteOp: delete.id), hlc: HLC(wallMillis: 300, counter: 0))
        let s = assertConverges([[restore, create, delete], [create, delete, restore]])
        XCTAssertNotNil(s.habit(h))
    }

    func testAHabitDeletedTwiceByOneDeviceNeedsBothRestored() {
        var a = TestDevice(1)
        let create = a.op(.create(h, fields()))
        let d1 = a.op(.delete(h))
        let r1 = a.op(.restore(h, deleteOp: d1.id))
        let d2 = a.op(.delete(h))
        var s = replica([create, d1, r1, d2])
        XCTAssertNil(s.habit(h), "the second delete is not undone by restoring the first")
        applyOrFail(a.op(.restore(h, deleteOp: d2.id)), to: &s)
        XCTAssertNotNil(s.habit(h))
    }

    // MARK: Progress

    func testConcurrentProgressFromTwoDevicesBothCounts() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let plusA = a.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 200, counter: 0))
        let plusB = b.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 200, counter: 0))
        let s = assertConverges([[create, plusA, plusB], [plusB, create, plusA]])
        XCTAssertEqual(s.progress(h, monday), 2)
        XCTAssertEqual(s.share(h, monday, device: a.id), 1)
        XCTAssertEqual(s.share(h, monday, device: b.id), 1)
    }

    func testUndoOnOneDeviceRemovesOnlyItsOwnShare() {
        var a = TestDevice(1), b = TestDevice(2)
        let ops = [a.op(.create(h, fields())), a.op(.progress(h, monday, delta: 2)),
                   b.op(.progress(h, monday, delta: 3)), a.op(.progress(h, monday, delta: -2))]
        let s = assertConverges([ops, [ops[2], ops[0], ops[1], ops[3]]])
        XCTAssertEqual(s.progress(h, monday), 3)
        XCTAssertEqual(s.share(h, monday, device: a.id), 0)
    }

    func testAnUncheckTakesBackWhatCameBeforeItNeverWhatCameAfter() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let minus = a.op(.progress(h, monday, delta: -4), hlc: HLC(wallMillis: 300, counter: 0))
        let before = b.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 200, counter: 0))
        let after = b.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 400, counter: 0))
        let s1 = assertConverges([[create, minus, before], [before, create, minus]])
        XCTAssertEqual(s1.progress(h, monday), 0, "−4 after +1: shown as 0, never below")
        let s2 = assertConverges([[create, minus, before, after], [before, after, create, minus]])
        XCTAssertEqual(s2.progress(h, monday), 1, "the check-in after the oversized uncheck counts")
    }

    func testAnOversizedUncheckCannotHideCheckInsMadeAfterIt() {
        // The hostile case of the issue: −50 from a device with no share on the day.
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let first = a.op(.progress(h, monday, delta: 3), hlc: HLC(wallMillis: 200, counter: 0))
        let wipe = b.op(.progress(h, monday, delta: -50), hlc: HLC(wallMillis: 300, counter: 0))
        let later = a.op(.progress(h, monday, delta: 2), hlc: HLC(wallMillis: 400, counter: 0))
        let s = assertConverges([[create, first, wipe, later], [wipe, create, first, later], [create, wipe, first, later]])
        XCTAssertEqual(s.progress(h, monday), 2, "the uncheck took back the 3 it saw, never the later 2")
    }

    func testADeviceTakesBackACheckInMadeOnAnother() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let plus = a.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 200, counter: 0))
        let minus = b.op(.progress(h, monday, delta: -1), hlc: HLC(wallMillis: 300, counter: 0))
        let s = assertConverges([[create, plus, minus], [minus, create, plus]])
        XCTAssertEqual(s.progress(h, monday), 0)
    }

    func testTwoDevicesTakingBackTheSameCheckInLeaveZeroAndALaterCheckInCounts() {
        // A undoes its check-in while B, concurrently, unchecks it: the day is 0, not −1,
        // and the next check-in from either device shows 1.
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let plus = a.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 200, counter: 0))
        let undo = a.op(.progress(h, monday, delta: -1), hlc: HLC(wallMillis: 300, counter: 0))
        let uncheck = b.op(.progress(h, monday, delta: -1), hlc: HLC(wallMillis: 300, counter: 1))
        let again = b.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 400, counter: 0))
        let s = assertConverges([[create, plus, undo, uncheck, again], [uncheck, again, create, plus, undo]])
        XCTAssertEqual(s.progress(h, monday), 1)
    }

    func testConcurrentCheckInsAreKeptWithinTheDaysMaximum() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let big = Limits.maxChange
        let plusA = a.op(.progress(h, monday, delta: big), hlc: HLC(wallMillis: 200, counter: 0))
        let plusB = b.op(.progress(h, monday, delta: big), hlc: HLC(wallMillis: 200, counter: 0))
        let minus = a.op(.progress(h, monday, delta: -1), hlc: HLC(wallMillis: 300, counter: 0))
        let s = assertConverges([[create, plusA, plusB, minus], [plusB, create, plusA, minus]])
        XCTAssertEqual(s.progress(h, monday), Limits.maxDayProgress - 1)
    }

    // MARK: Field combinations that only a merge can make

    func testLimitMergedWithAPerWeekScheduleFollowsTheNewerEdit() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let limit = a.op(.set(h, .kind(.limit)), hlc: HLC(wallMillis: 200, counter: 0))
        let weekly = b.op(.set(h, .schedule(.perWeek(3))), hlc: HLC(wallMillis: 300, counter: 0))
        let s1 = assertConverges([[create, limit, weekly], [weekly, create, limit]])
        XCTAssertEqual(s1.habit(h)?.kind, .build, "the schedule is newer: a 3/week build habit")
        XCTAssertEqual(s1.habit(h)?.schedule, .perWeek(3))
        let limitLater = a.op(.set(h, .kind(.limit)), hlc: HLC(wallMillis: 400, counter: 0))
        let s2 = assertConverges([[create, limit, weekly, limitLater], [weekly, create, limit, limitLater]])
        XCTAssertEqual(s2.habit(h)?.kind, .limit, "the kind is newer: a daily limit habit")
        XCTAssertEqual(s2.habit(h)?.schedule, .daily)
    }

    func testABuildHabitWithAMergedGoalOfZeroReadsOne() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, HabitFields(name: "Sweets", kind: .limit, goal: 0, startDate: monday)),
                          hlc: HLC(wallMillis: 100, counter: 0))
        let build = b.op(.set(h, .kind(.build)), hlc: HLC(wallMillis: 200, counter: 0))
        let s = assertConverges([[create, build], [build, create]])
        XCTAssertEqual(s.habit(h)?.kind, .build)
        XCTAssertEqual(s.habit(h)?.goal, Amount.scale, "one unit")
    }

    func testAnArchiveMergedBeforeAMovedStartDateReadsAsTheStartDate() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = a.op(.create(h, fields()), hlc: HLC(wallMillis: 100, counter: 0))
        let archive = a.op(.set(h, .archivedFrom(monday.adding(3))), hlc: HLC(wallMillis: 200, counter: 0))
        let move = b.op(.set(h, .startDate(monday.adding(10))), hlc: HLC(wallMillis: 300, counter: 0))
        let s = assertConverges([[create, archive, move], [move, create, archive]])
        let habit = s.habit(h)
        XCTAssertEqual(habit?.fields.archivedFrom, monday.adding(10))
        XCTAssertEqual(habit.map { h in (0..<30).filter { h.isActive(on: monday.adding($0)) }.count }, 0, "tracked on no day")
    }

    func testRandomValidEditsOnThreeDevicesAlwaysMergeIntoHabitsLocalInputAccepts() {
        var rng = SplitMix64(seed: 0x5EED_F1E1)
        let ids = (0..<3).map { habitID(0x100 + UInt64($0)) }
        for trial in 0..<60 {
            var devices = [TestDevice(1), TestDevice(2), TestDevice(3)]
            var creator = devices[0]
            let creates = ids.map { creator.op(.create($0, HabitFields(name: "H\($0.value)", startDate: monday))) }
            devices[0] = creator
            // Each device edits its own copy, unaware of the others, then all merge.
            var all = creates
            for i in 0..<3 {
                var local = replica(creates)
                for _ in 0..<6 {
                    guard let habit = local.habit(ids.randomElement(using: &rng)!) else { continue }
                    var f = habit.fields
                    switch Int.random(in: 0..<6, using: &rng) {
                    case 0: f.kind = .limit; f.goal = Int.random(in: 0...2, using: &rng); f.schedule = .daily
                    case 1: f.kind = .build; f.goal = Int.random(in: 1...3, using: &rng); f.schedule = .perWeek(Int.random(in: 1...6, using: &rng))
                    case 2: f.startDate = monday.adding(Int.random(in: 0...20, using: &rng))
                    case 3: f.archivedFrom = f.startDate.adding(Int.random(in: 0...10, using: &rng))
                    case 4: f.archivedFrom = nil
                    default: f.schedule = .everyNDays(Int.random(in: 2...5, using: &rng))
                    }
                    guard let changes = try? Edits.update(habit, to: f, in: local) else { continue }
                    for c in changes {
                        let op = devices[i].op(c)
                        applyOrFail(op, to: &local)
                        all.append(op)
                    }
                }
            }
            let merged = replica(all)
            for habit in merged.habits {
                XCTAssertNoThrow(try habit.fields.validate(), "trial \(trial): \(habit.fields)")
            }
        }
    }

    func testStateClockIsTheGreatestAppliedReading() {
        var a = TestDevice(1), b = TestDevice(2)
        let ops = [a.op(.create(h, fields()), hlc: HLC(wallMillis: 500, counter: 3)),
                   b.op(.progress(h, monday, delta: 1), hlc: HLC(wallMillis: 400, counter: 9))]
        let s = assertConverges([ops, ops.reversed()])
        XCTAssertEqual(s.clock, HLC(wallMillis: 500, counter: 3))
        XCTAssertEqual(s.seen, [a.id: 1, b.id: 1])
    }

    func testHLCTicksForwardAndNeverGoesBack() {
        let c = HLC(wallMillis: 1_000, counter: 4)
        XCTAssertEqual(c.tick(nowMillis: 2_000), HLC(wallMillis: 2_000, counter: 0))
        XCTAssertEqual(c.tick(nowMillis: 1_000), HLC(wallMillis: 1_000, counter: 5))
        XCTAssertEqual(c.tick(nowMillis: 10), HLC(wallMillis: 1_000, counter: 5), "a clock set back does not go back")
        XCTAssertEqual(c.observing(HLC(wallMillis: 1_000, counter: 9)), HLC(wallMillis: 1_000, counter: 9))
        XCTAssertEqual(c.observing(HLC(wallMillis: 999, counter: 99)), c)
        XCTAssertLessThan(Stamp(hlc: c, device: deviceID(1)), Stamp(hlc: c, device: deviceID(2)))
        XCTAssertLessThan(Stamp(hlc: c, device: deviceID(9)), Stamp(hlc: c.tick(nowMillis: 0), device: deviceID(1)))
    }

    func testHabitsAreListedInCreationOrder() {
        var a = TestDevice(1), b = TestDevice(2)
        let first = habitID(9), second = habitID(1)
        let ops = [b.op(.create(second, fields("Second")), hlc: HLC(wallMillis: 200, counter: 0)),
                   a.op(.create(first, fields("First")), hlc: HLC(wallMillis: 100, counter: 0))]
        let s = assertConverges([ops, ops.reversed()])
        XCTAssertEqual(s.habits.map(\.name), ["First", "Second"])
    }

    // MARK: Yes/no habits

    /// What one device records when its user presses space on `day`, seen from `ops`.
    private func toggle(_ device: inout TestDevice, on day: LocalDay, seeing ops: [HabitOperation], at millis: Int64,
                        file: StaticString = #filePath, line: UInt = #line) -> [HabitOperation] {
        record(.toggle(h, day), &device, seeing: ops, at: millis, file: file, line: line)
    }

    /// What one device records for `intent` (on `monday`, its today), seen from `ops`.
    private func record(_ intent: Intent, _ device: inout TestDevice, seeing ops: [HabitOperation], at millis: Int64,
                        file: StaticString = #filePath, line: UInt = #line) -> [HabitOperation] {
        let state = replica(ops, file: file, line: line)
        XCTAssertNotNil(state.habit(h), "no habit", file: file, line: line)
        let changes = (try? intent.changes(today: monday, in: state)) ?? []
        XCTAssertFalse(changes.isEmpty, "a check-in, a take-back or a toggle always records something", file: file, line: line)
        return changes.map { device.op($0, at: millis) }
    }

    /// The habit created and its day checked on `a`, as both devices have it once synced.
    private func syncedDone(_ a: inout TestDevice) -> [HabitOperation] {
        let create = [a.op(.create(h, fields()), at: 2000)]
        return create + record(.checkIn(h, monday), &a, seeing: create, at: 3000)
    }

    /// A and B synced with the day done; A unchecks (not synced yet), a minute later B checks
    /// (`habitto check`, on a day B shows done): B's answer is the later one and wins.
    func testACheckOnADayShownDoneOverridesAnEarlierUncheckFromAnotherDevice() {
        var a = TestDevice(1), b = TestDevice(2)
        let synced = syncedDone(&a)
        let uncheck = record(.takeBack(h, monday), &a, seeing: synced, at: 5000)
        let check = record(.checkIn(h, monday), &b, seeing: synced, at: 6000)
        XCTAssertEqual(check.map(\.change), [.setProgress(h, monday, total: Amount.scale)], "B records its answer: a set step to done")
        assertYesNoDay(assertConverges([synced + uncheck + check, synced + check + uncheck]), done: true)
    }

    /// The other order: B checks the day it shows done, a minute later A unchecks: not done.
    func testAnUncheckAfterACheckOnADayShownDoneFromAnotherDeviceWins() {
        var a = TestDevice(1), b = TestDevice(2)
        let synced = syncedDone(&a)
        let check = record(.checkIn(h, monday), &b, seeing: synced, at: 5000)
        let uncheck = record(.takeBack(h, monday), &a, seeing: synced, at: 6000)
        XCTAssertEqual(uncheck.map(\.change), [.progress(h, monday, delta: -Limits.maxDayProgress)])
        assertYesNoDay(assertConverges([synced + uncheck + check, synced + check + uncheck]), done: false)
    }

    /// The merged day as every reader sees it: the summary, the history, the check-in count.
    private func assertYesNoDay(_ s: HabitState, done: Bool, file: StaticString = #filePath, line: UInt = #line) {
        guard let habit = s.habit(h) else { return XCTFail("no habit", file: file, line: line) }
        let summary = s.summary(habit, on: monday, today: monday)
        XCTAssertEqual(summary.progress, done ? Amount.scale : 0, "shown as \(summary.progress)/1", file: file, line: line)
        XCTAssertEqual(summary.completed, done, file: file, line: line)
        XCTAssertEqual(s.history(habit, through: monday).last?.progress, done ? Amount.scale : 0, file: file, line: line)
        XCTAssertEqual(s.stats(today: monday).checkIns, done ? 1 : 0, file: file, line: line)
        XCTAssertEqual(s.stats(today: monday).xp, done ? 100 : 0, "50 for the day and 50 for a perfect day, once", file: file, line: line)
    }

    func testTwoDevicesCheckingTheSameYesNoDayOfflineMergeToDoneOnce() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = [a.op(.create(h, fields()), at: 2000)]
        let fromA = toggle(&a, on: monday, seeing: create, at: 3000)
        let fromB = toggle(&b, on: monday, seeing: create, at: 3100)
        XCTAssertEqual(fromA.map(\.change), [.progress(h, monday, delta: Amount.scale)])
        let merged = assertConverges([create + fromA + fromB, create + fromB + fromA])
        XCTAssertEqual(merged.progress(h, monday), 2 * Amount.scale, "both check-ins are kept in the journal")
        assertYesNoDay(merged, done: true)
        // Checking again records the answer as a set step to done; a toggle marks the merged day not done.
        XCTAssertEqual(try Intent.checkIn(h, monday).changes(today: monday, in: merged), [.setProgress(h, monday, total: Amount.scale)])
        let off = toggle(&a, on: monday, seeing: create + fromA + fromB, at: 4000)
        assertYesNoDay(assertConverges([create + fromA + fromB + off, create + fromB + fromA + off]), done: false)
    }

    func testAYesNoDayIsAsTheLastToggleInStampOrderLeftIt() {
        var a = TestDevice(1), b = TestDevice(2)
        let create = [a.op(.create(h, fields()), at: 2000)]
        // A checks, then marks it not done; B, offline, checks in between or after.
        let check = toggle(&a, on: monday, seeing: create, at: 3000)
        let uncheck = toggle(&a, on: monday, seeing: create + check, at: 5000)
        XCTAssertEqual(uncheck.map(\.change), [.progress(h, monday, delta: -Limits.maxDayProgress)])
        var b2 = b
        let between = toggle(&b, on: monday, seeing: create, at: 4000)
        assertYesNoDay(assertConverges([create + check + uncheck + between, create + between + check + uncheck]), done: false)
        let after = toggle(&b2, on: monday, seeing: create, at: 6000)
        assertYesNoDay(assertConverges([create + check + uncheck + after, create + after + check + uncheck]), done: true)
        // Both marking a done day not done leaves it at 0, never below.
        var c = TestDevice(3)
        let offB = toggle(&c, on: monday, seeing: create + check, at: 5500)
        let both = assertConverges([create + check + uncheck + offB, create + check + offB + uncheck])
        XCTAssertEqual(both.progress(h, monday), 0)
        assertYesNoDay(both, done: false)
    }

    func testOnlyABuildHabitWithGoalOneAndNoUnitIsYesNoAndCountedHabitsKeepAdding() {
        XCTAssertTrue(Habit(id: h, fields: fields()).isYesNo)
        var counted = fields(); counted.unit = "pages"
        XCTAssertFalse(Habit(id: h, fields: counted).isYesNo)
        var eight = fields(); eight.goal = 8 * Amount.scale
        XCTAssertFalse(Habit(id: h, fields: eight).isYesNo)
        var limit = fields(); limit.kind = .limit
        XCTAssertFalse(Habit(id: h, fields: limit).isYesNo)
        var a = TestDevice(1)
        let ops = [a.op(.create(h, eight)), a.op(.progress(h, monday, delta: 8 * Amount.scale)), a.op(.progress(h, monday, delta: Amount.scale))]
        let s = replica(ops)
        XCTAssertEqual(s.summary(s.habit(h)!, on: monday, today: monday).progress, 9 * Amount.scale, "9/8 is a real thing")
        XCTAssertEqual(try Intent.toggle(h, monday).changes(today: monday, in: s), [.progress(h, monday, delta: Amount.scale)])
    }
}
