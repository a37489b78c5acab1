import Foundation
import XCTest
import HabitCore
import HabitStore
@testable import HabitSync

/// The day the kit's check-ins are made on (and its habits start).
public let syncTestDay = LocalDay("2026-11-01")!

/// A test with a fresh temporary root for each test, removed afterwards: a folder remote in
/// `root/remote` (account `me`) and the data directory of each device the test makes.
open class SyncTestCase: XCTestCase {
    /// This test's temporary root.
    public var root = ""

    open override func setUpWithError() throws {
        try super.setUpWithError()
        root = NSTemporaryDirectory() + "habitto-\(type(of: self))-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/remote", withIntermediateDirectories: true)
    }

    open override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
        super.tearDown()
    }

    /// Removes everything under the root (the remote and every data directory) and makes the
    /// remote's folder again, empty: as a fresh root, for a test that runs several scenarios.
    public func emptyRoot() throws {
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root + "/remote", withIntermediateDirectories: true)
    }

    /// A device on the shared folder remote (or on `remote`, as WebDAV `user` with
    /// `password`): a repository in `root/name` and its engine, set to the remote. `now` is the
    /// time both read (the engine's clock is `clock` when given); with `faults` the engine's
    /// remote is a `FaultyRemote` wrapping the folder.
    public func device(_ name: String, now: (@Sendable () -> Date)? = nil, faults: FaultPlan? = nil,
                       clock: (any SyncClock)? = nil, remote: String? = nil, user: String? = nil,
                       password: String? = nil, watching: Bool = false) async throws -> (repo: HabitRepository, engine: SyncEngine) {
        let repo: HabitRepository, reading: any SyncClock
        if let now {
            repo = try HabitRepository(directory: root + "/" + name, now: now)
            reading = clock ?? LiveClock(now: now)
        } else {
            repo = try HabitRepository(directory: root + "/" + name)
            reading = clock ?? LiveClock()
        }
        let engine = try SyncEngine(repository: repo, clock: reading, faults: faults, access: RemoteAccess(password: { password }))
        // Rounds start by the test's clock and pokes alone; LiveSyncTests turn the watch on.
        await engine.setWatching(watching)
        try await engine.setRemote(remote ?? "dir:" + root + "/remote", account: "me", user: user)
        return (repo, engine)
    }

    /// A device on the shared folder remote whose remote is wrapped (with no faults; at most
    /// `batchSize` operations a batch when given) so that a test can step in between two calls.
    public func faultyDevice(_ name: String, batchSize: Int? = nil,
                             file: StaticString = #filePath, line: UInt = #line) async throws
        -> (repo: HabitRepository, engine: SyncEngine, remote: FaultyRemote) {
        var plan = FaultPlan()
        plan.maxBatchOperations = batchSize
        let (repo, engine) = try await device(name, faults: plan)
        return (repo, engine, try await faultyRemote(engine, file: file, line: line))
    }

    /// The `ops` folder of device `d` on the shared remote.
    public func opsFolder(_ d: DeviceID) -> String { root + "/remote/users/me/devices/\(d.rawValue)/ops" }

    /// The batches of `d` on the shared remote, sorted.
    public func files(_ d: DeviceID) throws -> [BatchName] {
        try FileManager.default.contentsOfDirectory(atPath: opsFolder(d)).compactMap(BatchName.init(fileName:)).sorted()
    }

    /// Batch files on the shared remote, of every device, each as `DEVICE/NAME` (the device's
    /// first 8 hex digits), sorted.
    public func remoteBatches() -> [String] {
        batchFileNames(inRemote: root + "/remote", account: "me", byDevice: true)
    }
}

/// The engine's remote, unwrapped as the `FaultyRemote` it is when the engine was given faults.
public func faultyRemote(_ engine: SyncEngine, file: StaticString = #filePath, line: UInt = #line) async throws -> FaultyRemote {
    let remote = try await engine.remote()
    return try XCTUnwrap(remote as? FaultyRemote, file: file, line: line)
}

/// Runs a round and fails the test when it reports an error or was skipped.
public func syncOK(_ engine: SyncEngine, file: StaticString = #filePath, line: UInt = #line) async {
    let report = await engine.syncOnce()
    XCTAssertNil(report.error, report.error ?? "", file: file, line: line)
    XCTAssertNil(report.skipped, file: file, line: line)
}

/// One check-in of habit `h` ("Water", from `syncTestDay`) on `syncTestDay`, after creating the
/// habit when `create` says so (when it is nil: when the habit is not there yet).
public func checkIn(_ repo: HabitRepository, _ h: HabitID, create: Bool? = nil) async throws {
    let creates: Bool
    if let create { creates = create } else { creates = await repo.state.habit(h) == nil }
    try await repo.commit { _, _ in
        (creates ? [.create(h, HabitFields(name: "Water", startDate: syncTestDay))] : []) + [.progress(h, syncTestDay, delta: 1)]
    }
}

/// The progress of habit `h` on `syncTestDay`.
public func progress(_ repo: HabitRepository, _ h: HabitID) async -> Int {
    await repo.state.progress(h, syncTestDay)
}

/// The names of the batch files in the folder remote at `remote`, of every device of `account`,
/// sorted; with `byDevice`, each as `DEVICE/NAME` (the device's first 8 hex digits).
public func batchFileNames(inRemote remote: String, account: String, byDevice: Bool) -> [String] {
    let devices = remote + "/users/\(account)/devices"
    return ((try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []).flatMap { d in
        ((try? FileManager.default.contentsOfDirectory(atPath: devices + "/" + d + "/ops")) ?? [])
            .filter { $0.hasSuffix(".batch") }.map { byDevice ? d.prefix(8) + "/" + $0 : $0 }
    }.sorted()
}

/// A folder remote that answers the next `count` writes of `device`'s batches and does not
/// keep them, as a write-back cache whose upload failed: each batch written is gone from the
/// device's `ops` folder before the remote's next batch call (a listing, read, write or
/// removal). `lost` lists the batches lost so far.
public final class LostWrites: @unchecked Sendable {
    private let lock = Lock()
    private var left: Int
    private var written: [BatchName] = []
    private var _lost: [BatchName] = []

    /// Loses the next `count` writes of `device` to `remote` (whose folder for the device is `ops`).
    public init(_ remote: FaultyRemote, device: DeviceID, ops: String, count: Int) {
        left = count
        remote.intercept = { [self] call in
            let gone = lock.withLock { () -> [BatchName] in
                defer { written = [] }
                return written
            }
            for batch in gone { try? FileManager.default.removeItem(atPath: ops + "/" + batch.fileName) }
            guard case .create(device, let batch) = call else { return }
            lock.withLock {
                guard left > 0 else { return }
                left -= 1
                written.append(batch)
                _lost.append(batch)
            }
        }
    }

    /// The batches answered and not kept so far, in order.
    public var lost: [BatchName] { lock.withLock { _lost } }
}
