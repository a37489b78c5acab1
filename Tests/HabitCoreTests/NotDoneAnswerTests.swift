import XCTest
import HabitCore

private let today = LocalDay(year: 2026, month: 11, day: 21)!

/// "n" in catching up is an answer: recorded, not asked again, a miss for every rule, merged
/// like the other day registers, overridden by progress on the day.
final class NotDoneAnswerTests: XCTestCase {
    private func asked(_ state: HabitState) -> [String] {
        CatchUp.items(state, today: today).map { "\($0.day) \($0.habit.name)" }
    }

    private func answer(_ w: inout World, _ a: CatchUp.Answer, _ habit: Habit, _ day: LocalDay) throws {
        for c in try CatchUp.changes(a, for: CatchUpItem(habit: habit, day: day), today: today, in: w.state) { _ = w.apply(c) }
    }

    func testNotDoneIsRecordedAndNotAskedAgain() throws {
        var w = World()
        let read = w.build("Read", start: today.adding(-3))
        XCTAssertEqual(asked(w.state), ["2026-11-18 Read", "2026-11-19 Read", "2026-11-20 Read", "2026-11-21 Read"])
        XCTAssertEqual(try CatchUp.changes(.notDone, for: CatchUpItem(habit: read, day: today.adding(-3)), today: today, in: w.state),
                       [.notDone(read.id, today.adding(-3), true)])
        try answer(&w, .notDone, read, today.adding(-3))
        XCTAssertTrue(w.state.isAnsweredNotDone(read.id, today.adding(-3)))
        XCTAssertEqual(asked(w.state), ["2026-11-19 Read", "2026-11-20 Read", "2026-11-21 Read"], "the answered day is not asked again")
        try answer(&w, .notDone, read, today)
        XCTAssertEqual(asked(w.state), ["2026-11-19 Read", "2026-11-20 Read"], "today answered: not asked")
        XCTAssertEqual(CatchUp.missed(w.state, today: today).count, 2, "the hint counts the days before today")
        // Answering again changes nothing.
        XCTAssertEqual(try CatchUp.changes(.notDone, for: CatchUpItem(habit: read, day: today), today: today, in: w.state), [])
    }

    func testANotDoneAnswerIsAMissForEveryRuleLikeADayWithNothing() throws {
        var plain = World()
        let read = plain.build("Read", start: today.adding(-10))
        for d in [-10, -9, -8, -6, -5] { plain.progress(read, today.adding(d)) }
        var answered = plain
        for d in [-7, -4, -3, -2, -1] { try answer(&answered, .notDone, read, today.adding(d)) }
        for day in [today.adding(-1), today] {
            let a = plain.state.summary(read, on: day, today: today), b = answered.state.summary(read, on: day, today: today)
            XCTAssertEqual(a.streak, b.streak)
            XCTAssertEqual(a.bestStreak, b.bestStreak)
            XCTAssertEqual(a.strength, b.strength)
            XCTAssertEqual(a.completed, b.completed)
        }
        XCTAssertEqual(plain.state.stats(today: today), answered.state.stats(today: today))
        XCTAssertEqual(plain.state.history(read, through: today).map(\.completed), answered.state.history(read, through: today).map(\.completed))
    }

    func testNoOnAYesNoDayTakesItsCheckInBackAndAnAmountShortOfTheGoalStays() throws {
        var w = World()
        let read = w.build("Read", start: today.adding(-3))
        let water = w.build("Water", start: today.adding(-3), goal: 8 * Amount.scale)
        w.progress(read, today.adding(-1))
        w.skip(read, today.adding(-2))
        XCTAssertEqual(try CatchUp.changes(.notDone, for: CatchUpItem(habit: read, day: today.adding(-1)), today: today, in: w.state),
                       [.progress(read.id, today.adding(-1), delta: -Limits.maxDayProgress), .notDone(read.id, today.adding(-1), true)])
        XCTAssertEqual(try CatchUp.changes(.notDone, for: CatchUpItem(habit: read, day: today.adding(-2)), today: today, in: w.state),
                       [.skip(read.id, today.adding(-2), false), .notDone(read.id, today.adding(-2), true)])
        w.progress(water, today.adding(-1), 3 * Amount.scale)
        try answer(&w, .notDone, water, today.adding(-1))
        XCTAssertEqual(w.state.progress(water.id, today.adding(-1)), 3 * Amount.scale, "what was done stays")
        w.progress(water, today, 8 * Amount.scale)
        XCTAssertThrowsError(try CatchUp.changes(.notDone, for: CatchUpItem(habit: water, day: today), today: today, in: w.state)) {
            XCTAssertEqual("\($0)", "'Water' holds 8/8 on 2026-11-21, done; to make it less, take some back ('habitto uncheck' with --amount)")
        }
    }

    func testADayAnsweredNotDoneWantsNoReminder() throws {
        var w = World()
        let read = w.build("Read", start: today.adding(-3))
        XCTAssertTrue(Reminders.wanted(read, on: today, in: w.state, settings: .init()))
        try answer(&w, .notDone, read, today)
        XCTAssertFalse(Reminders.wanted(read, on: today, in: w.state, settings: .init()))
    }

