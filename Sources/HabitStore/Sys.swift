import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file operations the journal depends on, as replaceable closures: `live` calls the
/// system; tests wrap it to inject faults a real disk cannot produce on demand.
public struct FileIO: Sendable {
    /// Writes all of `bytes` at `offset`.
    public var write: @Sendable (_ fd: Int32, _ bytes: [UInt8], _ offset: Int, _ path: String) throws -> Void
    /// Flushes the file's data to stable storage.
    public var sync: @Sendable (_ fd: Int32, _ path: String) throws -> Void

    public init(write: @escaping @Sendable (Int32, [UInt8], Int, String) throws -> Void,
                sync: @escaping @Sendable (Int32, String) throws -> Void) {
        self.write = write
        self.sync = sync
    }

    /// The real system calls.
    public static let live = FileIO(
        write: { fd, bytes, offset, path in try Sys.pwriteAll(fd, bytes, offset: offset, path: path) },
        sync: { fd, path in try Sys.fsync(fd, path: path) })
}

/// Every system call goes through here, turning errno into `StoreError.io`.
public enum Sys {
    static func check(_ r: Int32, _ op: String, _ path: String) throws {
        if r < 0 { throw StoreError.io(operation: op, path: path, errno: errno) }
    }

    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws -> Int32 {
        var fd: Int32
        repeat { fd = Glibc.open(path, flags | O_CLOEXEC, mode) } while fd < 0 && errno == EINTR
        try check(fd, (flags & (O_WRONLY | O_RDWR)) != 0 ? "open for writing" : "open", path)
        return fd
    }

    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    public static func pwriteAll(_ fd: Int32, _ bytes: [UInt8], offset: Int, path: String) throws {
        var done = 0
        try bytes.withUnsafeBytes { buf in
            while done < buf.count {
                let n = pwrite(fd, buf.baseAddress! + done, buf.count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StoreError.io(operation: "write", path: path, errno: errno)
                }
                if n == 0 { throw StoreError.io(operation: "write", path: path, errno: EIO) }
                done += n
            }
        }
    }

    /// Reads up to `count` bytes at `offset` (fewer only at end of file).
    public static func pread(_ fd: Int32, count: Int, offset: Int, path: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        try out.withUnsafeMutableBytes { buf in
            while done < count {
                let n = Glibc.pread(fd, buf.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StoreError.io(operation: "read", path: path, errno: errno)
                }
                if n == 0 { break }
                done += n
            }
        }
        if done < count { out.removeLast(count - done) }
        return out
    }

    public static func fsync(_ fd: Int32, path: String) throws {
        try check(Glibc.fsync(fd), "sync", path)
    }

    public static func ftruncate(_ fd: Int32, _ size: Int, path: String) throws {
        try check(Glibc.ftruncate(fd, off_t(size)), "truncate", path)
    }

    public static func size(_ fd: Int32, path: String) throws -> Int {
        var st = stat()
        try check(fstat(fd, &st), "inspect", path)
        return Int(st.st_size)
    }

    /// Blocks until the exclusive advisory lock on `fd` is held.
    public static func lock(_ fd: Int32, path: String) throws {
        var r: Int32
        repeat { r = flock(fd, LOCK_EX) } while r < 0 && errno == EINTR
        try check(r, "lock", path)
    }

    public static func unlock(_ fd: Int32) { _ = flock(fd, LOCK_UN) }

    /// Runs `body` holding the exclusive lock on the file at `path`, created when missing.
    public static func withLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = try open(path, O_RDWR | O_CREAT)
        defer { close(fd) }
        try lock(fd, path: path)
        defer { unlock(fd) }
        return try body()
    }

    /// Creates a directory and its parents (mode 0700 for the ones it creates).
    public static func makeDirectories(_ path: String) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { return }
            throw StoreError.unreadable(path: path, detail: "exists and is not a directory; choose another --home")
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o700) < 0 && errno != EEXIST {
            throw StoreError.io(operation: "create the directory", path: path, errno: errno)
        }
    }

    /// Flushes a directory entry (after a create or rename).
    public static func syncDirectory(_ path: String) throws {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: path)
    }

    /// Writes a whole file durably and atomically: temp file, fsync, rename, fsync directory.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
        let dir = (path as NSString).deletingLastPathComponent
        let tmp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let fd = try open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        do {
            try pwriteAll(fd, bytes, offset: 0, path: tmp)
            try fsync(fd, path: tmp)
            close(fd)
            try check(rename(tmp, path), "rename", path)
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        try syncDirectory(dir)
    }

    /// The whole content of a file, or nil when it does not exist.
    public static func readFile(_ path: String, limit: Int = 1 << 30) throws -> [UInt8]? {
        let fd: Int32
        do { fd = try open(path, O_RDONLY) } catch StoreError.io(_, _, let e) where e == ENOENT { return nil }
        defer { close(fd) }
        let size = try self.size(fd, path: path)
        guard size <= limit else { throw StoreError.unreadable(path: path, detail: "is larger than \(limit) bytes") }
        return try pread(fd, count: size, offset: 0, path: path)
    }
}
