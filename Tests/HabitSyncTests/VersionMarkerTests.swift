import Foundation
import XCTest
import HabitCore
import HabitStore
@testable import HabitSync
import SyncTestKit

/// Each device leaves a marker naming the version of Habitto it ran in its `ops` folder, and
/// the others read it from the listings they make anyway.
final class VersionMarkerTests: SyncTestCase {
    /// A device on the shared remote that has added a habit of its own and synced it.
    func markedDevice(_ name: String) async throws -> (repo: HabitRepository, engine: SyncEngine) {
        let (repo, engine) = try await device(name)
        let h = HabitID(value: UInt64(name.unicodeScalars.first!.value))
        try await repo.commit { _, _ in [.create(h, HabitFields(name: "Walk " + name, startDate: LocalDay("2026-11-01")!))] }
        await syncOK(engine)
        return (repo, engine)
    }

    func markers(_ d: DeviceID) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: opsFolder(d)).filter { $0.hasSuffix(".version") }.sorted()
    }

    func version(of d: DeviceID, seenBy engine: SyncEngine) async -> String? {
        await engine.status().devices.first { $0.id == d }?.version ?? nil
    }

    func testEachDeviceMarksItsVersionOnceAndTheOthersSeeIt() async throws {
        let a = try await markedDevice("a"), b = try await markedDevice("b")
        XCTAssertEqual(try markers(a.repo.device), ["habitto-\(HabittoVersion.current).version"])
        _ = await b.engine.syncOnce()
        let seen = await version(of: a.repo.device, seenBy: b.engine)
        XCTAssertEqual(seen, HabittoVersion.current)
        // A marker of an earlier version is replaced by this one's in the next round.
        let ops = root + "/remote/users/me/devices/\(a.repo.device.rawValue)/ops"
        try FileManager.default.moveItem(atPath: ops + "/habitto-\(HabittoVersion.current).version", toPath: ops + "/habitto-0.1.9.version")
        _ = await b.engine.syncOnce()
        let old = await version(of: a.repo.device, seenBy: b.engine)
        XCTAssertEqual(old, "0.1.9")
        XCTAssertTrue(HabittoVersion.isOlder("0.1.9", than: HabittoVersion.oldestReader))
        _ = await a.engine.syncOnce()
        XCTAssertEqual(try markers(a.repo.device), ["habitto-\(HabittoVersion.current).version"])
        _ = await b.engine.syncOnce()
        let again = await version(of: a.repo.device, seenBy: b.engine)
        XCTAssertEqual(again, HabittoVersion.current)
    }

    /// Names from a hostile remote (mutations of a marker's name, random bytes made text):
    /// a name is taken as a marker only when it is exactly the marker of the version it
    /// gives, and a listing never shows one raw.
    func testMutatedMarkerNamesAreEitherExactMarkersOrNotMarkers() {
        var rng = SplitMix64(seed: 0x5EED_0028)
        let base = Array(RemoteEntries.versionMarker("0.2.0").utf8)
        let alphabet = Array("0123456789.-habitto/versionx\u{0}\u{1b}é ".utf8)
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0...Int.random(in: 0...3, using: &rng) {
                let at = Int.random(in: 0...bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where at < bytes.count: bytes.remove(at: at)
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                default: if at < bytes.count { bytes[at] = UInt8.random(in: 0...255, using: &rng) }
                }
            }
            let name = String(decoding: bytes, as: UTF8.self)
            if let v = RemoteEntries.versionOfMarker(name) {
                XCTAssertEqual(RemoteEntries.versionMarker(v), name)
                XCTAssertNotNil(HabittoVersion.parse(v))
            }
            let listing = RemoteEntries.batches([(name, .file)], device: DeviceID("0123456789abcdef0123456789abcdef")!)
            for line in listing.skipped {
                XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, line)
            }
        }
    }

    func testMarkerNamesAndVersionsAreReadStrictly() {
        XCTAssertEqual(RemoteEntries.versionOfMarker("habitto-0.2.0.version"), "0.2.0")
        XCTAssertEqual(RemoteEntries.versionOfMarker("habitto-10.20.30.version"), "10.20.30")
        for bad in ["habitto-0.2.version", "habitto-0.02.0.version", "habitto-0.2.0.0.version", "habitto-a.b.c.version",
                    "habitto-0.2.0", "x-0.2.0.version", "habitto-.version", "habitto-0.2.-1.version", "habitto-999999.0.0.version"] {
            XCTAssertNil(RemoteEntries.versionOfMarker(bad), bad)
        }
        XCTAssertTrue(HabittoVersion.isOlder("0.9.9", than: "0.10.0"))
        XCTAssertFalse(HabittoVersion.isOlder("0.10.0", than: "0.9.9"))
        XCTAssertFalse(HabittoVersion.isOlder("0.2.0", than: "0.2.0"))
        let listing = RemoteEntries.batches([("habitto-0.2.0.version", .file), ("habitto-0.1.0.version", .file), ("1-2.batch", .file),
                                             ("habitto-0.3.0.version", .folder)], device: DeviceID("0123456789abcdef0123456789abcdef")!)
        XCTAssertEqual(listing.versions, ["0.1.0", "0.2.0"])
        XCTAssertEqual(listing.items, [BatchName(first: 1, last: 2)!])
        XCTAssertEqual(listing.skipped.count, 1, "a folder under a marker's name is reported: \(listing.skipped)")
    }
}