    func testALaterCheckInOverridesTheNo() throws {
        var w = World()
        let read = w.build("Read", start: today.adding(-3))
        try answer(&w, .notDone, read, today.adding(-1))
        w.progress(read, today.adding(-1))
        XCTAssertFalse(w.state.isAnsweredNotDone(read.id, today.adding(-1)))
        XCTAssertTrue(w.state.summary(read, on: today.adding(-1), today: today).completed)
        // Taken back again: the earlier answer stands.
        _ = w.apply(.progress(read.id, today.adding(-1), delta: -Limits.maxDayProgress))
        XCTAssertTrue(w.state.isAnsweredNotDone(read.id, today.adding(-1)))
    }

    func testConcurrentAnswersMergeByLastWriterAndProgressFromAnyDeviceWins() {
        var a = TestDevice(1), b = TestDevice(2)
        let h = habitID(7), day = today.adding(-1)
        let create = a.op(.create(h, HabitFields(name: "Read", startDate: today.adding(-5))), at: 1_000)
        let no = a.op(.notDone(h, day, true), at: 3_000)
        let withdrawn = b.op(.notDone(h, day, false), at: 2_000)
        let checkIn = b.op(.progress(h, day, delta: Amount.scale), at: 2_500)
        func replica(_ ops: [HabitOperation]) -> HabitState {
            var s = HabitState()
            for op in ops { _ = s.apply(op) }
            return s
        }
        let one = replica([create, no, withdrawn]), two = replica([create, withdrawn, no])
        XCTAssertEqual(one.encoded(), two.encoded())
        XCTAssertTrue(one.isAnsweredNotDone(h, day), "the later answer (3000) wins")
        let three = replica([create, no, withdrawn, checkIn]), four = replica([create, withdrawn, checkIn, no])
        XCTAssertEqual(three.encoded(), four.encoded())
        XCTAssertFalse(three.isAnsweredNotDone(h, day), "a check-in from any device overrides the no")
        XCTAssertEqual(three.progress(h, day), Amount.scale)
    }

    func testTheAnswerSurvivesTheCodecAndADayWithoutOneEncodesAsBefore() throws {
        var w = World()
        let read = w.build("Read", start: today.adding(-3))
        w.progress(read, today.adding(-2))
        w.skip(read, today.adding(-3))
        let before = w.state.encoded()
        try answer(&w, .notDone, read, today.adding(-1))
        let after = w.state.encoded()
        var r = ByteReader(after)
        let decoded = try HabitState(decoding: &r)
        XCTAssertTrue(decoded.isAnsweredNotDone(read.id, today.adding(-1)))
        XCTAssertEqual(decoded.encoded(), after)
        // The bytes of the other days did not change: the state before is a prefix-and-suffix match
        // of the one after except for the new day (the version vector and clock aside).
        var old = ByteReader(before)
        XCTAssertEqual(try HabitState(decoding: &old).encoded(), before)
        var op = ByteWriter()
        op.change(.notDone(read.id, today, true))
        var back = ByteReader(op.bytes)
        XCTAssertEqual(try back.change(), .notDone(read.id, today, true))
        XCTAssertEqual(op.bytes.first, 17, "operation tag 17")
    }
}

/// A "not done" answer is carried by exports, imports and backups (through `TargetDay`).
final class NotDoneReconcileTests: XCTestCase {
    func testReplaceAndMergeBringTheAnswerAndATargetReadsIt() {
        var w = World()
        let read = w.build("Read", start: today.adding(-5))
        _ = w.apply(.notDone(read.id, today.adding(-2), true))
        _ = w.apply(.notDone(read.id, today.adding(-1), true))
        w.progress(read, today.adding(-1))           // overridden: not an answer any more
        let targets = TargetHabit.all(of: w.state)
        XCTAssertEqual(targets.first?.days[today.adding(-2)], TargetDay(notDone: true))
        XCTAssertEqual(targets.first?.days[today.adding(-1)], TargetDay(progress: Amount.scale))

        var empty = World()
        empty.build("Read", start: today.adding(-5))
        for mode in [ReconcileMode.replace, .merge] {
            let plan = Reconcile.plan(current: empty.state, targets: targets, mode: mode)
            XCTAssertTrue(plan.changes.contains(.notDone(read.id, today.adding(-2), true)), "\(mode)")
            var after = empty
            for c in plan.changes { _ = after.apply(c) }
            XCTAssertTrue(after.state.isAnsweredNotDone(read.id, today.adding(-2)), "\(mode)")
            XCTAssertEqual(Reconcile.plan(current: after.state, targets: targets, mode: .replace).changes, [], "\(mode): once there, nothing left")
        }
        // Replace withdraws an answer the target does not have.
        let withdraw = Reconcile.plan(current: w.state, targets: TargetHabit.all(of: empty.state), mode: .replace)
        XCTAssertTrue(withdraw.changes.contains(.notDone(read.id, today.adding(-2), false)))
    }
}
