import XCTest
import HabitCore

/// The two decoder paths cleared dated registers added (issue 39, point 14): a clear
/// operation (tag 21, a habit, a day and a field index) and a cleared register in a state
/// (`ByteReader.datedRegisters`), read in this format and in the one before cleared
/// registers, which holds none. Each input is refused with a `DecodeError` or gives a value
/// that local input accepts and that re-encodes to the same thing.
final class ClearedRegisterFuzzTests: XCTestCase {
    func testRandomClearsAreRefusedOrValidAndApply() throws {
        let tag = OperationTag.clearFrom.rawValue
        var accepted = 0
        try Fuzzer.run("clear", iterations: 20_000) { rng, label in
            var w = ByteWriter()
            w.u8(tag)
            w.habit([Seeds.water, Seeds.read, HabitID(value: UInt64.random(in: 0 ... .max, using: &rng))].randomElement(using: &rng)!)
            if Bool.random(using: &rng) { w.day(Seeds.day0.adding(Int.random(in: -5...20, using: &rng))) } else {
                w.int(Int.random(in: Int(Int32.min)...Int(Int32.max), using: &rng))
            }
            // Mostly a small index (the rule fields are 3 to 6), now and then any byte.
            w.u8(Int.random(in: 0..<4, using: &rng) == 0 ? UInt8.random(in: 0 ... .max, using: &rng) : UInt8.random(in: 0...13, using: &rng))
            var bytes = w.bytes
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: bytes.removeLast(Int.random(in: 1...bytes.count, using: &rng))
            case 1: bytes = Fuzzer.mutate(bytes, rng: &rng)
            default: break
            }
            var r = ByteReader(bytes)
            let change: Change
            do { change = try r.change() } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
                return
            }
            guard case .clearFrom(_, _, let index) = change else { return }
            accepted += 1
            XCTAssertTrue(HabitRule.fieldIndices.contains(index), "\(label): index \(index)")
            XCTAssertNoThrow(try change.validate(), label)
            var again = ByteWriter()
            again.change(change)
            var back = ByteReader(again.bytes)
            XCTAssertEqual(try? back.change(), change, label)
            var state = Seeds.state
            Check.apply([change], to: &state)
            Check.stateRoundTrips(state, label)
        }
        XCTAssertGreaterThan(accepted, 20_000 * Fuzzer.factor / 20, "too few clears decoded: applying them went untested")
    }

    func testMutatedStatesWithClearedRegistersAreRefusedOrReencodeInEitherFormat() {
        let corpus = [Seeds.state.encoded()]
        var accepted = 0
        XCTAssertTrue(Seeds.state.entries.values.contains { $0.dated.values.contains { $0.value == nil } },
                      "the seed state holds a cleared register")
        Fuzzer.run("cleared state", iterations: 20_000) { rng, label in
            // Most mutations near the end, where the dated registers are.
            var input = corpus[0]
            let tail = min(input.count, 120)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = input.count - 1 - Int.random(in: 0..<tail, using: &rng)
                input[at] = Bool.random(using: &rng) ? UInt8.random(in: 0 ... .max, using: &rng) : input[at] ^ 0x80
            }
            if Int.random(in: 0..<4, using: &rng) == 0 { input = Fuzzer.mutate(input, rng: &rng) }
            let before = Bool.random(using: &rng)
            var r = ByteReader(input)
            r.format.clearedRegisters = !before
            do {
                let state = try HabitState(decoding: &r)
                accepted += 1
                if before {
                    XCTAssertFalse(state.entries.values.contains { $0.dated.values.contains { $0.value == nil } },
                                   "\(label): a cleared register read in the format before them")
                }
                Check.stateRoundTrips(state, label)
            } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
            }
        }
        XCTAssertGreaterThan(accepted, 20_000 * Fuzzer.factor / 20, "too few mutations decoded: the re-encoding went untested")
    }
}
