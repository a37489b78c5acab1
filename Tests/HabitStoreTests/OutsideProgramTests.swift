import Foundation
import XCTest
@testable import HabitStore

/// `OutsideProgram` with real programs (small shell scripts): the time limit kills the
/// program and its process group, the output is bounded without blocking the program, and
/// Habitto's secrets stay out of its environment.
final class OutsideProgramTests: StoreTestCase {
    /// A script at `name` in the test's folder.
    private func script(_ name: String, _ body: String) throws -> String {
        let file = path(name)
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(chmod(file, 0o700), 0)
        return file
    }

    /// The process id a script wrote to `file`.
    private func pid(in file: String, file f: StaticString = #filePath, line: UInt = #line) throws -> pid_t {
        let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return try XCTUnwrap(pid_t(text), "no process id in \(file): \(text)", file: f, line: line)
    }

    func testAProgramThatNeverEndsIsKilledWithItsProcessGroupAtTheTimeLimit() throws {
        // The shell starts `sleep` in the background (its own child, same group) and waits.
        let pids = path("pids")
        let tool = try script("hang", "echo $$ > '\(pids)'\nsleep 300 &\necho $! >> '\(pids)'\necho started\nwait")
        let started = Date()
        let result = OutsideProgram(tool, [], timeLimit: 1).run()
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(result.outcome, .killedAfterTimeLimit)
        XCTAssertEqual(result.problem, "did not finish within 1 second and was stopped")
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "started\n", "what it wrote before is kept")
        XCTAssertGreaterThanOrEqual(took, 1)
        XCTAssertLessThan(took, 20)
        let lines = try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
        XCTAssertEqual(lines.count, 2)
        for pid in lines { XCTAssertTrue(processEnds(pid), "process \(pid) was killed") }
    }

    func testAProgramThatExecsSleepIsKilledAndReaped() throws {
        let pidFile = path("pid")
        let tool = try script("never", "echo $$ > '\(pidFile)'\nexec sleep 300")
        let result = OutsideProgram(tool, [], timeLimit: 0.3).run()
        XCTAssertEqual(result.outcome, .killedAfterTimeLimit)
        XCTAssertTrue(processEnds(try pid(in: pidFile)))
    }

    func testOutputBeyondTheLimitIsReadAndDroppedWithoutBlockingTheProgram() throws {
        // 4 MB, far more than a socket buffer: a program whose output were not read would block.
        let tool = try script("loud", "head -c 4194304 /dev/zero | tr '\\0' x\necho done >&2\nexit 3")
        let result = OutsideProgram(tool, [], timeLimit: 30, outputLimit: 1000, errors: .collect).run()
        XCTAssertEqual(result.outcome, .exited(3))
        XCTAssertEqual(result.output, [UInt8](repeating: UInt8(ascii: "x"), count: 1000))
        XCTAssertTrue(result.outputCut)
        XCTAssertEqual(result.errors, Array("done\n".utf8))
        XCTAssertEqual(result.problem, "failed (exit status 3: done)")
    }

    func testAProgramThatLeavesSomethingHoldingItsOutputStillEndsTheRun() throws {
        // The child exits; a background `sleep` keeps the output open. The run ends with the
        // child, not 300 seconds later.
        let pidFile = path("pid")
        let tool = try script("leaves", "sleep 300 &\necho $! > '\(pidFile)'\necho done")
        let started = Date()
        let result = OutsideProgram(tool, [], timeLimit: 60).run()
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        XCTAssertEqual(result.outcome, .exited(0))
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "done\n")
        let left = try pid(in: pidFile)
        kill(left, SIGKILL)
        XCTAssertTrue(processEnds(left))
    }

    func testTheWebDAVPasswordIsNotPassedOnUnlessAsked() throws {
        let name = OutsideProgram.secretVariables[0]
        XCTAssertEqual(name, "HABITTO_WEBDAV_PASSWORD")
        let saved = getenv(name).map { String(cString: $0) }
        defer { if let saved { setenv(name, saved, 1) } else { unsetenv(name) } }
        setenv(name, "s3cret", 1)
        setenv("HABITTO_OUTSIDE_PROGRAM_TEST", "kept", 1)
        defer { unsetenv("HABITTO_OUTSIDE_PROGRAM_TEST") }
        let tool = try script("env", "env")
        func environment(_ e: OutsideProgram.Environment) -> [String] {
            String(decoding: OutsideProgram(tool, [], timeLimit: 10, environment: e).run().output, as: UTF8.self)
                .split(separator: "\n").map(String.init)
        }
        let plain = environment(.inherited)
        XCTAssertTrue(plain.contains("HABITTO_OUTSIDE_PROGRAM_TEST=kept"), "\(plain)")
        XCTAssertFalse(plain.contains { $0.contains("s3cret") || $0.hasPrefix(name) }, "\(plain)")
        XCTAssertTrue(environment(.inheritedWithSecrets).contains("\(name)=s3cret"))
        XCTAssertEqual(environment(.exactly(["A=1"])).filter { !$0.hasPrefix("PWD=") && !$0.hasPrefix("SHLVL=") && !$0.hasPrefix("_=") }, ["A=1"])
    }

    func testAProgramThatCannotStartOrIsEndedByASignalSaysSo() throws {
        let missing = OutsideProgram(path("missing"), [], timeLimit: 10).run()
        XCTAssertEqual(missing.outcome, .couldNotStart("No such file or directory"))
        XCTAssertEqual(missing.problem, "could not be started (No such file or directory)")
        let killed = OutsideProgram(try script("self-kill", "kill -9 $$"), [], timeLimit: 10).run()
        XCTAssertEqual(killed.outcome, .signalled(SIGKILL))
        XCTAssertEqual(killed.problem, "was ended by signal 9")
        let fine = OutsideProgram(try script("fine", "echo \"$1\" \"$2\""), ["a b", "-c"], timeLimit: 10).run()
        XCTAssertTrue(fine.succeeded)
        XCTAssertNil(fine.problem)
        XCTAssertEqual(fine.output, Array("a b -c\n".utf8))
    }

    func testAZombieCountsAsEnded() throws {
        // A child that has exited and is not reaped yet.
        guard case .success(let pid) = Sys.spawn("/bin/sh", ["/bin/sh", "-c", "exec sleep 300"], files: { _ in }) else {
            return XCTFail("cannot start /bin/sh")
        }
        XCTAssertTrue(Sys.processExists(pid), "running")
        kill(pid, SIGKILL)
        var info = siginfo_t()
        // Wait until it has ended, and leave it unreaped.
        XCTAssertEqual(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT), 0)
        XCTAssertFalse(Sys.processExists(pid), "a zombie has ended")
        var status: Int32 = 0
        XCTAssertEqual(waitpid(pid, &status, 0), pid)
        XCTAssertFalse(Sys.processExists(pid))
    }
}

/// Whether the process `pid` is gone (a zombie counts: see `Sys.processExists`) within 10 seconds.
func processEnds(_ pid: pid_t) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while Sys.processExists(pid) && Date() < deadline { usleep(10_000) }
    return !Sys.processExists(pid)
}
