import Foundation
import HabitCore
import HabitStore
import XCTest
import SyncTestKit
#if canImport(Glibc)
import Glibc
#endif

/// Sync between whole processes: data directories sharing one remote folder, with lost
/// answers, kill -9 in the middle of a round, several processes syncing one data directory,
/// the offline switch and bad configuration.
final class SyncCommandTests: SyncCLITestCase {
    var a: Sandbox!
    var b: Sandbox!
    /// The shared remote folder (inside `a`'s root, so it goes away with it).
    var folder: String!

    override func setUp() {
        super.setUp()
        a = Sandbox()
        b = Sandbox()
        b.now = a.now
        folder = a.root + "/remote"
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        super.tearDown()
        a = nil
        b = nil
        folder = nil
    }

    // MARK: Tests

    /// `--version` names the release and the formats it writes and reads; `status` shows
    /// which version every other device last ran (from its marker on the remote), and names a
    /// device too old to read this one's changes.
    func testStatusShowsTheVersionEachDeviceRanAndNamesOnesTooOld() throws {
        let version = a.ok("--version")
        XCTAssertTrue(version.hasPrefix("habitto \(HabittoVersion.current)\nwrites: journal 1, snapshot "), version)
        XCTAssertTrue(version.contains("sync batch 3, remote format 2\nreads: those, sync batches 1 and 2 and remote format 1"), version)
        a.ok("add", "Water")
        a.ok("remote", "set", "dir:" + folder)
        b.ok("remote", "set", "dir:" + folder)
        let deviceA = try XCTUnwrap(try status(a)["device"] as? String)
        var text = b.ok("status")
        // Its newest change B holds: A's add, at A's clock (HABITTO_NOW), then when B last listed it.
        XCTAssertTrue(text.contains("Device \(deviceA.prefix(8)): last change 2026-11-21T09:00:00Z, last seen "), text)
        XCTAssertTrue(text.contains(", ran habitto \(HabittoVersion.current)\n"), text)
        var device = try XCTUnwrap((try status(b)["devices"] as? [[String: Any]])?.first)
        XCTAssertEqual(device["version"] as? String, HabittoVersion.current)
        XCTAssertEqual(device["lastChange"] as? String, "2026-11-21T09:00:00Z")
        XCTAssertEqual(device["tooOld"] as? Bool, false)
        // The marker of a release before the oldest that reads this one's changes.
        let ops = folder + "/users/default/devices/\(deviceA)/ops/"
        try FileManager.default.moveItem(atPath: ops + "habitto-\(HabittoVersion.current).version", toPath: ops + "habitto-0.1.9.version")
        b.ok("sync")
        text = b.ok("status")
        XCTAssertTrue(text.contains(", ran habitto 0.1.9 (too old to read this device's changes: update habitto there)\n"), text)
        device = try XCTUnwrap((try status(b)["devices"] as? [[String: Any]])?.first)
        XCTAssertEqual(device["version"] as? String, "0.1.9")
        XCTAssertEqual(device["tooOld"] as? Bool, true)
    }

