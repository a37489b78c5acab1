import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// The round was stopped by going offline (here or in another process).
struct RoundStopped: Error {}

/// Every remote call of a round goes through one gate: a call ends when it answers, when
/// its time limit passes on the clock (a transient error: the round ends `unreachable`), or
/// at once when the user goes offline (`RoundStopped`: the call is cancelled and its answer
/// ignored). "Offline?" is decided here, from the switch this process set and from the small
/// settings file another process may have changed, before every call.
final class RemoteCalls: @unchecked Sendable {
    private let clock: any SyncClock
    private let paths: DataPaths
    private let lock = Lock()
    // Guarded by `lock`.
    private var stopped = false
    private var abandon: (@Sendable () -> Void)?
    private var seconds: Double

    init(clock: any SyncClock, paths: DataPaths, limit: Double) {
        self.clock = clock
        self.paths = paths
        seconds = limit
    }

    /// How long one call may take (seconds).
    var limit: Double {
        get { lock.withLock { seconds } }
        set { lock.withLock { seconds = max(0.01, newValue) } }
    }

    /// A round starts: the offline switch decides again.
    func start() { lock.withLock { stopped = false } }

    /// The user went offline: the call in flight is abandoned, and no other one starts.
    func stop() {
        let pending = lock.withLock { () -> (@Sendable () -> Void)? in
            stopped = true
            return abandon
        }
        pending?()
    }

    /// Throws `RoundStopped` when the user went offline, here or in another process (read
    /// from the settings file alone, whatever `sync.json` has grown to).
    func checkNotStopped() throws {
        if lock.withLock({ stopped }) || (try? RemoteSettings.load(paths))??.offline == true {
            lock.withLock { stopped = true }
            throw RoundStopped()
        }
    }

    /// Runs one remote call through the gate.
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try checkNotStopped()
        let answer = OneAnswer<T>()
        let work = Task { answer.give(await Result(catching: { try await body() })) }
        let limit = self.limit, clock = clock
        let timer = Task {
            do { try await clock.sleep(seconds: limit) } catch { return }
            answer.give(.failure(RemoteError.unreachable("the remote did not answer within \(Int(limit.rounded(.up))) s")))
            work.cancel()
        }
        lock.withLock {
            abandon = {
                answer.give(.failure(RoundStopped()))
                work.cancel()
            }
        }
        defer {
            timer.cancel()
            lock.withLock { abandon = nil }
        }
        return try await withCheckedThrowingContinuation { answer.wait($0) }
    }
}

/// One round at a time per data directory, across processes: the lock file `sync.lock`,
/// taken without waiting (a round that finds it held is skipped, not queued).
struct RoundLock {
    private let fd: Int32

    /// The lock, or nil when another process holds it; throws when the file cannot be opened.
    static func take(_ paths: DataPaths) throws -> RoundLock? {
        let path = paths.directory + "/sync.lock"
        let fd: Int32
        do { fd = try sysCall("open") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) } } catch {
            throw StoreError.config("cannot open \(path): \(error.reason)")
        }
        guard (try? Sys.tryLock(fd, path: path)) == true else { Sys.close(fd); return nil }
        return RoundLock(fd: fd)
    }

    /// The lock, waiting at most `seconds` while another process holds it; nil when it is
    /// still held then.
    static func wait(_ paths: DataPaths, seconds: Double) throws -> RoundLock? {
        let path = paths.directory + "/sync.lock"
        let fd: Int32
        do { fd = try sysCall("open") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) } } catch {
            throw StoreError.config("cannot open \(path): \(error.reason)")
        }
        do { try Sys.lock(fd, path: path, name: "the sync lock", timeLimit: seconds) } catch {
            Sys.close(fd)
            return nil
        }
        return RoundLock(fd: fd)
    }

    func release() {
        Sys.unlock(fd)
        Sys.close(fd)
    }
}
