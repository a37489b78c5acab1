import Foundation
import XCTest
import HabitCore
import HabitStore
import SyncTestKit
@testable import HabitSync
@testable import HabitSys
import WebDAVHarness

/// Issue 40: while a loop runs (an open UI), a folder remote is watched, so another device's
/// batch is pulled at once rather than at the next timed pull.
final class LiveSyncTests: SyncTestCase {
    func testAnotherDevicesBatchIsPulledAtOnceWhileTheFolderIsWatched() async throws {
        let h = HabitID(value: 0x40)
        let a = try await device("a"), b = try await device("b", watching: true)
        try await checkIn(a.repo, h)
        await syncOK(a.engine)
        // The timer alone would pull in an hour: only the watch can bring A's next batch.
        await b.engine.setPullInterval(3600)
        let loop = Task { await b.engine.run() }
        defer { loop.cancel() }
        await waitForStatus(b.engine, "the folder watched after the first round") { $0.watch == .watching && $0.roundsEnded >= 1 }
        let bRepo = b.repo
        let first = await progress(bRepo, h)
        XCTAssertEqual(first, 1, "the first round pulled A's first batch")
        let pulled = await pushed(from: a, reaches: bRepo, h, progress: 2, within: 5)
        XCTAssertTrue(pulled, "B did not pull A's batch within 5 s while watching")
    }

    func testGoingOfflineStopsTheWatchAndGoingOnlineStartsIt() async throws {
        let b = try await device("b", watching: true)
        await b.engine.setPullInterval(3600)
        let loop = Task { await b.engine.run() }
        defer { loop.cancel() }
        await waitForStatus(b.engine, "watching") { $0.watch == .watching }
        try await b.engine.setOffline(true)
        let off = await b.engine.watchMode
        XCTAssertEqual(off, .off)
        try await b.engine.setOffline(false)
        let on = await b.engine.watchMode
        XCTAssertEqual(on, .watching)
        // A command's engine runs no loop: nothing is watched.
        let command = try await device("c", watching: true)
        await syncOK(command.engine)
        let none = await command.engine.watchMode
        XCTAssertEqual(none, .off)
    }

