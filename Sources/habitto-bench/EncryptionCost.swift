import Foundation
import HabitCore
import HabitStore
import HabitSync

// MARK: 6. What encryption costs a round

extension Bench {
    /// One device that checks in and syncs one round at a time against a folder remote, once
    /// plain and once encrypted with age (one `age` process per file written or read): the
    /// median round's time for each, then a new device's join of what the rounds left.
    func encryptionCost() async throws {
        guard let tool = AgeTool.find() else {
            record("a sync round, plain and encrypted with age (folder)", "not measured: age is not installed (\(AgeTool.install))")
            return
        }
        let rounds = quick ? 10 : 60, today = today
        var medians: [Double] = [], joins: [Double] = []
        for encrypted in [false, true] {
            let name = encrypted ? "age" : "plain"
            let folder = root + "/encryption-remote-" + name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let repo = try HabitRepository(directory: root + "/encryption-" + name)
            if encrypted { _ = try RemoteKey.generate(repo.paths, tool: tool) }
            let engine = try SyncEngine(repository: repo)
            try await engine.setRemote("dir:" + folder, account: "bench", encrypt: encrypted ? RemoteSettings.age : nil)
            var g = SystemRandomNumberGenerator()
            let h = HabitID.random(using: &g)
            try await repo.commit { _, _ in [.create(h, HabitFields(name: "Walk", startDate: today.adding(-rounds)))] }
            var times: [Double] = []
            for i in 0..<rounds {
                try await repo.commit { _, _ in [.progress(h, today.adding(i - rounds + 1), delta: 1)] }
                let t = now()
                let report = await engine.syncOnce()
                times.append(now() - t)
                guard report.error == nil, report.skipped == nil else { throw BenchError("a \(name) round failed: \(report)") }
            }
            medians.append(median(times))
            // A new device with the same key joins: it reads every file the rounds left.
            let joiner = try HabitRepository(directory: root + "/encryption-join-" + name)
            if encrypted {
                let key = try unwrap(try Sys.readFile(RemoteKey.path(repo.paths)), "the key file")
                _ = try RemoteKey.store(key, in: joiner.paths, tool: tool, source: "the bench's key")
            }
            let other = try SyncEngine(repository: joiner)
            try await other.setRemote("dir:" + folder, account: "bench", encrypt: encrypted ? RemoteSettings.age : nil)
            let t = now()
            let report = await other.syncOnce()
            joins.append(now() - t)
            guard report.error == nil, report.pulled == rounds + 1 else { throw BenchError("the \(name) join pulled \(report.pulled): \(report)") }
        }
        record("a sync round with one check-in, folder remote (median of \(count(rounds)))",
               "plain \(ms(medians[0])), encrypted with age \(ms(medians[1])) (\(ratio(medians[1] / medians[0]))×)")
        record("a new device joins that folder after \(count(rounds)) rounds",
               "plain \(ms(joins[0])), encrypted with age \(ms(joins[1])) (\(ratio(joins[1] / joins[0]))×)")
    }
}
