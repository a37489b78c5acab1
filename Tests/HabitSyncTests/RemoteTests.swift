import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitCore
import HabitStore
@testable import HabitSync
import SyncTestKit

// MARK: - Fixtures

/// Devices, operations and batches for the remote and batch tests.
enum RemoteFixture {
    static let habit = HabitID(value: 0xA1)
    static let day = LocalDay(year: 2026, month: 11, day: 1)!

    /// A device id whose last hex digits are `n`.
    static func device(_ n: UInt64) -> DeviceID { DeviceID(hi: 0, lo: n) }

    /// Valid operations of one device with the given sequence numbers, cycling through
    /// every kind of change (the first is a create).
    static func operations(device: DeviceID, seqs: ClosedRange<UInt64>) -> [HabitOperation] {
        seqs.map { seq in
            let change: Change
            switch (seq - seqs.lowerBound) % 8 {
            case 0: change = .create(habit, HabitFields(name: "Water ✓", icon: "💧", unit: "glasses", startDate: day, notes: "two\nlines"))
            case 1: change = .progress(habit, day, delta: 3)
            case 2: change = .set(habit, .schedule(.perWeek(3)))
            case 3: change = .skip(habit, day.adding(1), true)
            case 4: change = .rate(habit, day, 4)
            case 5: change = .delete(habit)
            case 6: change = .restore(habit, deleteOp: OpID(device: device, seq: seq - 1))
            default: change = .set(habit, .name("Water 2L"))
            }
            return HabitOperation(id: OpID(device: device, seq: seq), hlc: HLC(wallMillis: 1_000 + Int64(seq), counter: 0),
                                  change: change)
        }
    }

    /// A valid batch of `count` operations from `first`.
    static func batch(device: DeviceID, first: UInt64 = 1, count: UInt64 = 2) -> (BatchName, [UInt8]) {
        let ops = operations(device: device, seqs: first...(first + count - 1))
        return (BatchName(first: first, last: first + count - 1)!, BatchFile.encode(ops))
    }

    /// The batch file format written by hand, so tests can make batches the encoder would
    /// not: header fields that disagree with the operations, extra bytes before the checksum.
    /// A batch built by hand, as the encoder would not: version 3 with the seen vector `seen`
    /// as given (in any order, any devices), or version 2 (none) when `seen` is nil.
    static func handBuiltBatch(device: DeviceID, first: UInt64, last: UInt64, ops: [HabitOperation],
                               seen: [(DeviceID, UInt64)]? = [], trailing: [UInt8] = []) -> [UInt8] {
        var w = ByteWriter()
        w.raw(Array((seen == nil ? "HABITTO-BATCH\u{2}" : "HABITTO-BATCH\u{3}").utf8))
        w.device(device)
        w.u64le(first)
        w.u64le(last)
        if let seen {
            w.varint(UInt64(seen.count))
            for (d, s) in seen { w.device(d); w.u64le(s) }
        }
        w.varint(UInt64(ops.count))
        for op in ops { w.operation(op) }
        w.raw(trailing)
        w.u32le(CRC32C.checksum(w.bytes))
        return w.bytes
    }
}

// MARK: - DirectoryRemote

final class DirectoryRemoteTests: TemporaryFolderTestCase {
    private var remote: DirectoryRemote { DirectoryRemote(root: folder) }
    private let device = RemoteFixture.device(1)

    private func opsFolder(_ device: DeviceID, account: String = "alice") -> String {
        "\(folder)/users/\(account)/devices/\(device.rawValue)/ops"
    }

    func testLocationNamesTheFolder() {
        XCTAssertEqual(DirectoryRemote(root: "/srv/habits").location, "dir:/srv/habits")
        XCTAssertEqual(DirectoryRemote(root: "/srv/habits/").location, "dir:/srv/habits")
    }

    func testPrepareCreatesTheAccountFolderAndFormatFileAndIsIdempotent() async throws {
        let made = try await remote.prepare(account: "alice")
        XCTAssertEqual(entries(folder), ["users"])
        XCTAssertEqual(entries(folder + "/users/alice"), ["format"])
        let format = try XCTUnwrap(made)
        XCTAssertEqual(format.version, 2)
        let id = try XCTUnwrap(format.id)
        XCTAssertEqual(contents(folder + "/users/alice/format"), Array("habitto-sync 2 remote \(id)\n".utf8))

        let again = try await remote.prepare(account: "alice")
        XCTAssertEqual(again, format, "the same identity is read back")
        XCTAssertEqual(entries(folder + "/users/alice"), ["format"], "no temporary file is left behind")
        let devices = try await remote.devices(account: "alice")
        XCTAssertEqual(devices, [])
        // Another account, or the layout made again, has another identity.
        let other = try await remote.prepare(account: "bob")
        XCTAssertNotEqual(other?.id, id)
    }