    func testTwoDataDirectoriesSharingAFolderConverge() throws {
        a.ok("add", "Water", "--goal", "8", "--start", "2026-11-01")
        a.ok("add", "Read", "--unit", "chapters")   // counted: both devices' check-ins add up
        for _ in 0..<3 { a.ok("check", "Water") }
        a.ok("check", "Read", "--difficulty", "2")
        let opsA = try XCTUnwrap(a.stat("operations"))
        XCTAssertEqual(a.ok("remote", "set", "dir:" + folder),
                       "Remote set to dir:\(folder!) (account default): pushed \(opsA) operations, pulled 0; verified\n")
        XCTAssertEqual(b.ok("remote", "set", "dir:" + folder),
                       "Remote set to dir:\(folder!) (account default): pushed 0 operations, pulled \(opsA); verified\n")
        b.ok("check", "Water", "--amount", "2")
        b.ok("check", "Read")
        b.ok("check", "Water", "--date", "yesterday")

        // Round one carries B's three check-ins to the folder and then to A; round two is quiet.
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(b.ok("sync"), "Synced: pushed 3 operations in 1 batch, pulled 0\n")
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 3\n")
        XCTAssertEqual(b.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")

        let exportA = a.ok("export"), exportB = b.ok("export")
        XCTAssertFalse(exportA.isEmpty)
        XCTAssertEqual(exportA, exportB, "two replicas that saw the same operations differ")
        for box in [a!, b!] {
            XCTAssertEqual(progress(box, "Water"), 3 + 2)
            XCTAssertEqual(progress(box, "Read"), 1 + 1)
            XCTAssertEqual(progress(box, "Water", date: "yesterday"), 1)
            // Habit-days with progress: Water today and yesterday, Read today.
            XCTAssertEqual(box.stat("checkIns"), 3)
            XCTAssertEqual(box.stat("operations"), opsA + 3)
            XCTAssertEqual(syncStatus(box, "Water"), "synced")
            XCTAssertEqual(syncStatus(box, "Read"), "synced")
        }
        let statusA = try status(a), statusB = try status(b)
        let deviceA = try XCTUnwrap(statusA["device"] as? String), deviceB = try XCTUnwrap(statusB["device"] as? String)
        XCTAssertNotEqual(deviceA, deviceB)
        for (st, other) in [(statusA, deviceB), (statusB, deviceA)] {
            XCTAssertEqual(st["mode"] as? String, "online")
            XCTAssertEqual(st["pending"] as? Int, 0)
            XCTAssertEqual(st["inFlight"] as? Int, 0)
            XCTAssertEqual(st["remote"] as? String, "dir:" + folder)
            XCTAssertEqual(st["account"] as? String, "default")
            XCTAssertTrue(st["lastError"] is NSNull, "\(st)")
            XCTAssertEqual((st["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [other])
        }
        // The folder holds exactly the two devices' batches, in the layout of docs/sync.md ("The queue").
        XCTAssertNotNil(try String(contentsOfFile: folder + "/users/default/format", encoding: .utf8).range(of: "^habitto-sync 2 remote [0-9a-f]{32}\n$", options: .regularExpression))
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder + "/users/default/devices")),
                       [deviceA, deviceB])
        XCTAssertEqual(try remoteBatches(folder, deviceA).files, ["1-\(opsA).batch"])
        XCTAssertEqual(try remoteBatches(folder, deviceB).files, ["1-3.batch"])
    }

    /// A and B synced with Yoga done; one answers `uncheck`, a minute later the other
    /// `check` (on a day it shows done), or the other way round: after syncing both show the
    /// later answer, whichever device gave it.
    func testTheLaterOfTwoAnswersOnAYesNoDayWinsInBothOrders() throws {
        for uncheckFirst in [true, false] {
            let a = Sandbox(), b = Sandbox()
            b.now = a.now
            let folder = a.root + "/remote"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            a.ok("add", "Yoga")
            a.ok("check", "Yoga")
            a.ok("remote", "set", "dir:" + folder)
            b.ok("remote", "set", "dir:" + folder)
            XCTAssertEqual(progress(b, "Yoga"), 1, "B shows the day done")
            (uncheckFirst ? a : b).now = "2026-11-21T10:00:00"
            (uncheckFirst ? b : a).now = "2026-11-21T10:01:00"
            if uncheckFirst { a.ok("uncheck", "Yoga") }
            XCTAssertEqual(b.ok("check", "Yoga"), "✓ 'Yoga' today: 1/1, done · streak 1 day\n", "B records its answer")
            if !uncheckFirst { a.ok("uncheck", "Yoga") }
            for box in [a, b, a] { box.ok("sync") }
            for box in [a, b] {
                XCTAssertEqual(progress(box, "Yoga"), uncheckFirst ? 1 : 0, "uncheck first: \(uncheckFirst)")
            }
        }
    }

    func testLostAcknowledgementsNeverDuplicateCheckIns() throws {
        a.ok("add", "Water", "--goal", "100")
        a.ok("remote", "set", "dir:" + folder)
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let created = try XCTUnwrap(a.stat("operations"))
        XCTAssertEqual(try remoteBatches(folder, device).files, ["1-\(created).batch"])

        // Every write reaches the folder, and every answer is lost on the way back.
        a.extraEnv["HABITTO_FAULTS"] = "lostack=1"
        var checkIns = 0
        var files: Set<String> = ["1-\(created).batch"]
        for round in 0..<4 {
            // The last round adds nothing: the retry writes the very same batch again.
            let n = round == 3 ? 0 : 2 + round
            for _ in 0..<n { a.ok("check", "Water") }
            checkIns += n
            let batch = "\(created + 1)-\(created + checkIns).batch"
            let r = a.run("sync")
            XCTAssertEqual(r.status, 4, "round \(round): \(r.stdout) \(r.stderr)")
            XCTAssertEqual(r.stdout, "")
            XCTAssertEqual(r.stderr,
                           "habitto: sync: answer lost (injected by HABITTO_FAULTS); batch \(batch) may have been written (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details\n")
            files.insert(batch)
            XCTAssertEqual(Set(try remoteBatches(folder, device).files), files, "round \(round)")
            let st = try status(a)
            XCTAssertEqual(st["mode"] as? String, "unreachable")
            XCTAssertEqual(st["pending"] as? Int, checkIns, "an operation left the outbox without an answer")
            XCTAssertEqual(syncStatus(a, "Water"), "pending")
        }
        XCTAssertEqual(files.count, 4)

        // The answer arrives: the batch already there with the same bytes counts as the ack.
        a.extraEnv["HABITTO_FAULTS"] = nil
        XCTAssertEqual(a.ok("sync"), "Synced: pushed \(checkIns) operations in 1 batch, pulled 0\n")
        // The overlapping batches the lost answers left are then merged: what is left is at
        // most the compacted range of 8 and the last batch sent, which straddles its end.
        let merged = try remoteBatches(folder, device).files
        XCTAssertLessThanOrEqual(merged.count, 2, "\(merged)")
        let st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertEqual(st["pending"] as? Int, 0)
        XCTAssertEqual(syncStatus(a, "Water"), "synced")

        // The overlapping batches agree operation by operation and cover 1…N once each.
        let ops = try remoteBatches(folder, device).ops
        XCTAssertEqual(ops.keys.sorted(), Array(1...UInt64(created + checkIns)))

        XCTAssertEqual(b.ok("remote", "set", "dir:" + folder),
                       "Remote set to dir:\(folder!) (account default): pushed 0 operations, pulled \(created + checkIns); verified\n")
        XCTAssertEqual(progress(b, "Water"), checkIns, "check-ins were duplicated or lost")
        XCTAssertEqual(progress(a, "Water"), checkIns)
        XCTAssertEqual(b.stat("checkIns"), 1, "one habit-day, however much it holds")
        XCTAssertEqual(b.stat("operations"), created + checkIns)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    func testKillNineDuringSyncLosesAndDuplicatesNothing() throws {
        a.ok("add", "Water", "--goal", "1000")
        a.ok("remote", "set", "dir:" + folder)
        b.ok("remote", "set", "dir:" + folder)
        let created = try XCTUnwrap(a.stat("operations"))
        var checkIns = 0
        for _ in 0..<30 { a.ok("check", "Water"); checkIns += 1 }

        a.extraEnv["HABITTO_FAULTS"] = "latency=30ms"
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let ops = opsFolder(folder, device)
        var rng = SystemRandomNumberGenerator()
        // Fault injection. Even rounds: kill at a random instant of the round. Odd rounds:
        // kill as soon as the new batch is in the folder, before the cursor is recorded.
        let killed = try a.killedSyncs(16, maxPause: 150_000, waitingUpTo: 5, written: { batchFileNames(inOps: ops).count }) { r in
            if !r.killed {
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertTrue(r.stdout.hasPrefix("Synced: pushed "), r.stdout)
            }
            for _ in 0..<Int.random(in: 0...3, using: &rng) { a.ok("check", "Water"); checkIns += 1 }
        }
        XCTAssertGreaterThan(killed, 0, "no sync was interrupted")

        a.extraEnv["HABITTO_FAULTS"] = nil
        let last = a.run("sync")
        XCTAssertEqual(last.status, 0, "the first sync after the kills failed: \(last.stderr)")
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        let st = try status(a)
        XCTAssertEqual(st["pending"] as? Int, 0)
        XCTAssertEqual(st["mode"] as? String, "online")

        // Batches written by killed rounds may overlap later ones, but never disagree.
        XCTAssertEqual(st["device"] as? String, device)
        XCTAssertEqual(try remoteBatches(folder, device).ops.keys.sorted(), Array(1...UInt64(created + checkIns)))

        let pulled = b.run("sync")
        XCTAssertEqual(pulled.status, 0, pulled.stderr)
        XCTAssertEqual(pulled.stdout, "Synced: pushed 0 operations in 0 batches, pulled \(checkIns)\n")
        XCTAssertEqual(progress(a, "Water"), checkIns, "A lost or duplicated an acknowledged check-in")
        XCTAssertEqual(progress(b, "Water"), checkIns, "B lost or duplicated a check-in")
        XCTAssertEqual(b.stat("operations"), created + checkIns)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    func testKillNineDuringPullLosesAndDuplicatesNothing() throws {
        // B connects first, while the remote is empty.
        b.ok("remote", "set", "dir:" + folder)
        a.ok("add", "Water", "--goal", "1000")
        a.ok("remote", "set", "dir:" + folder)
        // Several batches on the remote (A merges its own as it syncs, like a binary counter).
        var checkIns = 0
        for _ in 0..<25 {
            for _ in 0..<3 { a.ok("check", "Water"); checkIns += 1 }
            a.ok("sync")
        }
        XCTAssertEqual(progress(b, "Water"), nil, "B has pulled nothing yet")
        // What B may hold after a kill: every check-in up to the end of some batch on the remote.
        let aDevice = try XCTUnwrap(try status(a)["device"] as? String)
        let created = checkIns - (a.stat("operations") ?? 0)
        let whole = Set([0] + (try remoteBatches(folder, aDevice).files).compactMap { name in
            name.dropLast(6).split(separator: "-").last.flatMap { Int($0) }.map { $0 + created }
        })
        // A's batches are merged on the remote (four or so: 63, 8, 1, 3 operations), so each
        // remote call takes 250 ms: a whole pull takes over 1.5 s, longer than the longest
        // random pause, and a kill right after a batch lands, even a late one on a loaded
        // machine, comes before the next batch is read.
        XCTAssertGreaterThan(whole.count, 2, "A's check-ins are in one batch: no pull can stop in the middle")
        b.extraEnv["HABITTO_FAULTS"] = "latency=250ms"
        // Kill B's pulls at random instants, again and again.
        var partials: [Int] = []
        func journalSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: b.journalPath)[.size] as? Int) ?? 0 }
        // Fault injection. Even rounds: a random instant. Odd rounds: right after a pulled
        // batch lands in the journal, so some kills surely fall in the middle of a pull.
        let killed = try b.killedSyncs(12, maxPause: 1_000_000, waitingUpTo: 10, written: journalSize) { r in
            if !r.killed { XCTAssertEqual(r.status, 0, r.stderr) }
            // Whatever was pulled so far is whole batches, never more than A has.
            let partial = progress(b, "Water") ?? 0
            XCTAssertLessThanOrEqual(partial, checkIns)
            XCTAssertTrue(whole.contains(partial), "a batch was applied in part: \(partial) is not one of \(whole.sorted())")
            partials.append(partial)
        }
        XCTAssertGreaterThan(killed, 0, "no pull was interrupted")
        XCTAssertTrue(partials.contains { $0 > 0 && $0 < checkIns }, "no kill landed in the middle of a pull: \(partials)")
        b.extraEnv["HABITTO_FAULTS"] = nil
        XCTAssertEqual(b.run("sync").status, 0)
        XCTAssertEqual(progress(b, "Water"), checkIns, "B lost or duplicated a pulled check-in")
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    func testFaultsFromTheConfigApplyAndTheEnvironmentWins() throws {
        a.ok("add", "Water")
        a.ok("remote", "set", "dir:" + folder)
        try writeConfig(a, "faults = unreachable\n")
        a.ok("check", "Water")
        let r = a.run("sync")
        XCTAssertEqual(r.status, 4)
        XCTAssertTrue(r.stderr.contains("remote unreachable"), r.stderr)
        a.extraEnv["HABITTO_FAULTS"] = ""
        XCTAssertEqual(a.run("sync").status, 0, "an empty HABITTO_FAULTS overrides the config")
        try writeConfig(a, "faults = sometimes\n")
        a.extraEnv["HABITTO_FAULTS"] = nil
        let bad = a.run("sync")
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.hasPrefix("habitto: faults 'sometimes':"), bad.stderr)
    }

