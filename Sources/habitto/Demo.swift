import FoundationEssentials
import HabitCore
import HabitStore
import HabitSync
import HabittoCLI

/// `habitto demo`: a throwaway data directory with two months of history, a directory
/// remote, a second device that changes something every few seconds, and injected latency
/// so the sync queue visibly fills and drains. Then the UI opens.
enum Demo {
    static func run(env: AppEnvironment, homeGiven: Bool, options: TerminalApp.Options) async throws -> Int32 {
        let base = homeGiven ? env.home : Leftovers.temporaryDirectory + "/habitto-demo-\(UInt32.random(in: 0 ... .max))"
        let home = homeGiven ? base : base + "/data"
        let remoteDir = (homeGiven ? base + "-demo-remote" : base + "/remote")
        let otherDir = (homeGiven ? base + "-demo-other-device" : base + "/other-device")
        try Sys.makeDirectories(remoteDir)
        let today = env.today
        let clock = env.clock

        // This device: habits and two months of history.
        let repo = try HabitRepository(directory: home, now: clock)
        if await repo.state.habits.isEmpty {
            var rng = SystemRandomNumberGenerator()
            let start = today.adding(-60)
            let habits: [(HabitID, HabitFields)] = [
                (HabitID.random(using: &rng), HabitFields(name: "Drink water", icon: "💧", goal: 8 * Amount.scale, unit: "glasses", startDate: start)),
                (HabitID.random(using: &rng), HabitFields(name: "Read", icon: "📚", startDate: start)),
                (HabitID.random(using: &rng), HabitFields(name: "No sugar", icon: "🍬", kind: .limit, goal: 0, startDate: start)),
                (HabitID.random(using: &rng), HabitFields(name: "Gym", icon: "🏋", schedule: .perWeek(3), startDate: start)),
                (HabitID.random(using: &rng), HabitFields(name: "Stretch", icon: "🧘", schedule: .weekdays([.monday, .wednesday, .friday]), startDate: start)),
            ]
            try await repo.commit(label: "demo habits") { _, _ in habits.map { .create($0.0, $0.1) } }
            var changes: [Change] = []
            for d in 0..<60 {
                let day = start.adding(d)
                if Int.random(in: 0..<10, using: &rng) < 8 { changes.append(.progress(habits[0].0, day, delta: Int.random(in: 4...9, using: &rng) * Amount.scale)) }
                if Int.random(in: 0..<10, using: &rng) < 7 {
                    changes.append(.progress(habits[1].0, day, delta: Amount.scale))
                    changes.append(.rate(habits[1].0, day, Int.random(in: 1...4, using: &rng)))
                }
                if Int.random(in: 0..<10, using: &rng) < 1 { changes.append(.progress(habits[2].0, day, delta: Amount.scale)) }
                if Int.random(in: 0..<10, using: &rng) < 4 { changes.append(.progress(habits[3].0, day, delta: Amount.scale)) }
                if Int.random(in: 0..<10, using: &rng) < 6 { changes.append(.progress(habits[4].0, day, delta: Amount.scale)) }
            }
            let history = changes
            try await repo.commit(label: "demo history") { _, _ in history }
        }
        let engine = try SyncEngine(repository: repo, clock: LiveClock(now: clock))
        try await engine.setRemote("dir:" + remoteDir, account: "demo")
        _ = await engine.syncOnce()

        // The other device: pulls, then checks in on something every few seconds.
        let other = try HabitRepository(directory: otherDir, now: clock)
        let otherEngine = try SyncEngine(repository: other, clock: LiveClock(now: clock))
        try await otherEngine.setRemote("dir:" + remoteDir, account: "demo")
        _ = await otherEngine.syncOnce()
        let companion: @Sendable () async -> Void = {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 4_000_000_000)
                let state = await other.state
                guard let habit = state.habits.filter({ $0.isActive(on: today) && $0.kind == .build }).randomElement() else { continue }
                _ = try? await other.commit { s, _ in try Edits.checkIn(habit, on: today, amount: Amount.scale, today: today, in: s) }
                _ = await otherEngine.syncOnce()
            }
        }
        var opts = options
        opts.faults = opts.faults ?? FaultPlan(latency: 1.2)
        opts.pullEvery = 3
        opts.companion = companion
        opts.hint = "Demo: press o to go offline, check in a few times with space, press o again and watch the queue drain (y shows it)"
        let demoEnv = AppEnvironment(home: home, configPath: env.configPath, config: env.config, now: env.now,
                                     clock: env.clock)
        let code = try await TerminalApp.run(env: demoEnv, options: opts)
        Output.line("The demo's data is in \(homeGiven ? home : base); delete it when you are done.")
        return code
    }
}
