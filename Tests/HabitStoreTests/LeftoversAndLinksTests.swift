import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
@testable import HabitStore

/// What a kill -9 leaves behind is removed at the next start (only Habitto's own, only
/// when its process is gone), and links inside the data directory are never followed.
final class LeftoversAndLinksTests: StoreTestCase {
    /// The id of a process that has ended (it ran /bin/true and was waited for).
    private func deadPID() throws -> pid_t {
        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { free(argv[0]) }
        XCTAssertEqual(posix_spawn(&pid, "/bin/true", nil, nil, argv, nil), 0)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        XCTAssertFalse(Sys.processExists(pid))
        return pid
    }

    private func touch(_ path: String) throws { try writeFile([1, 2, 3], to: path) }

    func testOnlyTheExactPatternsAreRecognised() {
        XCTAssertEqual(Leftovers.temporaryFileOwner("sync.json.tmp-4242-1234567890"), 4242)
        XCTAssertEqual(Leftovers.temporaryFileOwner("20261121-093000-manual.hbk.tmp-7-0"), 7)
        for name in ["sync.json", ".tmp-12-3", "x.tmp-abc-1", "x.tmp-0-1", "x.tmp-012-1", "x.tmp-12-", "x.tmp-12-3-4",
                     "x.tmp-12-3a", "x.tmp--3", "x.tmp-99999999999-1", "x.TMP-12-3"] {
            XCTAssertNil(Leftovers.temporaryFileOwner(name), name)
        }
        XCTAssertEqual(Leftovers.importFolderOwner("habitto-import-4242-aB3xZ9"), 4242)
        for name in ["habitto-import-aB3xZ9", "habitto-import-4242-aB3xZ", "habitto-import-4242-aB3xZ9x", "habitto-import-04-aB3xZ9",
                     "habitto-import--aB3xZ9", "habitto-import-42-aB.xZ9", "other-import-42-aB3xZ9"] {
            XCTAssertNil(Leftovers.importFolderOwner(name), name)
        }
    }

    func testTemporaryFilesOfDeadProcessesAreRemovedWhenTheDataDirectoryIsOpened() async throws {
        let dir = path("data")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        _ = try await repo.backup(reason: "manual")
        let paths = repo.paths
        let dead = try deadPID(), alive = getpid()
        try FileManager.default.createDirectory(atPath: paths.recovered + "/damaged-20261121-093000-1", withIntermediateDirectories: true)
        let stale = [dir + "/sync.json.tmp-\(dead)-1", dir + "/snapshot.bin.tmp-\(dead)-22",
                     Backups.directory(paths) + "/20261121-093000-manual.hbk.tmp-\(dead)-3",
                     paths.recovered + "/torn-at-64-1.bin.tmp-\(dead)-4",
                     paths.recovered + "/damaged-20261121-093000-1/journal.hbj.tmp-\(dead)-5"]
        let kept = [dir + "/sync.json.tmp-\(alive)-1", dir + "/notes.txt", dir + "/sync.json.tmp-x-1",
                    Backups.directory(paths) + "/keep.hbk.tmp-\(alive)-9"]
        for p in stale + kept { try touch(p) }
        // A folder and a link under the pattern are not files of a write: left alone.
        try FileManager.default.createDirectory(atPath: dir + "/folder.tmp-\(dead)-6", withIntermediateDirectories: false)
        try touch(path("target"))
        XCTAssertEqual(symlink(path("target"), dir + "/link.tmp-\(dead)-7"), 0)

        _ = try HabitRepository(directory: dir, now: Fixture.clock)
        for p in stale { XCTAssertFalse(fileExists(p), "\(p) is left over from a process that is gone") }
        for p in kept { XCTAssertTrue(fileExists(p), "\(p) is kept") }
        XCTAssertTrue(fileExists(dir + "/folder.tmp-\(dead)-6"))
        XCTAssertNotNil(try Sys.entryStatus(dir + "/link.tmp-\(dead)-7"))
        XCTAssertEqual(try fileBytes(path("target")), [1, 2, 3])
        XCTAssertEqual(try Backups.list(paths).count, 1)
    }