    func testConnectingARemoteBacksUpTheJournalFirst() throws {
        a.ok("add", "Water")
        a.ok("check", "Water")
        let before = a.ok("export")
        a.ok("remote", "set", "dir:" + folder)
        let backups = try XCTUnwrap(a.json("backup", "list", "--json") as? [[String: Any]])
        XCTAssertEqual(backups.count, 1)
        XCTAssertEqual(backups.first?["reason"] as? String, "before-remote")
        XCTAssertEqual(backups.first?["operations"] as? Int, 2)
        // The backup holds exactly the data as it was: restoring it elsewhere gives the same export.
        let other = Sandbox()
        other.ok("add", "Scratch")
        try FileManager.default.createDirectory(atPath: other.home + "/backups", withIntermediateDirectories: true)
        let id = try XCTUnwrap(backups.first?["id"] as? String)
        try FileManager.default.copyItem(atPath: a.home + "/backups/\(id).hbk", toPath: other.home + "/backups/\(id).hbk")
        other.ok("backup", "restore", id, "--replace")
        XCTAssertEqual(other.ok("export"), before)
        XCTAssertTrue(a.ok("remote", "show").contains("pushed and verified"))
    }

    func testTwoProcessesSyncingOneDataDirectoryAtOnce() throws {
        a.ok("add", "Water", "--goal", "1000")
        a.ok("remote", "set", "dir:" + folder)
        b.ok("remote", "set", "dir:" + folder)
        let created = try XCTUnwrap(a.stat("operations"))
        // Slow remote calls keep the first round busy while the others start.
        a.extraEnv["HABITTO_FAULTS"] = "latency=300ms"
        var checkIns = 0, turnedAway = 0
        for round in 0..<3 {
            let n = 2 + round
            for _ in 0..<n { a.ok("check", "Water") }
            checkIns += n
            let started = try (0..<3).map { _ in try a.start(["sync"]) }
            let results = started.map { a.finish($0.0, $0.1) }
            var synced = 0, pushed = 0
            for r in results {
                XCTAssertFalse(r.killed)
                if r.stderr == "habitto: not synced: another process is syncing this data directory; run 'habitto sync' again when it is done\n" {
                    XCTAssertEqual(r.status, 4, "turned away: not synced by this process")
                    XCTAssertEqual(r.stdout, "")
                    turnedAway += 1
                    continue
                }
                XCTAssertEqual(r.status, 0, "round \(round): \(r.stderr)")
                XCTAssertEqual(r.stderr, "")
                guard let report = parseSynced(r.stdout) else {
                    XCTFail("round \(round): unexpected output \(r.stdout)")
                    continue
                }
                XCTAssertEqual(report.pulled, 0)
                synced += 1
                pushed += report.pushed
            }
            XCTAssertEqual(synced, 1, "round \(round): \(results.map(\.stdout))")
            XCTAssertEqual(pushed, n, "round \(round): operations pushed twice or not at all")
            XCTAssertEqual(try status(a)["pending"] as? Int, 0)
        }
        XCTAssertEqual(turnedAway, 6)

        a.extraEnv["HABITTO_FAULTS"] = nil
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        XCTAssertEqual(try remoteBatches(folder, device).ops.keys.sorted(), Array(1...UInt64(created + checkIns)))
        XCTAssertEqual(b.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled \(checkIns)\n")
        XCTAssertEqual(progress(b, "Water"), checkIns)
        XCTAssertEqual(progress(a, "Water"), checkIns)
    }

    func testOfflineQueuesAndOnlineDrains() throws {
        a.ok("add", "Water", "--goal", "8")
        a.ok("remote", "set", "dir:" + folder)
        b.ok("remote", "set", "dir:" + folder)
        XCTAssertEqual(a.ok("offline", "on"), "Offline: changes are kept here and sent when you go online again\n")
        for _ in 0..<3 { a.ok("check", "Water") }
        var st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "offline")
        XCTAssertEqual(st["pending"] as? Int, 3)
        XCTAssertEqual(syncStatus(a, "Water"), "pending")

        // Offline means nothing is sent, even when asked: it says how to go online.
        let refused = a.run("sync")
        XCTAssertEqual(refused.status, 4)
        XCTAssertEqual(refused.stderr, "habitto: offline: press o to go online ('habitto offline off' from a shell)\n")
        XCTAssertEqual(refused.stdout, "")
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "offline")
        XCTAssertEqual(st["pending"] as? Int, 3)
        XCTAssertEqual(b.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")

        // Still offline: new check-ins queue and nothing else leaves.
        a.ok("check", "Water")
        a.ok("check", "Water", "--amount", "2")
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "offline")
        XCTAssertEqual(st["pending"] as? Int, 5)
        XCTAssertEqual(syncStatus(a, "Water"), "pending")
        XCTAssertEqual(b.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(progress(b, "Water"), 0)

        // Going online drains the queue at once.
        XCTAssertEqual(a.ok("offline", "off"), "Online: pushed 5, pulled 0\n")
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertEqual(st["pending"] as? Int, 0)
        XCTAssertEqual(syncStatus(a, "Water"), "synced")
        XCTAssertEqual(b.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 5\n")
        XCTAssertEqual(progress(b, "Water"), 6)
        XCTAssertEqual(progress(a, "Water"), 6)

        // Setting a remote while offline sends nothing either, and says how to go on.
        let other = a.root + "/other-remote"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        a.ok("offline", "on")
        XCTAssertEqual(a.ok("remote", "set", "dir:" + other),
                       "Remote set to dir:\(other) (account default); not synced yet: offline. Run 'habitto offline off' to push and verify\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: other), [], "nothing was sent")
    }

    func testBadRemoteSpecsAndAccountsAreRejectedClearly() throws {
        a.ok("add", "Water", "--goal", "8")
        a.ok("check", "Water", "--amount", "2")
        let exported = a.ok("export")
        let journal = a.journalBytes()
        func unchanged(_ what: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(a.ok("export", file: file, line: line), exported, "\(what) changed the local data", file: file, line: line)
            XCTAssertEqual(a.journalBytes(), journal, "\(what) wrote to the journal", file: file, line: line)
        }
        func mode() throws -> String? { try status(a)["mode"] as? String }

        XCTAssertEqual(a.ok("remote", "show"), "No remote: data stays on this machine ('habitto remote set dir:/path' connects one)\n")
        let noRemote = a.run("sync")
        XCTAssertEqual(noRemote.status, 1)
        XCTAssertEqual(noRemote.stdout, "")
        XCTAssertEqual(noRemote.stderr, "habitto: no remote is set (habitto remote set dir:/path)\n")
        unchanged("sync without a remote")
        XCTAssertEqual(a.ok("offline", "off"), "Online; not synced now: no remote is set (habitto remote set dir:/path)\n")
        unchanged("going online without a remote")

        let ftp = a.run("remote", "set", "ftp://x")
        XCTAssertEqual(ftp.status, 1)
        XCTAssertEqual(ftp.stdout, "")
        XCTAssertEqual(ftp.stderr, "habitto: remote 'ftp://x' not understood: use dir:/path/to/folder, file:///path/to/folder, https://server/path or none\n")
        XCTAssertEqual(try mode(), "local")
        unchanged("remote set ftp://x")

        let evil = a.run("remote", "set", "dir:" + folder, "--account", "../evil")
        XCTAssertEqual(evil.status, 1)
        XCTAssertEqual(evil.stdout, "")
        XCTAssertEqual(evil.stderr, "habitto: account '../evil' is not valid: use 1 to 64 of a-z, 0-9, '.', '_' and '-', not starting with '.'\n")
        XCTAssertEqual(try mode(), "local")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [], "a rejected account touched the folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: a.root + "/evil"))
        unchanged("remote set with account ../evil")

        // A folder that does not exist is accepted as a setting, but no sync can succeed.
        let missing = a.root + "/no/such/folder"
        let reason = "remote folder \(missing) does not exist; create it or fix 'habitto remote set'"
        let set = a.run("remote", "set", "dir:" + missing)
        XCTAssertEqual(set.status, 4)
        XCTAssertEqual(set.stdout, "")
        XCTAssertEqual(set.stderr, "habitto: remote set to dir:\(missing) (account default), but the first sync failed: \(reason); it resumes with 'habitto sync', nothing local was changed\n")
        XCTAssertEqual(linesMentioning("does not exist", set), 1)
        unchanged("remote set to a missing folder")

        let failed = a.run("sync")
        XCTAssertEqual(failed.status, 4)
        XCTAssertEqual(failed.stdout, "")
        XCTAssertEqual(failed.stderr,
                       "habitto: sync: \(reason) (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details\n")
        XCTAssertEqual(linesMentioning("does not exist", failed), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: a.root + "/no"), "sync created the missing remote folder")
        let st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "failed")
        XCTAssertEqual(st["lastError"] as? String, reason)
        XCTAssertEqual(st["pending"] as? Int, 2)
        XCTAssertTrue(st["nextRetryAt"] is NSNull, "a permanent failure is not retried by itself")
        XCTAssertEqual(syncStatus(a, "Water"), "failed")
        XCTAssertEqual(a.ok("remote", "show").split(separator: "\n").map(String.init), [
            "Remote dir:\(missing), account default; this device is \(st["device"] as? String ?? "?")",
            "The first full push has not been verified yet: run 'habitto sync'.",
        ])
        unchanged("a failed sync")

        // A bad account does not replace the remote already set.
        XCTAssertEqual(a.run("remote", "set", "dir:" + folder, "--account", "../evil").status, 1)
        XCTAssertEqual(try status(a)["remote"] as? String, "dir:" + missing)

        // Once the folder exists, asking again succeeds and the data arrives intact.
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: true)
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 2 operations in 1 batch, pulled 0\n")
        XCTAssertEqual(try mode(), "online")
        XCTAssertEqual(syncStatus(a, "Water"), "synced")
        unchanged("a successful sync")
        XCTAssertEqual(b.ok("remote", "set", "dir:" + missing),
                       "Remote set to dir:\(missing) (account default): pushed 0 operations, pulled 2; verified\n")
        XCTAssertEqual(b.ok("export"), exported)
    }

    func testALinkPlantedInTheRemoteIsAPermanentFailureAndNothingIsPushedThroughIt() throws {
        a.ok("add", "Water", "--unit", "glasses") // counted: every check-in queues a change
        a.ok("remote", "set", "dir:" + folder)
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let outside = a.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for planted in ["users/default/devices/\(device)/ops", "users/default/devices/\(device)", "users/default/devices", "users"] {
            let path = folder + "/" + planted
            try FileManager.default.removeItem(atPath: path)
            XCTAssertEqual(symlink(outside, path), 0)
            a.ok("check", "Water")
            let r = a.run("sync")
            XCTAssertEqual(r.status, 4, "\(planted): \(r.stdout)")
            XCTAssertEqual(r.stdout, "")
            XCTAssertTrue(r.stderr.contains(path + " is a symbolic link; habitto never follows links inside the remote folder"), r.stderr)
            XCTAssertTrue(r.stderr.contains("pushed 0 operations"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            let st = try status(a)
            XCTAssertEqual(st["mode"] as? String, "failed")
            XCTAssertEqual(st["pending"] as? Int, 1, "the check-in stays queued")
            XCTAssertEqual(syncStatus(a, "Water"), "failed")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing was written through \(planted)")
            // A real folder again: the queue goes out.
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            a.ok("sync")
            XCTAssertEqual(try status(a)["pending"] as? Int, 0)
        }
    }

    func testHostileRemoteEntriesAreReportedOnceAndListedInTheStatus() throws {
        a.ok("add", "Water")
        a.ok("remote", "set", "dir:" + folder)
        b.ok("remote", "set", "dir:" + folder)
        let deviceA = try XCTUnwrap(try status(a)["device"] as? String)
        let ops = folder + "/users/default/devices/\(deviceA)/ops"
        XCTAssertEqual(mkfifo(ops + "/9-9.batch", 0o600), 0)
        try FileManager.default.createDirectory(atPath: ops + "/10-10.batch", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: ops + "/0-0.batch", contents: Data([1])))
        XCTAssertEqual(symlink("/etc/passwd", ops + "/11-11.batch"), 0)
        try FileManager.default.createDirectory(atPath: folder + "/users/default/devices/x\u{1B}]0;owned\u{7}", withIntermediateDirectories: true)
        a.ok("check", "Water")
        a.ok("sync")
        let short = deviceA.prefix(8)
        let expected = [
            "devices/x\u{FFFD}]0;owned\u{FFFD}: not a device id (32 lower-case hex digits)",
            "devices/\(short)…/ops/0-0.batch: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "devices/\(short)…/ops/10-10.batch: a folder, not a batch file",
            "devices/\(short)…/ops/11-11.batch: a symbolic link, not a batch file (links are never followed)",
            "devices/\(short)…/ops/9-9.batch: a FIFO (named pipe), not a batch file",
        ]
        let first = b.run("sync")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stdout, "Synced: pushed 0 operations in 0 batches, pulled 1\n")
        XCTAssertEqual(first.stderr, expected.map { "habitto: skipped on the remote: \($0)\n" }.joined())
        XCTAssertFalse(first.stderr.contains("\u{1B}"), "nothing from the remote reaches the terminal raw")
        // Once: the next rounds say nothing more; the status lists them while they are there.
        let second = b.run("sync")
        XCTAssertEqual(second.stderr, "")
        XCTAssertEqual(second.status, 0)
        let st = try status(b)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertTrue(st["lastError"] is NSNull, "\(st)")
        XCTAssertEqual(st["remoteProblems"] as? [String], expected)
        let text = b.ok("status")
        XCTAssertTrue(text.contains("Skipped on the remote (remove or fix these in the remote folder):\n  " + expected[0] + "\n"), text)
        XCTAssertEqual(progress(b, "Water"), 1, "the good batches still synced")
        // Removed, they leave the status.
        try FileManager.default.removeItem(atPath: ops + "/0-0.batch")
        b.ok("sync")
        XCTAssertEqual(try status(b)["remoteProblems"] as? [String], expected.filter { !$0.contains("0-0.batch") })
    }

    func testLosingSyncJSONKeepsTheRemoteSettingAndTheNextPushSendsOnlyWhatTheRemoteLacks() throws {
        a.ok("add", "Water", "--goal", "8")
        a.ok("remote", "set", "dir:" + folder, "--account", "anna")
        for _ in 0..<2 { a.ok("check", "Water"); a.ok("sync") }
        a.ok("offline", "on") // so that the settings file holds more than the defaults
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let ops = folder + "/users/anna/devices/\(device)/ops"
        let before = try FileManager.default.contentsOfDirectory(atPath: ops).filter { $0.hasSuffix(".batch") }.sorted()
        XCTAssertEqual(before, ["1-1.batch", "2-2.batch", "3-3.batch"])
        XCTAssertEqual(try String(contentsOfFile: a.home + "/remote", encoding: .utf8),
                       "# Habitto's sync settings for this data directory ('habitto remote set' and 'habitto offline' change them).\n"
                       + "# No password is kept here: see WebDAV in docs/sync.md.\nremote = dir:\(folder!)\naccount = anna\noffline = on\n")
        let cursor = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: a.home + "/sync.json"))) as? [String: Any])
        XCTAssertEqual(Set(cursor.keys).intersection(["remote", "account", "user", "offline"]), [], "the settings are in one place")
        a.ok("offline", "off")

        try FileManager.default.removeItem(atPath: a.home + "/sync.json")
        // The setting survives: only the cursor and the status are gone.
        XCTAssertTrue(a.ok("remote", "show").hasPrefix("Remote dir:\(folder!), account anna;"))
        let st = try status(a)
        XCTAssertEqual(st["remote"] as? String, "dir:" + folder)
        XCTAssertEqual(st["account"] as? String, "anna")
        XCTAssertEqual(st["mode"] as? String, "online")
        let doctor = a.ok("doctor")
        XCTAssertTrue(doctor.contains("ok: sync: no sync.json (the cursor is lost): the next sync lists what the remote holds of this device and sends only the rest\n"), doctor)
        XCTAssertTrue(doctor.contains("ok: remote: has 3 of this device's 3 operations\n"), doctor)

        a.ok("check", "Water")
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")
        let after = try FileManager.default.contentsOfDirectory(atPath: ops).filter { $0.hasSuffix(".batch") }.sorted()
        XCTAssertEqual(after, before + ["4-4.batch"], "exactly one new batch")
        XCTAssertEqual(overlappingBatches(after), [])
        XCTAssertEqual(try status(a)["pending"] as? Int, 0)
        XCTAssertEqual(a.ok("doctor").contains("Healthy"), true)

        // A second device converges.
        XCTAssertEqual(b.ok("remote", "set", "dir:" + folder, "--account", "anna"),
                       "Remote set to dir:\(folder!) (account anna): pushed 0 operations, pulled 4; verified\n")
        XCTAssertEqual(progress(b, "Water"), 3)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    func testAnOlderDataDirectoryWithTheRemoteOnlyInSyncJSONKeepsItAndMovesItOut() throws {
        a.ok("add", "Water")
        a.ok("remote", "set", "dir:" + folder, "--account", "anna", "--user", "anna")
        // As an older version left it: the settings in sync.json, no remote file.
        let syncJSON = a.home + "/sync.json"
        var fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: syncJSON))) as? [String: Any])
        fields["remote"] = "dir:" + folder
        fields["account"] = "anna"
        fields["user"] = "anna"
        fields["offline"] = false
        try JSONSerialization.data(withJSONObject: fields).write(to: URL(fileURLWithPath: syncJSON))
        try FileManager.default.removeItem(atPath: a.home + "/remote")

        XCTAssertEqual(try status(a)["remote"] as? String, "dir:" + folder, "read from sync.json")
        XCTAssertEqual(try String(contentsOfFile: a.home + "/remote", encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") },
                       ["remote = dir:\(folder!)", "account = anna", "user = anna"], "and written to the new place at once")
        try FileManager.default.removeItem(atPath: syncJSON)
        XCTAssertEqual(try status(a)["account"] as? String, "anna")
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
    }

    func testADamagedRemoteFileIsAnErrorNamingTheLine() throws {
        a.ok("add", "Water")
        a.ok("remote", "set", "dir:" + folder)
        try "remote = dir:\(folder!)\nmode = fast\n".write(toFile: a.home + "/remote", atomically: true, encoding: .utf8)
        let r = a.run("sync")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("\(a.home)/remote line 2: unknown setting 'mode' (known: remote, account, user, offline, encrypt)"), r.stderr)
        XCTAssertEqual(a.run("doctor").status, 5)
        XCTAssertTrue(a.ok("list").contains("Water"), "the data still opens")
    }

    func testASettingsFileWithCRLFLineEndsIsReadAndWrittenBack() throws {
        a.ok("add", "Water", "--unit", "glasses")
        a.ok("remote", "set", "dir:" + folder)
        // As an editor on another system saves it.
        try "remote = dir:\(folder!)\r\noffline = on\r\n".write(toFile: a.home + "/remote", atomically: true, encoding: .utf8)
        XCTAssertEqual(try status(a)["remote"] as? String, "dir:" + folder)
        XCTAssertEqual(try status(a)["mode"] as? String, "offline")
        a.ok("offline", "off") // saves the settings again, and syncs
        a.ok("check", "Water")
        XCTAssertEqual(a.ok("sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")
    }
}
