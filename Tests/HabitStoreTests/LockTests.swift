import Foundation
import XCTest
import HabitStore

/// `Lock`, the mutex that stands in for Foundation's `NSLock` (docs/architecture.md).
final class LockTests: XCTestCase {
    func testLockExcludes() {
        let lock = Lock()
        final class Counter: @unchecked Sendable { var value = 0 }
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { lock.withLock { counter.value += 1 } }
        }
        XCTAssertEqual(counter.value, 80_000)
    }
}