    /// The events a read gives are parsed whole; a record cut short ends them.
    func testInotifyRecordsAreParsedAndACutRecordIsDropped() {
        func record(_ wd: Int32, _ mask: UInt32, _ name: String, padTo: Int) -> [UInt8] {
            var name = Array(name.utf8)
            name += [UInt8](repeating: 0, count: padTo - name.count)
            func le(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
            return le(UInt32(bitPattern: wd)) + le(mask) + le(0) + le(UInt32(name.count)) + name
        }
        let two = record(3, 0x100, "1-4.batch", padTo: 16) + record(4, 0x4000_0100, "ops", padTo: 16)
        XCTAssertEqual(FolderWatch.parse(two[...]), [FolderWatch.Raw(wd: 3, mask: 0x100, name: "1-4.batch"),
                                                    FolderWatch.Raw(wd: 4, mask: 0x4000_0100, name: "ops")])
        XCTAssertEqual(FolderWatch.parse(two.dropLast(1)), [FolderWatch.Raw(wd: 3, mask: 0x100, name: "1-4.batch")])
        XCTAssertEqual(FolderWatch.parse([1, 2, 3][...]), [])
    }

    /// Hostile bytes where the kernel's records or the mount table are read: nothing crashes,
    /// every record parsed lies within the bytes, a cut record ends the list.
    func testInotifyRecordsAndTheMountTableSurviveArbitraryBytes() {
        var rng = SplitMix64(seed: 40)
        for round in 0..<2_000 {
            let count = Int(rng.next() % 200)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let records = FolderWatch.parse(bytes[...])
            XCTAssertLessThanOrEqual(records.count * 16, count, "round \(round)")
            XCTAssertLessThanOrEqual(records.map { $0.name.utf8.count }.reduce(0, +), count, "round \(round)")
            let text = String(decoding: bytes, as: UTF8.self)
            _ = RemoteWatch.fileSystemType(of: "/mnt/x", mounts: text + "\n" + text.replacingOccurrences(of: "\u{0}", with: " "))
            _ = RemoteWatch.unescaped(Substring("\\" + text + "\\04"))
        }
        XCTAssertEqual(RemoteWatch.unescaped("a\\040b\\134c\\0"), "a b\\c\\0", "a cut escape stays as it is")
    }

    /// Network and FUSE file systems do not report other machines' changes: the loop then
    /// pulls on its timer and says why.
    func testAFileSystemThatDoesNotReportChangesFallsBackToTheTimer() throws {
        let mounts = """
        /dev/vda / ext4 rw,relatime 0 0
        server:/export /mnt/share nfs4 rw 0 0
        sshfs#me@host: /home/me/remote\\040dir fuse.sshfs rw 0 0
        tmpfs /mnt/share/local tmpfs rw 0 0
        """
        XCTAssertEqual(RemoteWatch.fileSystemType(of: "/mnt/share/habitto", mounts: mounts), "nfs4")
        XCTAssertEqual(RemoteWatch.fileSystemType(of: "/mnt/share/local/x", mounts: mounts), "tmpfs", "the longest mount point")
        XCTAssertEqual(RemoteWatch.fileSystemType(of: "/mnt/shared", mounts: mounts), "ext4", "a prefix of a name is not a folder")
        XCTAssertEqual(RemoteWatch.fileSystemType(of: "/home/me/remote dir/h", mounts: mounts), "fuse.sshfs")
        XCTAssertEqual(RemoteWatch.nonReporting("nfs4"), "NFS")
        XCTAssertEqual(RemoteWatch.nonReporting("fuse.sshfs"), "FUSE (fuse.sshfs)")
        XCTAssertNil(RemoteWatch.nonReporting("ext4"))
        XCTAssertNil(RemoteWatch.nonReporting("tmpfs"))
        XCTAssertEqual(RemoteWatch.mode(for: .webDAV(url: URL(string: "https://example.org/dav")!, user: nil)).mode, .off)
        XCTAssertEqual(RemoteWatch.mode(for: .folder(path: root + "/gone")).mode, .timer("the folder cannot be read"))
        XCTAssertEqual(RemoteWatch.mode(for: .encrypted(.folder(path: root))).mode, .watching, "the test's folder is local")
    }
}

/// Issue 40, point 2: WebDAV is probed cheaply (one conditional GET of the account's change
/// marker), quickly while active and at the pull interval when quiet; a round runs only when
/// a probe finds a change.
final class WebDAVProbeTests: SyncTestCase {
    func testTheScheduleProbesQuicklyWhileActiveAndAtThePullIntervalWhenQuiet() {
        typealias F = SyncScheduler.Facts
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let quiet = F(remote: true, offline: false, failed: false, nextRetryAt: nil, probes: true, active: false)
        var active = quiet
        active.active = true
        XCTAssertEqual(SyncScheduler.wait(quiet, now: now, pullEvery: 30), 30)
        XCTAssertEqual(SyncScheduler.wait(active, now: now, pullEvery: 30), SyncScheduler.activeProbeInterval)
        var folder = active
        folder.probes = false
        XCTAssertEqual(SyncScheduler.wait(folder, now: now, pullEvery: 30), 30, "a remote without probes pulls on its timer")
        XCTAssertTrue(SyncScheduler.probesFirst(quiet, now: now))
        var failed = quiet
        failed.failed = true
        XCTAssertFalse(SyncScheduler.probesFirst(failed, now: now), "after a failure the timer's round is the one that may run")
        var retry = quiet
        retry.nextRetryAt = now.addingTimeInterval(-1)
        XCTAssertFalse(SyncScheduler.probesFirst(retry, now: now), "a retry due is a round")
        // An unreachable server backs off as before: no probe while the backoff runs.
        var backoff = active
        backoff.nextRetryAt = now.addingTimeInterval(40)
        XCTAssertFalse(SyncScheduler.probesFirst(backoff, now: now))
        XCTAssertEqual(SyncScheduler.wait(backoff, now: now, pullEvery: 30), 30, "not every 3 s while backing off")
        var offline = active
        offline.offline = true
        XCTAssertEqual(SyncScheduler.wait(offline, now: now, pullEvery: 30), 30, "offline: no probing")
        XCTAssertFalse(SyncScheduler.probesFirst(offline, now: now))
        XCTAssertFalse(SyncScheduler.probesFirst(folder, now: now))
    }

