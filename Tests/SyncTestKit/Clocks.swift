import Foundation
import XCTest
import HabitCore
import HabitSync
import HabitStore

/// Runs `body` until it returns, cancelling it after `seconds` of real time: a watchdog, so
/// that a broken test fails instead of hanging. Returns what `body` returned (a cancelled
/// body returns false).
public func within(_ seconds: Double = 10, _ body: @escaping @Sendable () async -> Bool) async -> Bool {
    let work = Task { await body() }
    let watchdog = Task {
        do { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) } catch { return }
        work.cancel()
    }
    let result = await work.value
    watchdog.cancel()
    return result
}

extension ManualClock {
    /// Waits until at least `count` sleeps wait on this clock (a remote call with injected
    /// latency makes two: its deadline and its latency).
    public func sleeping(_ count: Int, file: StaticString = #filePath, line: UInt = #line) async {
        let ok = await within { await self.waitUntilSleeping(count) }
        XCTAssertTrue(ok, "\(count) sleeps never waited on the clock (waiting: \(deadlines.count))", file: file, line: line)
    }

    /// Waits until the sleeps waiting on this clock are exactly those ending `seconds` from
    /// now.
    public func waiting(_ seconds: [Double], file: StaticString = #filePath, line: UInt = #line) async {
        let start = now()
        let expected = seconds.map { start.addingTimeInterval($0) }.sorted()
        let ok = await within { await self.waitUntil { $0 == expected } }
        XCTAssertTrue(ok, "sleeps ending in \(deadlines.map { $0.timeIntervalSince(start) }) s waited on the clock, not \(seconds)",
                      file: file, line: line)
    }

    /// Lets `count` remote calls with injected `latency` through, one after another.
    public func answer(_ count: Int, latency: Double, file: StaticString = #filePath, line: UInt = #line) async {
        for _ in 0..<count {
            await sleeping(2, file: file, line: line)
            advance(by: latency)
        }
    }
}

/// The value of `round`. With `latency`, each time a remote call waits on the clock (for
/// its deadline and its latency) the clock moves on by `latency`, so every call's latency
/// passes and no deadline does; without, the clock stays where it is. A round still running
/// after the watchdog's time fails the test, and the clock then moves on until it ends, so
/// a broken engine fails the test instead of hanging it.
public func ended<T: Sendable>(_ round: Task<T, Never>, clock: ManualClock, advancing latency: Double? = nil,
                        file: StaticString = #filePath, line: UInt = #line) async -> T {
    let driver = Task {
        guard let latency else { return }
        while await clock.waitUntilSleeping(2) { clock.advance(by: latency) }
    }
    let watchdog = Task {
        do { try await Task.sleep(nanoseconds: 10_000_000_000) } catch { return }
        XCTFail("the round did not end", file: file, line: line)
        while !Task.isCancelled {
            clock.advance(by: 3600)
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }
    let value = await round.value
    driver.cancel()
    watchdog.cancel()
    return value
}

/// Waits for a status update that satisfies `condition` (from the engine's own stream).
public func waitForStatus(_ engine: SyncEngine, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                          _ condition: @escaping @Sendable (SyncStatus) -> Bool) async {
    let stream = await engine.updates()
    let ok = await within {
        for await s in stream where condition(s) { return true }
        return false
    }
    XCTAssertTrue(ok, "no status update showed \(what)", file: file, line: line)
}

/// A count shared with a `@Sendable` closure.
public final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var n = 0
    /// Adds one; returns the count before.
    public init() {}
    @discardableResult public func add() -> Int { lock.withLock { defer { n += 1 }; return n } }
    public var value: Int { lock.withLock { n } }
}
