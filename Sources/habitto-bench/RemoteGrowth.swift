import Foundation
import HabitCore
import HabitStore
import HabitSync
import WebDAVHarness

// MARK: 5. A remote over time

extension Bench {
    /// Two devices that check in and sync one round at a time against Apache mod_dav on
    /// loopback (started here, like the tests), as the UI does after each check-in; then the
    /// files left on the remote, what a new device's join costs and what a round with
    /// nothing to do costs, counted from the server's access log (bytes with headers, both
    /// ways).
    func remoteGrowth() async throws {
        if let missing = WebDAVServer.missingTools {
            record("a remote over time (WebDAV on loopback)", "not measured: \(missing)")
            return
        }
        let server = try WebDAVServer()
        let rounds = quick ? 150 : 1_500
        let url = server.baseURL.absoluteString
        func device(_ name: String) async throws -> (HabitRepository, SyncEngine) {
            let repo = try HabitRepository(directory: root + "/growth-" + name)
            let engine = try SyncEngine(repository: repo, access: RemoteAccess(password: { server.password }))
            try await engine.setRemote(url, account: "growth", user: server.user)
            return (repo, engine)
        }
        func round(_ engine: SyncEngine) async throws {
            let report = await engine.syncOnce()
            guard report.error == nil, report.skipped == nil else { throw BenchError("a round failed: \(report)") }
        }
        var devices: [(HabitRepository, SyncEngine, HabitID)] = []
        let start = today.adding(-rounds)
        for name in ["a", "b"] {
            let (repo, engine) = try await device(name)
            var g = SystemRandomNumberGenerator()
            let h = HabitID.random(using: &g)
            try await repo.commit { _, _ in [.create(h, HabitFields(name: "Walk " + name, startDate: start))] }
            devices.append((repo, engine, h))
        }
        for i in 0..<rounds {
            let day = today.adding(i - rounds + 1)
            for (repo, engine, h) in devices {
                try await repo.commit { _, _ in [.progress(h, day, delta: 1)] }
                try await round(engine)
            }
        }
        let folder = server.dataDirectory + "/users/growth/devices"
        var files = 0
        for d in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files += try FileManager.default.contentsOfDirectory(atPath: folder + "/" + d + "/ops").count
        }
        record("files on the remote after \(count(rounds)) rounds of two devices (Apache)", "\(files) files",
               goal: "≤ 200", met: files <= 200)

        var before = server.requests().count
        let (joiner, engine) = try await device("c")
        let t = now()
        try await round(engine)
        let seconds = now() - t
        let joined = server.requests().dropFirst(before)
        let held = await joiner.state.habits.count
        guard held == 2 else { throw BenchError("the new device holds \(held) habits, not 2") }
        let simulated = seconds + 0.05 * Double(joined.count)
        record("a new device joins after \(count(rounds)) rounds (Apache)",
               "\(joined.count) requests, \(kib(joined)), \(ms(seconds)); \(ms(simulated)) at 50 ms a request",
               goal: "≤ 40 requests", met: joined.count <= 40)

        before = server.requests().count
        try await round(devices[0].1)
        let idle = server.requests().dropFirst(before)
        record("a round with nothing to do after \(count(rounds)) rounds (Apache)", "\(idle.count) requests, \(kib(idle))",
               goal: "≤ 4 requests, ≤ 64 KiB", met: idle.count <= 4 && bytes(idle) <= 64 << 10)
    }

    func bytes(_ requests: ArraySlice<WebDAVServer.LoggedRequest>) -> Int {
        requests.reduce(0) { $0 + $1.received + $1.sent }
    }

    func kib(_ requests: ArraySlice<WebDAVServer.LoggedRequest>) -> String {
        String(format: "%.1f KiB", Double(bytes(requests)) / 1024)
    }
}
