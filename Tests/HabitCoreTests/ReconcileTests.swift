import Foundation
import XCTest
import HabitCore

/// Restore and import compute their changes with `Reconcile.plan`; applying them must give
/// exactly the promised state.
final class ReconcileTests: XCTestCase {
    private let start = LocalDay(year: 2026, month: 1, day: 1)!

    /// A random state made by two devices (with deletes, negative shares, skips, notes).
    private func randomState(seed: UInt64, ops: Int) -> HabitState {
        var rng = SplitMix64(seed: seed)
        let history = RandomHistory(devices: 2, opsPerDevice: ops / 2, using: &rng)
        var state = HabitState()
        for op in history.all { state.apply(op) }
        return state
    }

    private func applying(_ changes: [Change], to state: HabitState, device n: UInt64 = 9) -> HabitState {
        var s = state
        var d = TestDevice(n, wallMillis: max(1_000_000, s.clock.wallMillis + 1))
        for c in changes { XCTAssertEqual(s.apply(d.op(c)), .applied) }
        return s
    }

    func testReplaceMakesAnyStateExactlyTheTargetsHabitsAndDays() {
        for seed in 1...40 as ClosedRange<UInt64> {
            let current = randomState(seed: seed, ops: 120)
            let target = randomState(seed: seed + 1000, ops: 120)
            let plan = Reconcile.plan(current: current, targets: TargetHabit.all(of: target), mode: .replace)
            let after = applying(plan.changes, to: current)
            XCTAssertEqual(Set(TargetHabit.all(of: after)), Set(TargetHabit.all(of: target)), "seed \(seed)")
            // Once there, nothing is left to do.
            XCTAssertEqual(Reconcile.plan(current: after, targets: TargetHabit.all(of: target), mode: .replace).changes, [], "seed \(seed)")
        }
    }

    func testMergeAddsWhatIsMissingAndChangesNothingThatIsThere() {
        for seed in 1...40 as ClosedRange<UInt64> {
            let current = randomState(seed: seed, ops: 120)
            let target = randomState(seed: seed + 2000, ops: 120)
            let plan = Reconcile.plan(current: current, targets: TargetHabit.all(of: target), mode: .merge)
            let after = applying(plan.changes, to: current)
            let before = Dictionary(uniqueKeysWithValues: TargetHabit.all(of: current).map { ($0.id, $0) })
            for t in TargetHabit.all(of: after) {
                guard let old = before[t.id] else {
                    // A habit the merge added (or brought back) holds every day the target has.
                    let want = TargetHabit.all(of: target).first { $0.id == t.id }
                    XCTAssertNotNil(want, "seed \(seed): \(t.id) came from nowhere")
                    continue
                }
                XCTAssertEqual(t.fields, old.fields, "seed \(seed): a merge never edits fields")
                for (day, d) in old.days {
                    let now = t.days[day]
                    if d.progress > 0 { XCTAssertEqual(now?.progress, d.progress, "seed \(seed): progress kept") }
                    if let r = d.difficulty { XCTAssertEqual(now?.difficulty, r, "seed \(seed): rating kept") }
                    if let n = d.note { XCTAssertEqual(now?.note, n, "seed \(seed): note kept") }
                }
            }
            XCTAssertEqual(Reconcile.plan(current: after, targets: TargetHabit.all(of: target), mode: .merge).changes, [],
                           "seed \(seed): a second merge changes nothing")
        }
    }

    func testImportLeavesAHabitDeletedHereDeletedAndReportsIt() {
        var w = World()
        let h = w.build("Read", start: start)
        _ = w.apply(.delete(h.id))
        let target = TargetHabit(id: h.id, fields: h.fields, days: [start: TargetDay(progress: 1)])
        let imp = Reconcile.plan(current: w.state, targets: [target], mode: .importing)
        XCTAssertEqual(imp.changes, [])
        XCTAssertEqual(imp.kept.count, 1)
        XCTAssertTrue(imp.kept[0].contains("deleted here"), imp.kept[0])
        // A merge (restore) brings it back with its day.
        let merge = Reconcile.plan(current: w.state, targets: [target], mode: .merge)
        let after = applying(merge.changes, to: w.state)
        XCTAssertNotNil(after.habit(h.id))
        XCTAssertEqual(after.progress(h.id, start), 1)
        XCTAssertEqual(merge.restored, 1)
    }

    func testImportKeepsDifferingProgressAndListsItAndRenamesANameClash() {
        var w = World()
        let mine = w.build("Read", start: start)
        _ = w.apply(.progress(mine.id, start, delta: 2 * Amount.scale))
        let other = TargetHabit(id: habitID(0xabc), fields: HabitFields(name: "read", startDate: start),
                                days: [start: TargetDay(progress: Amount.scale, note: "chapter 3")])
        let same = TargetHabit(id: mine.id, fields: mine.fields, days: [start: TargetDay(progress: 5_500, difficulty: 2)])
        let plan = Reconcile.plan(current: w.state, targets: [other, same], mode: .importing)
        let after = applying(plan.changes, to: w.state)
        XCTAssertEqual(after.habit(habitID(0xabc))?.name, "read (2)")
        XCTAssertEqual(after.note(habitID(0xabc), start), "chapter 3")
        XCTAssertEqual(after.progress(mine.id, start), 2 * Amount.scale, "progress already here is kept")
        XCTAssertEqual(after.difficulty(mine.id, start), 2, "a missing rating is added")
        XCTAssertEqual(plan.kept, ["'Read' \(start): kept progress 2 (the source says 5.5)"])
        XCTAssertEqual(plan.renamed.count, 1)
    }

    func testReplaceFromANegativeShareReachesTheTargetProgress() {
        var w = World()
        let h = w.build("Run", start: start)
        var other = TestDevice(2)
        applyOrFail(other.op(.progress(h.id, start, delta: -3)), to: &w.state)
        XCTAssertEqual(w.state.progress(h.id, start), 0)
        let target = TargetHabit(id: h.id, fields: h.fields, days: [start: TargetDay(progress: 2)])
        let after = applying(Reconcile.plan(current: w.state, targets: [target], mode: .replace).changes, to: w.state)
        XCTAssertEqual(after.progress(h.id, start), 2)
    }
}
