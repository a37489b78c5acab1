import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
@testable import HabitStore

// MARK: - Fixtures

enum Fixture {
    static let water = HabitID("00000000000000a1")!
    static let read = HabitID("00000000000000b2")!
    static let walk = HabitID("00000000000000c3")!
    static let day0 = LocalDay(year: 2026, month: 11, day: 1)!

    static func fields(_ name: String) -> HabitFields { HabitFields(name: name, startDate: day0) }

    /// A fixed clock: the HLC counter orders operations, so tests do not depend on wall time.
    static let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }

    /// Six records: a create, then changes; the last record holds two operations.
    static let standardCommits: [[Change]] = [
        [.create(water, fields("Water"))],
        [.progress(water, day0, delta: 1)],
        [.progress(water, day0, delta: 2), .rate(water, day0, 3)],
        [.skip(water, day0.adding(1), true)],
        [.progress(water, day0.adding(2), delta: 1)],
        [.set(water, .name("Water 2L")), .progress(water, day0.adding(3), delta: 4)],
    ]
}

/// A journal written through `HabitRepository`, with where each record lies and the state
/// after each record, measured independently of the journal reader (by file sizes).
struct History {
    let directory: String
    let paths: DataPaths
    let journal: [UInt8]
    let device: [UInt8]
    let deviceID: DeviceID
    /// Byte range of each record in the journal.
    let records: [Range<Int>]
    /// `states[k]` is the state after the first `k` records (`states[0]` is empty).
    let states: [HabitState]
    /// `undoStacks[k]` is the undo stack after the first `k` records.
    let undoStacks: [[UndoItem]]
}

// MARK: - Test case base

/// Gives every test a fresh temporary directory, removed (after unmounting anything the
/// test mounted there) in tearDown.
class StoreTestCase: XCTestCase {
    private(set) var root = ""
    private var mounts: [String] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        root = NSTemporaryDirectory() + "habitstore-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for m in mounts.reversed() where umount2(m, Int32(MNT_DETACH)) != 0 {
            XCTFail("could not unmount \(m): errno \(errno)")
        }
        mounts = []
        if !root.isEmpty { try? FileManager.default.removeItem(atPath: root) }
        try super.tearDownWithError()
    }

    /// A path inside the test's directory (not created).
    func path(_ name: String) -> String { root + "/" + name }

    /// Mounts a tmpfs of `size` (e.g. "128k") at `dir`. Returns false when not permitted.
    func mountTmpfs(at dir: String, size: String) throws -> Bool {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        guard getuid() == 0 else { return false }
        let r = "size=\(size),mode=0700".withCString { opts in mount("tmpfs", dir, "tmpfs", 0, opts) }
        guard r == 0 else { return false }
        mounts.append(dir)
        return true
    }

    /// Remounts a tmpfs this test mounted read-only or writable again. False when refused.
    func remount(_ dir: String, readOnly: Bool) -> Bool {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        return mount("tmpfs", dir, "tmpfs", flags, nil) == 0
    }

    /// Writes the standard (or given) commits through a repository in a new directory.
    func makeHistory(_ name: String = "history", commits: [[Change]] = Fixture.standardCommits,
                     snapshotEvery: Int = 1000,
                     file: StaticString = #filePath, line: UInt = #line) async throws -> History {
        let dir = path(name)
        let repo = try HabitRepository(directory: dir, now: Fixture.clock, snapshotEvery: snapshotEvery)
        var states = [await repo.state]
        var undoStacks = [await repo.undoStack]
        var sizes = [try fileBytes(repo.paths.journal).count]
        XCTAssertEqual(sizes[0], Journal.headerSize, "a new journal holds just its header", file: file, line: line)
        for (i, changes) in commits.enumerated() {
            let result = try await repo.commit(label: "step \(i)") { _, _ in changes }
            XCTAssertEqual(result.operations.map(\.change), changes, file: file, line: line)
            states.append(result.state)
            undoStacks.append(await repo.undoStack)
            sizes.append(try fileBytes(repo.paths.journal).count)
        }
        let records = (0..<commits.count).map { sizes[$0]..<sizes[$0 + 1] }
        for r in records { XCTAssertGreaterThan(r.count, Journal.frameOverhead, file: file, line: line) }
        return History(directory: dir, paths: repo.paths, journal: try fileBytes(repo.paths.journal),
                       device: try fileBytes(repo.paths.device), deviceID: repo.device,
                       records: records, states: states, undoStacks: undoStacks)
    }

    /// A new data directory holding `journal`, the given device file and the (always empty)
    /// lock file, as a data directory that has been used before does.
    func makeDataDirectory(_ name: String, journal: [UInt8], device: [UInt8]) throws -> DataPaths {
        let paths = DataPaths(directory: path(name))
        try FileManager.default.createDirectory(atPath: paths.directory, withIntermediateDirectories: true)
        try writeFile(journal, to: paths.journal)
        try writeFile(device, to: paths.device)
        try writeFile([], to: paths.lock)
        return paths
    }
}

