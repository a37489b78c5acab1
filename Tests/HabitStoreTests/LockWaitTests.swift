import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
@testable import HabitStore

/// A lock another process holds is waited for within a time limit, then given up with an
/// error that names the lock, its file and who holds it.
final class LockWaitTests: StoreTestCase {
    /// Holds the exclusive lock of `path` on a descriptor of its own (flock locks belong to
    /// an open file, so this process's other descriptors of the file wait for it as another
    /// process's would). Returns the descriptor; closing it releases the lock.
    private func hold(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0, file: file, line: line)
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0, "the test takes the lock first", file: file, line: line)
        return fd
    }

    func testALockHeldElsewhereIsGivenUpWhenTheTimeLimitIsUp() throws {
        let lockPath = path("lock")
        let held = hold(lockPath)
        defer { close(held) }
        let fd = try Sys.open(lockPath, O_RDWR)
        defer { Sys.close(fd) }
        let start = Date()
        let error = storeError { try Sys.lock(fd, path: lockPath, name: "the data lock", timeLimit: 0.3) }
        let waited = Date().timeIntervalSince(start)
        guard case .lockBusy(let p, let name, let holder, let seconds)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(p, lockPath)
        XCTAssertEqual(name, "the data lock")
        XCTAssertEqual(seconds, 0.3)
        // This process holds it: it is not named as another.
        XCTAssertEqual(holder, "another process")
        XCTAssertGreaterThanOrEqual(waited, 0.3, "it waited the whole time")
        XCTAssertLessThan(waited, 2, "and not much longer")
        XCTAssertEqual(error?.description, "another process has held the data lock \(lockPath) for more than 0.3 s; close it or try again")
        XCTAssertTrue(error?.isLockBusy == true)
    }

    func testALockReleasedDuringTheWaitIsTaken() throws {
        let lockPath = path("lock")
        let held = hold(lockPath)
        let fd = try Sys.open(lockPath, O_RDWR)
        defer { Sys.close(fd) }
        // Released from another thread while this one waits (the time limit is far away).
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { close(held) }
        let start = Date()
        try Sys.lock(fd, path: lockPath, timeLimit: 20)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        // It is held now: another descriptor cannot take it.
        let other = open(lockPath, O_RDWR | O_CLOEXEC)
        defer { close(other) }
        XCTAssertEqual(flock(other, LOCK_EX | LOCK_NB), -1)
        Sys.unlock(fd)
        XCTAssertEqual(flock(other, LOCK_EX | LOCK_NB), 0)
    }

    func testTheProcessHoldingTheLockIsNamed() throws {
        let lockPath = path("lock")
        _ = FileManager.default.createFile(atPath: lockPath, contents: nil)
        // util-linux's flock holds the lock while its command runs (which says so on its
        // output, then waits for its input to close); -o keeps the lock from the command.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-o", "-x", lockPath, "-c", "echo held; exec cat"]
        let out = Pipe(), input = Pipe()
        holder.standardOutput = out
        holder.standardInput = input
        try holder.run()
        defer { try? input.fileHandleForWriting.close(); holder.waitUntilExit() }
        XCTAssertEqual(String(decoding: out.fileHandleForReading.readData(ofLength: 5), as: UTF8.self), "held\n")
        let fd = try Sys.open(lockPath, O_RDWR)
        defer { Sys.close(fd) }
        let error = storeError { try Sys.lock(fd, path: lockPath, name: "the data lock", timeLimit: 1) }
        guard case .lockBusy(_, _, let who, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(who, "flock (process \(holder.processIdentifier))")
        // A wait shorter than a second (a prompt segment's) does not look the holder up.
        let short = storeError { try Sys.lock(fd, path: lockPath, name: "the data lock", timeLimit: 0.1) }
        guard case .lockBusy(_, _, "another process", _)? = short else { return XCTFail("\(String(describing: short))") }
    }

    func testOpeningAndWritingGiveUpOnAHeldDataLock() async throws {
        let dir = path("data")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let before = try fileBytes(repo.paths.journal)
        let held = hold(repo.paths.lock)
        defer { close(held) }
        let saved = Sys.lockWait
        Sys.lockWait = 0.2
        defer { Sys.lockWait = saved }
        let write = await asyncStoreError { try await repo.commit { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] } }
        XCTAssertTrue(write?.isLockBusy == true, "\(String(describing: write))")
        XCTAssertEqual(try fileBytes(repo.paths.journal), before, "nothing was written")
        let progress = await repo.state.progress(Fixture.water, Fixture.day0)
        XCTAssertEqual(progress, 0)
        let open = storeError { try HabitRepository(directory: dir, now: Fixture.clock) }
        guard case .lockBusy(let p, "the data lock", _, 0.2)? = open else { return XCTFail("\(String(describing: open))") }
        XCTAssertEqual(p, repo.paths.lock)
        // The doctor, which only reads, reports that it could not check the journal.
        let findings = Doctor.checkLocal(paths: repo.paths, configPath: nil).findings
        XCTAssertEqual(findings.map(\.check), ["journal"])
        XCTAssertTrue(findings.first?.problem.hasPrefix("not checked: ") == true, "\(findings)")
        XCTAssertFalse(findings.first?.repairable ?? true)
    }
}
