import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Whole-process durability: concurrent processes, kill -9, corruption, full and read-only disks.
final class DurabilityTests: XCTestCase {
    var box: Sandbox!
    override func setUp() { box = Sandbox() }

    override func tearDown() { box = nil }

    func testFourProcessesEachCheckingInFiftyTimesLeaveExactly200() throws {
        box.ok("add", "Water", "--goal", "8")
        let script = "for i in $(seq 50); do \"$0\" check Water >/dev/null || exit 1; done"
        var procs: [Process] = []
        for _ in 0..<4 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", script, Sandbox.binary]
            p.environment = box.environment
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            procs.append(p)
        }
        for p in procs {
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
        }
        XCTAssertEqual(box.listEntry("Water")?["progress"] as? Int, 200)
        XCTAssertEqual(box.stat("checkIns"), 1, "one habit-day, however much it holds")
        // 1 create + 200 check-ins, all with distinct sequence numbers.
        XCTAssertEqual(box.stat("operations"), 201)
    }

    func testKillNineDuringCheckInsNeverLosesAnAcknowledgedOne() throws {
        box.ok("add", "Water", "--goal", "8")
        // How long one check-in takes here and now, so the kills land within a run's life
        // however loaded the machine is: the quickest of three, since the first run of the
        // binary (cold caches) can take many times longer, and kills timed on it landed after
        // every later run had ended (no process was ever interrupted).
        var life = Double.infinity
        for _ in 0..<3 {
            let started = Date()
            box.ok("check", "Water")
            life = min(life, Date().timeIntervalSince(started))
        }
        life = max(0.005, life)
        var acknowledged = 3, killed = 0
        var rng = SystemRandomNumberGenerator()
        var shortestAcknowledged = Double.infinity
        for _ in 0..<60 {
            // Fault injection: kill at a random instant, spread evenly over the orders of
            // magnitude from 50 µs to eight times a run's life (log-uniform), so that kills
            // land early, mid-flight and after the end however far a run's life on a loaded
            // machine is from `life` (with a uniform spread up to twice `life`, a loaded CI
            // machine twice interrupted none of 60 runs).
            let delay = exp(Double.random(in: log(0.00005)...log(8 * life), using: &rng))
            let (p, tag) = try box.start(["check", "Water"])
            usleep(UInt32(delay * 1_000_000))
            kill(p.processIdentifier, SIGKILL)
            let r = box.finish(p, tag)
            if r.killed { killed += 1 } else if r.status == 0 {
                acknowledged += 1
                shortestAcknowledged = min(shortestAcknowledged, delay)
            } else {
                XCTFail("check failed: \(r.stderr)")
            }
        }
        // Both outcomes happened, so the loop really interrupted processes mid-flight.
        let seen = "life \(life) s, shortest delay of a run that finished \(shortestAcknowledged) s"
        XCTAssertGreaterThan(killed, 0, seen)
        XCTAssertGreaterThan(acknowledged, 3, seen)
        let list = box.run("list", "--all", "--json")
        XCTAssertEqual(list.status, 0, list.stderr)
        let progress = box.listEntry("Water")?["progress"] as? Int ?? -1
        XCTAssertGreaterThanOrEqual(progress, acknowledged, "an acknowledged check-in was lost")
        XCTAssertLessThanOrEqual(progress, acknowledged + killed)
        // The journal is healthy afterwards: a further check-in lands and counts.
        box.ok("check", "Water")
        XCTAssertEqual(box.listEntry("Water")?["progress"] as? Int, progress + 1)
    }

    func testCorruptionInTheMiddleRefusesEveryCommandAndChangesNothing() throws {
        box.ok("add", "Water", "--goal", "8")
        for _ in 0..<5 { box.ok("check", "Water") }
        var bytes = box.journalBytes()
        // Flip a byte inside the second record (the first check-in).
        let firstRecordEnd = 16 + 12 + Int(UInt32(bytes[16]) | UInt32(bytes[17]) << 8 | UInt32(bytes[18]) << 16)
        let target = firstRecordEnd + 20
        bytes[target] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: box.journalPath))
        for args in [["check", "Water"], ["list"], ["export"], ["undo"]] {
            let r = box.run(args)
            XCTAssertEqual(r.status, 3, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(box.journalPath) && r.stderr.contains("byte \(firstRecordEnd)"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
        }
        XCTAssertEqual(box.journalBytes(), bytes, "a refused command changed the journal")
    }

    func testTornTailIsRemovedWithOneWarningAndAcknowledgedDataStays() throws {
        box.ok("add", "Water", "--goal", "8")
        box.ok("check", "Water", "--amount", "3")
        let good = box.journalBytes()
        box.ok("check", "Water")
        let full = box.journalBytes()
        // A crash halfway through writing the last record.
        let torn = Array(full[0..<(good.count + (full.count - good.count) / 2)])
        try Data(torn).write(to: URL(fileURLWithPath: box.journalPath))
        let r = box.run("list", "--json")
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("incomplete record at byte \(good.count)"), r.stderr)
        XCTAssertEqual(box.journalBytes(), good)
        XCTAssertEqual(box.listEntry("Water")?["progress"] as? Int, 3)
        let recovered = try FileManager.default.contentsOfDirectory(atPath: box.home + "/recovered")
        XCTAssertEqual(recovered.count, 1)
        XCTAssertEqual(box.run("list").stderr, "", "the warning is given once")
    }

    func testFullDiskFailsCleanlyAndKeepsEverythingAcknowledged() throws {
        guard let mnt = box.mountTmpfs(sizeKB: 256) else { return }
        box.extraEnv["HABITTO_HOME"] = mnt + "/data"
        box.ok("add", "Water", "--goal", "8")
        box.ok("check", "Water")
        // Fill the file system.
        box.fill(mnt)
        let filler = mnt + "/filler"
        // Check in until the journal needs a new block and the write fails.
        var acknowledged = 1
        var failure: RunResult?
        let journal = mnt + "/data/journal.hbj"
        for _ in 0..<200 {
            let before = try Data(contentsOf: URL(fileURLWithPath: journal))
            let r = box.run("check", "Water")
            if r.status == 0 { acknowledged += 1; continue }
            failure = r
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: journal)), before, "a failed write changed the journal")
            break
        }
        let r = try XCTUnwrap(failure, "the disk never filled up")
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("No space left on device") && r.stderr.contains("free some disk space"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(box.listEntry("Water")?["progress"] as? Int, acknowledged)
        try FileManager.default.removeItem(atPath: filler)
        box.ok("check", "Water")
        XCTAssertEqual(box.listEntry("Water")?["progress"] as? Int, acknowledged + 1)
    }

    func testReadOnlyDataDirectoryStillListsButRefusesWrites() throws {
        guard let mnt = box.mountTmpfs(sizeKB: 1024) else { return }
        box.extraEnv["HABITTO_HOME"] = mnt + "/data"
        box.ok("add", "Water", "--goal", "8")
        box.ok("check", "Water", "--amount", "2")
        let exported = box.ok("export")
        XCTAssertEqual(Sandbox.asRoot("/bin/mount", ["-o", "remount,ro", mnt]), 0)
        let r = box.run("check", "Water")
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("read-only"), r.stderr)
        XCTAssertEqual(box.ok("export"), exported)
        XCTAssertEqual(box.listEntry("Water")?["progress"] as? Int, 2)
    }

    func testUnwritableHomeGivesAClearError() {
        box.extraEnv["HABITTO_HOME"] = "/proc/habitto-cannot-exist"
        let r = box.run("list")
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.hasPrefix("habitto: cannot create the directory /proc/habitto-cannot-exist"), r.stderr)
        let f = box.root + "/afile"
        _ = FileManager.default.createFile(atPath: f, contents: Data("x".utf8))
        box.extraEnv["HABITTO_HOME"] = f
        let r2 = box.run("list")
        XCTAssertEqual(r2.status, 3)
        XCTAssertTrue(r2.stderr.contains("not a directory"), r2.stderr)
    }
}
