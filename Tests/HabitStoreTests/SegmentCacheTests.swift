import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
@testable import HabitStore

/// The prompt segment's cache: a count is found again only under exactly the key it was
/// stored with, every change to the journal (append or replacement), `sync.json` or
/// `remote` makes the key differ, and anything in the file but a line this code wrote is
/// a miss.
final class SegmentCacheTests: StoreTestCase {
    private let day = LocalDay("2026-11-21")!

    private func repository() throws -> (HabitRepository, DataPaths) {
        let repo = try HabitRepository(directory: path("data"), now: Fixture.clock)
        return (repo, repo.paths)
    }

    private func key(_ paths: DataPaths, day: LocalDay? = nil, weekStart: Weekday = .monday) throws -> SegmentCache.Key {
        try XCTUnwrap(SegmentCache.Key.current(paths: paths, day: day ?? self.day, weekStart: weekStart))
    }

    func testAnEntryIsFoundUnderItsKeyAndUnderNoOther() async throws {
        let (repo, paths) = try repository()
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let entry = SegmentCache.Entry(done: 3, due: 5, queue: 12, failed: true)
        let k = try key(paths)
        SegmentCache.write(paths, key: k, entry: entry)
        XCTAssertEqual(SegmentCache.read(paths, key: k), entry)
        XCTAssertEqual(SegmentCache.read(paths, key: try key(paths)), entry, "the same files give the same key")
        let local = SegmentCache.Entry(done: 0, due: 0, queue: nil, failed: false)
        SegmentCache.write(paths, key: k, entry: local)
        XCTAssertEqual(SegmentCache.read(paths, key: k), local)

        XCTAssertNil(SegmentCache.read(paths, key: try key(paths, day: day.adding(1))), "another day")
        XCTAssertNil(SegmentCache.read(paths, key: try key(paths, weekStart: .sunday)), "another week start")
        var other = k
        other.files[1] = "1:2:3:4:5"
        XCTAssertNil(SegmentCache.read(paths, key: other), "another sync.json")
        let names = try FileManager.default.contentsOfDirectory(atPath: paths.directory)
        XCTAssertFalse(names.contains { $0.contains(".tmp-") }, "a temporary file was left: \(names)")
    }

