import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
@testable import HabitStore

/// A write that fails (disk full, I/O error on fsync) is an error the caller sees; the
/// in-memory state stays as it was and nothing already written is damaged.
final class WriteFailureTests: StoreTestCase {

    func testInjectedDiskFullAfterNWritesFailsTheCommitAndChangesNothing() async throws {
        for allowed in 1...4 {
            for partial in [false, true] {
                let context = "\(allowed) writes allowed, partial \(partial)"
                let dir = path("full-\(allowed)-\(partial)")
                let disk = FaultyDisk(writesAllowed: allowed, writeErrno: ENOSPC, partialWrites: partial)
                // The first write is the journal header; each commit is one more.
                let repo = try HabitRepository(directory: dir, now: Fixture.clock, io: disk.io)
                var acknowledged = 0
                for i in 0..<(allowed - 1) {
                    try await repo.commit(label: "ok \(i)") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
                    acknowledged += 1
                }
                let stateBefore = await repo.state
                let undoBefore = await repo.undoStack
                let bytesBefore = try fileBytes(repo.paths.journal)

                for attempt in 1...2 {
                    let error = await asyncStoreError {
                        try await repo.commit(label: "too much") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 10)] }
                    }
                    XCTAssertEqual(error, .io(operation: "write", path: repo.paths.journal, errno: ENOSPC), context)
                    XCTAssertTrue(error.map { "\($0)".contains("free some disk space") } ?? false, context)
                    let stateAfter = await repo.state
                    let undoAfter = await repo.undoStack
                    XCTAssertEqual(stateAfter, stateBefore, "\(context), attempt \(attempt)")
                    XCTAssertEqual(undoAfter, undoBefore, "\(context), attempt \(attempt)")
                    XCTAssertEqual(try fileBytes(repo.paths.journal), bytesBefore, "\(context), attempt \(attempt)")
                }
                XCTAssertEqual(disk.failures, 2, context)

                let reopened = try HabitRepository(directory: dir, now: Fixture.clock, io: .live)
                let seen = await reopened.state
                XCTAssertEqual(seen, stateBefore, context)
                XCTAssertEqual(seen.progress(Fixture.water, Fixture.day0), acknowledged, context)
                XCTAssertEqual(seen.seen[repo.device] ?? 0, UInt64(acknowledged), context)
                XCTAssertEqual(reopened.openingWarnings, [], context)

