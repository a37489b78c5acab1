import FoundationEssentials
import HabitCore
import HabitStore
import HabitSys

/// The time as sync reads it, and every wait sync makes: a remote call's deadline, the
/// background loop's pauses, the fault injection's latency. A test gives the engine a
/// `ManualClock` and moves time itself, so nothing in it waits for real time to pass.
public protocol SyncClock: Sendable {
    /// The instant now.
    func now() -> Date
    /// Returns once `seconds` have passed on this clock (at once for none); throws
    /// `CancellationError` as soon as the calling task is cancelled.
    func sleep(seconds: Double) async throws
}

/// The clock of a running program: it reads the time from a closure (the system's time,
/// or the fixed instant of `HABITTO_NOW`) and sleeps in real time.
public struct LiveClock: SyncClock {
    private let reading: @Sendable () -> Date

    /// A clock that reads the time from `now` and sleeps in real time.
    public init(now: @escaping @Sendable () -> Date = SystemClock.now) { reading = now }

    public func now() -> Date { reading() }

    public func sleep(seconds: Double) async throws {
        // Bounded so that the conversion to nanoseconds cannot overflow.
        try await Task.sleep(nanoseconds: UInt64(min(max(0, seconds), 1e9) * 1e9))
    }
}

/// A clock that moves only when told to, for tests. `advance(by:)` ends every sleep whose
/// deadline it passes, earliest deadline first; `waitUntil(_:)` lets a test wait until the
/// code under test waits on the clock as expected, instead of sleeping itself.
public final class ManualClock: SyncClock, @unchecked Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct Watcher {
        let id: UInt64
        let condition: @Sendable ([Date]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var current: Date
    private var sleepers: [Sleeper] = []
    private var watchers: [Watcher] = []
    private var lastID: UInt64 = 0

    /// A clock that reads `now` until it is advanced.
    public init(now: Date) { current = now }

    public func now() -> Date { lock.withLock { current } }

    public func sleep(seconds: Double) async throws {
        let id = newID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                lock.lock()
                // Checked under the lock: a cancellation after this finds the sleeper below.
                if Task.isCancelled {
                    lock.unlock()
                    c.resume(throwing: CancellationError())
                    return
                }
                guard seconds > 0 else {
                    lock.unlock()
                    c.resume()
                    return
                }
                sleepers.append(Sleeper(id: id, deadline: current.addingTimeInterval(seconds), continuation: c))
                let satisfied = takeSatisfiedWatchers()
                lock.unlock()
                for w in satisfied { w.continuation.resume(returning: true) }
            }
        } onCancel: {
            lock.lock()
            let cancelled = sleepers.firstIndex { $0.id == id }.map { sleepers.remove(at: $0) }
            let satisfied = takeSatisfiedWatchers()
            lock.unlock()
            cancelled?.continuation.resume(throwing: CancellationError())
            for w in satisfied { w.continuation.resume(returning: true) }
        }
    }

    /// Moves the time on by `seconds` and ends the sleeps whose deadline it reaches, the
    /// earliest first (those with one deadline in the order they began).
    public func advance(by seconds: Double) {
        lock.lock()
        current = current.addingTimeInterval(max(0, seconds))
        let now = current
        let due = sleepers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        sleepers.removeAll { $0.deadline <= now }
        let satisfied = takeSatisfiedWatchers()
        lock.unlock()
        for s in due { s.continuation.resume() }
        for w in satisfied { w.continuation.resume(returning: true) }
    }

    /// The deadlines of the sleeps waiting now, earliest first.
    public var deadlines: [Date] { lock.withLock { sleepers.map(\.deadline).sorted() } }

    /// Returns true once the deadlines of the sleeps waiting on this clock (earliest first)
    /// satisfy `condition`, or false if the calling task is cancelled first.
    public func waitUntil(_ condition: @escaping @Sendable (_ deadlines: [Date]) -> Bool) async -> Bool {
        let id = newID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                lock.lock()
                if condition(sleepers.map(\.deadline).sorted()) {
                    lock.unlock()
                    c.resume(returning: true)
                } else if Task.isCancelled {
                    lock.unlock()
                    c.resume(returning: false)
                } else {
                    watchers.append(Watcher(id: id, condition: condition, continuation: c))
                    lock.unlock()
                }
            }
        } onCancel: {
            let cancelled: Watcher? = lock.withLock {
                watchers.firstIndex { $0.id == id }.map { watchers.remove(at: $0) }
            }
            cancelled?.continuation.resume(returning: false)
        }
    }

    /// Returns true once at least `count` sleeps wait on this clock, or false if the calling
    /// task is cancelled first.
    public func waitUntilSleeping(_ count: Int) async -> Bool {
        await waitUntil { $0.count >= count }
    }

    /// The watchers whose condition now holds, taken off the list; call with `lock` held.
    private func takeSatisfiedWatchers() -> [Watcher] {
        guard !watchers.isEmpty else { return [] }
        let deadlines = sleepers.map(\.deadline).sorted()
        let satisfied = watchers.filter { $0.condition(deadlines) }
        watchers.removeAll { w in satisfied.contains { $0.id == w.id } }
        return satisfied
    }

    private func newID() -> UInt64 {
        lock.withLock {
            lastID += 1
            return lastID
        }
    }
}
