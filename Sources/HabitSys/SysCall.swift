#if canImport(Glibc)
import Glibc
#endif

/// A system call that failed: which one, and the error number it set.
public struct SysError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C function's name ("open", "waitpid", …).
    public let call: String
    /// The `errno` it left.
    public let errno: Int32

    public init(call: StaticString, errno: Int32) {
        self.call = call.description
        self.errno = errno
    }

    /// The system's words for the error number ("No such file or directory").
    public var reason: String { String(cString: strerror(errno)) }

    /// "open: No such file or directory".
    public var description: String { "\(call): \(reason)" }
}

/// Runs the system call `body`, again while it fails with EINTR (a signal arrived before it
/// finished: nothing was done), and returns its result; any other failure (`-1`) throws
/// `SysError` naming `name` and the error number. Not for `close`, which must never be
/// retried: see `sysClose`.
@discardableResult
public func sysCall<T: FixedWidthInteger>(_ name: StaticString, _ body: () -> T) throws(SysError) -> T {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let e = errno
        if e != EINTR { throw SysError(call: name, errno: e) }
    }
}

/// `sysCall` for the calls that return a pointer, nil on failure (`opendir`, `realpath`, …).
public func sysCall<T>(_ name: StaticString, _ body: () -> T?) throws(SysError) -> T {
    while true {
        if let result = body() { return result }
        let e = errno
        if e != EINTR { throw SysError(call: name, errno: e) }
    }
}

/// `sysCall` for the calls that return the error number itself, 0 on success, and leave
/// `errno` alone (`posix_spawn`, `getpwuid_r`, the `pthread_` calls).
public func sysCallReturningError(_ name: StaticString, _ body: () -> Int32) throws(SysError) {
    while true {
        let e = body()
        if e == 0 { return }
        if e != EINTR { throw SysError(call: name, errno: e) }
    }
}

/// Closes `fd`, once: on Linux the descriptor is released even when `close` reports EINTR,
/// so a retry could close a descriptor another thread has just been given. EINTR counts
/// as closed; any other failure (a bad descriptor) throws.
public func sysClose(_ fd: Int32) throws(SysError) {
    guard close(fd) == -1 else { return }
    let e = errno
    if e != EINTR { throw SysError(call: "close", errno: e) }
}

/// The next entry of the open folder `stream`, nil at its end (`readdir`, which tells a
/// failure only by setting `errno` where it returns nil for the end too).
public func sysReadEntry(_ stream: OpaquePointer) throws(SysError) -> UnsafeMutablePointer<dirent>? {
    errno = 0
    if let entry = readdir(stream) { return entry }
    let e = errno
    if e != 0 { throw SysError(call: "readdir", errno: e) }
    return nil
}
