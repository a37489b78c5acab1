import FoundationEssentials
import HabitCore
import HabitSys
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

/// Every system call of HabitStore goes through here: each through `sysCall` (which retries
/// EINTR), its failure turned into `StoreError.io` saying what could not be done to which file.
public enum Sys {
    /// Runs the system call `body` through `sysCall`; a failure throws `StoreError.io` for
    /// the operation `op` ("open for writing", "sync", …) on `path`.
    @discardableResult
    public static func call<T: FixedWidthInteger>(_ name: StaticString, _ op: String, _ path: String,
                                                  _ body: () -> T) throws(StoreError) -> T {
        do { return try sysCall(name, body) } catch { throw .io(operation: op, path: path, errno: error.errno) }
    }

    /// The words for opening with `flags`: "open for writing" or "open".
    private static func opening(_ flags: Int32) -> String { (flags & (O_WRONLY | O_RDWR)) != 0 ? "open for writing" : "open" }

    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws -> Int32 {
        try call("open", opening(flags), path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// `open`, but nil when nothing is at `path`, without making and throwing an error (a
    /// missing config file is the usual case, at every start).
    public static func openIfPresent(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws -> Int32? {
        do {
            return try sysCall("open") { Glibc.open(path, flags | O_CLOEXEC, mode) }
        } catch let e where e.errno == ENOENT {
            return nil
        } catch {
            throw StoreError.io(operation: opening(flags), path: path, errno: error.errno)
        }
    }

    /// Closes `fd` (once: see `sysClose`); errors are ignored.
    public static func close(_ fd: Int32) { try? sysClose(fd) }

    public static func pwriteAll(_ fd: Int32, _ bytes: [UInt8], offset: Int, path: String) throws {
        var done = 0
        try bytes.withUnsafeBytes { buf in
            while done < buf.count {
                let n = try call("pwrite", "write", path) { pwrite(fd, buf.baseAddress! + done, buf.count - done, off_t(offset + done)) }
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
                let n = try call("pread", "read", path) { Glibc.pread(fd, buf.baseAddress! + done, count - done, off_t(offset + done)) }
                if n == 0 { break }
                done += n
            }
        }
        if done < count { out.removeLast(count - done) }
        return out
    }

    public static func fsync(_ fd: Int32, path: String) throws {
        try call("fsync", "sync", path) { Glibc.fsync(fd) }
    }

    public static func ftruncate(_ fd: Int32, _ size: Int, path: String) throws {
        try call("ftruncate", "truncate", path) { Glibc.ftruncate(fd, off_t(size)) }
    }

    public static func size(_ fd: Int32, path: String) throws -> Int {
        Int(try status(fd, path: path).st_size)
    }

    /// How long a lock is waited for when the caller names no limit, in seconds: 10 for a
    /// command or the terminal UI (a person waits that long before wondering). A prompt
    /// segment lowers it for its whole process (`Segment`): it must never hold up a prompt.
    public static var lockWait: Double {
        get { lockWaitSetting.withLock { lockWaitValue } ?? commandLockWait }
        set { lockWaitSetting.withLock { lockWaitValue = newValue } }
    }
    /// The wait of a command or the terminal UI.
    public static var commandLockWait: Double { TimeLimits.current[.lock] }
    private static let lockWaitSetting = Lock()
    nonisolated(unsafe) private static var lockWaitValue: Double?

    /// Takes the exclusive advisory lock on `fd`, waiting at most `timeLimit` seconds
    /// (`lockWait` when nil) while another process holds it: the lock is tried without
    /// blocking, again after a pause that doubles from 1 ms up to 50 ms, until the time is up.
    /// Then throws `StoreError.lockBusy`, naming `lock` ("the data lock"), `path` and, when
    /// the system tells, the process holding it: looked up only after a wait of a second or
    /// more (a shorter one is a prompt segment's, which shows no message and must not spend
    /// the time the system takes to list its locks).
    public static func lock(_ fd: Int32, path: String, name lock: String = "the lock", timeLimit: Double? = nil) throws {
        let limit = timeLimit ?? lockWait
        var deadline: Double?
        var pause = 0.001
        while true {
            if try tryLock(fd, path: path) { return }
            let now = monotonicSeconds()
            let end = deadline ?? now + limit
            deadline = end
            guard now < end else {
                throw StoreError.lockBusy(path: path, lock: lock, holder: limit >= 1 ? lockHolder(fd) : "another process", seconds: limit)
            }
            let nap = min(pause, end - now)
            var ts = timespec(tv_sec: Int(nap), tv_nsec: Int((nap - nap.rounded(.down)) * 1e9)), rest = timespec()
            _ = try? sysCall("nanosleep") { defer { ts = rest }; return nanosleep(&ts, &rest) }
            pause = min(pause * 2, 0.05)
        }
    }

    /// Takes the exclusive advisory lock on `fd` when no other process holds it; false when
    /// one does.
    public static func tryLock(_ fd: Int32, path: String) throws -> Bool {
        do { try sysCall("flock") { flock(fd, LOCK_EX | LOCK_NB) } } catch let e where e.errno == EWOULDBLOCK { return false } catch {
            throw StoreError.io(operation: "lock", path: path, errno: error.errno)
        }
        return true
    }

    /// Seconds on the monotonic clock (which no change of the wall clock moves).
    static func monotonicSeconds() -> Double { SystemClock.monotonicSeconds() }

    /// Who holds the `flock` lock of the file open as `fd`, from `/proc/locks`: "NAME (process
    /// PID)", or "another process" when it is not listed there (another machine on a
    /// network file system, a process this one cannot see).
    static func lockHolder(_ fd: Int32) -> String {
        guard let st = try? status(fd, path: ""), let table = procFile("/proc/locks") else { return "another process" }
        let dev = UInt64(st.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff), minor = (dev & 0xff) | ((dev >> 12) & ~0xff)
        func hex2(_ v: UInt64) -> String { v < 16 ? "0" + String(v, radix: 16) : String(v, radix: 16) }
        // `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF` (device `%02x:%02x`, inode in
        // decimal); a waiter's line has `->` after the number. Read as bytes: no text is needed.
        let file = Array("\(hex2(major)):\(hex2(minor)):\(st.st_ino)".utf8), flockType = Array("FLOCK".utf8)
        for line in table.split(separator: 0x0A) {
            let f = line.split(separator: 0x20)
            guard f.count >= 6, Array(f[1]) == flockType, Array(f[5]) == file,
                  let pid = pid_t(String(decoding: f[4], as: UTF8.self)), pid > 0, pid != getpid() else { continue }
            let comm = procFile("/proc/\(pid)/comm").map { Sanitize.display(String(decoding: $0, as: UTF8.self).trimmingWhitespace) } ?? ""
            return comm.isEmpty ? "process \(pid)" : "\(comm) (process \(pid))"
        }
        return "another process"
    }

    /// The text of a file under /proc (whose size the system gives as 0: read to its end),
    /// at most 4 MB; nil when it cannot be read.
    static func procFile(_ path: String) -> [UInt8]? {
        guard let fd = try? open(path, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { close(fd) }
        var out: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 16_384)
        while out.count < 1 << 22 {
            guard let n = try? sysCall("read", { read(fd, &chunk, chunk.count) }) else { return nil }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
        return out
    }

    public static func unlock(_ fd: Int32) { _ = try? sysCall("flock") { flock(fd, LOCK_UN) } }

    /// Runs `body` holding the exclusive lock on the file at `path`, created when missing,
    /// waiting for it as `lock` does.
    public static func withLock<T>(_ path: String, name: String = "the lock", timeLimit: Double? = nil,
                                   _ body: () throws -> T) throws -> T {
        let fd = try open(path, O_RDWR | O_CREAT)
        defer { close(fd) }
        try lock(fd, path: path, name: name, timeLimit: timeLimit)
        defer { unlock(fd) }
        return try body()
    }

    /// Starts the program at `path` with `arguments` (its `argv[0]` first) and this
    /// process's environment, with no signal blocked and SIGPIPE, SIGTERM, SIGINT and
    /// SIGHUP at their defaults (habitto ignores SIGPIPE, and the thread that starts it may
    /// block signals). `files` arranges its file descriptors. Returns the child's process
    /// id, or the error number when it could not be started.
    public static func spawn(_ path: String, _ arguments: [String],
                             files: (inout posix_spawn_file_actions_t) -> Void) -> Result<pid_t, SpawnFailure> {
        start(path, arguments, environment: environ, newSession: false, ownGroup: false, files: files)
    }

    /// `spawn`, with the child's environment as `NAME=value` entries, and with `newSession`
    /// in a session of its own (so without a controlling terminal, and the leader of a process
    /// group whose id is its process id); with `ownGroup` (and not `newSession`) in this
    /// process's session, as the leader of a process group of its own (whose id is its process id).
    public static func spawn(_ path: String, _ arguments: [String], environment: [String], newSession: Bool, ownGroup: Bool = false,
                             files: (inout posix_spawn_file_actions_t) -> Void) -> Result<pid_t, SpawnFailure> {
        let envp = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        return envp.withUnsafeBufferPointer { entries in
            start(path, arguments, environment: UnsafeMutablePointer(mutating: entries.baseAddress!), newSession: newSession,
                  ownGroup: ownGroup, files: files)
        }
    }

    private static func start(_ path: String, _ arguments: [String], environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                              newSession: Bool, ownGroup: Bool, files: (inout posix_spawn_file_actions_t) -> Void) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        files(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // POSIX_SPAWN_SETSID (glibc 2.26), which Swift's Glibc module does not name.
        let setsid: Int32 = 0x80
        let group = !newSession && ownGroup ? Int32(POSIX_SPAWN_SETPGROUP) : 0
        if group != 0 { posix_spawnattr_setpgroup(&attributes, 0) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (newSession ? setsid : 0) | group))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        do {
            try sysCallReturningError("posix_spawn") { posix_spawn(&child, path, &actions, &attributes, argv, environment) }
            return .success(child)
        } catch {
            return .failure(SpawnFailure(errno: error.errno))
        }
    }

    /// Why `spawn` could not start a program.
    public struct SpawnFailure: Error, CustomStringConvertible {
        public let errno: Int32
        public var description: String { String(cString: strerror(errno)) }
    }

    /// Creates a directory and its parents (mode 0700 for the ones it creates).
    public static func makeDirectories(_ path: String) throws {
        if let st = status(followingLinks: path) {
            if st.st_mode & S_IFMT == S_IFDIR { return }
            throw StoreError.unreadable(path: path, detail: "exists and is not a directory; choose another --home")
        }
        let parent = path.pathParent
        if !parent.isEmpty && parent != path { try makeDirectories(parent) }
        do { try sysCall("mkdir") { mkdir(path, 0o700) } } catch let e where e.errno != EEXIST {
            throw StoreError.io(operation: "create the directory", path: path, errno: e.errno)
        } catch {}
    }

    /// Flushes a directory entry (after a create or rename).
    public static func syncDirectory(_ path: String) throws {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: path)
    }

    /// Writes a whole file durably and atomically: temp file, fsync, rename, fsync directory.
    /// With `durable` false (a cache) it is still atomic, but neither fsync is made.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, durable: Bool = true) throws {
        let dir = path.pathParent
        let tmp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let fd = try open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        var isOpen = true
        do {
            try pwriteAll(fd, bytes, offset: 0, path: tmp)
            if durable { try fsync(fd, path: tmp) }
            close(fd)
            isOpen = false
            try call("rename", "rename", path) { rename(tmp, path) }
        } catch {
            if isOpen { close(fd) }
            removeFile(tmp)
            throw error
        }
        if durable { try syncDirectory(dir) }
    }

    /// The whole content of a regular file, or nil when it does not exist. Anything else (a
    /// FIFO, a device, a folder) is refused without being read: opening never blocks. With
    /// `followLinks` false a symbolic link is refused too (for files inside the data directory).
    public static func readFile(_ path: String, limit: Int = 1 << 30, followLinks: Bool = true) throws -> [UInt8]? {
        guard let (fd, st) = try openRegularFile(path, followLinks: followLinks) else { return nil }
        defer { close(fd) }
        let size = Int(st.st_size)
        guard size <= limit else { throw StoreError.unreadable(path: path, detail: "is larger than \(limit) bytes") }
        return try pread(fd, count: size, offset: 0, path: path)
    }

    /// A regular file opened for reading, with its status, or nil when nothing is at `path`.
    /// Anything else (a FIFO, a device, a folder; a symbolic link with `followLinks` false)
    /// throws `StoreError.unreadable` saying what it is: opening never blocks, and the
    /// descriptor is never a FIFO's.
    public static func openRegularFile(_ path: String, followLinks: Bool = true) throws -> (Int32, stat)? {
        let fd: Int32
        do {
            guard let opened = try openIfPresent(path, O_RDONLY | O_NONBLOCK | (followLinks ? 0 : O_NOFOLLOW)) else { return nil }
            fd = opened
        } catch StoreError.io(_, _, let e) where e == ELOOP && !followLinks {
            throw StoreError.link(path: path)
        }
        do {
            let st = try status(fd, path: path)
            guard st.st_mode & S_IFMT == S_IFREG else {
                throw StoreError.unreadable(path: path, detail: "is \(kind(st.st_mode)), not a regular file; it was not read")
            }
            return (fd, st)
        } catch {
            close(fd)
            throw error
        }
    }

    /// The status of an open file.
    public static func status(_ fd: Int32, path: String) throws -> stat {
        var st = Glibc.stat()
        try call("fstat", "inspect", path) { fstat(fd, &st) }
        return st
    }

    /// What kind of entry a mode is, in words: "a symbolic link", "a FIFO (named pipe)", …
    public static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device file"
        default: return "a file of unknown type"
        }
    }

    // MARK: Folders of Habitto's own, never through a symbolic link

    /// Creates the folder `path` (its parent must exist) when missing, mode 0700, and
    /// refuses a symbolic link or anything else in its place: the folders Habitto keeps
    /// inside the data directory (`backups`, `recovered`) are never followed elsewhere.
    public static func makeOwnFolder(_ path: String) throws {
        for attempt in 0..<2 {
            if let st = try entryStatus(path) {
                switch st.st_mode & S_IFMT {
                case S_IFDIR: return
                case S_IFLNK: throw StoreError.link(path: path)
                default: throw StoreError.unreadable(path: path, detail: "is \(kind(st.st_mode)), not a folder; move it away")
                }
            }
            do { try sysCall("mkdir") { mkdir(path, 0o700) }; return } catch let e where e.errno != EEXIST || attempt == 1 {
                throw StoreError.io(operation: "create the folder", path: path, errno: e.errno)
            } catch {}
        }
    }

    /// The status of what `path` names (following links), or nil when there is nothing.
    public static func status(followingLinks path: String) -> stat? {
        var st = Glibc.stat()
        return (try? sysCall("stat") { stat(path, &st) }) == nil ? nil : st
    }

    /// Whether this process may use `path` as `mode` says (`R_OK`, `W_OK`, `X_OK`, `F_OK`).
    public static func canAccess(_ path: String, _ mode: Int32) -> Bool {
        accessError(path, mode) == nil
    }

    /// Why this process may not use `path` as `mode` says (the error number: `EACCES`,
    /// `EROFS` for a write on a read-only file system, …), or nil when it may.
    public static func accessError(_ path: String, _ mode: Int32) -> Int32? {
        do { try sysCall("access") { access(path, mode) }; return nil } catch { return error.errno }
    }

    /// The status of the entry at `path` itself (a link is not followed), or nil when there is none.
    public static func entryStatus(_ path: String) throws -> stat? {
        var st = Glibc.stat()
        do { try sysCall("lstat") { lstat(path, &st) } } catch let e where e.errno == ENOENT { return nil } catch {
            throw StoreError.io(operation: "inspect", path: path, errno: error.errno)
        }
        return st
    }

    /// The names in the folder `path` (without `.` and `..`), or nil when it does not exist.
    /// With `followLinks` false, a folder that is a symbolic link is refused.
    public static func folderEntries(_ path: String, followLinks: Bool = true) throws -> [String]? {
        let fd: Int32
        do {
            fd = try open(path, O_RDONLY | O_DIRECTORY | (followLinks ? 0 : O_NOFOLLOW))
        } catch StoreError.io(_, _, let e) where e == ENOENT {
            return nil
        } catch StoreError.io(_, _, let e) where (e == ENOTDIR || e == ELOOP) && !followLinks {
            if let st = try entryStatus(path), st.st_mode & S_IFMT == S_IFLNK { throw StoreError.link(path: path) }
            throw StoreError.unreadable(path: path, detail: "is not a folder; move it away")
        }
        defer { close(fd) }
        return try entries(of: fd, path: path)
    }

    /// Removes a file (never what a link points to); errors are ignored.
    public static func removeFile(_ path: String) { _ = try? sysCall("unlink") { unlink(path) } }

    /// Removes the file `path` (never what a link points to); nothing there is no error, any
    /// other failure throws `StoreError.io` for `operation`.
    public static func removeIfPresent(_ path: String, operation: String = "remove") throws {
        do { try sysCall("unlink") { unlink(path) } } catch let e where e.errno == ENOENT {} catch {
            throw StoreError.io(operation: operation, path: path, errno: error.errno)
        }
    }

    /// Moves the entry at `path`, whatever it is (a link is moved, never followed), into the
    /// folder `folder` (made when missing: see `makeOwnFolder`) as `NAME-YYYYMMDD-HHMMSS-PID`,
    /// with `-2`, `-3`, … when that is taken; returns its new path. For something in the
    /// place of one of Habitto's files that Habitto cannot use, kept rather than removed.
    public static func setAside(_ path: String, into folder: String, now: Date) throws -> String {
        try makeOwnFolder(folder)
        let stem = "\(folder)/\(path.pathLastComponent)-\(UTCTime.compact(now))-\(getpid())"
        var target = stem
        var n = 1
        while try entryStatus(target) != nil { n += 1; target = "\(stem)-\(n)" }
        try call("rename", "move aside", path) { rename(path, target) }
        try syncDirectory(folder)
        try syncDirectory(path.pathParent)
        return target
    }

    /// Whether the process `pid` still exists (on this machine). A process of another user
    /// exists too; "no such process" says it is gone, and so does a zombie (it has ended,
    /// and only waits to be reaped: by no one, where the first process does not reap).
    public static func processExists(_ pid: pid_t) -> Bool {
        guard pid > 0 else { return false }
        do { try sysCall("kill") { kill(pid, 0) } } catch let e where e.errno == ESRCH { return false } catch {}
        // "PID (NAME) STATE …": the state follows the name's closing parenthesis. (A file of
        // /proc tells no size, so it is read as far as it goes.)
        guard let fd = try? sysCall("open", { Glibc.open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC) }) else { return true }
        defer { close(fd) }
        var stat = [UInt8](repeating: 0, count: 4096)
        guard let n = try? sysCall("read", { read(fd, &stat, stat.count) }), n > 0,
              let name = stat[..<n].lastIndex(of: UInt8(ascii: ")")), name + 2 < n else { return true }
        return stat[name + 2] != UInt8(ascii: "Z")
    }

    /// Kills with SIGKILL every process of the process group `group` and, with `session`,
    /// every process of the session `group` leads (each other group in it, found in /proc),
    /// looked for twice (a group made while the first look ran is found by the second). A
    /// process that has left the session (`setsid`) is not found: it is no longer the
    /// program's. Call it before the leader is reaped, so that its id names no one else.
    public static func killAll(group: pid_t, session: Bool) {
        guard group > 1 else { return }
        signal(group: group, SIGKILL)
        guard session else { return }
        for _ in 0..<2 {
            let others = groups(inSession: group).subtracting([group])
            if others.isEmpty { return }
            for other in others where other > 1 { signal(group: other, SIGKILL) }
        }
    }

    /// Sends `sig` to every process of the process group `group`; errors are ignored (the
    /// group may be gone).
    public static func signal(group: pid_t, _ sig: Int32) { _ = try? sysCall("kill") { kill(-group, sig) } }

    /// The process groups of the live processes of session `session`, from /proc (a
    /// process that ends while it is read is left out).
    static func groups(inSession session: pid_t) -> Set<pid_t> {
        guard let dir = try? sysCall("opendir", { opendir("/proc") }) else { return [] }
        defer { closedir(dir) }
        var found = Set<pid_t>()
        while let entry = try? sysReadEntry(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name), pid > 0, let stat = procFile("/proc/\(pid)/stat") else { continue }
            // "PID (NAME) STATE PPID PGRP SESSION …": the fields after the name's last parenthesis.
            guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { continue }
            let fields = stat[(close + 1)...].split(separator: 0x20)
            guard fields.count > 3, fields[0].first != UInt8(ascii: "Z"),
                  let sid = pid_t(String(decoding: fields[3], as: UTF8.self)), sid == session,
                  let pgrp = pid_t(String(decoding: fields[2], as: UTF8.self)) else { continue }
            found.insert(pgrp)
        }
        return found
    }

    /// The path with every symbolic link, `.` and `..` resolved, for the part that exists;
    /// the rest (not yet created) is appended as written, with `.` and `..` applied.
    public static func resolvedPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var existing = absolute
        var rest: [String] = []
        while true {
            if let real = try? sysCall("realpath", { realpath(existing, nil) }) {
                defer { free(real) }
                var out = String(cString: real).split(separator: "/", omittingEmptySubsequences: true).map(String.init)
                for part in rest {
                    if part == "." || part.isEmpty { continue }
                    if part == ".." { if !out.isEmpty { out.removeLast() } } else { out.append(part) }
                }
                return "/" + out.joined(separator: "/")
            }
            let parent = existing.pathParent
            if parent == existing || parent.isEmpty { return absolute }
            rest.insert(existing.pathLastComponent, at: 0)
            existing = parent
        }
    }

    /// Whether `path` is `folder` or lies inside it, after resolving links in both.
    public static func isInside(_ path: String, folder: String) -> Bool {
        let p = resolvedPath(path), f = resolvedPath(folder)
        return p == f || p.hasPrefix(f == "/" ? "/" : f + "/")
    }

    // MARK: Inside an open folder, never following a symbolic link

    /// Opens the folder `path` (which may be a symbolic link: it is the caller's choice).
    public static func openFolder(_ path: String) throws -> Int32 {
        try open(path, O_RDONLY | O_DIRECTORY)
    }

    /// Opens the entry `name` of the open folder `dir`, never following a symbolic link
    /// (`O_NOFOLLOW`, which fails with ELOOP on a link; with `O_DIRECTORY`, ENOTDIR).
    /// `path` is the full path, for messages.
    public static func open(in dir: Int32, _ name: String, _ flags: Int32, mode: mode_t = 0o600, path: String) throws -> Int32 {
        try call("openat", opening(flags), path) { openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, mode) }
    }

    /// The status of the entry `name` of the open folder `dir` itself (a link is not
    /// followed), or nil when there is none.
    public static func entryStatus(in dir: Int32, _ name: String, path: String) throws -> stat? {
        var st = Glibc.stat()
        do { try sysCall("fstatat") { fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) } } catch let e where e.errno == ENOENT { return nil } catch {
            throw StoreError.io(operation: "inspect", path: path, errno: error.errno)
        }
        return st
    }

    /// Creates the folder `name` in the open folder `dir` (mode 0700); false when something
    /// of that name already exists.
    @discardableResult
    public static func makeFolder(in dir: Int32, _ name: String, path: String) throws -> Bool {
        do { try sysCall("mkdirat") { mkdirat(dir, name, 0o700) } } catch let e where e.errno == EEXIST { return false } catch {
            throw StoreError.io(operation: "create the folder", path: path, errno: error.errno)
        }
        return true
    }

    /// Hard-links `from` to `to`, both in the open folder `dir`: fails rather than replace
    /// (returns the errno, 0 on success, so callers can tell EEXIST apart).
    public static func link(in dir: Int32, _ from: String, to: String) -> Int32 {
        do { try sysCall("linkat") { linkat(dir, from, dir, to, 0) } } catch { return error.errno }
        return 0
    }

    /// Removes the file `name` of the open folder `dir` (never what a link points to);
    /// errors are ignored.
    public static func removeFile(in dir: Int32, _ name: String) { _ = try? sysCall("unlinkat") { unlinkat(dir, name, 0) } }

    /// The names in the open folder `dir` (without `.` and `..`), sorted.
    public static func entries(of dir: Int32, path: String) throws -> [String] {
        // A descriptor of its own (readdir moves its offset), closed by closedir.
        let own = try open(in: dir, ".", O_RDONLY | O_DIRECTORY, path: path)
        let stream: OpaquePointer
        do { stream = try sysCall("fdopendir") { fdopendir(own) } } catch {
            close(own)
            throw StoreError.io(operation: "list", path: path, errno: error.errno)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            let next: UnsafeMutablePointer<dirent>?
            do { next = try sysReadEntry(stream) } catch { throw StoreError.io(operation: "list", path: path, errno: error.errno) }
            guard let entry = next else { break }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
