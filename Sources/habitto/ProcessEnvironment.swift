#if canImport(Glibc)
import Glibc
#endif

/// The process's environment as a dictionary, read once from the C library's `environ`
/// (Habitto never changes its own environment). Foundation's `ProcessInfo.environment`
/// made the runtime scan every protocol conformance of the binary the first time it was
/// read, in every command (`perf record`: about 0.1 ms of each start).
enum ProcessEnvironment {
    /// One variable, straight from the C library (no dictionary built: the first hashed
    /// collection of strings in a process costs the runtime's conformance lookups).
    static func value(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Every variable, for what passes the whole environment on.
    static let current: [String: String] = {
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
