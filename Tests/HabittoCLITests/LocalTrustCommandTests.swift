import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Local files are trusted as ssh trusts its own: the config (its `password_command`), the
/// `auto` file (its commands) and the data directory's key file are used only when they are
/// regular files of the user running Habitto that no one else can write (the key: read).
/// Each of another user's file, a file anyone can write and a link to such a file is refused
/// in one line that names the file and the chown or chmod that fixes it; nothing in it is
/// run, and the doctor reports it. Another user's file needs root, which CI has.
final class LocalTrustCommandTests: XCTestCase {
    private var box: Sandbox!
    private var me: String { String(cString: getpwuid(geteuid())!.pointee.pw_name) }
    private var marker: String { box.root + "/ran" }

    override func setUpWithError() throws {
        guard getuid() == 0 else {
            // Under CI (which runs as root) this must run: a thrown error fails the test there.
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw NeedsRoot() }
            throw XCTSkip("giving a file to another user needs root")
        }
        box = Sandbox()
    }

    override func tearDown() { box = nil }

    /// The ways a file can be another's to change.
    enum Hostile: CaseIterable { case anotherUsersFile, writableByAll, linkToSuch }

    /// Makes the file at `path` (which exists) `how` hostile, and returns the refusal's reason
    /// and fix as a command would give them, for `secret` or settings.
    private func make(_ path: String, _ how: Hostile, secret: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws -> (link: String?, reason: String, fix: String) {
        let nobody = getpwnam("nobody")!.pointee.pw_uid
        switch how {
        case .anotherUsersFile:
            XCTAssertEqual(chown(path, nobody, gid_t(bitPattern: -1)), 0, file: file, line: line)
            return (nil, "it belongs to nobody, not to \(me) who runs Habitto", "check what it holds; if you trust it, run chown \(me) '\(path)'")
        case .writableByAll:
            XCTAssertEqual(chmod(path, 0o666), 0, file: file, line: line)
            return (nil, secret ? "group and others can read or write it (mode 666)" : "group and others can write it (mode 666)",
                    secret ? "run chmod 600 '\(path)'" : "check what it holds; if you trust it, run chmod go-w '\(path)'")
        case .linkToSuch:
            let target = box.root + "/elsewhere-" + (path as NSString).lastPathComponent
            XCTAssertEqual(rename(path, target), 0, file: file, line: line)
            XCTAssertEqual(symlink(target, path), 0, file: file, line: line)
            XCTAssertEqual(chown(target, nobody, gid_t(bitPattern: -1)), 0, file: file, line: line)
            XCTAssertEqual(chmod(target, 0o666), 0, file: file, line: line)
            return (target, "it belongs to nobody, not to \(me) who runs Habitto, and group and others can write it (mode 666)",
                    "check what it holds; if you trust it, run chown \(me) '\(target)' && chmod go-w '\(target)'")
        }
    }

    /// Undoes `make`: the file is the user's own again, mode `mode`.
    private func restore(_ path: String, _ how: Hostile, mode: mode_t) {
        if how == .linkToSuch, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
            unlink(path)
            rename(target, path)
        }
        chown(path, geteuid(), gid_t(bitPattern: -1))
        chmod(path, mode)
    }

    /// The doctor reports the refusal `line` as a permissions problem, and no permissions as ok.
    private func assertDoctorReports(_ line: String, _ how: Hostile, file: StaticString = #filePath, line at: UInt = #line) {
        let doctor = box.run("doctor")
        XCTAssertEqual(doctor.status, 5, "\(how)", file: file, line: at)
        XCTAssertTrue(doctor.stdout.contains("problem: permissions: \(line)\n"), doctor.stdout, file: file, line: at)
        XCTAssertFalse(doctor.stdout.contains("ok: permissions"), doctor.stdout, file: file, line: at)
    }

    func testAnAutoFileThatIsNotTheUsersOwnRunsNoCommandAndHoldsBackNoReminder() throws {
        box.ok("add", "Walk", "--remind", "08:00")
        box.ok("auto", "Walk", "touch '\(marker)'; exit 1")
        let auto = box.config + "/habitto/auto"
        for how in Hostile.allCases {
            let (link, reason, fix) = try make(auto, how)
            let line = "the auto file \(auto)\(link.map { " (a link to \($0))" } ?? "") is not used: \(reason); \(fix)"
            let run = box.run("auto", "--run")
            XCTAssertEqual(run.status, 1, "\(how)")
            XCTAssertEqual(run.stderr, "habitto: \(line)\n", "\(how)")
            let list = box.run("auto", "--list")
            XCTAssertEqual(list.stderr, "habitto: \(line)\n", "\(how)")
            // The timer still reminds, and says why the auto habits did not run.
            let remind = box.run("remind")
            XCTAssertEqual(remind.status, 1, "\(how)")
            XCTAssertEqual(remind.stdout, "Reminder 08:00: Walk is not done today (0/1)\n", "\(how)")
            XCTAssertEqual(remind.stderr, "remind: \(line)\n", "\(how)")
            assertDoctorReports(line, how)
            XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "\(how): its command ran")
            try? FileManager.default.removeItem(atPath: box.home + "/reminders-sent")
            restore(auto, how, mode: 0o600)
        }
        // The user's own file again: its command runs.
        XCTAssertEqual(box.run("auto", "--run").status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker))
    }

    func testAConfigFileThatIsNotTheUsersOwnRunsNoPasswordCommand() throws {
        box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = nil
        box.ok("add", "Water")
        box.ok("offline", "on")
        XCTAssertEqual(box.run("remote", "set", "http://127.0.0.1:9/dav/", "--user", "anna").status, 0)
        XCTAssertEqual(box.run("offline", "off").status, 4, "no password yet")
        let config = box.config + "/habitto/config"
        try Data("password_command = touch '\(marker)'; echo secret\n".utf8).write(to: URL(fileURLWithPath: config))
        XCTAssertEqual(chmod(config, 0o644), 0)
        // The user's own config: its command runs (and the sync then fails to connect).
        XCTAssertEqual(box.run("sync").status, 4)
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker), "the control: password_command runs")
        try FileManager.default.removeItem(atPath: marker)
        for how in Hostile.allCases {
            let (link, reason, fix) = try make(config, how)
            let line = "the config file \(config)\(link.map { " (a link to \($0))" } ?? "") is not used: \(reason); \(fix)"
            for args in [["sync"], ["list"]] {
                let r = box.run(args)
                XCTAssertEqual(r.status, 1, "\(how) \(args)")
                XCTAssertEqual(r.stdout, "", "\(how) \(args)")
                XCTAssertEqual(r.stderr, "habitto: \(line)\n", "\(how) \(args)")
            }
            assertDoctorReports(line, how)
            XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "\(how): password_command ran")
            restore(config, how, mode: 0o644)
        }
    }

    func testAKeyFileThatIsNotTheUsersOwnIsNotUsed() throws {
        box.ok("add", "Water")
        let remote = box.root + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        XCTAssertEqual(box.run("remote", "set", "dir:" + remote, "--encrypt").status, 0)
        let key = box.home + "/remote-key"
        XCTAssertEqual(box.run("remote", "key").status, 0, "the control: this user's key is used")
        for how in Hostile.allCases {
            var (link, reason, fix) = try make(key, how, secret: true)
            if how == .anotherUsersFile { XCTAssertEqual(chmod(key, 0o600), 0) }
            if link != nil {
                // Inside the data directory no link is followed, whatever it leads to.
                (link, reason, fix) = (nil, "it is a symbolic link, not a regular file",
                                       "Habitto follows no link inside its data directory: put the file itself in the link's place")
            }
            let line = "the key file \(key) is not used: \(reason); \(fix)"
            let printed = box.run("remote", "key")
            XCTAssertEqual(printed.status, 1, "\(how)")
            XCTAssertEqual(printed.stdout, "", "\(how)")
            XCTAssertEqual(printed.stderr, "habitto: \(line)\n", "\(how)")
            box.ok("check", "Water")
            let sync = box.run("sync")
            XCTAssertEqual(sync.status, 4, "\(how)")
            XCTAssertTrue(sync.stderr.contains(line), sync.stderr)
            assertDoctorReports(line, how)
            restore(key, how, mode: 0o600)
        }
        XCTAssertEqual(box.run("sync").status, 0, "the user's own key again")
    }

    func testTheDoctorFollowsNoLinkInTheDataDirectoryForACheckOrAnAdvice() throws {
        box.ok("add", "Water")
        // A file anyone can write, outside the data directory, behind the snapshot's name.
        let outside = box.root + "/outside"
        try Data("x".utf8).write(to: URL(fileURLWithPath: outside))
        XCTAssertEqual(chmod(outside, 0o666), 0)
        unlink(box.home + "/snapshot.bin")
        XCTAssertEqual(symlink(outside, box.home + "/snapshot.bin"), 0)
        let doctor = box.run("doctor")
        XCTAssertEqual(doctor.status, 5)
        XCTAssertTrue(doctor.stdout.contains("problem: files: \(box.home)/snapshot.bin is a symbolic link, not a regular file"), doctor.stdout)
        XCTAssertFalse(doctor.stdout.contains("chmod"), "no advice acts on what the link points to: \(doctor.stdout)")
        XCTAssertFalse(doctor.stdout.contains(outside), doctor.stdout)
        XCTAssertEqual(box.run("doctor", "--repair").status, 0)
        var st = stat()
        XCTAssertEqual(lstat(outside, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o666, "nothing outside the data directory was changed")
        XCTAssertEqual(try String(contentsOfFile: outside, encoding: .utf8), "x")
    }
}

/// Not root under CI, where the tests must run as root: fails the test instead of skipping it.
struct NeedsRoot: Error, CustomStringConvertible {
    var description: String { "CI runs the tests as root; giving a file to another user needs root" }
}
