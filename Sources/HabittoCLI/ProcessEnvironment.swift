import FoundationEssentials
import Glibc
import HabitStore
import HabitSys

/// The process's environment as a dictionary, read once from the C library's `environ`
/// (Habitto never changes its own environment). Foundation's `ProcessInfo.environment`
/// made the runtime scan every protocol conformance of the binary the first time it was
/// read, in every command (`perf record`: about 0.1 ms of each start).
public enum ProcessEnvironment {
    /// One variable, straight from the C library (no dictionary built: the first hashed
    /// collection of strings in a process costs the runtime's conformance lookups).
    public static func value(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Every variable, for what passes the whole environment on.
    public static let current: [String: String] = {
        var out: [String: String] = [:]
        var entry = environ
        while let p = entry.pointee {
            let pair = String(cString: p)
            if let eq = pair.firstIndex(of: "="), out[String(pair[..<eq])] == nil {
                // The first of a repeated name wins, as getenv(3) reads it.
                out[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            entry += 1
        }
        return out
    }()
}

extension ProcessEnvironment {
    /// The user's home directory as Foundation's `NSHomeDirectory()` finds it: `HOME`, else
    /// the password database's entry for this user, else `/`.
    public static var homeDirectory: String {
        if let home = value("HOME"), !home.isEmpty { return home }
        var entry = passwd(), result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        if (try? sysCallReturningError("getpwuid_r") { getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) }) != nil,
           result != nil, let dir = entry.pw_dir {
            let home = String(cString: dir)
            if !home.isEmpty { return home }
        }
        return "/"
    }

    /// Runs `body` on a new thread with a stack of `stackSize` bytes (the UI loop's renders
    /// recurse deeper than a secondary thread's default allows). Returns false when the
    /// thread cannot be made.
    public static func startThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }
        let started = (try? sysCallReturningError("pthread_create") { pthread_create(&thread, &attributes, run, box) }) != nil
        if !started { Unmanaged<ThreadBody>.fromOpaque(box).release() }
        return started
    }

    /// The running executable's path (to find the bundled themes next to it).
    public static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// What a thread of `startThread` runs, passed through `pthread_create`'s pointer.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
