import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// The first answer given to a waiting call (later ones are dropped), whichever comes
/// first: the call's result, its deadline, or going offline.
final class OneAnswer<T: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var given = false
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<T, any Error>?

    func give(_ r: Result<T, any Error>) {
        lock.lock()
        guard !given else { lock.unlock(); return }
        given = true
        if let w = waiter {
            waiter = nil
            lock.unlock()
            w.resume(with: r)
        } else {
            result = r
            lock.unlock()
        }
    }

    func wait(_ c: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let r = result {
            result = nil
            lock.unlock()
            c.resume(with: r)
        } else {
            waiter = c
            lock.unlock()
        }
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
