import Foundation
import XCTest
import HabitCore
import HabitStore
import HabitSync
import SyncTestKit

final class BatchNameTests: XCTestCase {
    func testBatchNameAcceptsCanonicalNames() {
        for (text, first, last) in [("1-1.batch", UInt64(1), UInt64(1)), ("17-1016.batch", 17, 1016),
                                    ("18446744073709551615-18446744073709551615.batch", .max, .max)] {
            let name = BatchName(fileName: text)
            XCTAssertEqual(name?.first, first, text)
            XCTAssertEqual(name?.last, last, text)
            XCTAssertEqual(name?.fileName, text, "a parsed name writes back the same file name")
        }
        XCTAssertEqual(BatchName(fileName: "17-1016.batch")?.count, 1000)
    }

    func testBatchNameRejectsZeroReversedPaddedPathTricksAndHugeNumbers() {
        let rejected = [
            "0-3.batch", "0-0.batch", "3-2.batch", "01-2.batch", "1-02.batch", "../1-2.batch", "1/1-2.batch",
            "1-2.batch/", "1-2.batch.tmp", ".tmp-1-2.batch", "a-b.batch", "1-2", "1-2.BATCH", ".batch", "-.batch",
            "1.batch", "1-2-3.batch", "-1-2.batch", "1--2.batch", "+1-2.batch", " 1-2.batch", "1-2 .batch",
            "1-\u{663}.batch", "\u{FF11}-2.batch", "1-2.batch\u{1B}", "",
            "18446744073709551616-18446744073709551616.batch", "1-18446744073709551616.batch",
            "999999999999999999999-999999999999999999999.batch",
        ]
        for text in rejected {
            XCTAssertNil(BatchName(fileName: text), "'\(text)' must not parse as a batch name")
        }
    }

    func testBatchNameRefusesAnEmptyOrReversedRange() {
        XCTAssertNil(BatchName(first: 0, last: 1))
        XCTAssertNil(BatchName(first: 5, last: 4))
        XCTAssertEqual(BatchName(first: 4, last: 4)?.fileName, "4-4.batch")
    }

    func testBatchNamesSortByFirstThenLastNumerically() {
        let names = ["10-12.batch", "2-9.batch", "2-3.batch", "1-1.batch"].compactMap(BatchName.init(fileName:))
        XCTAssertEqual(names.sorted().map(\.fileName), ["1-1.batch", "2-3.batch", "2-9.batch", "10-12.batch"])
    }
}

final class BatchFileTests: XCTestCase {
    func testBatchRoundTripsEveryKindOfChange() throws {
        let ops = RemoteFixture.operations(device: RemoteFixture.device(7), seqs: 5...12)
        let name = try XCTUnwrap(BatchName(first: 5, last: 12))
        let bytes = BatchFile.encode(ops)
        XCTAssertEqual(try BatchFile.decode(bytes, device: RemoteFixture.device(7), name: name), ops)
        XCTAssertEqual(BatchFile.encode(ops), bytes, "encoding is deterministic")
    }

