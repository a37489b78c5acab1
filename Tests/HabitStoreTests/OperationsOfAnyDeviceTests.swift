import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// What this device holds of another device, read back from the journal to send it again to
/// a remote that lost it: in order, consecutive, bounded.
final class OperationsOfAnyDeviceTests: StoreTestCase {

    func testAnotherDevicesPulledOperationsAreReadBackInOrderAndBounded() async throws {
        let a = try HabitRepository(directory: path("a"), now: Fixture.clock)
        let b = try HabitRepository(directory: path("b"), now: Fixture.clock)
        _ = try await a.commit(label: "create") { _, _ in [.create(Fixture.water, Fixture.fields("Water"))] }
        for _ in 0..<4 { _ = try await a.commit(label: "check") { _, _ in [.progress(Fixture.water, Fixture.day0, delta: 1)] } }
        let written = try await a.localOperations(afterSeq: 0, fromOffset: 0, limit: 100).ops
        XCTAssertEqual(written.count, 5)
        // Pulled in two records, with one of b's own in between.
        try await b.applyRemote(Array(written[0..<2]))
        _ = try await b.commit(label: "create") { _, _ in [.create(Fixture.read, Fixture.fields("Read"))] }
        try await b.applyRemote(Array(written[2...]))

        let all = try await b.operations(of: a.device, afterSeq: 0, limit: 100)
        XCTAssertEqual(all, written)
        let middle = try await b.operations(of: a.device, afterSeq: 1, limit: 2)
        XCTAssertEqual(middle.map(\.id.seq), [2, 3])
        let beyond = try await b.operations(of: a.device, afterSeq: 5, limit: 10)
        XCTAssertEqual(beyond, [])
        let none = try await b.operations(of: a.device, afterSeq: 0, limit: 0)
        XCTAssertEqual(none, [])
        let own = try await b.operations(of: b.device, afterSeq: 0, limit: 10)
        XCTAssertEqual(own.map(\.id), [OpID(device: b.device, seq: 1)], "this device's own are read the same way")
        let unknown = try await b.operations(of: DeviceID(hi: 9, lo: 9), afterSeq: 0, limit: 10)
        XCTAssertEqual(unknown, [])
        XCTAssertEqual(HabitRepository.maxOperationsRead, 10_000)
    }
}