    func testEveryChangeToTheJournalOrTheSyncFilesChangesTheKey() async throws {
        XCTAssertNil(SegmentCache.Key.current(paths: DataPaths(directory: path("data")), day: day, weekStart: .monday), "no journal: no key")
        let (repo, paths) = try repository()
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        var keys = [try key(paths)]
        try await repo.commit { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] }
        keys.append(try key(paths))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: paths.directory + "/sync.json"))
        keys.append(try key(paths))
        try Data("x".utf8).write(to: URL(fileURLWithPath: paths.directory + "/remote"))
        keys.append(try key(paths))
        // The journal replaced by a copy of itself: same size and bytes, another file.
        let bytes = try fileBytes(paths.journal)
        try Sys.writeAtomically(bytes, to: paths.journal)
        keys.append(try key(paths))
        XCTAssertEqual(Set(keys.map(\.files)).count, keys.count, "two states shared a key: \(keys.map(\.files))")
    }

    func testAFileThatIsNotExactlyWhatWasWrittenIsAMiss() async throws {
        let (repo, paths) = try repository()
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let k = try key(paths)
        let good = SegmentCache.encode(.init(done: 1, due: 2, queue: nil, failed: false), key: k)
        let text = String(decoding: good, as: UTF8.self)
        let bad: [String] = [
            "", "\n", String(text.dropLast()), text + "\n", text.replacingOccurrences(of: " 1 2 - 0", with: " 2 1 - 0"),
            text.replacingOccurrences(of: " 1 2 - 0", with: " 01 2 - 0"), text.replacingOccurrences(of: " 1 2 - 0", with: " -1 2 - 0"),
            text.replacingOccurrences(of: " 1 2 - 0", with: " 1 2 - 2"), text.replacingOccurrences(of: " 1 2 - 0", with: " 1 2 x 0"),
            text.replacingOccurrences(of: " 1 2 - 0", with: " 1 99999999999999 - 0"),
            text.replacingOccurrences(of: "habitto-segment-1", with: "habitto-segment-2"),
            text.replacingOccurrences(of: " 1 2 - 0", with: " 1 2 - 0 "), text.replacingOccurrences(of: " ", with: "  "),
            text.replacingOccurrences(of: " 1 2 - 0", with: " ١ 2 - 0"),
        ]
        for b in bad {
            XCTAssertNil(SegmentCache.decode(Array(b.utf8), key: k), "accepted: \(b.debugDescription)")
            try Data(b.utf8).write(to: URL(fileURLWithPath: SegmentCache.path(paths)))
            XCTAssertNil(SegmentCache.read(paths, key: k), "read: \(b.debugDescription)")
        }
        XCTAssertNil(SegmentCache.decode(good.dropLast() + [0xFF, 0x0A], key: k), "not UTF-8")
        XCTAssertNil(SegmentCache.decode(good + Array(repeating: 0x20, count: 2000), key: k), "too long")

        // A link to a good line elsewhere, and a FIFO, are misses; neither blocks nor is followed.
        try Data(good).write(to: URL(fileURLWithPath: path("elsewhere")))
        try FileManager.default.removeItem(atPath: SegmentCache.path(paths))
        XCTAssertEqual(symlink(path("elsewhere"), SegmentCache.path(paths)), 0)
        XCTAssertNil(SegmentCache.read(paths, key: k), "a link was followed")
        try FileManager.default.removeItem(atPath: SegmentCache.path(paths))
        XCTAssertEqual(mkfifo(SegmentCache.path(paths), 0o600), 0)
        XCTAssertNil(SegmentCache.read(paths, key: k), "a FIFO was read")
        // Writing leaves the FIFO as it is (`doctor --repair` moves it aside): still a miss.
        SegmentCache.write(paths, key: k, entry: .init(done: 1, due: 2, queue: nil, failed: false))
        XCTAssertNil(SegmentCache.read(paths, key: k))
        XCTAssertEqual(Doctor.notRegular(SegmentCache.path(paths)), "a FIFO (named pipe)")
        // Once it is gone, the line is written and read back.
        try FileManager.default.removeItem(atPath: SegmentCache.path(paths))
        SegmentCache.write(paths, key: k, entry: .init(done: 1, due: 2, queue: nil, failed: false))
        XCTAssertEqual(SegmentCache.read(paths, key: k), .init(done: 1, due: 2, queue: nil, failed: false))
    }

    func testStartingTheJournalOverRemovesTheCache() async throws {
        let (repo, paths) = try repository()
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        SegmentCache.write(paths, key: try key(paths), entry: .init(done: 0, due: 1, queue: nil, failed: false))
        XCTAssertTrue(FileManager.default.fileExists(atPath: SegmentCache.path(paths)))
        _ = try Backups.startOver(paths: paths, records: [], now: Fixture.clock())
        XCTAssertFalse(FileManager.default.fileExists(atPath: SegmentCache.path(paths)))
    }

    func testAFailedWriteIsSilentAndLeavesNothing() async throws {
        let (repo, paths) = try repository()
        try await repo.commit { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        let k = try key(paths)
        // The name taken by a folder: rename fails; nothing is thrown and no temporary file stays.
        try FileManager.default.createDirectory(atPath: SegmentCache.path(paths) + "/x", withIntermediateDirectories: true)
        SegmentCache.write(paths, key: k, entry: .init(done: 0, due: 1, queue: nil, failed: false))
        XCTAssertNil(SegmentCache.read(paths, key: k))
        let names = try FileManager.default.contentsOfDirectory(atPath: paths.directory)
        XCTAssertFalse(names.contains { $0.contains(".tmp-") }, "a temporary file was left: \(names)")
    }
}
