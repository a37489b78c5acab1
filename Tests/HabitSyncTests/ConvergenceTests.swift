import Foundation
import XCTest
import HabitCore
import HabitStore
import HabitImport
@testable import HabitSync
import SyncTestKit

final class ConvergenceTests: SyncTestCase {
    typealias Replica = (repo: HabitRepository, engine: SyncEngine)

    /// A device whose repository and engine read a fixed time.
    func replica(_ name: String, faults: FaultPlan? = nil) async throws -> Replica {
        try await device(name, now: { Date(timeIntervalSince1970: 1_795_000_000) }, faults: faults)
    }

    func export(_ r: Replica) async -> String { Export.document(await r.repo.state, today: .latest).serialized() }

    /// Syncs every replica until all have everything, as after a restart with the network
    /// back: fresh engines without injected faults, online.
    func settle(_ replicas: [Replica], file: StaticString = #filePath, line: UInt = #line) async throws {
        let healthy = try replicas.map { try SyncEngine(repository: $0.repo, clock: LiveClock(now: { Date(timeIntervalSince1970: 1_795_000_000) })) }
        for e in healthy { try await e.setOffline(false) }
        for _ in 0..<3 {
            for e in healthy {
                let report = await e.syncOnce()
                XCTAssertNil(report.error, "sync failed: \(report.error ?? "")", file: file, line: line)
            }
        }
    }

    func testThreeReplicasMakingRandomConcurrentChangesConvergeByteForByte() async throws {
        for seed in [1, 2, 3] as [UInt64] {
            try await runScenario(seed: seed, faults: nil)
        }
    }

    func testConvergenceSurvivesLostAcknowledgementsAndFailuresAtRandom() async throws {
        try await runScenario(seed: 11, faults: FaultPlan(latency: 0, failureRate: 0.2, lostAckRate: 0.3, unreachable: false))
    }

