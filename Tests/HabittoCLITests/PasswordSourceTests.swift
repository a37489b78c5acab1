import Foundation
import XCTest
import SyncTestKit
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// Whether the process whose id is in `file` (written by a fake program) is gone within 10
/// seconds (a zombie counts: see `Sys.processExists`).
func processInFileEnds(_ file: String, line: UInt = #line) -> Bool {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8),
          let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        XCTFail("no process id in \(file)", line: line)
        return false
    }
    let deadline = Date().addingTimeInterval(10)
    while Sys.processExists(pid) && Date() < deadline { usleep(10_000) }
    return !Sys.processExists(pid)
}

/// Where the WebDAV password comes from when `HABITTO_WEBDAV_PASSWORD` is not set: a
/// `password_command` that never ends is stopped at its time limit, and a `password_file`
/// that is not a file, or holds no password, is refused; `sync` and `doctor` say so in one
/// line and fail, and nothing queued is lost. No server is needed: the password is looked up
/// before anything is sent.
final class PasswordSourceTests: SyncCLITestCase {
    private var box: Sandbox!
    private var configFile: String { box.config + "/habitto/config" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        box = Sandbox()
        box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = nil
        box.ok("add", "Water", "--goal", "8")
        box.ok("offline", "on")
        let set = box.run("remote", "set", "http://127.0.0.1:9/dav/", "--user", "anna")
        XCTAssertEqual(set.status, 0, set.stderr)
        // Online again: with no password at all, that first sync fails at once.
        XCTAssertEqual(box.run("offline", "off").status, 4)
        box.ok("check", "Water")
    }

    override func tearDown() {
        super.tearDown()
        box = nil
    }

    private func configure(_ line: String) throws { try writeConfig(box, line + "\n") }

    /// The queue, from `status --json`.
    private func pending() throws -> Int? { try status(box)["pending"] as? Int }

    /// `sync` and `doctor` at once, each under a watchdog.
    private func syncAndDoctor(within seconds: Double) throws -> (sync: RunResult, doctor: RunResult) {
        let sync = try box.start(["sync"]), doctor = try box.start(["doctor"])
        return (box.finishWithin(seconds, sync, ["sync"]), box.finishWithin(seconds, doctor, ["doctor"]))
    }

    func testAPasswordCommandThatNeverEndsIsStoppedAndSyncAndDoctorFail() throws {
        let command = box.root + "/password-command"
        try box.script(command, "echo $$ >> '\(box.root)/pids'\nexec sleep 300")
        try configure("password_command = \(command)")
        let queued = try XCTUnwrap(try pending())
        XCTAssertGreaterThan(queued, 0)
        // The limit shortened to half a second (the 30-second default is TimeLimitsTests').
        box.extraEnv[TimeLimits.variable] = "password_command=0.5"
        let started = Date()
        let (sync, doctor) = try syncAndDoctor(within: 120)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "stopped at the limit, not when the command ends")
        let message = "password_command did not finish within 1 second and was stopped; check password_command in \(configFile)"
        XCTAssertEqual(sync.status, 4, sync.stderr)
        XCTAssertEqual(sync.stdout, "")
        XCTAssertEqual(sync.stderr, "habitto: sync: \(message) (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details\n")
        XCTAssertEqual(doctor.status, 5, doctor.stdout + doctor.stderr)
        XCTAssertTrue(doctor.stdout.contains(message), doctor.stdout)
        let pids = (try String(contentsOfFile: box.root + "/pids", encoding: .utf8)).split(separator: "\n")
        XCTAssertEqual(pids.count, 2, "each ran the command once")
        for pid in pids {
            try Data(pid.utf8).write(to: URL(fileURLWithPath: box.root + "/pid"))
            XCTAssertTrue(processInFileEnds(box.root + "/pid"), "the command \(pid) was killed")
        }
        XCTAssertEqual(try pending(), queued, "nothing queued was lost")
    }

    func testAPasswordFileThatIsAFolderOrEmptyIsRefusedInOneLine() throws {
        let folder = box.root + "/secret"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try configure("password_file = \(folder)")
        let fix = "point password_file in \(configFile) at the file that holds the password"
        let queued = try XCTUnwrap(try pending())
        var r = try box.runWithin(60, ["sync"])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertEqual(r.stderr, "habitto: sync: password_file \(folder) is a folder, not a regular file; \(fix) (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details\n")
        let doctor = try box.runWithin(60, ["doctor"])
        XCTAssertEqual(doctor.status, 5)
        XCTAssertTrue(doctor.stdout.contains("password_file \(folder) is a folder, not a regular file"), doctor.stdout)

        let empty = box.root + "/empty-password"
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data("\n".utf8), attributes: [.posixPermissions: 0o600]))
        try configure("password_file = \(empty)")
        r = try box.runWithin(60, ["sync"])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("habitto: sync: password_file \(empty) holds no password (its first line is empty); put the password on its first line"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(try pending(), queued, "nothing queued was lost")
    }

    func testAPasswordCommandThatFailsOrPrintsNothingSaysSoInOneLine() throws {
        let command = box.root + "/password-command"
        try configure("password_command = \(command)")
        try box.script(command, "echo 'gpg: decryption failed: No secret key' >&2\nexit 2")
        var r = try box.runWithin(60, ["sync"])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("habitto: sync: password_command failed (exit status 2: gpg: decryption failed: No secret key); check password_command in \(configFile)"), r.stderr)
        try box.script(command, "true")
        r = try box.runWithin(60, ["sync"])
        XCTAssertTrue(r.stderr.hasPrefix("habitto: sync: password_command printed no password (its first line is empty); check password_command in \(configFile)"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
    }
}
