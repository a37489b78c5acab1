import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// The prompt segment's cache file is read on every prompt from a directory anything can
/// write to: random and mutated bytes must be a miss or exactly a line the writer makes for
/// that key (so a hit can only be what was stored). Seeded; see `Fuzzer`.
final class SegmentCacheFuzzTests: XCTestCase {
    func testMutatedCacheLinesAreMissesOrReencodeExactly() {
        let key = SegmentCache.Key(day: LocalDay("2026-11-21")!, weekStart: .monday,
                                   files: ["65024:1234:312:1795731396909983232:1795731396909983232", "-", "65024:99:40:1:2"])
        let entries = [SegmentCache.Entry(done: 0, due: 0, queue: nil, failed: false),
                       SegmentCache.Entry(done: 3, due: 5, queue: 12, failed: true),
                       SegmentCache.Entry(done: 100, due: 100, queue: 0, failed: false)]
        let corpus = entries.map { SegmentCache.encode($0, key: key) }
        var hits = 0
        Fuzzer.run("segment cache", iterations: 30_000) { rng, label in
            let input = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng) : Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, text: true, rng: &rng)
            guard let entry = SegmentCache.decode(input, key: key) else { return }
            hits += 1
            XCTAssertEqual(SegmentCache.encode(entry, key: key), input, "\(label): a line the writer would not write was accepted")
            XCTAssertTrue(entry.done <= entry.due && entry.done >= 0, label)
        }
        // Mutations that change nothing, or turn one count into another, must still decode.
        XCTAssertGreaterThan(hits, 0, "no mutation decoded: the re-encoding went untested")
    }
}