    func runScenario(seed: UInt64, faults: FaultPlan?, file: StaticString = #filePath, line: UInt = #line) async throws {
        try emptyRoot()
        var rng = SplitMix64(seed: seed)
        let replicas = [try await replica("a\(seed)", faults: faults), try await replica("b\(seed)", faults: faults),
                        try await replica("c\(seed)", faults: faults)]
        let start = LocalDay("2026-11-01")!
        let today = LocalDay("2026-11-21")!
        let habits = (0..<4).map { HabitID(value: UInt64(0xA0 + $0)) }
        try await replicas[0].repo.commit { _, _ in
            habits.enumerated().map { .create($1, HabitFields(name: "Habit \($0)", goal: 3, startDate: start)) }
        }
        try await settle(replicas)
        // Every progress change that was committed, per habit and day, with its stamp.
        var committed: [String: [DayOp]] = [:]
        func record(_ ops: [HabitOperation]) {
            for op in ops {
                if case .progress(let h, let d, let delta) = op.change {
                    committed["\(h)|\(d)", default: []].append(DayOp(stamp: op.stamp, delta: delta))
                }
            }
        }
        for _ in 0..<160 {
            let r = replicas[Int.random(in: 0..<3, using: &rng)]
            let h = habits[Int.random(in: 0..<habits.count, using: &rng)]
            let day = start.adding(Int.random(in: 0...20, using: &rng))
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<35:
                record((try? await r.repo.commit { state, _ in
                    guard let habit = state.habit(h) else { return [] }
                    return try Edits.checkIn(habit, on: day, amount: 1, today: today, in: state)
                })?.operations ?? [])
            case 35..<45:
                record((try? await r.repo.commit { state, _ in
                    guard let habit = state.habit(h) else { return [] }
                    return try Edits.uncheck(habit, on: day, amount: 1, today: today, in: state)
                })?.operations ?? [])
            case 45..<52:
                // Undo: its inverse operations are committed like any other.
                let before = await r.repo.state.seen[r.repo.device] ?? 0
                _ = try await r.repo.undo()
                let after = await r.repo.state.seen[r.repo.device] ?? 0
                if after > before {
                    let (ops, _) = try await r.repo.localOperations(afterSeq: before, fromOffset: 0, limit: Int.max)
                    record(ops)
                }
            case 52..<62:
                let name = "Name \(Int.random(in: 0..<1000, using: &rng))"
                _ = try? await r.repo.commit { state, _ in
                    guard let habit = state.habit(h) else { return [] }
                    var f = habit.fields
                    f.name = name
                    return try Edits.update(habit, to: f, in: state)
                }
            case 62..<70:
                _ = try? await r.repo.commit { state, _ in
                    guard let habit = state.habit(h) else { return [] }
                    return try Edits.setSkipped(habit, on: day, !state.isSkipped(h, day), today: today, in: state)
                }
            case 70..<78:
                let rating = Int.random(in: 1...5, using: &rng)
                _ = try? await r.repo.commit { state, _ in
                    guard let habit = state.habit(h) else { return [] }
                    return try Edits.rate(habit, on: day, rating, today: today, in: state)
                }
            case 78..<80:
                _ = try await r.repo.commit { state, _ in state.habit(h).map { Edits.delete($0) } ?? [] }
            case 80..<84:
                // Field edits that are valid alone but can combine into what local input
                // refuses: limit with N/week, build with goal 0, archive before the start.
                let pick = Int.random(in: 0..<5, using: &rng)
                let newStart = start.adding(Int.random(in: 0...15, using: &rng))
                let archive = start.adding(Int.random(in: 5...20, using: &rng))
                _ = try? await r.repo.commit { state, _ in
                    guard let habit = state.habit(h) else { return [] }
                    var f = habit.fields
                    switch pick {
                    case 0: f.kind = .limit; f.goal = 0; f.schedule = .daily
                    case 1: f.kind = .build; f.goal = 2; f.schedule = .perWeek(3)
                    case 2: f.startDate = newStart
                    case 3: f.archivedFrom = max(f.startDate, archive)
                    default: f.archivedFrom = nil
                    }
                    return try Edits.update(habit, to: f, in: state)
                }
            case 84..<88:
                try await r.engine.setOffline(Bool.random(using: &rng))
            default:
                await r.engine.syncOnce()
            }
        }
        try await settle(replicas)
        let exports = [await export(replicas[0]), await export(replicas[1]), await export(replicas[2])]
        XCTAssertEqual(exports[0], exports[1], "seed \(seed): a and b differ", file: file, line: line)
        XCTAssertEqual(exports[0], exports[2], "seed \(seed): a and c differ", file: file, line: line)
        let s0 = await replicas[0].repo.state, s1 = await replicas[1].repo.state
        XCTAssertTrue(s0.encoded() == s1.encoded(), "seed \(seed): the states differ", file: file, line: line)
        // No check-in lost or doubled: shown progress is the running total of the committed
        // changes in stamp order, kept within 0…max at each step, for habits that exist.
        let final = await replicas[2].repo.state
        for (key, ops) in committed {
            let parts = key.split(separator: "|")
            guard let h = HabitID(String(parts[0])), let d = LocalDay(String(parts[1])), final.habit(h) != nil else { continue }
            let expected = ops.sorted().reduce(0) { min(Limits.maxDayProgress, max(0, $0 + $1.delta)) }
            XCTAssertEqual(final.progress(h, d), expected, "seed \(seed): progress of \(key)", file: file, line: line)
        }
        // Every merged habit is one that local input accepts.
        for habit in final.habits {
            XCTAssertNoThrow(try habit.fields.validate(), "seed \(seed): \(habit.id)", file: file, line: line)
        }
        try await assertExportsAndReimports(final, today: today, seed: seed, file: file, line: line)
    }

    /// Random moves (and undos of moves) on three devices that sync now and then: every device
    /// ends with the same order, state and export, and the export imports with that order.
    func testConcurrentReordersOnThreeDevicesConvergeToOneOrder() async throws {
        for seed in [21, 22] as [UInt64] {
            try emptyRoot()
            var rng = SplitMix64(seed: seed)
            let replicas = [try await replica("a\(seed)"), try await replica("b\(seed)"), try await replica("c\(seed)")]
            let habits = (0..<6).map { HabitID(value: UInt64(0xB0 + $0)) }
            try await replicas[0].repo.commit { _, _ in
                habits.enumerated().map { .create($1, HabitFields(name: "Habit \($0)", startDate: LocalDay("2026-11-01")!)) }
            }
            try await settle(replicas)
            for e in replicas { try await e.engine.setOffline(true) }
            var moves = 0
            for _ in 0..<90 {
                let r = replicas[Int.random(in: 0..<3, using: &rng)]
                let h = habits.randomElement(using: &rng)!, other = habits.randomElement(using: &rng)!
                let target: MoveTarget = [.top, .bottom, .before(other), .after(other)].randomElement(using: &rng)!
                switch Int.random(in: 0..<10, using: &rng) {
                case 0:
                    // Undo of a move (never of the habits' creation).
                    if await r.repo.undoStack.last?.label.hasPrefix("move") == true { _ = try await r.repo.undo() }
                case 1:
                    try await r.engine.setOffline(false)
                    await r.engine.syncOnce()
                    try await r.engine.setOffline(true)
                default:
                    let result = try? await r.repo.commit { state, _ in try Edits.move(h, to: target, in: state) }
                    if let result, !result.operations.isEmpty { moves += 1 }
                }
            }
            XCTAssertGreaterThan(moves, 40, "seed \(seed): the moves were made")
            try await settle(replicas)
            let orders = [await replicas[0].repo.state.habits.map(\.id), await replicas[1].repo.state.habits.map(\.id),
                          await replicas[2].repo.state.habits.map(\.id)]
            XCTAssertEqual(orders[0], orders[1], "seed \(seed): a and b order differently")
            XCTAssertEqual(orders[0], orders[2], "seed \(seed): a and c order differently")
            XCTAssertEqual(Set(orders[0]), Set(habits))
            let exports = [await export(replicas[0]), await export(replicas[1]), await export(replicas[2])]
            XCTAssertEqual(exports[0], exports[1], "seed \(seed)")
            XCTAssertEqual(exports[0], exports[2], "seed \(seed)")
            let final = await replicas[0].repo.state
            XCTAssertTrue(final.habits.contains { $0.fields.position != nil }, "seed \(seed): some habit has a key")
            try await assertExportsAndReimports(final, today: LocalDay("2026-11-21")!, seed: seed)
        }
    }

    /// Reminder times edited on three devices while offline, some habits created with them:
    /// after syncing every device has the same state and export, each habit the times of its
    /// last edit, and the export imports with the same reminders.
    func testConcurrentReminderEditsOnThreeDevicesConverge() async throws {
        try emptyRoot()
        var rng = SplitMix64(seed: 31)
        let replicas = [try await replica("ra"), try await replica("rb"), try await replica("rc")]
        let habits = (0..<4).map { HabitID(value: UInt64(0xE0 + $0)) }
        let lists = ["", "08:00", "07:30,21:00", "00:00,12:00,23:59"].map { try! ReminderTime.parseList($0) }
        try await replicas[0].repo.commit { _, _ in
            habits.enumerated().map { .create($1, HabitFields(name: "Habit \($0)", startDate: LocalDay("2026-11-01")!, reminders: lists[$0])) }
        }
        try await settle(replicas)
        for e in replicas { try await e.engine.setOffline(true) }
        for _ in 0..<40 {
            let r = replicas[Int.random(in: 0..<3, using: &rng)]
            let h = habits.randomElement(using: &rng)!, times = lists.randomElement(using: &rng)!
            try await r.repo.commit { state, _ in
                guard let habit = state.habit(h) else { return [] }
                var fields = habit.fields
                fields.reminders = times
                return try Edits.update(habit, to: fields, in: state)
            }
        }
        try await settle(replicas)
        let exports = [await export(replicas[0]), await export(replicas[1]), await export(replicas[2])]
        XCTAssertEqual(exports[0], exports[1])
        XCTAssertEqual(exports[0], exports[2])
        let states = [await replicas[0].repo.state, await replicas[1].repo.state]
        XCTAssertEqual(states[0].encoded(), states[1].encoded())
        XCTAssertTrue(states[0].habits.contains { !$0.fields.reminders.isEmpty })
        XCTAssertTrue(exports[0].contains("\"reminders\""))
        try await assertExportsAndReimports(states[0], today: LocalDay("2026-11-21")!, seed: 31)
    }

    /// Moves made on three devices from the same start, merged in every order of the devices:
    /// one state, one order.
    func testConcurrentMovesMergedInEveryOrderGiveTheSameOrder() throws {
        var rng = SplitMix64(seed: 5)
        let start = LocalDay("2026-11-01")!
        let habits = (0..<5).map { HabitID(value: UInt64(0xC0 + $0)) }
        let creator = DeviceID(hi: 0, lo: 9)
        var base = HabitState()
        for (i, h) in habits.enumerated() {
            base.apply(HabitOperation(id: OpID(device: creator, seq: UInt64(i + 1)), hlc: HLC(wallMillis: 1_000, counter: UInt32(i)),
                                      change: .create(h, HabitFields(name: "H\(i)", startDate: start))))
        }
        for round in 0..<20 {
            var perDevice: [[HabitOperation]] = []
            for d in 0..<3 {
                let device = DeviceID(hi: 1, lo: UInt64(d + 1))
                var local = base, seq: UInt64 = 0
                var ops: [HabitOperation] = []
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let h = habits.randomElement(using: &rng)!, other = habits.randomElement(using: &rng)!
                    let target: MoveTarget = [.top, .bottom, .before(other), .after(other)].randomElement(using: &rng)!
                    for change in (try? Edits.move(h, to: target, in: local)) ?? [] {
                        seq += 1
                        // Clocks that often read the same: ties are broken by device.
                        let op = HabitOperation(id: OpID(device: device, seq: seq),
                                                hlc: HLC(wallMillis: 2_000 + Int64.random(in: 0...2, using: &rng), counter: UInt32(seq)),
                                                change: change)
                        local.apply(op)
                        ops.append(op)
                    }
                }
                perDevice.append(ops)
            }
            var results: [HabitState] = []
            for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                var s = base
                for d in order { for op in perDevice[d] { s.apply(op) } }
                results.append(s)
            }
            for s in results.dropFirst() {
                XCTAssertEqual(s.habits.map(\.id), results[0].habits.map(\.id), "round \(round)")
                XCTAssertTrue(s.encoded() == results[0].encoded(), "round \(round)")
            }
        }
    }

    /// The merged state's export imports into an empty data directory, and that exports the
    /// same habits and days (names aside: two habits renamed alike on two devices are told
    /// apart on import with " (2)").
    func assertExportsAndReimports(_ state: HabitState, today: LocalDay, seed: UInt64,
                                   file: StaticString = #filePath, line: UInt = #line) async throws {
        let document = Export.document(state, today: today).serialized()
        let path = root + "/export-\(seed).json"
        try Array(document.utf8).withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: path)) }
        let plan = try JSONExportReader.read(path: path)
        let fresh = try HabitRepository(directory: root + "/reimport-\(seed)", now: { Date(timeIntervalSince1970: 1_795_000_000) })
        _ = try await Importer.run(plan, repo: fresh, today: today, dryRun: false)
        let again = Export.document(await fresh.state, today: today).serialized()
        XCTAssertEqual(try withoutNames(again), try withoutNames(document), "seed \(seed): the re-import differs",
                       file: file, line: line)
    }

    private func withoutNames(_ json: String) throws -> NSDictionary {
        var root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        root["habits"] = (root["habits"] as? [[String: Any]] ?? []).map { h -> [String: Any] in
            var h = h
            h.removeValue(forKey: "name")
            return h
        }
        return root as NSDictionary
    }

    func testTenThousandPendingOperationsDrainInABoundedNumberOfBatches() async throws {
        let a = try await replica("big")
        let h = HabitID(value: 0xB1)
        let start = LocalDay("2000-01-01")!
        try await a.repo.commit { _, _ in [.create(h, HabitFields(name: "Big", startDate: start))] }
        for chunk in 0..<10 {
            try await a.repo.commit { _, _ in (0..<1000).map { .progress(h, start.adding(chunk * 1000 + $0), delta: 1) } }
        }
        let before = await a.engine.status()
        XCTAssertEqual(before.pending, 10_001)
        let report = await a.engine.syncOnce()
        XCTAssertNil(report.error)
        XCTAssertEqual(report.pushed, 10_001)
        XCTAssertEqual(report.batches, 11)
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "/remote/users/me/devices/\(a.repo.device)/ops")
        XCTAssertEqual(files.filter { $0.hasSuffix(".batch") }.count, 11)
        let after = await a.engine.status()
        XCTAssertEqual(after.pending, 0)
        // A fresh device catches up from them.
        let b = try await replica("fresh")
        _ = await b.engine.syncOnce()
        let bState = await b.repo.state
        XCTAssertEqual(bState.progress(h, start.adding(9_999)), 1)
        let ea = await export(a), eb = await export(b)
        XCTAssertEqual(eb, ea)
    }

    func testOfflineKeepsChangesQueuedAcrossRestartAndOnlineSendsThem() async throws {
        let a = try await replica("off")
        let h = HabitID(value: 0xC1)
        try await a.engine.setOffline(true)
        try await a.repo.commit { _, _ in [.create(h, HabitFields(name: "Walk", startDate: LocalDay("2026-11-01")!))] }
        try await a.repo.commit { _, _ in [.progress(h, LocalDay("2026-11-02")!, delta: 1)] }
        let skipped = await a.engine.syncOnce().skipped
        XCTAssertEqual(skipped, .offline)
        // Restart: a new repository and engine on the same directory.
        let repo2 = try HabitRepository(directory: root + "/off")
        let engine2 = try SyncEngine(repository: repo2)
        var status = await engine2.status()
        XCTAssertEqual(status.mode, .offline)
        XCTAssertEqual(status.pending, 2)
        XCTAssertEqual(status.habitStatus(h), .pending)
        try await engine2.setOffline(false)
        let round = await engine2.syncOnce()
        XCTAssertNil(round.error)
        status = await engine2.status()
        XCTAssertEqual(status.mode, .online)
        XCTAssertEqual(status.pending, 0)
        XCTAssertEqual(status.habitStatus(h), .synced)
    }

    func testAnUnreachableRemoteBacksOffAndRecoversWithoutLosingAnything() async throws {
        let dir = root + "/flaky"
        let repo = try HabitRepository(directory: dir)
        let engine = try SyncEngine(repository: repo, faults: FaultPlan(latency: 0, failureRate: 0, lostAckRate: 0, unreachable: true))
        try await engine.setRemote("dir:" + root + "/remote", account: "me")
        let h = HabitID(value: 0xD1)
        try await repo.commit { _, _ in [.create(h, HabitFields(name: "Run", startDate: LocalDay("2026-11-01")!))] }
        let first = await engine.syncOnce()
        XCTAssertTrue(first.error?.contains("remote unreachable") == true, "\(first.error ?? "")")
        var status = await engine.status()
        XCTAssertEqual(status.mode, .unreachable)
        XCTAssertEqual(status.pending, 1)
        let retry = try XCTUnwrap(status.nextRetryAt)
        XCTAssertLessThanOrEqual(retry.timeIntervalSinceNow, SyncEngine.backoffBase * 2 + 1)
        _ = await engine.syncOnce()
        status = await engine.status()
        XCTAssertEqual(try SyncState.load(repo.paths).attempts, 2)
        // The network comes back (a new engine without faults, as after a restart).
        let healthy = try SyncEngine(repository: repo)
        let healed = await healthy.syncOnce()
        XCTAssertNil(healed.error)
        status = await healthy.status()
        XCTAssertEqual(status.mode, .online)
        XCTAssertEqual(status.pending, 0)
        XCTAssertNil(status.nextRetryAt)
    }
}