// MARK: - Files

func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Replaces the content of `path` in place (same inode, so open descriptors see the change).
func writeFile(_ bytes: [UInt8], to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw StoreError.io(operation: "open for writing", path: path, errno: errno) }
    defer { close(fd) }
    try FileIO.live.write(fd, bytes, 0, path)
}

func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

/// Every file under `dir` (relative path → content; directories map to an empty marker).
func directoryContents(_ dir: String) throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for sub in try FileManager.default.subpathsOfDirectory(atPath: dir) {
        var isDir: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: dir + "/" + sub, isDirectory: &isDir)
        out[sub] = isDir.boolValue ? Array("<dir>".utf8) : try fileBytes(dir + "/" + sub)
    }
    return out
}

/// The files in `dir`, sorted; empty when it does not exist.
func listing(_ dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
}

/// The state folded from a journal's bytes by decoding its records directly.
func foldJournal(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> HabitState {
    XCTAssertEqual(Array(bytes.prefix(Journal.headerSize)), Journal.magic, file: file, line: line)
    let scan = Journal.scan(Array(bytes.dropFirst(Journal.headerSize)), base: Journal.headerSize)
    XCTAssertEqual(scan.status, .clean, file: file, line: line)
    var state = HabitState()
    for rec in scan.records {
        for op in try JournalEntry(decoding: rec.payload).ops {
            XCTAssertEqual(state.apply(op), .applied, "\(op.id)", file: file, line: line)
        }
    }
    return state
}

/// The operations of every record in a journal, in file order.
func journalOperations(_ bytes: [UInt8]) throws -> [HabitOperation] {
    let scan = Journal.scan(Array(bytes.dropFirst(Journal.headerSize)), base: Journal.headerSize)
    return try scan.records.flatMap { try JournalEntry(decoding: $0.payload).ops }
}

// MARK: - Errors

/// The `StoreError` thrown by `body`; fails the test when it returns or throws something else.
func storeError<T>(_ body: () throws -> T,
                   file: StaticString = #filePath, line: UInt = #line) -> StoreError? {
    do {
        _ = try body()
        XCTFail("expected a StoreError, but nothing was thrown", file: file, line: line)
    } catch let e as StoreError {
        return e
    } catch {
        XCTFail("expected a StoreError, got \(error)", file: file, line: line)
    }
    return nil
}

/// The `StoreError` thrown by `body`; fails the test when it returns or throws something else.
func asyncStoreError<T>(_ body: () async throws -> T,
                   file: StaticString = #filePath, line: UInt = #line) async -> StoreError? {
    do {
        _ = try await body()
        XCTFail("expected a StoreError, but nothing was thrown", file: file, line: line)
    } catch let e as StoreError {
        return e
    } catch {
        XCTFail("expected a StoreError, got \(error)", file: file, line: line)
    }
    return nil
}

/// Asserts that `error` is `.corrupt` for `path` at `offset`, with a message naming the offset.
func assertCorrupt(_ error: StoreError?, path: String, offset: Int, _ context: String = "",
                   file: StaticString = #filePath, line: UInt = #line) {
    guard case .corrupt(let p, let o, _)? = error else {
        XCTFail("expected .corrupt at \(offset), got \(String(describing: error)) \(context)", file: file, line: line)
        return
    }
    XCTAssertEqual(p, path, context, file: file, line: line)
    XCTAssertEqual(o, offset, context, file: file, line: line)
    XCTAssertTrue("\(error!)".contains("at byte \(offset)"), "\(error!) \(context)", file: file, line: line)
    XCTAssertTrue("\(error!)".contains("nothing was written"), "\(error!) \(context)", file: file, line: line)
}

// MARK: - Fault injection

/// A `FileIO` that lets a budget of writes and syncs through and then fails them with a
/// given errno, optionally writing part of the bytes first (as a real full disk does).
final class FaultyDisk: @unchecked Sendable {
    private let lock = NSLock()
    private var writesLeft: Int?
    private var syncsLeft: Int?
    private var _writeCalls = 0
    private var _syncCalls = 0
    private var _failures = 0
    let writeErrno: Int32
    let syncErrno: Int32
    let partialWrites: Bool

    init(writesAllowed: Int? = nil, syncsAllowed: Int? = nil, writeErrno: Int32 = ENOSPC,
         syncErrno: Int32 = EIO, partialWrites: Bool = false) {
        writesLeft = writesAllowed
        syncsLeft = syncsAllowed
        self.writeErrno = writeErrno
        self.syncErrno = syncErrno
        self.partialWrites = partialWrites
    }

    var writeCalls: Int { lock.withLock { _writeCalls } }
    var syncCalls: Int { lock.withLock { _syncCalls } }
    var failures: Int { lock.withLock { _failures } }

    /// From now on, every write and sync succeeds (the disk was freed).
    func heal() { lock.withLock { writesLeft = nil; syncsLeft = nil } }
    /// From now on, writes fail (the disk is full).
    func fillUp() { lock.withLock { writesLeft = 0 } }

    private func take(_ budget: inout Int?) -> Bool {
        guard let left = budget else { return true }
        if left > 0 { budget = left - 1; return true }
        _failures += 1
        return false
    }

    var io: FileIO {
        FileIO(
            write: { fd, bytes, offset, path in
                let ok = self.lock.withLock { self._writeCalls += 1; return self.take(&self.writesLeft) }
                if ok { return try FileIO.live.write(fd, bytes, offset, path) }
                if self.partialWrites && bytes.count > 1 {
                    try FileIO.live.write(fd, Array(bytes.prefix(bytes.count / 2)), offset, path)
                }
                throw StoreError.io(operation: "write", path: path, errno: self.writeErrno)
            },
            sync: { fd, path in
                let ok = self.lock.withLock { self._syncCalls += 1; return self.take(&self.syncsLeft) }
                if ok { return try FileIO.live.sync(fd, path) }
                throw StoreError.io(operation: "sync", path: path, errno: self.syncErrno)
            })
    }
}

// MARK: - Events

/// The first event among the next `limit` events of `stream` that satisfies `matching`.
/// Returns nil when none does (or, as a guard against a hang, when no event arrives within
/// `timeout`; events of a finished write are already buffered, so this never waits on time).
func firstEvent(in stream: AsyncStream<RepositoryEvent>, limit: Int = 8, timeout: Duration = .seconds(20),
                matching: @escaping @Sendable (RepositoryEvent) -> Bool) async -> RepositoryEvent? {
    await withTaskGroup(of: RepositoryEvent?.self) { group in
        group.addTask {
            var seen = 0
            for await event in stream {
                if matching(event) { return event }
                seen += 1
                if seen >= limit { return nil }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

extension RepositoryEvent {
    var changedState: HabitState? { if case .changed(let s) = self { s } else { nil } }
    var warningText: String? { if case .warning(let w) = self { w.description } else { nil } }
}

/// `Tests/Fixtures`: the project's shared fixtures (legacy dump, Loop export, harsh files),
/// copied unchanged so that a clean clone tests on its own.
let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path
