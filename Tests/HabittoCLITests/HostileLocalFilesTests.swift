import Foundation
import HabitStore
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// What another process or a damaged data directory can do to a command, tried on the real
/// binary under a watchdog: a lock held for ever, a FIFO or a folder where a cache should be.
final class HostileLocalFilesTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        super.setUp()
        box = Sandbox()
    }

    override func tearDown() {
        box = nil
        super.tearDown()
    }

    /// Starts the binary with `args` and waits at most `limit` seconds for it to end: a run
    /// that takes longer is killed and fails the test. Returns what it printed and how many
    /// seconds it took.
    private func runWithin(_ limit: Double, _ args: [String], file: StaticString = #filePath, line: UInt = #line) -> (RunResult, Double) {
        do {
            let start = Date()
            let (p, tag) = try box.start(args)
            return finishWithin(limit, p, tag, since: start, args, file: file, line: line)
        } catch {
            XCTFail("could not start habitto: \(error)", file: file, line: line)
            return (RunResult(status: -1, stdout: "", stderr: "", killed: false), 0)
        }
    }

    private func finishWithin(_ limit: Double, _ p: Process, _ tag: String, since start: Date, _ args: [String],
                              file: StaticString = #filePath, line: UInt = #line) -> (RunResult, Double) {
        // A watchdog, not a wait for something to happen: the run must end by itself.
        while p.isRunning && Date().timeIntervalSince(start) < limit { usleep(5_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            XCTFail("habitto \(args.joined(separator: " ")) was still running after \(limit) s", file: file, line: line)
        }
        let result = box.finish(p, tag)
        return (result, Date().timeIntervalSince(start))
    }

    /// Holds the exclusive lock of `path` from this process until the descriptor is closed.
    private func hold(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0, "the test holds \(path)", file: file, line: line)
        return fd
    }

    /// How `/proc/locks` lets a message name this process.
    private var thisProcess: String {
        let comm = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return "\(comm) (process \(getpid()))"
    }

    // MARK: Locks

    func testCommandsGiveUpOnAHeldDataLockAtTheLockLimitWithOneLine() {
        box.ok("add", "Water", "--remind", "08:00")
        let before = box.journalBytes()
        let held = hold(box.home + "/lock")
        // The wait shortened to 1.5 s (the 10-second default is TimeLimitsTests'), still long
        // enough that the holder is looked up; three at once, so that the test waits it once.
        box.extraEnv[TimeLimits.variable] = "lock=1.5"
        let commands = [["list"], ["remind", "--json"], ["check", "Water"]]
        let start = Date()
        var runs: [(Process, String)] = []
        for args in commands {
            do { runs.append(try box.start(args)) } catch { return XCTFail("could not start habitto: \(error)") }
        }
        for (args, (p, tag)) in zip(commands, runs) {
            let (r, seconds) = finishWithin(40, p, tag, since: start, args)
            XCTAssertEqual(r.status, 3, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr, "habitto: \(thisProcess) has held the data lock \(box.home)/lock for more than 1.5 s; close it or try again\n", "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertGreaterThanOrEqual(seconds, 1.5, "\(args) waited the whole time")
            XCTAssertLessThan(seconds, 30, "\(args)")
        }
        close(held)
        XCTAssertEqual(box.journalBytes(), before, "nothing was written")
        box.ok("check", "Water")
    }

    func testAWrongTimeLimitsVariableStopsEveryCommandInOneLineAndChangesNothing() {
        box.ok("add", "Water")
        let before = box.journalBytes()
        let cases = [
            ("lock=600", "habitto: HABITTO_TIME_LIMITS: lock=600 must be from 0.05 to 10 seconds (its default); unset it to run with the default limits\n"),
            ("lock=0", "habitto: HABITTO_TIME_LIMITS: lock=0 must be from 0.05 to 10 seconds (its default); unset it to run with the default limits\n"),
            ("age=nan", "habitto: HABITTO_TIME_LIMITS: age=nan must be from 0.05 to 30 seconds (its default); unset it to run with the default limits\n"),
            ("sleep=1", "habitto: HABITTO_TIME_LIMITS: 'sleep=1' is not NAME=SECONDS with a NAME of password_command, systemctl, notify-send, auto, unzip, age, lock, background_round; unset it to run with the default limits\n"),
        ]
        for (value, message) in cases {
            box.extraEnv[TimeLimits.variable] = value
            for args in [["check", "Water"], ["list"]] {
                let r = box.run(args)
                XCTAssertEqual(r.status, 2, "\(value) \(args)")
                XCTAssertEqual(r.stderr, message, "\(value) \(args)")
                XCTAssertEqual(r.stdout, "", "\(value) \(args)")
            }
        }
        XCTAssertEqual(box.journalBytes(), before, "nothing was written")
    }

    func testThePromptSegmentAnswersFromItsCacheOrPrintsNothingWhileTheDataLockIsHeld() {
        box.ok("add", "Water")
        XCTAssertEqual(box.ok("status", "--short"), "✓0/1\n")
        var held = hold(box.home + "/lock")
        // The cache holds the count for the data as it is: no lock is needed.
        var (r, seconds) = runWithin(20, ["status", "--short"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "✓0/1\n")
        XCTAssertLessThan(seconds, 1)
        close(held)
        // After a change the cache no longer matches: with the lock held, nothing is printed.
        box.ok("check", "Water")
        held = hold(box.home + "/lock")
        (r, seconds) = runWithin(20, ["status", "--short"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "")
        XCTAssertLessThan(seconds, 1, "a prompt is never held up")
        (r, seconds) = runWithin(20, ["status", "--format", "%d of %t"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout + r.stderr, "")
        XCTAssertLessThan(seconds, 1)
        close(held)
        XCTAssertEqual(box.ok("status", "--short"), "✓1/1\n")
    }

    // MARK: Caches that are not files

    func testAFIFOWhereACacheShouldBeNeverBlocksACommandAndTheRepairMovesItAside() throws {
        box.ok("add", "Water", "--remind", "08:00")
        box.ok("check", "Water")
        let snapshot = box.home + "/snapshot.bin", segment = box.home + "/segment"
        for c in [snapshot, segment] {
            unlink(c)
            XCTAssertEqual(mkfifo(c, 0o600), 0)
        }
        // Every command works with FIFOs there, none waits on one, and none replaces one.
        var (r, _) = runWithin(20, ["list"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Water"), r.stdout)
        let warning = "habitto: warning: the snapshot \(snapshot) is a FIFO (named pipe), not a regular file, so it was not read; state rebuilt from the journal; run habitto doctor --repair to move it to recovered/\n"
        XCTAssertEqual(r.stderr, warning)
        for args in [["uncheck", "Water"], ["export", "--format", "csv"], ["status"]] {
            (r, _) = runWithin(20, args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr, warning, "\(args)")
        }
        (r, _) = runWithin(20, ["status", "--short"])
        XCTAssertEqual(r.stdout, "✓0/1\n")
        XCTAssertEqual(r.stderr, warning)
        for c in [snapshot, segment] {
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: c)[.type] as? FileAttributeType, .typeUnknown, "\(c) is left as it is")
        }

        (r, _) = runWithin(20, ["doctor"])
        XCTAssertEqual(r.status, 5, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("problem: ") }, [snapshot, segment].map {
            "problem: files: \($0) is a FIFO (named pipe), not a regular file, so Habitto cannot use it as its cache; run habitto doctor --repair to move it to recovered/ (Habitto makes the cache again)"
        })
        XCTAssertTrue(r.stdout.contains("2 problems found; 'habitto doctor --repair' fixes the ones marked so"), r.stdout)
        (r, _) = runWithin(20, ["doctor", "--repair"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("repaired: files: snapshot.bin: a FIFO (named pipe) moved to \(box.home)/recovered/snapshot.bin-"), r.stdout)
        XCTAssertTrue(r.stdout.contains("; the snapshot was rebuilt from the journal"), r.stdout)
        XCTAssertTrue(r.stdout.contains("repaired: files: segment: a FIFO (named pipe) moved to \(box.home)/recovered/segment-"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("Healthy\n"), r.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: box.home + "/recovered").count, 2)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: snapshot)[.type] as? FileAttributeType, .typeRegular)
        (r, _) = runWithin(20, ["list"])
        XCTAssertEqual(r.stderr, "", "the warning is gone")

        // The record of reminders sent: `remind` does not wait on a FIFO there either.
        XCTAssertEqual(mkfifo(box.home + "/reminders-sent", 0o600), 0)
        (r, _) = runWithin(20, ["remind", "--json"])
        XCTAssertFalse(r.killed)

        // A FIFO in place of the lock file: the doctor (which opens it to read) says so.
        unlink(box.home + "/lock")
        XCTAssertEqual(mkfifo(box.home + "/lock", 0o600), 0)
        (r, _) = runWithin(20, ["doctor"])
        XCTAssertEqual(r.status, 5, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("problem: files: \(box.home)/lock is not a regular file, so commands that use it fail"), r.stdout)
    }

    /// The journal is the truth, not a cache: a FIFO in its place is never waited on, and
    /// every command stops in one line saying what to move, writing nothing.
    func testAFIFOWhereTheJournalShouldBeStopsEveryCommandInOneLine() throws {
        box.ok("add", "Water")
        let journal = box.home + "/journal.hbj"
        XCTAssertEqual(rename(journal, journal + ".kept"), 0)
        XCTAssertEqual(mkfifo(journal, 0o600), 0)
        for args in [["list"], ["check", "Water"], ["status", "--short"]] {
            let (r, _) = runWithin(20, args)
            XCTAssertFalse(r.killed, "\(args)")
            if args == ["status", "--short"] { continue }
            XCTAssertEqual(r.status, 3, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr, "habitto: \(journal): is a FIFO (named pipe), not a regular file; move it out of the data directory (Habitto's journal is a file)\n", "\(args)")
        }
        var st = stat()
        XCTAssertEqual(lstat(journal, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "nothing replaced it")
    }

    func testASnapshotThatIsAFolderIsMovedAsideByTheRepairNotAdvertisedAsRemovable() throws {
        box.ok("add", "Water")
        box.ok("check", "Water")
        let snapshot = box.home + "/snapshot.bin"
        try? FileManager.default.removeItem(atPath: snapshot)
        try FileManager.default.createDirectory(atPath: snapshot, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: snapshot + "/kept"))
        var (r, _) = runWithin(20, ["list", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "habitto: warning: the snapshot \(snapshot) is a folder, not a regular file, so it was not read; state rebuilt from the journal; run habitto doctor --repair to move it to recovered/\n")
        (r, _) = runWithin(20, ["doctor"])
        XCTAssertEqual(r.status, 5)
        XCTAssertEqual(r.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("problem: ") },
                       ["problem: files: \(snapshot) is a folder, not a regular file, so Habitto cannot use it as its cache; run habitto doctor --repair to move it to recovered/ (Habitto makes the cache again)"])
        XCTAssertFalse(r.stdout.contains("cannot map"), r.stdout)
        (r, _) = runWithin(20, ["doctor", "--repair"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("Healthy\n"), r.stdout)
        let moved = try FileManager.default.contentsOfDirectory(atPath: box.home + "/recovered")
        XCTAssertEqual(moved.count, 1)
        XCTAssertEqual(try String(contentsOfFile: box.home + "/recovered/" + moved[0] + "/kept", encoding: .utf8), "mine")
        (r, _) = runWithin(20, ["list"])
        XCTAssertEqual(r.stderr, "", "the warning is gone")

        // With recovered/ a link, the repair cannot move it: it is not offered, the command is named.
        try FileManager.default.removeItem(atPath: snapshot)
        try FileManager.default.createDirectory(atPath: snapshot, withIntermediateDirectories: false)
        try FileManager.default.moveItem(atPath: box.home + "/recovered", toPath: box.root + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: box.home + "/recovered", withDestinationPath: box.root + "/elsewhere")
        (r, _) = runWithin(20, ["doctor", "--repair"])
        XCTAssertEqual(r.status, 5)
        XCTAssertTrue(r.stdout.contains("problem: files: \(snapshot) is a folder, not a regular file, so Habitto cannot use it as its cache; the repair cannot move it (\(box.home)/recovered is a symbolic link, not a folder); move it out of the data directory: mv -- '\(snapshot)' '\(snapshot).aside'"), r.stdout)
        XCTAssertFalse(r.stdout.contains("repaired: "), r.stdout)
    }
}