    /// A remote written by an earlier version (`habitto-sync 1`) is moved to version 2 with
    /// an identity, in place.
    func testPrepareReplacesAVersionOneFormatWithVersionTwo() async throws {
        makeFolder(folder + "/users/alice")
        write(Array("habitto-sync 1\n".utf8), to: folder + "/users/alice/format")
        let format = try await remote.prepare(account: "alice")
        XCTAssertEqual(format?.version, 2)
        XCTAssertEqual(contents(folder + "/users/alice/format"), format?.bytes)
        XCTAssertEqual(entries(folder + "/users/alice"), ["format"])
    }

    func testPrepareRefusesANewerOrUnknownFormatAndLeavesItAlone() async throws {
        makeFolder(folder + "/users/alice")
        for (text, saying) in [("habitto-sync 3 remote 00\n", "this remote needs a newer habitto"),
                               ("habitto-sync 2\n", "not a habitto remote format"),
                               ("habitto-sync 2 remote XYZ\n", "not a habitto remote format"),
                               ("<html>\n", "not a habitto remote format")] {
            let other = Array(text.utf8)
            write(other, to: folder + "/users/alice/format")
            await assertRemoteError(.permanent, saying: folder + "/users/alice/format", saying) {
                try await remote.prepare(account: "alice")
            }
            XCTAssertEqual(contents(folder + "/users/alice/format"), other)
            XCTAssertEqual(entries(folder + "/users/alice"), ["format"])
        }
    }

    func testFormatFilesAreParsedStrictly() {
        let id = String(repeating: "ab", count: 16)
        XCTAssertEqual(RemoteFormat.parse(Array("habitto-sync 2 remote \(id)\n".utf8)), .readable(RemoteFormat(version: 2, id: id)))
        XCTAssertEqual(RemoteFormat.parse(Array("habitto-sync 1\n".utf8)), .readable(RemoteFormat(version: 1, id: nil)))
        XCTAssertEqual(RemoteFormat.parse(Array("habitto-sync 7 anything\n".utf8)), .newer(version: 7))
        for bad in ["habitto-sync 2 remote \(id)", "habitto-sync 02 remote \(id)\n", "habitto-sync 1 x\n",
                    "habitto-sync 2 remote \(id.uppercased())\n", "habitto-sync 2 remote \(id)0\n", "habitto-sync -1\n", ""] {
            XCTAssertEqual(RemoteFormat.parse(Array(bad.utf8)), .unknown, bad)
        }
        let a = RemoteFormat.fresh(), b = RemoteFormat.fresh()
        XCTAssertNotEqual(a.id, b.id)
        XCTAssertEqual(RemoteFormat.parse(a.bytes), .readable(a))
    }