                // Once there is space again, the next commit takes the next sequence number.
                disk.heal()
                let result = try await repo.commit(label: "fits") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 2)] }
                XCTAssertEqual(result.operations.map(\.id.seq), [UInt64(acknowledged + 1)], context)
                let final = try HabitRepository(directory: dir, now: Fixture.clock, io: .live)
                let finalState = await final.state
                XCTAssertEqual(finalState, result.state, context)
                XCTAssertEqual(finalState.progress(Fixture.water, Fixture.day0), acknowledged + 2, context)
            }
        }
    }

    func testFailedFsyncIsReportedNotRetriedAndTheRecordIsNotAcknowledged() async throws {
        let dir = path("sync")
        // Header sync plus two commits succeed; the third commit's fsync fails.
        let disk = FaultyDisk(syncsAllowed: 3, syncErrno: EIO)
        let repo = try HabitRepository(directory: dir, now: Fixture.clock, io: disk.io)
        try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        try await repo.commit(label: "one") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        let stateBefore = await repo.state
        let undoBefore = await repo.undoStack
        let bytesBefore = try fileBytes(repo.paths.journal)
        let writesBefore = disk.writeCalls, syncsBefore = disk.syncCalls

        let error = await asyncStoreError {
            try await repo.commit(label: "lost") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 5)] }
        }
        XCTAssertEqual(error, .io(operation: "sync", path: repo.paths.journal, errno: EIO))
        XCTAssertEqual(disk.writeCalls - writesBefore, 1, "the record was written once")
        XCTAssertEqual(disk.syncCalls - syncsBefore, 1, "a failed fsync is not retried")
        let stateAfter = await repo.state
        let undoAfter = await repo.undoStack
        XCTAssertEqual(stateAfter, stateBefore)
        XCTAssertEqual(undoAfter, undoBefore)
        XCTAssertEqual(try fileBytes(repo.paths.journal), bytesBefore, "the unacknowledged record was cut off")

        let reopened = try HabitRepository(directory: dir, now: Fixture.clock, io: .live)
        let seen = await reopened.state
        XCTAssertEqual(seen, stateBefore)
        XCTAssertEqual(seen.progress(Fixture.water, Fixture.day0), 1)
        XCTAssertEqual(reopened.openingWarnings, [])

        disk.heal()
        let result = try await repo.commit(label: "again") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 5)] }
        XCTAssertEqual(result.operations.map(\.id.seq), [3])
        let final = try HabitRepository(directory: dir, now: Fixture.clock, io: .live)
        let finalState = await final.state
        XCTAssertEqual(finalState, result.state)
        XCTAssertEqual(finalState.progress(Fixture.water, Fixture.day0), 6)
    }

    func testFailureWhileCreatingTheJournalLeavesADirectoryThatOpensLater() async throws {
        let cases: [(String, FaultyDisk)] = [
            ("write", FaultyDisk(writesAllowed: 0, writeErrno: ENOSPC)),
            ("sync", FaultyDisk(syncsAllowed: 0, syncErrno: EIO)),
        ]
        for (operation, disk) in cases {
            let dir = path("create-\(operation)")
            let error = storeError { try HabitRepository(directory: dir, now: Fixture.clock, io: disk.io) }
            XCTAssertEqual(error, .io(operation: operation, path: dir + "/journal.hbj",
                                      errno: operation == "write" ? ENOSPC : EIO))
            let repo = try HabitRepository(directory: dir, now: Fixture.clock, io: .live)
            let state = await repo.state
            XCTAssertEqual(state, HabitState(), operation)
            XCTAssertEqual(try fileBytes(repo.paths.journal), Journal.magic, operation)
            let result = try await repo.commit(label: "first") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
            let reopened = try HabitRepository(directory: dir, now: Fixture.clock)
            let again = await reopened.state
            XCTAssertEqual(again, result.state, operation)
        }
    }

    func testCommitOnAFullDiskFailsCleanlyAndSucceedsOnceSpaceIsFreed() async throws {
        let mountPoint = path("tmpfs")
        if try mountTmpfs(at: mountPoint, size: "256k") {
            // A real file system that runs out of space.
            let filler = mountPoint + "/filler"
            try await assertFullDiskCommitFailsCleanly(
                directory: mountPoint + "/data", io: .live,
                fill: {
                    try fillFileSystem(with: filler)
                    var fs = statvfs()
                    XCTAssertEqual(statvfs(mountPoint, &fs), 0)
                    XCTAssertEqual(fs.f_bavail, 0, "the file system is full")
                },
                free: { try FileManager.default.removeItem(atPath: filler) })
        } else {
            // Not permitted to mount here: the same scenario with an injected ENOSPC that
            // writes half the record first, as a real full disk does.
            let disk = FaultyDisk(writeErrno: ENOSPC, partialWrites: true)
            try await assertFullDiskCommitFailsCleanly(directory: path("data"), io: disk.io,
                                                       fill: disk.fillUp, free: disk.heal)
            XCTAssertEqual(disk.failures, 2)
        }
    }

    func testCommitOnAReadOnlyFileSystemFailsWithAClearMessageAndReadingStillWorks() async throws {
        let mountPoint = path("tmpfs-ro")
        let dir = mountPoint + "/data"
        if try mountTmpfs(at: mountPoint, size: "1m") {
            var expected = HabitState()
            do {
                let repo = try HabitRepository(directory: dir, now: Fixture.clock)
                try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
                expected = try await repo.commit(label: "check") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }.state
            }
            let before = try directoryContents(dir)
            XCTAssertTrue(remount(mountPoint, readOnly: true), "remount read-only: errno \(errno)")

            let repo = try HabitRepository(directory: dir, now: Fixture.clock)
            let state = await repo.state
            XCTAssertEqual(state, expected, "reading works on a read-only file system")
            let error = await asyncStoreError {
                try await repo.commit(label: "refused") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
            }
            XCTAssertEqual(error, .io(operation: "write", path: repo.paths.journal, errno: EROFS))
            XCTAssertTrue(error.map { "\($0)".contains("read-only") } ?? false, "\(String(describing: error))")
            let after = await repo.state
            XCTAssertEqual(after, expected)
            XCTAssertEqual(try directoryContents(dir), before)

            XCTAssertTrue(remount(mountPoint, readOnly: false), "remount writable: errno \(errno)")
            let writable = try HabitRepository(directory: dir, now: Fixture.clock)
            let result = try await writable.commit(label: "check") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
            XCTAssertEqual(result.state.progress(Fixture.water, Fixture.day0), 2)
        } else {
            let disk = FaultyDisk(writeErrno: EROFS)
            let repo = try HabitRepository(directory: dir, now: Fixture.clock, io: disk.io)
            let expected = try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }.state
            let bytes = try fileBytes(repo.paths.journal)
            disk.fillUp()
            let error = await asyncStoreError {
                try await repo.commit(label: "refused") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
            }
            XCTAssertEqual(error, .io(operation: "write", path: repo.paths.journal, errno: EROFS))
            XCTAssertTrue(error.map { "\($0)".contains("read-only") } ?? false, "\(String(describing: error))")
            let after = await repo.state
            XCTAssertEqual(after, expected)
            XCTAssertEqual(try fileBytes(repo.paths.journal), bytes)
        }
    }

    private func assertFullDiskCommitFailsCleanly(directory: String, io: FileIO,
                                                  fill: () throws -> Void, free: () throws -> Void,
                                                  file: StaticString = #filePath, line: UInt = #line) async throws {
        let repo = try HabitRepository(directory: directory, now: Fixture.clock, io: io)
        try await repo.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        try await repo.commit(label: "check") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        let stateBefore = await repo.state
        let undoBefore = await repo.undoStack
        let bytesBefore = try fileBytes(repo.paths.journal)

        try fill()
        // Far more than the slack in the journal's last page.
        let big: [Change] = (1...400).map { .progress(Fixture.water, Fixture.day0.adding($0), delta: 1) }
        for attempt in 1...2 {
            let error = await asyncStoreError { try await repo.commit(label: "big") { _, _ in big } }
            XCTAssertEqual(error, .io(operation: "write", path: repo.paths.journal, errno: ENOSPC),
                           "attempt \(attempt)", file: file, line: line)
            let stateAfter = await repo.state
            let undoAfter = await repo.undoStack
            XCTAssertEqual(stateAfter, stateBefore, "attempt \(attempt)", file: file, line: line)
            XCTAssertEqual(undoAfter, undoBefore, "attempt \(attempt)", file: file, line: line)
            XCTAssertEqual(try fileBytes(repo.paths.journal), bytesBefore, "attempt \(attempt)", file: file, line: line)
        }
        let whileFull = try HabitRepository(directory: directory, now: Fixture.clock, io: .live)
        let seenWhileFull = await whileFull.state
        XCTAssertEqual(seenWhileFull, stateBefore, file: file, line: line)
        XCTAssertEqual(whileFull.openingWarnings, [], file: file, line: line)

        try free()
        let result = try await repo.commit(label: "big") { _, _ in big }
        XCTAssertEqual(result.operations.first?.id.seq, 3, "no sequence number was used up", file: file, line: line)
        XCTAssertEqual(result.state.progress(Fixture.water, Fixture.day0.adding(400)), 1, file: file, line: line)
        let reopened = try HabitRepository(directory: directory, now: Fixture.clock, io: .live)
        let seen = await reopened.state
        XCTAssertEqual(seen, result.state, file: file, line: line)
        XCTAssertEqual(seen.seen[repo.device], 2 + 400, file: file, line: line)
        XCTAssertEqual(try foldJournal(try fileBytes(repo.paths.journal), file: file, line: line), seen, file: file, line: line)
    }
}

/// Writes to `path` until the file system reports ENOSPC even for a single byte.
private func fillFileSystem(with path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw StoreError.io(operation: "open for writing", path: path, errno: errno) }
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0xA5, count: 16384)
    var size = chunk.count
    while true {
        let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, size) }
        if n >= 0 { continue }
        let e = errno
        if e == EINTR { continue }
        guard e == ENOSPC else { throw StoreError.io(operation: "write", path: path, errno: e) }
        if size == 1 { return }
        size = 1
    }
}