    func testOnApacheAProbeIsOneSmallConditionalGetThatSeesAnotherDevicesPush() async throws {
        if let missing = WebDAVServer.missingTools { XCTFail(missing); return }
        let server = try WebDAVServer()
        defer { server.stop() }
        let remote = server.baseURL.absoluteString
        let h = HabitID(value: 0x41)
        let a = try await device("a", remote: remote, user: server.user, password: server.password)
        let b = try await device("b", remote: remote, user: server.user, password: server.password)
        let probing = try await b.engine.remote()
        let none = try await probing.probeChanges(account: "me", since: nil)
        XCTAssertEqual(none, .unsupported, "no marker before any push")
        try await checkIn(a.repo, h)
        await syncOK(a.engine)
        let before = server.requests().count
        guard case .changed(let tag?) = try await probing.probeChanges(account: "me", since: nil) else { return XCTFail("no tag") }
        let again = try await probing.probeChanges(account: "me", since: tag)
        XCTAssertEqual(again, .unchanged)
        let probes = Array(server.requests().dropFirst(before))
        XCTAssertEqual(probes.map(\.method), ["GET", "GET"], "\(probes)")
        XCTAssertEqual(probes.map(\.status), [200, 304])
        XCTAssertLessThanOrEqual(probes.map { $0.received + $0.sent }.max() ?? .max, 2048, "one probe costs at most 2 KiB")
        try await checkIn(a.repo, h)
        await syncOK(a.engine)
        let after = try await probing.probeChanges(account: "me", since: tag)
        guard case .changed(let newer) = after else { return XCTFail("A's second push not seen: \(after)") }
        XCTAssertNotEqual(newer, tag)
    }

    /// A server's ETag on the change marker is sent back in the next probe's If-None-Match
    /// only when it is a plain header value (printable ASCII, at most 256 bytes): a long one,
    /// one with control characters or other bytes, or an empty one counts as a change with no
    /// tag, and the next probe asks without one.
    func testAHostileETagOnTheChangeMarkerIsNeverSentBack() async throws {
        let log = root + "/etag.log"
        let server = try HostileServer("etag", log: log)
        defer { server.stop() }
        let b = try await device("b", remote: server.url + "/dav", user: "u", password: "p")
        let probing = try await b.engine.remote()
        var tag: String?
        for _ in 0..<4 {
            let found = try await probing.probeChanges(account: "me", since: tag)
            XCTAssertEqual(found, .changed(nil), "a hostile tag was kept")
            if case .changed(let t) = found { tag = t }
        }
        let probes = server.requests.filter { $0.hasPrefix("GET ") && $0.contains("/changed") }
        XCTAssertEqual(probes.count, 4, "\(probes)")
        XCTAssertFalse(probes.contains { $0.lowercased().contains("if-none-match") }, "\(probes)")
    }

    func testOnApacheAnOpenLoopPullsAnotherDevicesPushWithinSecondsWhileActive() async throws {
        if let missing = WebDAVServer.missingTools { XCTFail(missing); return }
        let server = try WebDAVServer()
        defer { server.stop() }
        let remote = server.baseURL.absoluteString
        let h = HabitID(value: 0x42)
        let a = try await device("a", remote: remote, user: server.user, password: server.password)
        let b = try await device("b", remote: remote, user: server.user, password: server.password)
        try await checkIn(a.repo, h)
        await syncOK(a.engine)
        // An hour between timed rounds: only a probe can bring A's next push.
        await b.engine.setPullInterval(3600)
        let loop = Task { await b.engine.run() }
        defer { loop.cancel() }
        let bRepo = b.repo
        let first = await within(10) {
            for await _ in await bRepo.events() where await progress(bRepo, h) == 1 { return true }
            return false
        }
        XCTAssertTrue(first, "B's first round pulled A's first check-in (and made B active)")
        let pulled = await pushed(from: a, reaches: bRepo, h, progress: 2, within: 8)
        XCTAssertTrue(pulled, "B did not pull A's push within 8 s while active")
    }
}

/// Checks in on `a` and pushes it, then waits (at most `seconds`) until `repo`, another
/// device's, holds `progress` on habit `h`: whether it did.
func pushed(from a: (repo: HabitRepository, engine: SyncEngine), reaches repo: HabitRepository, _ h: HabitID, progress wanted: Int,
            within seconds: Double) async -> Bool {
    let changes = await repo.events()
    do { try await checkIn(a.repo, h) } catch { return false }
    await syncOK(a.engine)
    return await within(seconds) {
        for await _ in changes where await progress(repo, h) == wanted { return true }
        return false
    }
}
