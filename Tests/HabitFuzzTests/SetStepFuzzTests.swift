import Foundation
import XCTest
import HabitCore
@testable import HabitStore
@testable import HabitSync

/// Mutated bytes holding "set" steps (`Change.setProgress`, operation tag 13, and a state's
/// 0 step followed by a day total) fed to the decoders that read them: operations, states,
/// journal records and sync batches. Each refuses with its own error type or gives a value
/// that re-encodes to the same thing.
final class SetStepFuzzTests: XCTestCase {
    /// The seed operations with set steps among them: the day totals of three habits set,
    /// added to and set again (0, and the day's maximum, included).
    static let operations: [HabitOperation] = {
        let d = Seeds.day0
        let sets: [Change] = [
            .setProgress(Seeds.water, d, total: 5_000), .progress(Seeds.water, d, delta: 1_000),
            .setProgress(Seeds.water, d.adding(1), total: 0), .setProgress(Seeds.sweets, d.adding(3), total: 2_500),
            .setProgress(Seeds.read, d.adding(4), total: Limits.maxDayProgress), .progress(Seeds.read, d.adding(4), delta: -3_000),
        ]
        let changes = Array(Seeds.commits.joined()) + sets
        return changes.enumerated().map { i, change in
            HabitOperation(id: OpID(device: Seeds.device, seq: UInt64(i + 1)),
                           hlc: HLC(wallMillis: 1_800_000_000_000, counter: UInt32(i)), change: change)
        }
    }()

    static var state: HabitState {
        var s = HabitState()
        for op in operations { _ = s.apply(op) }
        return s
    }

    func testTheSeedsHoldSetStepsThatRoundTrip() throws {
        let state = Self.state
        XCTAssertEqual(state.progress(Seeds.water, Seeds.day0), 6_000)
        var r = ByteReader(state.encoded())
        XCTAssertEqual(try HabitState(decoding: &r), state)
    }

    func testMutatedSetStepOperationsAreRefusedOrReencodeAndApply() {
        let corpus = Self.operations.suffix(6).map { op -> [UInt8] in var w = ByteWriter(); w.operation(op); return w.bytes }
        var accepted = 0
        Fuzzer.run("set step operation", iterations: 20_000) { rng, label in
            var r = ByteReader(Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng))
            let op: HabitOperation
            do { op = try r.operation() } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
                return
            }
            accepted += 1
            var w = ByteWriter()
            w.operation(op)
            var again = ByteReader(w.bytes)
            XCTAssertEqual(try? again.operation(), op, "\(label): an accepted operation does not re-encode")
            var state = Self.state
            _ = state.apply(op)
            Check.stateRoundTrips(state, label)
        }
        XCTAssertGreaterThan(accepted, 20_000 * Fuzzer.factor / 20, "too few mutations decoded: the re-encoding went untested")
    }

    func testMutatedStatesWithSetStepsAreRefusedOrReencode() {
        let corpus = [Self.state.encoded()]
        Fuzzer.run("set step state", iterations: 10_000) { rng, label in
            var r = ByteReader(Fuzzer.mutate(corpus[0], corpus: corpus, rng: &rng))
            do {
                Check.stateRoundTrips(try HabitState(decoding: &r), label)
            } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
            }
        }
    }

    func testMutatedJournalRecordsWithSetStepsAreRefusedOrReencode() {
        let ops = Self.operations
        let corpus = [JournalEntry(ops: Array(ops.suffix(6)), inverse: [.progress(Seeds.water, Seeds.day0, delta: -5_000)],
                                   label: "set 'Drink water' to 5 on 2026-11-01").encoded()]
        var accepted = 0
        Fuzzer.run("set step journal record", iterations: 10_000) { rng, label in
            let input = Fuzzer.mutate(corpus[0], corpus: corpus, rng: &rng)
            do {
                let entry = try JournalEntry(decoding: input)
                accepted += 1
                XCTAssertEqual(try? JournalEntry(decoding: entry.encoded()), entry, "\(label): an accepted record does not re-encode")
            } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
            }
        }
        XCTAssertGreaterThan(accepted, 0)
    }

    func testMutatedBatchesWithSetStepsAreRefusedInOneLineOrReencode() {
        let ops = Self.operations
        let corpus = [BatchFile.encode(ops), BatchFile.encode(Array(ops.suffix(6)))]
        var accepted = 0
        Fuzzer.run("set step batch", iterations: 10_000) { rng, label in
            let which = Int.random(in: 0..<corpus.count, using: &rng)
            var input = Fuzzer.mutate(corpus[which], corpus: corpus, rng: &rng)
            if input.count > 4 {
                // A good checksum, so that the operations themselves are read.
                var w = ByteWriter()
                w.u32le(CRC32C.checksum(input, 0..<(input.count - 4)))
                input.replaceSubrange((input.count - 4)..., with: w.bytes)
            }
            let name = which == 0 ? BatchName(first: 1, last: UInt64(ops.count))!
                                  : BatchName(first: UInt64(ops.count - 5), last: UInt64(ops.count))!
            do {
                let decoded = try BatchFile.decode(input, device: Seeds.device, name: name)
                accepted += 1
                XCTAssertEqual(try? BatchFile.decode(BatchFile.encode(decoded), device: Seeds.device, name: name), decoded, label)
            } catch let error as RemoteError {
                Check.oneLine(error.description, label)
            } catch {
                XCTFail("\(label): refused with an unexpected error \(error)")
            }
        }
        XCTAssertGreaterThan(accepted, 0, "no mutated batch decoded: the re-encoding went untested")
    }

    /// What a version that does not know an operation kind does with a batch holding one:
    /// the batch is refused whole, in one line that names it and says to update, and nothing
    /// of it is applied (it stays on the remote for a newer version).
    func testABatchHoldingAnOperationKindThisVersionDoesNotKnowIsRefusedInOneLine() {
        var ops = Array(Self.operations.prefix(3))
        ops.append(HabitOperation(id: OpID(device: Seeds.device, seq: 4), hlc: HLC(wallMillis: 1_800_000_000_001, counter: 0),
                                  change: .delete(Seeds.water)))
        var bytes = BatchFile.encode(ops)
        // The last operation's kind (a delete, tag 3) becomes one no version has yet.
        var whole = ByteWriter(), head = ByteWriter()
        whole.operation(ops[3])
        head.opID(ops[3].id); head.hlc(ops[3].hlc)
        let tag = bytes.count - 4 - whole.bytes.count + head.bytes.count
        XCTAssertEqual(bytes[tag], 3)
        bytes[tag] = 200
        var crc = ByteWriter()
        crc.u32le(CRC32C.checksum(bytes, 0..<(bytes.count - 4)))
        bytes.replaceSubrange((bytes.count - 4)..., with: crc.bytes)
        XCTAssertThrowsError(try BatchFile.decode(bytes, device: Seeds.device, name: BatchName(first: 1, last: 4)!)) { error in
            let message = "\(error)"
            XCTAssertFalse(message.contains("\n"))
            XCTAssertTrue(message.contains("unknown operation kind 200 (written by a newer version of Habitto: update this one)"), message)
            XCTAssertTrue(message.contains("it was not applied"), message)
        }
    }
}
