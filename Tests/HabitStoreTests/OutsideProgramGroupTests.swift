import Foundation
import XCTest
@testable import HabitStore

/// What an outside program starts ends with it: when it exits, and when it is stopped at its
/// time limit, every process still in its session (or, with `.group`, its process group) is
/// killed. Only a process that leaves the session (`setsid`) is out of reach, as documented.
final class OutsideProgramGroupTests: StoreTestCase {
    /// Process ids a script wrote to the file at `file`, one a line; each is killed when the
    /// test ends, whatever it found.
    private func pids(in file: String, _ count: Int, line: UInt = #line) throws -> [pid_t] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let found = text.split(separator: "\n").compactMap { pid_t($0) }
        for pid in found where pid > 1 { addTeardownBlock { if Sys.processExists(pid) { kill(pid, SIGKILL) } } }
        XCTAssertEqual(found.count, count, "process ids in \(file): \(text)", line: line)
        return found
    }

    private func shell(_ command: String, timeLimit: Double = 10, isolation: OutsideProgram.Isolation = .session,
                       shell: String = "/bin/sh") -> OutsideProgram.Result {
        var program = OutsideProgram(shell, ["-c", command], timeLimit: timeLimit, errors: .collect)
        program.isolation = isolation
        return program.run()
    }

    func testWhatAProgramLeftInTheBackgroundIsEndedWhenItExits() throws {
        let file = path("pids")
        // `sleep &`, a child of a subshell that has exited (its parent is gone), and one
        // that ignores SIGHUP: all in the program's group. The first keeps its output open.
        let started = Date()
        let result = shell("sleep 300 & echo $! > '\(file)'; (sleep 300 > /dev/null & echo $! >> '\(file)'); nohup sleep 300 > /dev/null 2>&1 & echo $! >> '\(file)'; echo measured")
        XCTAssertEqual(result.outcome, .exited(0))
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "measured\n")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "its end did not wait for what it left running")
        for pid in try pids(in: file, 3) { XCTAssertTrue(processEnds(pid), "process \(pid) outlived the program") }
    }

    func testAProcessGroupMadeInsideTheProgramsSessionIsEndedToo() throws {
        // A shell with job control (bash's; dash makes none without a terminal) puts each job
        // in a process group of its own.
        let file = path("pids"), groups = path("groups")
        let result = shell("set -m; sleep 300 & echo $! > '\(file)'; ps -o pgid=,sid= -p $! > '\(groups)'; exit 0", shell: "/bin/bash")
        XCTAssertEqual(result.outcome, .exited(0))
        let pids = try pids(in: file, 1)
        let ids = try String(contentsOfFile: groups, encoding: .utf8).split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(ids.count, 2)
        XCTAssertNotEqual(ids.first, ids.last, "the job had a process group of its own, not the program's")
        for pid in pids { XCTAssertTrue(processEnds(pid), "process \(pid) outlived the program") }
    }

    func testAtTheTimeLimitTheProgramAndWhatItStartedAreKilled() throws {
        let file = path("pids")
        let result = shell("echo $$ > '\(file)'; sleep 300 & echo $! >> '\(file)'; set -m; sleep 300 & echo $! >> '\(file)'; wait",
                           timeLimit: 1, shell: "/bin/bash")
        XCTAssertEqual(result.outcome, .killedAfterTimeLimit)
        for pid in try pids(in: file, 3) { XCTAssertTrue(processEnds(pid), "process \(pid) outlived the time limit") }
    }

    func testWithGroupIsolationTheProgramStaysInThisSessionAndItsGroupIsEnded() throws {
        let file = path("pids")
        let result = shell("echo $$ $(ps -o sid= -p $$) > '\(file)'; sleep 300 & echo $! >> '\(file)'; exit 0", isolation: .group)
        XCTAssertEqual(result.outcome, .exited(0))
        let text = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let first = text.first?.split(separator: " ").compactMap { pid_t($0) } ?? []
        XCTAssertEqual(first.count, 2)
        XCTAssertEqual(first.last, getsid(0), "in the session of the process that started it")
        let background = try XCTUnwrap(text.last.flatMap { pid_t($0) })
        addTeardownBlock { if Sys.processExists(background) { kill(background, SIGKILL) } }
        XCTAssertTrue(processEnds(background), "process \(background) outlived the program")
    }

    func testAProcessThatLeavesTheSessionIsOutOfReachAsDocumented() throws {
        // setsid(1): a session of its own, as a daemon (gpg-agent) makes. The docs say it
        // keeps running; this test keeps them honest.
        let file = path("pids")
        // The program waits until the process is in its new session (it writes its id from there).
        let result = shell("setsid sh -c 'echo $$ > \"$0\"; exec sleep 300' '\(file)' > /dev/null 2>&1 & while [ ! -s '\(file)' ]; do :; done; exit 0")
        XCTAssertEqual(result.outcome, .exited(0))
        for pid in try pids(in: file, 1) {
            XCTAssertTrue(Sys.processExists(pid), "a process in a session of its own is not Habitto's to end")
        }
    }
}