    func testImportFoldersOfDeadProcessesAreRemovedWithWhatTheyHold() throws {
        let base = path("tmp")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let dead = try deadPID(), alive = getpid()
        let stale = base + "/habitto-import-\(dead)-AbC123"
        try FileManager.default.createDirectory(atPath: stale + "/files/001 Walk", withIntermediateDirectories: true)
        try touch(stale + "/files/001 Walk/Checkmarks.csv")
        let running = base + "/habitto-import-\(alive)-AbC123"
        let old = base + "/habitto-import-AbC123" // an older name without the process id
        let other = base + "/something-\(dead)-AbC123"
        for d in [running, old, other] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false) }
        try FileManager.default.createDirectory(atPath: path("elsewhere"), withIntermediateDirectories: false)
        try touch(path("elsewhere/precious"))
        XCTAssertEqual(symlink(path("elsewhere"), base + "/habitto-import-\(dead)-Link00"), 0)

        Leftovers.removeStaleImportFolders(in: base)
        XCTAssertEqual(listing(base), ["habitto-import-\(alive)-AbC123", "habitto-import-\(dead)-Link00", "habitto-import-AbC123",
                                       "something-\(dead)-AbC123"].sorted())
        XCTAssertEqual(try fileBytes(path("elsewhere/precious")), [1, 2, 3], "a link is never followed")
    }

    func testABackupsFolderThatIsALinkIsRefusedAndNothingIsWrittenThrough() async throws {
        let dir = path("data")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let outside = path("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        XCTAssertEqual(symlink(outside, Backups.directory(repo.paths)), 0)
        let error = await asyncStoreError { try await repo.backup(reason: "manual") }
        XCTAssertEqual(error, .link(path: Backups.directory(repo.paths)))
        XCTAssertThrowsError(try Backups.list(repo.paths))
        XCTAssertThrowsError(try Backups.path(of: "x", in: repo.paths))
        XCTAssertEqual(listing(outside), [], "nothing was written through the link")
        let findings = Doctor.checkLocal(paths: repo.paths, configPath: nil).findings
        XCTAssertEqual(findings.map(\.check), ["folders"])
        XCTAssertTrue(findings[0].problem.contains("is a symbolic link, not a folder"), findings[0].problem)
    }

    func testABackupFileThatIsALinkOrAFIFOIsListedAsUnusableAndNotRead() async throws {
        let dir = path("data")
        let repo = try HabitRepository(directory: dir, now: Fixture.clock)
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let real = try await repo.backup(reason: "manual")
        let folder = Backups.directory(repo.paths)
        XCTAssertEqual(symlink(real.path, folder + "/20990101-000000-manual.hbk"), 0)
        XCTAssertEqual(mkfifo(folder + "/20990102-000000-manual.hbk", 0o600), 0)
        let all = try Backups.list(repo.paths)
        XCTAssertEqual(all.map(\.id), ["20990102-000000-manual", "20990101-000000-manual", real.id])
        guard case .failure(let fifo) = all[0].result, case .failure(let link) = all[1].result, case .success = all[2].result else {
            return XCTFail("\(all)")
        }
        XCTAssertTrue(fifo.description.contains("is a FIFO (named pipe), not a regular file; it was not read"), fifo.description)
        XCTAssertTrue(link.description.contains("is a symbolic link"), link.description)
        XCTAssertThrowsError(try Backups.load(path: folder + "/20990101-000000-manual.hbk"))
        // Pruning removes links themselves at most, never what they point to.
        _ = try Backups.prune(repo.paths, keepDays: 0, now: Fixture.clock().addingTimeInterval(86_400 * 400))
        XCTAssertTrue(fileExists(real.path))
    }

    func testARecoveredFolderThatIsALinkIsRefusedAndTheTornTailIsKept() async throws {
        let history = try await makeHistory()
        let tail: [UInt8] = [9, 9, 9, 9, 9]
        let paths = try makeDataDirectory("torn", journal: history.journal + tail, device: history.device)
        let outside = path("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        XCTAssertEqual(symlink(outside, paths.recovered), 0)
        let error = storeError { try HabitRepository(directory: paths.directory, now: Fixture.clock) }
        XCTAssertEqual(error, .link(path: paths.recovered))
        XCTAssertEqual(listing(outside), [], "the tail's bytes did not go through the link")
        XCTAssertEqual(try fileBytes(paths.journal), history.journal + tail, "and the journal was not cut before they were saved")
        // A real folder again: the tail is saved there and cut off.
        XCTAssertEqual(unlink(paths.recovered), 0)
        let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock)
        XCTAssertEqual(repo.openingWarnings.count, 1)
        XCTAssertEqual(try fileBytes(paths.journal), history.journal)
    }

    func testReadFileRefusesWhatIsNotARegularFileWithoutWaiting() throws {
        let fifo = path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let started = Date()
        XCTAssertEqual(storeError { try Sys.readFile(fifo) }, .unreadable(path: fifo, detail: "is a FIFO (named pipe), not a regular file; it was not read"))
        XCTAssertEqual(storeError { try Sys.readFile(root) }, .unreadable(path: root, detail: "is a folder, not a regular file; it was not read"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        try touch(path("file"))
        XCTAssertEqual(symlink(path("file"), path("link")), 0)
        XCTAssertEqual(try Sys.readFile(path("link")), [1, 2, 3], "links are followed unless asked")
        XCTAssertEqual(storeError { try Sys.readFile(path("link"), followLinks: false) }, .link(path: path("link")))
        XCTAssertNil(try Sys.readFile(path("missing"), followLinks: false))
    }

    func testIsInsideResolvesLinksAndDots() throws {
        let data = path("data")
        try FileManager.default.createDirectory(atPath: data + "/backups", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(data, path("alias")), 0)
        for inside in [data, data + "/journal.hbj", data + "/new/folder/x.csv", path("alias/journal.hbj"), path("data/../data/x"),
                       path("alias/backups/../journal.hbj"), data + "/./x", data + "/missing/../journal.hbj"] {
            XCTAssertTrue(Sys.isInside(inside, folder: data), inside)
            XCTAssertTrue(Sys.isInside(inside, folder: path("alias")), inside)
        }
        for outside in [root, path("data2/x"), path("data/../x"), path("export.json"), path("alias/../x")] {
            XCTAssertFalse(Sys.isInside(outside, folder: data), outside)
        }
    }
}