    func testABatchWrittenInWholeUnitsDecodesIntoThousandthsAndCountsAsTheSameBatch() throws {
        // Pushed by the version before decimal amounts (see Tests/Fixtures/format-v1/make.sh).
        let devices = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format-v1/remote/users/fixture/devices").path
        let folder = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: devices).first)
        let device = try XCTUnwrap(DeviceID(folder))
        let name = try XCTUnwrap(BatchName(first: 1, last: 16))
        let old = Array(try Data(contentsOf: URL(fileURLWithPath: "\(devices)/\(folder)/ops/1-16.batch")))
        XCTAssertTrue(old.starts(with: Array("HABITTO-BATCH\u{1}".utf8)))
        let ops = try BatchFile.decode(old, device: device, name: name)
        let goals = ops.compactMap { op -> Int? in
            switch op.change {
            case .create(_, let f): return f.goal
            case .set(_, .goal(let g)): return g
            default: return nil
            }
        }
        XCTAssertEqual(goals, [8_000, 5_000, 2_000, 1_000, 3_000], "Drink water 8, Run 5, Coffee 2, Read 1, then Run 3")
        let deltas = ops.compactMap { op -> Int? in if case .progress(_, _, let d) = op.change { return d } else { return nil } }
        XCTAssertEqual(deltas, [8_000, 5_000, 1_000, 3_000, 3_000, 4_000, 1_000, 1_000, -1_000])
        // Written again today the same operations have other bytes, and are the same batch.
        let today = BatchFile.encode(ops)
        XCTAssertNotEqual(today, old)
        XCTAssertTrue(today.starts(with: Array("HABITTO-BATCH\u{3}".utf8)))
        XCTAssertTrue(BatchAck.acknowledges(old, today, device: device, name: name))
        var other = ops
        other[other.count - 1] = HabitOperation(id: ops[ops.count - 1].id, hlc: ops[ops.count - 1].hlc,
                                                change: .delete(HabitID(value: 1)))
        XCTAssertFalse(BatchAck.acknowledges(old, BatchFile.encode(other), device: device, name: name))
    }

    func testHandBuiltBatchMatchesTheEncoder() throws {
        // Checks the hand builder the other tests use to make batches the encoder would not.
        let ops = RemoteFixture.operations(device: RemoteFixture.device(1), seqs: 1...3)
        XCTAssertEqual(RemoteFixture.handBuiltBatch(device: RemoteFixture.device(1), first: 1, last: 3, ops: ops),
                       BatchFile.encode(ops))
    }

    func testDecodeRejectsEveryFlippedByte() throws {
        let device = RemoteFixture.device(1)
        let ops = RemoteFixture.operations(device: device, seqs: 1...2)
        let name = try XCTUnwrap(BatchName(first: 1, last: 2))
        let bytes = BatchFile.encode(ops)
        var rejected = 0
        for i in bytes.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var copy = bytes
                copy[i] ^= mask
                do {
                    let decoded = try BatchFile.decode(copy, device: device, name: name)
                    XCTAssertEqual(decoded, ops, "byte \(i) ^ \(mask) decoded to something else")
                } catch let error as RemoteError {
                    XCTAssertEqual(error.kind, .permanent)
                    XCTAssertTrue(error.message.contains("batch 1-2.batch"), error.message)
                    rejected += 1
                }
            }
        }
        XCTAssertEqual(rejected, bytes.count * 3, "a CRC-32C catches every single-byte change")
    }

    func testDecodeRejectsABatchFromAnotherDevice() throws {
        let ops = RemoteFixture.operations(device: RemoteFixture.device(1), seqs: 1...2)
        let name = try XCTUnwrap(BatchName(first: 1, last: 2))
        try assertRejected(BatchFile.encode(ops), device: RemoteFixture.device(2), name: name, because: "another device")
    }

    func testDecodeRejectsANameThatDoesNotMatchTheContents() throws {
        let device = RemoteFixture.device(1)
        let bytes = BatchFile.encode(RemoteFixture.operations(device: device, seqs: 1...2))
        for (first, last) in [(UInt64(1), UInt64(3)), (2, 2), (2, 3)] {
            let name = try XCTUnwrap(BatchName(first: first, last: last))
            try assertRejected(bytes, device: device, name: name, because: "do not match its name")
        }
    }

    func testDecodeRejectsAnOperationWhoseChangeBreaksTheRules() throws {
        let device = RemoteFixture.device(1)
        let evil = HabitOperation(id: OpID(device: device, seq: 1), hlc: HLC(wallMillis: 1_000, counter: 0),
                                  change: .create(RemoteFixture.habit, HabitFields(name: "Wa\u{1B}[2Jter", startDate: RemoteFixture.day)))
        let bytes = RemoteFixture.handBuiltBatch(device: device, first: 1, last: 1, ops: [evil])
        let name = try XCTUnwrap(BatchName(first: 1, last: 1))
        try assertRejected(bytes, device: device, name: name, because: "operation 1")
        let error = try XCTUnwrap(catchRemoteError { try BatchFile.decode(bytes, device: device, name: name) })
        XCTAssertFalse(error.message.unicodeScalars.contains("\u{1B}"), "the message must not carry the escape: \(error.message)")
    }

    func testDecodeRejectsOperationsOutOfSequence() throws {
        let device = RemoteFixture.device(1)
        let ops = RemoteFixture.operations(device: device, seqs: 1...3)
        let bytes = RemoteFixture.handBuiltBatch(device: device, first: 1, last: 2, ops: [ops[0], ops[2]])
        try assertRejected(bytes, device: device, name: try XCTUnwrap(BatchName(first: 1, last: 2)), because: "out of sequence")
    }

    func testDecodeRejectsTrailingBytesBeforeTheChecksum() throws {
        let device = RemoteFixture.device(1)
        let ops = RemoteFixture.operations(device: device, seqs: 1...1)
        let bytes = RemoteFixture.handBuiltBatch(device: device, first: 1, last: 1, ops: ops, trailing: [0])
        try assertRejected(bytes, device: device, name: try XCTUnwrap(BatchName(first: 1, last: 1)), because: "trailing bytes")
    }

    func testDecodeRejectsEveryTruncation() throws {
        let device = RemoteFixture.device(1)
        let bytes = BatchFile.encode(RemoteFixture.operations(device: device, seqs: 1...3))
        let name = try XCTUnwrap(BatchName(first: 1, last: 3))
        for length in 0..<bytes.count {
            let error = catchRemoteError { try BatchFile.decode(Array(bytes.prefix(length)), device: device, name: name) }
            XCTAssertEqual(error?.kind, .permanent, "a batch cut to \(length) of \(bytes.count) bytes must be rejected")
        }
    }

    func testDecodeRejectsABatchLargerThanTheLimitEvenWithAValidChecksum() throws {
        let device = RemoteFixture.device(1)
        // Without the size check this would be caught as trailing bytes: the limit comes first.
        let ops = RemoteFixture.operations(device: device, seqs: 1...1)
        let padding = [UInt8](repeating: 0, count: BatchFile.maxBytes)
        let bytes = RemoteFixture.handBuiltBatch(device: device, first: 1, last: 1, ops: ops, trailing: padding)
        XCTAssertGreaterThan(bytes.count, BatchFile.maxBytes)
        try assertRejected(bytes, device: device, name: try XCTUnwrap(BatchName(first: 1, last: 1)), because: "not a batch file")
    }

    func testDecodeRejectsFilesThatAreNotBatches() throws {
        let name = try XCTUnwrap(BatchName(first: 1, last: 1))
        for bytes in [[], Array("hello, this is not a batch file".utf8), [UInt8](repeating: 0, count: 64)] {
            try assertRejected(bytes, device: RemoteFixture.device(1), name: name, because: "not a batch file")
        }
    }

    // MARK: What the writer had seen

    func testABatchCarriesWhatItsWriterHadSeenOfEveryOtherDevice() throws {
        let device = RemoteFixture.device(7)
        let ops = RemoteFixture.operations(device: device, seqs: 1...3)
        let name = try XCTUnwrap(BatchName(first: 1, last: 3))
        let seen: [DeviceID: UInt64] = [RemoteFixture.device(9): 140, RemoteFixture.device(2): 7, device: 3, RemoteFixture.device(4): 0]
        let bytes = BatchFile.encode(ops, seen: seen)
        XCTAssertTrue(bytes.starts(with: Array("HABITTO-BATCH\u{3}".utf8)))
        let read = try BatchFile.read(bytes, device: device, name: name)
        XCTAssertEqual(read.operations, ops)
        XCTAssertEqual(read.seen, [RemoteFixture.device(9): 140, RemoteFixture.device(2): 7],
                       "its own device and zeros are left out")
        XCTAssertEqual(BatchFile.encode(ops, seen: seen), bytes, "encoding is deterministic")
        let many = Dictionary(uniqueKeysWithValues: (100..<400).map { (RemoteFixture.device(UInt64($0)), UInt64($0)) })
        let most = try BatchFile.read(BatchFile.encode(ops, seen: many), device: device, name: name).seen
        XCTAssertEqual(most.count, BatchFile.maxSeenDevices)
        XCTAssertEqual(most.keys.sorted().first, RemoteFixture.device(100), "the first in id order are kept")
    }

    func testAVersion2BatchIsReadWithNothingSeenAndAcknowledgesTheSameOperations() throws {
        let device = RemoteFixture.device(7)
        let ops = RemoteFixture.operations(device: device, seqs: 1...3)
        let name = try XCTUnwrap(BatchName(first: 1, last: 3))
        let old = RemoteFixture.handBuiltBatch(device: device, first: 1, last: 3, ops: ops, seen: nil)
        XCTAssertEqual(try BatchFile.read(old, device: device, name: name), BatchFile.Contents(operations: ops, seen: [:]))
        let today = BatchFile.encode(ops, seen: [RemoteFixture.device(9): 5])
        XCTAssertTrue(BatchAck.acknowledges(old, today, device: device, name: name))
        XCTAssertTrue(BatchAck.acknowledges(BatchFile.encode(ops, seen: [RemoteFixture.device(9): 6]), today, device: device, name: name),
                      "what is acknowledged is the operations: a retry that has seen more since is an ack")
        XCTAssertFalse(BatchAck.acknowledges(BatchFile.encode(RemoteFixture.operations(device: device, seqs: 2...4).map {
            HabitOperation(id: OpID(device: device, seq: $0.id.seq - 1), hlc: $0.hlc, change: $0.change)
        }), today, device: device, name: name))
    }

    func testASeenVectorThatIsNotStrictlyBoundedAndOrderedIsRefused() throws {
        let device = RemoteFixture.device(7)
        let ops = RemoteFixture.operations(device: device, seqs: 1...1)
        let name = try XCTUnwrap(BatchName(first: 1, last: 1))
        let (a, b) = (RemoteFixture.device(1), RemoteFixture.device(2))
        let cases: [([(DeviceID, UInt64)], String)] = [
            ([(b, 3), (a, 4)], "not in device order"),
            ([(a, 3), (a, 4)], "not in device order"),
            ([(device, 3)], "names its own device"),
            ([(a, 0)], "holds a zero"),
            ((1...201).map { (RemoteFixture.device(UInt64($0) + 10), UInt64(1)) }, "out of range"),
        ]
        for (seen, reason) in cases {
            try assertRejected(RemoteFixture.handBuiltBatch(device: device, first: 1, last: 1, ops: ops, seen: seen),
                               device: device, name: name, because: reason)
        }
        let fine = (1...200).map { (RemoteFixture.device(UInt64($0) + 10), UInt64($0)) }
        XCTAssertEqual(try BatchFile.read(RemoteFixture.handBuiltBatch(device: device, first: 1, last: 1, ops: ops, seen: fine),
                                          device: device, name: name).seen.count, 200)
    }

    // MARK: Helpers

    private func assertRejected(_ bytes: [UInt8], device: DeviceID, name: BatchName, because reason: String,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let error = try XCTUnwrap(catchRemoteError { try BatchFile.decode(bytes, device: device, name: name) },
                                  "the batch was accepted", file: file, line: line)
        XCTAssertEqual(error.kind, .permanent, file: file, line: line)
        XCTAssertTrue(error.message.contains(reason), "'\(error.message)' does not say '\(reason)'", file: file, line: line)
        XCTAssertTrue(error.message.contains("was not applied"), error.message, file: file, line: line)
    }
}
