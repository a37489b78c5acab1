import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HabitCore
import HabitStore

/// A remote that is a plain folder: a shared or Syncthing folder, or a mounted network
/// share. Batches are written create-only and atomically (a temporary file, fsync, then a
/// hard link that fails rather than replace an existing batch), so readers on other
/// devices never see half a batch and no batch is ever overwritten.
///
/// Names read from the folder are never trusted: only entries that parse as a device id or
/// a batch name, and that are real folders or regular files (not symlinks), are used.
public struct DirectoryRemote: Remote {
    /// The folder's absolute path.
    public let root: String

    /// A remote in the folder `root` (an absolute path; it must exist when syncing).
    public init(root: String) {
        var r = root
        while r.count > 1 && r.hasSuffix("/") { r.removeLast() }
        self.root = r
    }

    /// `dir:` followed by the folder's path.
    public var location: String { "dir:" + root }

    // MARK: Remote

    /// Checks the folder, creates `users/{account}` and its `format` file when missing, and
    /// refuses a format file with other contents.
    public func prepare(account: String) async throws {
        try check(account)
        try checkRoot()
        let accountPath = try makeFolders(["users", account])
        let formatPath = accountPath + "/format"
        let wanted = Array(remoteFormat.utf8)
        switch try createOnly(wanted, at: formatPath, in: accountPath, what: "the format file") {
        case .created, .same:
            return
        case .different(let found):
            let text = Sanitize.display(String(decoding: found.prefix(64), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines))
            throw RemoteError.permanent("the format file \(formatPath) says '\(text)', not '\(remoteFormat.dropLast())'; this remote was written by another version of habitto. Update habitto or choose another remote; the file was left alone")
        }
    }

    /// The device folders of the account; names that are not device ids, and anything that is
    /// not a real folder, are left out. An account with no devices yet gives `[]`.
    public func devices(account: String) async throws -> [DeviceID] {
        try check(account)
        let path = "\(root)/users/\(account)/devices"
        guard let names = try listFolder(path) else { return [] }
        var out: [DeviceID] = []
        for name in names {
            guard let device = DeviceID(name), try fileType(path + "/" + name) == S_IFDIR else { continue }
            out.append(device)
        }
        return out.sorted()
    }

    /// The batches of one device, sorted; other names, temporary files, symlinks and anything
    /// that is not a regular file are left out.
    public func batches(account: String, device: DeviceID) async throws -> [BatchName] {
        try check(account)
        let path = opsPath(account, device)
        guard let names = try listFolder(path) else { return [] }
        var out: [BatchName] = []
        for name in names {
            guard let batch = BatchName(fileName: name), try fileType(path + "/" + name) == S_IFREG else { continue }
            out.append(batch)
        }
        return out.sorted()
    }

