import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
@testable import HabitStore

/// A cache of the data directory (snapshot, prompt segment cache, reminders sent) that is not
/// a regular file is never read, is reported by the doctor, and is moved to `recovered/` by
/// its repair, or, when the repair cannot, named with the command that moves it.
/// (FIFOs, which would block a reader, are tried on the binary, under a time limit:
/// `HostileLocalFilesTests`.)
final class CacheFileKindTests: StoreTestCase {
    private func dataDirectory() async throws -> (HabitRepository, DataPaths) {
        let repo = try HabitRepository(directory: path("data"), now: Fixture.clock)
        for changes in Fixture.standardCommits { try await repo.commit { _, _ in changes } }
        try await repo.writeSnapshot()
        return (repo, repo.paths)
    }

    /// Puts a socket at `path` (the process that made it may go; the entry stays).
    private func makeSocket(_ path: String, file: StaticString = #filePath, line: UInt = #line) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(r, 0, "bind \(path)", file: file, line: line)
    }

    func testEveryCacheThatIsNotARegularFileIsReportedAndMovedToRecovered() async throws {
        let (repo, paths) = try await dataDirectory()
        let state = await repo.state
        let outside = path("elsewhere")
        try writeFile(Array("kept".utf8), to: outside)
        let makers: [(String, (String) throws -> Void)] = [
            ("a folder", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false)
                           try writeFile(Array("inside".utf8), to: $0 + "/note") }),
            ("a socket", { self.makeSocket($0) }),
            ("a symbolic link", { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: outside) }),
        ]
        for (kind, make) in makers {
            for cache in Doctor.caches(paths) {
                try? FileManager.default.removeItem(atPath: cache)
                try make(cache)
            }
            let findings = Doctor.checkLocal(paths: paths, configPath: nil).findings
            XCTAssertEqual(findings.map(\.problem), Doctor.caches(paths).map { "\($0) is \(kind), not a regular file, so Habitto cannot use it as its cache" },
                           kind)
            XCTAssertEqual(findings.map(\.repair), ["move-aside:snapshot.bin", "move-aside:segment", "move-aside:reminders-sent"], kind)
            XCTAssertTrue(findings.allSatisfy { $0.check == "files" && $0.fix.contains("habitto doctor --repair") }, "\(findings)")
            for f in findings {
                let done = try await Doctor.moveAside(paths: paths, repair: f.repair!, now: Date(timeIntervalSince1970: 1_800_000_000))
                XCTAssertTrue(done.contains("\(kind) moved to \(paths.recovered)/"), done)
            }
            XCTAssertEqual(Doctor.checkLocal(paths: paths, configPath: nil).findings, [], kind)
            // The snapshot was rebuilt; the other caches are made again when needed.
            XCTAssertEqual(Doctor.notRegular(paths.snapshot), nil)
            XCTAssertTrue(fileExists(paths.snapshot))
            let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock)
            XCTAssertEqual(reopened.openingWarnings, [])
            let again = await reopened.state
            XCTAssertEqual(again.encoded(), state.encoded())
        }
        // Everything moved is there, as it was: nothing was read through or lost.
        let moved = listing(paths.recovered)
        XCTAssertEqual(moved.count, 9, "\(moved)")
        XCTAssertEqual(Set(moved.map { String($0.prefix { $0 != "-" }) }), ["snapshot.bin", "segment", "reminders"])
        let folders = moved.filter { (try? FileManager.default.contentsOfDirectory(atPath: paths.recovered + "/" + $0)) != nil }
        XCTAssertEqual(folders.count, 3)
        for f in folders { XCTAssertEqual(try fileBytes(paths.recovered + "/" + f + "/note"), Array("inside".utf8)) }
        XCTAssertEqual(try fileBytes(outside), Array("kept".utf8))
    }

    func testTheRepairIsNotOfferedWhenRecoveredIsNotAFolderAndTheCommandIsNamed() async throws {
        let (_, paths) = try await dataDirectory()
        try FileManager.default.removeItem(atPath: paths.snapshot)
        try FileManager.default.createDirectory(atPath: paths.snapshot, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: paths.recovered, withDestinationPath: path("somewhere"))
        let findings = Doctor.checkLocal(paths: paths, configPath: nil).findings
        let snapshot = findings.first { $0.problem.hasPrefix(paths.snapshot) }
        XCTAssertEqual(snapshot?.repairable, false, "\(findings)")
        XCTAssertEqual(snapshot?.fix, "the repair cannot move it (\(paths.recovered) is a symbolic link, not a folder); move it out of the data directory: mv -- '\(paths.snapshot)' '\(paths.snapshot).aside'")
        XCTAssertTrue(findings.contains { $0.check == "folders" }, "the link is reported too: \(findings)")
    }

    func testACommandWithASnapshotFolderRebuildsFromTheJournalAndSaysHowToFixIt() async throws {
        let (repo, paths) = try await dataDirectory()
        let state = await repo.state
        try FileManager.default.removeItem(atPath: paths.snapshot)
        try FileManager.default.createDirectory(atPath: paths.snapshot, withIntermediateDirectories: false)
        let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock)
        XCTAssertEqual(reopened.openingWarnings.map(\.description), ["warning: the snapshot \(paths.snapshot) is a folder, not a regular file, so it was not read; state rebuilt from the journal; run habitto doctor --repair to move it to recovered/"])
        let again = await reopened.state
        XCTAssertEqual(again.encoded(), state.encoded())
    }

    func testASnapshotThatIsASymbolicLinkIsNeitherFollowedNorReplaced() async throws {
        let (repo, paths) = try await dataDirectory()
        let state = await repo.state
        let outside = path("elsewhere.bin")
        try FileManager.default.moveItem(atPath: paths.snapshot, toPath: outside)
        let before = try fileBytes(outside)
        try FileManager.default.createSymbolicLink(atPath: paths.snapshot, withDestinationPath: outside)
        let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 1)
        XCTAssertEqual(reopened.openingWarnings.map(\.description), ["warning: the snapshot \(paths.snapshot) is a symbolic link, not a regular file, so it was not read; state rebuilt from the journal; run habitto doctor --repair to move it to recovered/"])
        let again = await reopened.state
        XCTAssertEqual(again.encoded(), state.encoded())
        // A write that makes a snapshot due (one per record here) leaves the link as it is.
        try await reopened.commit { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        XCTAssertEqual(Doctor.notRegular(paths.snapshot), "a symbolic link")
        XCTAssertEqual(try fileBytes(outside), before, "what it points to was not touched")
        let written = await asyncStoreError { try await reopened.writeSnapshot() }
        XCTAssertEqual(written, .unreadable(path: paths.snapshot, detail: "is a symbolic link, not a regular file; run habitto doctor --repair to move it to recovered/"))
    }

    func testTheSegmentCacheIsNotWrittenOverSomethingThatIsNotAFile() async throws {
        let (_, paths) = try await dataDirectory()
        let segment = SegmentCache.path(paths)
        XCTAssertEqual(mkfifo(segment, 0o600), 0)
        let key = try XCTUnwrap(SegmentCache.Key.current(paths: paths, day: Fixture.day0, weekStart: .monday))
        SegmentCache.write(paths, key: key, entry: SegmentCache.Entry(done: 1, due: 2))
        XCTAssertNil(SegmentCache.read(paths, key: key))
        SegmentCache.remove(paths)
        XCTAssertEqual(Doctor.notRegular(segment), "a FIFO (named pipe)")
    }

    func testStartingTheJournalOverMovesASnapshotFolderAsideWithTheDamagedFiles() async throws {
        let (_, paths) = try await dataDirectory()
        try FileManager.default.removeItem(atPath: paths.snapshot)
        try FileManager.default.createDirectory(atPath: paths.snapshot, withIntermediateDirectories: false)
        try writeFile(Array("inside".utf8), to: paths.snapshot + "/note")
        let saved = try Backups.startOver(paths: paths, records: [], now: Fixture.clock())
        let moved = listing(saved).filter { $0.hasPrefix("snapshot.bin-") }
        XCTAssertEqual(moved.count, 1, "\(listing(saved))")
        XCTAssertEqual(try fileBytes(saved + "/" + (moved.first ?? "") + "/note"), Array("inside".utf8))
        XCTAssertTrue(fileExists(saved + "/journal.hbj"))
        XCTAssertFalse(fileExists(paths.snapshot))
    }
}