    func testMissingRootIsPermanentAndNothingIsCreated() async throws {
        let missing = folder + "/not-mounted"
        let remote = DirectoryRemote(root: missing)
        await assertRemoteError(.permanent, saying: "remote folder \(missing) does not exist", "habitto remote set") {
            try await remote.prepare(account: "alice")
        }
        let (name, bytes) = RemoteFixture.batch(device: device)
        await assertRemoteError(.permanent, saying: "does not exist") {
            try await remote.create(account: "alice", device: self.device, batch: name, bytes: bytes)
        }
        await assertRemoteError(.permanent, saying: "does not exist") { try await remote.devices(account: "alice") }
        await assertRemoteError(.permanent, saying: "does not exist") {
            try await remote.batches(account: "alice", device: self.device)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }

    func testRootThatIsAFileIsPermanent() async throws {
        write([1], to: folder + "/plain")
        await assertRemoteError(.permanent, saying: "is not a folder") {
            try await DirectoryRemote(root: folder + "/plain").prepare(account: "alice")
        }
    }

    func testRelativeRootIsPermanentAndTouchesNothing() async throws {
        let remote = DirectoryRemote(root: "relative/habits")
        let (name, bytes) = RemoteFixture.batch(device: device)
        await assertRemoteError(.permanent, saying: "not an absolute path") { try await remote.prepare(account: "alice") }
        await assertRemoteError(.permanent, saying: "not an absolute path") {
            try await remote.create(account: "alice", device: self.device, batch: name, bytes: bytes)
        }
        await assertRemoteError(.permanent, saying: "not an absolute path") { try await remote.devices(account: "alice") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/relative"))
    }

    func testInvalidAccountNamesArePermanentAndTouchNothing() async throws {
        let (name, bytes) = RemoteFixture.batch(device: device)
        for account in ["", "../escape", "Alice", ".hidden", "a/b", String(repeating: "a", count: 65)] {
            await assertRemoteError(.permanent, saying: "is not valid") { try await remote.prepare(account: account) }
            await assertRemoteError(.permanent, saying: "is not valid") { try await remote.devices(account: account) }
            await assertRemoteError(.permanent, saying: "is not valid") {
                try await remote.batches(account: account, device: self.device)
            }
            await assertRemoteError(.permanent, saying: "is not valid") {
                try await remote.read(account: account, device: self.device, batch: name, maxBytes: 1 << 20)
            }
            await assertRemoteError(.permanent, saying: "is not valid") {
                try await remote.create(account: account, device: self.device, batch: name, bytes: bytes)
            }
        }
        XCTAssertEqual(entries(folder), [])
    }

    func testCreatedBatchReadsBackWithTheSameBytes() async throws {
        try await remote.prepare(account: "alice")
        let (name, bytes) = RemoteFixture.batch(device: device, first: 1, count: 3)
        let outcome = try await remote.create(account: "alice", device: device, batch: name, bytes: bytes)
        XCTAssertEqual(outcome, .created)
        XCTAssertEqual(contents(opsFolder(device) + "/1-3.batch"), bytes)

        let devices = try await remote.devices(account: "alice")
        XCTAssertEqual(devices, [device])
        let batches = try await remote.batches(account: "alice", device: device)
        XCTAssertEqual(batches, [name])
        let read = try await remote.read(account: "alice", device: device, batch: name, maxBytes: BatchFile.maxBytes)
        XCTAssertEqual(read, bytes)
        XCTAssertEqual(try BatchFile.decode(read, device: device, name: name),
                       RemoteFixture.operations(device: device, seqs: 1...3))
    }

    func testCreateWithoutPrepareMakesTheFolders() async throws {
        let (name, bytes) = RemoteFixture.batch(device: device)
        let outcome = try await remote.create(account: "bob", device: device, batch: name, bytes: bytes)
        XCTAssertEqual(outcome, .created)
        XCTAssertEqual(entries(opsFolder(device, account: "bob")), [name.fileName])
    }

    func testCreatingTheSameBatchAgainWithTheSameBytesIsAnAck() async throws {
        let (name, bytes) = RemoteFixture.batch(device: device)
        let first = try await remote.create(account: "alice", device: device, batch: name, bytes: bytes)
        let second = try await remote.create(account: "alice", device: device, batch: name, bytes: bytes)
        XCTAssertEqual([first, second], [.created, .alreadyThere])
        XCTAssertEqual(entries(opsFolder(device)), [name.fileName])
        XCTAssertEqual(contents(opsFolder(device) + "/" + name.fileName), bytes)
    }

    func testCreatingAnExistingBatchWithOtherBytesIsPermanentAndKeepsTheOriginal() async throws {
        let (name, bytes) = RemoteFixture.batch(device: device)
        _ = try await remote.create(account: "alice", device: device, batch: name, bytes: bytes)
        var flipped = bytes
        flipped[20] ^= 1
        for other in [flipped, Array(bytes.dropLast()), bytes + [0], [UInt8]()] {
            await assertRemoteError(.permanent, saying: "batch 1-2.batch of device 00000000", "already exists with different contents") {
                try await remote.create(account: "alice", device: self.device, batch: name, bytes: other)
            }
        }
        XCTAssertEqual(contents(opsFolder(device) + "/" + name.fileName), bytes)
        XCTAssertEqual(entries(opsFolder(device)), [name.fileName], "no temporary file is left behind")
    }

    func testDevicesListsOnlyRealDeviceFolders() async throws {
        let devices = folder + "/users/alice/devices"
        let real = [RemoteFixture.device(2), RemoteFixture.device(0xABC)]
        for d in real { makeFolder(devices + "/" + d.rawValue) }
        makeFolder(devices + "/ABC")
        makeFolder(devices + "/" + RemoteFixture.device(0xABC).rawValue.uppercased())
        makeFolder(devices + "/" + RemoteFixture.device(3).rawValue + "x")
        makeFolder(devices + "/..x")
        makeFolder(devices + "/.." + String(RemoteFixture.device(4).rawValue.dropFirst(2)))
        makeFolder(devices + "/\u{1B}[2J")
        write([1], to: devices + "/" + RemoteFixture.device(5).rawValue)
        makeFolder(folder + "/elsewhere")
        symlink(devices + "/" + RemoteFixture.device(6).rawValue, to: folder + "/elsewhere")
        symlink(devices + "/" + RemoteFixture.device(7).rawValue, to: "/nonexistent")

        let listed = try await remote.devices(account: "alice")
        XCTAssertEqual(listed, real.sorted())
        // Every entry left out is reported once, sanitised, saying what it is.
        let listing = try await remote.listDevices(account: "alice")
        XCTAssertEqual(listing.items, real.sorted())
        let d5 = RemoteFixture.device(5).rawValue, d6 = RemoteFixture.device(6).rawValue, d7 = RemoteFixture.device(7).rawValue
        XCTAssertEqual(Set(listing.skipped), [
            "devices/ABC: not a device id (32 lower-case hex digits)",
            "devices/\(RemoteFixture.device(0xABC).rawValue.uppercased()): not a device id (32 lower-case hex digits)",
            "devices/\(RemoteFixture.device(3).rawValue)x: not a device id (32 lower-case hex digits)",
            "devices/..x: not a device id (32 lower-case hex digits)",
            "devices/..\(RemoteFixture.device(4).rawValue.dropFirst(2)): not a device id (32 lower-case hex digits)",
            "devices/\u{FFFD}[2J: not a device id (32 lower-case hex digits)",
            "devices/\(d5): a file, not a folder",
            "devices/\(d6): a symbolic link, not a folder (links are never followed)",
            "devices/\(d7): a symbolic link, not a folder (links are never followed)",
        ])
        XCTAssertFalse(listing.skipped.joined().contains("\u{1B}"), "nothing from the remote is shown raw")
    }

    func testDevicesOfAnAccountWithoutDevicesIsEmpty() async throws {
        let none = try await remote.devices(account: "nobody")
        XCTAssertEqual(none, [])
        let batches = try await remote.batches(account: "nobody", device: device)
        XCTAssertEqual(batches, [])
    }

    func testBatchesListsOnlyRegularBatchFilesInOrder() async throws {
        let ops = opsFolder(device)
        makeFolder(ops)
        for name in ["10-12.batch", "3-9.batch", "1-2.batch"] { write([1], to: ops + "/" + name) }
        for junk in ["0-1.batch", "01-2.batch", "1-2.batch.tmp", ".tmp-123-abcdef", "notes.txt", "2-1.batch", "13-14.BATCH"] {
            write([1], to: ops + "/" + junk)
        }
        makeFolder(ops + "/13-13.batch")
        write([2], to: folder + "/outside")
        symlink(ops + "/14-14.batch", to: folder + "/outside")
        symlink(ops + "/15-15.batch", to: "/etc/passwd")

        let listed = try await remote.batches(account: "alice", device: device)
        XCTAssertEqual(listed.map(\.fileName), ["1-2.batch", "3-9.batch", "10-12.batch"])
        // The skipped ones are reported, except a temporary file of a write in progress.
        let listing = try await remote.listBatches(account: "alice", device: device)
        XCTAssertEqual(listing.items, listed)
        let at = "devices/00000000…/ops/"
        XCTAssertEqual(Set(listing.skipped), Set(["0-1.batch", "01-2.batch", "1-2.batch.tmp", "notes.txt", "2-1.batch", "13-14.BATCH"]
            .map { "\(at)\($0): not a batch name (FIRST-LAST.batch, numbered from 1)" } + [
            "\(at)13-13.batch: a folder, not a batch file",
            "\(at)14-14.batch: a symbolic link, not a batch file (links are never followed)",
            "\(at)15-15.batch: a symbolic link, not a batch file (links are never followed)",
        ]))
    }

    func testAFIFOOrDeviceFileUnderABatchNameIsReportedAndNeverOpened() async throws {
        let ops = opsFolder(device)
        makeFolder(ops)
        XCTAssertEqual(mkfifo(ops + "/1-1.batch", 0o600), 0)
        XCTAssertEqual(mkfifo(ops + "/0-0.batch", 0o600), 0)
        XCTAssertEqual(mkfifo(ops + "/.tmp-1-ab", 0o600), 0, "a FIFO is no temporary file of a write")
        let listing = try await remote.listBatches(account: "alice", device: device)
        XCTAssertEqual(listing.items, [])
        XCTAssertEqual(listing.skipped, [
            "devices/00000000…/ops/.tmp-1-ab: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "devices/00000000…/ops/0-0.batch: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "devices/00000000…/ops/1-1.batch: a FIFO (named pipe), not a batch file",
        ])
        // Reading it anyway (it was listed as a batch a moment before) fails at once: a FIFO
        // opened for reading would wait for a writer forever.
        let batch = try XCTUnwrap(BatchName(fileName: "1-1.batch"))
        await assertRemoteError(.permanent, saying: "is not a regular file (a FIFO (named pipe))", "was not read") {
            try await remote.read(account: "alice", device: self.device, batch: batch, maxBytes: 1 << 20)
        }
        // Creating a batch where a FIFO is fails the same way, and leaves it alone.
        await assertRemoteError(.permanent, saying: "not a regular file") {
            try await remote.create(account: "alice", device: self.device, batch: batch, bytes: RemoteFixture.batch(device: self.device, count: 1).1)
        }
        XCTAssertEqual(entries(ops), [".tmp-1-ab", "0-0.batch", "1-1.batch"], "no temporary file is left behind")
    }

    func testManySkippedEntriesAreReportedUpToALimit() async throws {
        let devices = folder + "/users/alice/devices"
        for i in 0..<(RemoteEntries.maxReported + 5) { makeFolder(devices + "/junk-\(i)") }
        let listing = try await remote.listDevices(account: "alice")
        XCTAssertEqual(listing.skipped.count, RemoteEntries.maxReported + 1)
        XCTAssertEqual(listing.skipped.last, "devices/: 5 more entries skipped")
    }

    func testSymbolicLinksBelowTheRootAreNeverFollowedAndWritingThroughOneIsPermanent() async throws {
        let outside = folder + "/outside"
        let root = folder + "/remote"
        let remote = DirectoryRemote(root: root)
        let (name, bytes) = RemoteFixture.batch(device: device)
        let ops = "\(root)/users/alice/devices/\(device.rawValue)/ops"
        // Each folder of the layout in turn is a link to a folder outside the remote.
        for (i, link) in ["\(root)/users", "\(root)/users/alice", "\(root)/users/alice/devices",
                          "\(root)/users/alice/devices/\(device.rawValue)", ops].enumerated() {
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: outside)
            makeFolder(outside)
            makeFolder((link as NSString).deletingLastPathComponent)
            symlink(link, to: outside)
            await assertRemoteError(.permanent, saying: link + " is a symbolic link", "never follows links", "Replace it with a real folder") {
                try await remote.create(account: "alice", device: self.device, batch: name, bytes: bytes)
            }
            if i <= 1 {
                await assertRemoteError(.permanent, saying: link + " is a symbolic link") { try await remote.prepare(account: "alice") }
            }
            if i <= 2 {
                await assertRemoteError(.permanent, saying: link + " is a symbolic link") { try await remote.devices(account: "alice") }
            }
            await assertRemoteError(.permanent, saying: link + " is a symbolic link") {
                try await remote.batches(account: "alice", device: self.device)
            }
            await assertRemoteError(.permanent, saying: link + " is a symbolic link") {
                try await remote.read(account: "alice", device: self.device, batch: name, maxBytes: 1 << 20)
            }
            XCTAssertEqual(entries(outside), [], "nothing was written through \(link)")
        }
        // A file where a folder should be is refused the same way.
        try FileManager.default.removeItem(atPath: root)
        makeFolder(root + "/users/alice/devices")
        write([1], to: root + "/users/alice/devices/" + device.rawValue)
        await assertRemoteError(.permanent, saying: "is a regular file, not a folder") {
            try await remote.create(account: "alice", device: self.device, batch: name, bytes: bytes)
        }
    }

    func testTheRootItselfMayBeALink() async throws {
        makeFolder(folder + "/real")
        symlink(folder + "/link", to: folder + "/real")
        let remote = DirectoryRemote(root: folder + "/link")
        try await remote.prepare(account: "alice")
        let (name, bytes) = RemoteFixture.batch(device: device)
        let outcome = try await remote.create(account: "alice", device: device, batch: name, bytes: bytes)
        XCTAssertEqual(outcome, .created)
        XCTAssertEqual(contents("\(folder)/real/users/alice/devices/\(device.rawValue)/ops/1-2.batch"), bytes)
    }

    func testReadRefusesAFileLargerThanTheLimit() async throws {
        let (name, bytes) = RemoteFixture.batch(device: device)
        _ = try await remote.create(account: "alice", device: device, batch: name, bytes: bytes)
        await assertRemoteError(.permanent, saying: "larger than the limit of \(bytes.count - 1)", "was not read") {
            try await remote.read(account: "alice", device: self.device, batch: name, maxBytes: bytes.count - 1)
        }
        let exact = try await remote.read(account: "alice", device: device, batch: name, maxBytes: bytes.count)
        XCTAssertEqual(exact, bytes)
    }

    func testReadRefusesSymlinksAndFolders() async throws {
        let ops = opsFolder(device)
        makeFolder(ops + "/2-2.batch")
        write(RemoteFixture.batch(device: device).1, to: folder + "/outside")
        symlink(ops + "/1-2.batch", to: folder + "/outside")
        for name in ["1-2.batch", "2-2.batch"] {
            let batch = try XCTUnwrap(BatchName(fileName: name))
            await assertRemoteError(.permanent, saying: "is not a regular file", "was not read") {
                try await remote.read(account: "alice", device: self.device, batch: batch, maxBytes: 1 << 20)
            }
        }
    }

    func testReadOfAMissingBatchIsPermanent() async throws {
        let (name, _) = RemoteFixture.batch(device: device)
        await assertRemoteError(.permanent, saying: "is missing") {
            try await remote.read(account: "alice", device: self.device, batch: name, maxBytes: 1 << 20)
        }
    }

    func testCreateOverASymlinkOrFolderIsRefusedAndLeavesThemAlone() async throws {
        let ops = opsFolder(device)
        makeFolder(ops + "/3-4.batch")
        write([9], to: folder + "/outside")
        symlink(ops + "/1-2.batch", to: folder + "/outside")
        let (name, bytes) = RemoteFixture.batch(device: device)
        await assertRemoteError(.permanent, saying: "not a regular file") {
            try await remote.create(account: "alice", device: self.device, batch: name, bytes: bytes)
        }
        let (folderName, folderBytes) = RemoteFixture.batch(device: device, first: 3)
        await assertRemoteError(.permanent, saying: "not a regular file") {
            try await remote.create(account: "alice", device: self.device, batch: folderName, bytes: folderBytes)
        }
        XCTAssertEqual(contents(folder + "/outside"), [9])
        XCTAssertEqual(entries(ops), ["1-2.batch", "3-4.batch"], "no temporary file is left behind")
    }

    func testCreateLeavesNoTemporaryFiles() async throws {
        for first in stride(from: UInt64(1), through: 9, by: 2) {
            let (name, bytes) = RemoteFixture.batch(device: device, first: first)
            let outcome = try await remote.create(account: "alice", device: device, batch: name, bytes: bytes)
            XCTAssertEqual(outcome, .created)
        }
        XCTAssertEqual(entries(opsFolder(device)), ["1-2.batch", "3-4.batch", "5-6.batch", "7-8.batch", "9-10.batch"])
    }

    func testConcurrentCreatesOfTheSameBatchEndWithOneFileAndOnlyAcks() async throws {
        let (name, bytes) = RemoteFixture.batch(device: device, count: 50)
        let remote = self.remote, device = self.device
        let outcomes = try await withThrowingTaskGroup(of: WriteOutcome.self) { group in
            for _ in 0..<8 {
                group.addTask { try await remote.create(account: "alice", device: device, batch: name, bytes: bytes) }
            }
            var all: [WriteOutcome] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        XCTAssertEqual(outcomes.count, 8)
        XCTAssertEqual(outcomes.filter { $0 == .created }.count, 1)
        XCTAssertEqual(outcomes.filter { $0 == .alreadyThere }.count, 7)
        XCTAssertEqual(entries(opsFolder(device)), [name.fileName])
        XCTAssertEqual(contents(opsFolder(device) + "/" + name.fileName), bytes)
    }
}

// MARK: - FaultyRemote

final class FaultPlanTests: XCTestCase {
    func testParseReadsEveryKey() throws {
        XCTAssertEqual(try FaultPlan.parse("latency=200ms,fail=0.2,lostack=0.1,unreachable"),
                       FaultPlan(latency: 0.2, failureRate: 0.2, lostAckRate: 0.1, unreachable: true))
        XCTAssertEqual(try FaultPlan.parse("latency=1.5s"), FaultPlan(latency: 1.5))
        XCTAssertEqual(try FaultPlan.parse(" fail = 1 , lostack=0 "), FaultPlan(failureRate: 1))
        XCTAssertEqual(try FaultPlan.parse("fail=0.5,fail=0.25"), FaultPlan(failureRate: 0.25), "the last one counts")
        XCTAssertEqual(try FaultPlan.parse(""), .none)
        XCTAssertEqual(try FaultPlan.parse("  "), .none)
    }

    func testDescriptionParsesBackToTheSamePlan() throws {
        let plan = FaultPlan(latency: 0.25, failureRate: 0.5, lostAckRate: 0.125, unreachable: true)
        XCTAssertEqual(plan.description, "latency=250ms,fail=0.5,lostack=0.125,unreachable")
        XCTAssertEqual(try FaultPlan.parse(plan.description), plan)
        XCTAssertEqual(FaultPlan.none.description, "none")
    }

    func testParseRejectsBadPartsNamingThemAndTheAcceptedKeys() {
        for bad in ["latency=200", "latency=fast", "latency=-1s", "latency=1e3ms", "latency=61s", "fail=1.5", "fail=-0.1",
                    "fail=nan", "fail=inf", "lostack=", "speed=3", "unreachable=yes", "fail", "fail=0.2,oops"] {
            XCTAssertThrowsError(try FaultPlan.parse(bad), bad) { error in
                guard let message = (error as? SyncSettingError)?.description else {
                    return XCTFail("expected a SyncSettingError, got \(error)")
                }
                let part = bad.split(separator: ",").last.map(String.init) ?? bad
                XCTAssertTrue(message.contains("'\(part)'"), "'\(message)' does not name '\(part)'")
                for key in ["latency=", "fail=", "lostack=", "unreachable"] {
                    XCTAssertTrue(message.contains(key), "'\(message)' does not mention \(key)")
                }
            }
        }
    }
}

final class FaultyRemoteTests: TemporaryFolderTestCase {
    private let device = RemoteFixture.device(1)

    func testLocationShowsTheWrappedRemoteAndTheFaults() {
        let faulty = FaultyRemote(DirectoryRemote(root: "/srv/habits"), plan: FaultPlan(failureRate: 0.2))
        XCTAssertEqual(faulty.location, "dir:/srv/habits (faults: fail=0.2)")
        faulty.plan = .none
        XCTAssertEqual(faulty.location, "dir:/srv/habits (faults: none)")
    }

    func testUnreachableRemoteFailsEveryCallTransientlyUntilItIsBack() async throws {
        let faulty = FaultyRemote(DirectoryRemote(root: folder), plan: FaultPlan(unreachable: true), seed: 1)
        let (name, bytes) = RemoteFixture.batch(device: device)
        await assertRemoteError(.transient, saying: "unreachable") { try await faulty.prepare(account: "alice") }
        await assertRemoteError(.transient, saying: "unreachable") { try await faulty.devices(account: "alice") }
        await assertRemoteError(.transient, saying: "unreachable") { try await faulty.batches(account: "alice", device: self.device) }
        await assertRemoteError(.transient, saying: "unreachable") {
            try await faulty.read(account: "alice", device: self.device, batch: name, maxBytes: 1 << 20)
        }
        await assertRemoteError(.transient, saying: "unreachable") {
            try await faulty.create(account: "alice", device: self.device, batch: name, bytes: bytes)
        }
        XCTAssertEqual(faulty.calls, 5)
        XCTAssertEqual(faulty.writes, 0)
        XCTAssertEqual(entries(folder), [], "nothing reached the folder")

        faulty.plan.unreachable = false
        try await faulty.prepare(account: "alice")
        let outcome = try await faulty.create(account: "alice", device: device, batch: name, bytes: bytes)
        XCTAssertEqual(outcome, .created)
        XCTAssertEqual(faulty.calls, 7)
        XCTAssertEqual(faulty.writes, 1)
    }

    func testLostAnswerWritesTheBatchAndTheRetryIsAnAck() async throws {
        let inner = DirectoryRemote(root: folder)
        let faulty = FaultyRemote(inner, plan: FaultPlan(lostAckRate: 1), seed: 7)
        let (name, bytes) = RemoteFixture.batch(device: device)
        await assertRemoteError(.transient, saying: "answer lost") {
            try await faulty.create(account: "alice", device: self.device, batch: name, bytes: bytes)
        }
        XCTAssertEqual(faulty.writes, 1)
        let written = try await inner.read(account: "alice", device: device, batch: name, maxBytes: 1 << 20)
        XCTAssertEqual(written, bytes)

        faulty.plan = .none
        let retry = try await faulty.create(account: "alice", device: device, batch: name, bytes: bytes)
        XCTAssertEqual(retry, .alreadyThere)
        XCTAssertEqual(faulty.writes, 1, "the retry wrote nothing")
        XCTAssertEqual(faulty.calls, 2)
    }

    func testSeededFailureRateFailsTheSameCallsOnEveryRun() async throws {
        try await DirectoryRemote(root: folder).prepare(account: "alice")
        func failures(seed: UInt64, rate: Double) async -> [Int] {
            let faulty = FaultyRemote(DirectoryRemote(root: folder), plan: FaultPlan(failureRate: rate), seed: seed)
            var failed: [Int] = []
            for i in 0..<200 {
                do {
                    _ = try await faulty.devices(account: "alice")
                } catch let error as RemoteError where error.kind == .transient && error.message.contains("injected failure") {
                    failed.append(i)
                } catch {
                    XCTFail("unexpected \(error)")
                }
            }
            XCTAssertEqual(faulty.calls, 200)
            return failed
        }
        let first = await failures(seed: 42, rate: 0.3)
        let again = await failures(seed: 42, rate: 0.3)
        let other = await failures(seed: 43, rate: 0.3)
        XCTAssertEqual(first, again, "the same seed fails the same calls")
        XCTAssertNotEqual(first, other, "another seed fails other calls")
        XCTAssertTrue((30...90).contains(first.count), "about 30% of 200 calls fail, got \(first.count)")
        let never = await failures(seed: 42, rate: 0)
        let always = await failures(seed: 42, rate: 1)
        XCTAssertEqual(never.count, 0)
        XCTAssertEqual(always.count, 200)
    }
}

// MARK: - RemoteEntries

/// The one place that sorts a remote folder's entries, as both remotes use it.
final class RemoteEntriesTests: XCTestCase {
    private let device = RemoteFixture.device(0xBEEF)

    func testTemporaryFilesOfWritesInProgressArePassedOverAndNothingElse() {
        let listing = RemoteEntries.batches([
            (".tmp-4242-9f3a", .file), (".syncthing.5-6.batch.tmp", .file), ("~syncthing~5-6.batch.tmp", .file),
            ("1-4.batch", .file), (".tmp-4242-9f3a-x", .file), (".tmp-abc-1", .file), (".tmp-1-2", .folder),
            ("5-6.batch", .folder), ("7-7.batch", .symbolicLink), ("8-8.batch", .other("a socket")),
        ], device: device)
        XCTAssertEqual(listing.items.map(\.fileName), ["1-4.batch"])
        let at = "devices/00000000…/ops/"
        XCTAssertEqual(listing.skipped, [
            "\(at).tmp-4242-9f3a-x: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "\(at).tmp-abc-1: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "\(at).tmp-1-2: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "\(at)5-6.batch: a folder, not a batch file",
            "\(at)7-7.batch: a symbolic link, not a batch file (links are never followed)",
            "\(at)8-8.batch: a socket, not a batch file",
        ])
    }

    func testNamesAreShownSanitisedAndCut() {
        let long = String(repeating: "x", count: 300)
        let listing = RemoteEntries.devices([("\u{1B}]0;pwn\u{7}\u{202E}", .folder), (long, .folder)])
        XCTAssertEqual(listing.items, [])
        XCTAssertEqual(listing.skipped[0], "devices/\u{FFFD}]0;pwn\u{FFFD}\u{FFFD}: not a device id (32 lower-case hex digits)")
        XCTAssertEqual(listing.skipped[1], "devices/\(String(repeating: "x", count: 64))…: not a device id (32 lower-case hex digits)")
        XCTAssertFalse(listing.skipped.joined().unicodeScalars.contains(where: Sanitize.isForbidden))
    }

    func testDevicesAreSortedAndOnlyFoldersCount() {
        let a = RemoteFixture.device(2), b = RemoteFixture.device(1)
        let listing = RemoteEntries.devices([(a.rawValue, .folder), (b.rawValue, .folder), (RemoteFixture.device(3).rawValue, .file)])
        XCTAssertEqual(listing.items, [b, a])
        XCTAssertEqual(listing.skipped, ["devices/\(RemoteFixture.device(3).rawValue): a file, not a folder"])
    }
}