    /// A batch's bytes. A batch that is not a regular file or is larger than `maxBytes` is a
    /// permanent error and is not read.
    public func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8] {
        try check(account)
        let path = opsPath(account, device) + "/" + batch.fileName
        let what = "batch \(batch) of device \(device.rawValue.prefix(8))"
        return try readRegularFile(path, maxBytes: maxBytes, what: what)
    }

    /// Writes a batch only if it does not exist yet (atomically: readers never see part of
    /// it). The same batch with the same bytes already there is an ack; with other bytes, a
    /// permanent error, and the existing file is left alone.
    public func create(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> WriteOutcome {
        try check(account)
        let folder = try makeFolders(["users", account, "devices", device.rawValue, "ops"])
        let path = folder + "/" + batch.fileName
        let what = "batch \(batch) of device \(device.rawValue.prefix(8))"
        switch try createOnly(bytes, at: path, in: folder, what: what) {
        case .created: return .created
        case .same: return .alreadyThere
        case .different(let found) where BatchFile.holdsSame(found, as: bytes, device: device, name: batch): return .alreadyThere
        case .different:
            throw RemoteError.permanent("\(what) already exists with different contents at \(path); it was left alone. Another device may be using the same device id, or the file was changed by hand")
        }
    }

    // MARK: Paths and checks

    private func opsPath(_ account: String, _ device: DeviceID) -> String {
        "\(root)/users/\(account)/devices/\(device.rawValue)/ops"
    }

    /// Throws a permanent error for an invalid account name or a root that is not absolute
    /// (both are used to build paths).
    private func check(_ account: String) throws {
        do { try validateAccount(account) } catch let e as CoreError { throw RemoteError.permanent(e.description) }
        guard root.hasPrefix("/") else {
            throw RemoteError.permanent("remote folder '\(Sanitize.display(root))' is not an absolute path; fix 'habitto remote set'")
        }
    }

    private var missingRoot: RemoteError {
        .permanent("remote folder \(root) does not exist; create it or fix 'habitto remote set'")
    }

    /// Throws unless the root is an existing folder (symlinks to folders are fine).
    private func checkRoot() throws {
        var st = stat()
        if stat(root, &st) < 0 {
            let e = errno
            if e == ENOENT || e == ENOTDIR { throw missingRoot }
            throw Self.classify(operation: "open the remote folder", path: root, errno: e)
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw RemoteError.permanent("remote folder \(root) is not a folder; choose a folder with 'habitto remote set'")
        }
    }

    /// Creates each of `components` below the root when missing (never the root itself) and
    /// returns the full path.
    private func makeFolders(_ components: [String]) throws -> String {
        var path = root
        for (i, c) in components.enumerated() {
            path += "/" + c
            if mkdir(path, 0o700) == 0 || errno == EEXIST { continue }
            let e = errno
            if i == 0 && (e == ENOENT || e == ENOTDIR) { try checkRoot() }
            throw Self.classify(operation: "create the folder", path: path, errno: e)
        }
        return path
    }

    /// The `S_IFMT` bits of `path` without following a symlink, or nil when it vanished.
    private func fileType(_ path: String) throws -> mode_t? {
        var st = stat()
        if lstat(path, &st) < 0 {
            let e = errno
            if e == ENOENT { return nil }
            throw Self.classify(operation: "inspect", path: path, errno: e)
        }
        return st.st_mode & S_IFMT
    }

    /// The entry names of a folder (without `.` and `..`), or nil when it does not exist
    /// (after checking that the root itself still does).
    private func listFolder(_ path: String) throws -> [String]? {
        guard let dir = opendir(path) else {
            let e = errno
            if e == ENOENT {
                try checkRoot()
                return nil
            }
            throw Self.classify(operation: "list", path: path, errno: e)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw Self.classify(operation: "list", path: path, errno: errno) }
                break
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Reading and writing

    /// The bytes of the regular file `path`, refusing symlinks, other kinds of file and files
    /// larger than `maxBytes`.
    /// At most `limit` bytes are read.
    private func readRegularFile(_ path: String, maxBytes: Int, limit: Int = .max, what: String) throws -> [UInt8] {
        var st = stat()
        if lstat(path, &st) < 0 {
            let e = errno
            if e == ENOENT { throw RemoteError.permanent("\(what) is missing from remote folder \(root); sync again to list it afresh") }
            throw Self.classify(operation: "inspect", path: path, errno: e)
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw RemoteError.permanent("\(what) at \(path) is not a regular file; it was not read. Remove it from the remote folder")
        }
        guard Int(st.st_size) <= maxBytes else {
            throw RemoteError.permanent("\(what) at \(path) is \(st.st_size) bytes, larger than the limit of \(maxBytes); it was not read. Remove it from the remote folder")
        }
        do {
            let fd = try Sys.open(path, O_RDONLY | O_NOFOLLOW)
            defer { Sys.close(fd) }
            var now = stat()
            if fstat(fd, &now) < 0 { throw StoreError.io(operation: "inspect", path: path, errno: errno) }
            guard now.st_mode & S_IFMT == S_IFREG, Int(now.st_size) <= maxBytes else {
                throw RemoteError.permanent("\(what) at \(path) changed while it was read (it should never change); it was not read")
            }
            return try Sys.pread(fd, count: min(Int(now.st_size), limit), offset: 0, path: path)
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
    }

    /// Removes temporary files left by writers that were killed (older than 15 minutes,
    /// so a write in progress elsewhere is never touched), so they do not spread through a
    /// synced folder.
    private func removeStaleTemporaries(in folder: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let cutoff = time(nil) - 15 * 60
        for name in names where name.hasPrefix(".tmp-") {
            var st = stat()
            let path = folder + "/" + name
            if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_mtim.tv_sec < cutoff { unlink(path) }
        }
    }

    /// What a create-only write found.
    private enum CreateResult {
        case created
        /// The file was already there with the same bytes.
        case same
        /// Something else was already there (its first bytes, when it is a regular file).
        case different([UInt8])
    }

    /// Writes `bytes` to `path` only if nothing is there: a temporary file in the same
    /// folder, fsync, `link(2)` (which fails rather than replace), fsync of the folder. The
    /// temporary file is removed on every path.
    private func createOnly(_ bytes: [UInt8], at path: String, in folder: String, what: String) throws -> CreateResult {
        removeStaleTemporaries(in: folder)
        let tmp = "\(folder)/.tmp-\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 16))"
        defer { unlink(tmp) }
        let linkError: Int32
        do {
            let fd = try Sys.open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            do {
                try Sys.pwriteAll(fd, bytes, offset: 0, path: tmp)
                try Sys.fsync(fd, path: tmp)
            } catch {
                Sys.close(fd)
                throw error
            }
            Sys.close(fd)
            linkError = link(tmp, path) == 0 ? 0 : errno
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
        switch linkError {
        case 0:
            try syncFolder(folder)
            return .created
        case EEXIST:
            guard try fileType(path) == S_IFREG else {
                throw RemoteError.permanent("\(what) at \(path) exists and is not a regular file; it was left alone. Remove it from the remote folder")
            }
            // Read one byte more than expected: a longer file is different without reading it all.
            let existing = try readRegularFile(path, maxBytes: Int.max, limit: bytes.count + 1, what: what)
            guard existing == bytes else { return .different(existing) }
            // It may have been written by a process that stopped before syncing the folder.
            try syncFolder(folder)
            return .same
        case EPERM, EOPNOTSUPP, ENOSYS:
            throw RemoteError.permanent("cannot create \(path): \(String(cString: strerror(linkError))); the remote folder must be writable and on a file system with hard links (FAT and exFAT drives have none)")
        default:
            throw Self.classify(operation: "create", path: path, errno: linkError)
        }
    }

    /// Makes a folder's new entries durable; file systems that cannot sync a folder are fine.
    private func syncFolder(_ folder: String) throws {
        do {
            try Sys.syncDirectory(folder)
        } catch StoreError.io(_, _, let e) where e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP {
            return
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
    }

    // MARK: Errors

    private static func remoteError(_ e: StoreError) -> RemoteError {
        switch e {
        case .io(let op, let path, let code): return classify(operation: op, path: path, errno: code)
        default: return .permanent(e.description)
        }
    }

    /// Errors a folder can recover from by itself (a full disk being freed, a network mount
    /// coming back) are transient; the rest need someone to act.
    static func isTransient(_ code: Int32) -> Bool {
        switch code {
        case EIO, ENOSPC, EDQUOT, ESTALE, ETIMEDOUT, EHOSTDOWN, EHOSTUNREACH, ENETDOWN, ENETUNREACH,
             ENOTCONN, ECONNREFUSED, ECONNRESET, ECONNABORTED, EAGAIN, EINTR, EMFILE, ENFILE, ENOMEM:
            return true
        default:
            return false
        }
    }

    /// A failed system call as a RemoteError whose message names the path and says what to do.
    static func classify(operation: String, path: String, errno code: Int32) -> RemoteError {
        let reason = String(cString: strerror(code))
        let hint: String
        switch code {
        case ENOENT, ENOTDIR: hint = "part of the remote folder is missing or is not a folder; check it or fix 'habitto remote set'"
        case EACCES, EPERM: hint = "check the permissions of the remote folder"
        case EROFS: hint = "the remote folder is on a read-only file system; make it writable or choose another remote"
        case ENOSPC, EDQUOT: hint = "the remote folder's disk is full; free some space, sync will try again"
        case EIO: hint = "the remote folder's disk reported an error; sync will try again"
        case _ where isTransient(code): hint = "the remote folder is not answering (is it mounted?); sync will try again"
        default: hint = "check the remote folder"
        }
        let message = "cannot \(operation) \(path): \(reason); \(hint)"
        return isTransient(code) ? .transient(message) : .permanent(message)
    }
}
