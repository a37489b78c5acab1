import Foundation
import XCTest
@testable import HabitCore
@testable import HabitStore

/// A check-in's confirmation reads the tail of a habit's snapshot block without its checksum
/// (`DayBlock.columns(reading:count:from:)`), so damaged bytes reach that decoder unchecked.
/// Mutated blocks must be refused with a `DecodeError` (the caller then takes the checked
/// path) or give columns in strictly ascending day order; never a crash. Seeded; see `Fuzzer`.
final class BlockTailFuzzTests: XCTestCase {
    func testMutatedBlocksAreRefusedOrGiveOrderedColumns() {
        let corpus = Seeds.state.entries.values.map { DayBlock.encode($0.days) }.filter { $0.count > 8 }
        XCTAssertFalse(corpus.isEmpty)
        let days = Seeds.state.entries.values.flatMap { $0.days.keys }
        var decoded = 0
        Fuzzer.run("block tail", iterations: 20_000) { rng, label in
            let block = Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng)
            let from = Bool.random(using: &rng) ? days.randomElement(using: &rng)! : LocalDay(ordinal: Int.random(in: -1000...30_000, using: &rng))
            do {
                let c = try DayBlock.columns(reading: { Array(block[$0.clamped(to: 0..<block.count)]) }, count: block.count, from: from)
                decoded += 1
                // The rules binary-search these: days strictly ascending, progress never negative.
                for i in 0..<c.count {
                    XCTAssertGreaterThanOrEqual(c.progress(at: i), 0, label)
                    if i > 0 { XCTAssertLessThan(c.day(at: i - 1), c.day(at: i), label) }
                }
            } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
            }
        }
        XCTAssertGreaterThan(decoded, 0, "no mutation decoded: the ordered result went untested")
    }
}
