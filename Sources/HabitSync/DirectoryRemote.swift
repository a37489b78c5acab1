import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitCore
import HabitStore
import HabitSys

/// A remote that is a plain folder: a shared or Syncthing folder, or a mounted network
/// share. Batches are written create-only and atomically (a temporary file, fsync, then a
/// hard link that fails rather than replace an existing batch), so readers on other
/// devices never see half a batch and no batch is ever overwritten.
///
/// Nothing below the root is trusted. Every folder is opened one component at a time from
/// the root with `O_NOFOLLOW` (and every file in it through that folder's descriptor), so
/// a symbolic link planted anywhere below the root (`users`, `devices/{id}`, `ops`, a
/// batch) is never followed: writing through one is a permanent failure, and a link or any
/// other entry that is not what it should be is skipped and reported when listing
/// (`RemoteEntries`). The root itself may be a link: that is the user's choice.
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

    /// Checks the folder, creates `users/{account}` and its `format` file when missing (for
    /// `recipient` when one is given), replaces a version 1 format file with version 2
    /// (atomically, by a rename), and refuses any other format file, leaving it alone. Returns
    /// the format it read or wrote.
    @discardableResult
    public func prepare(account: String, recipient: String?) async throws -> RemoteFormat? {
        try check(account)
        let place = "the format file \(root)/users/\(account)/format"
        return try withFolder(["users", account], create: true) { folder -> RemoteFormat in
            func read() throws -> [UInt8]? { try readRegularFile("format", in: folder, maxBytes: 4096, what: "the format file") }
            var found = try read()
            if found == nil {
                let fresh = RemoteFormat.fresh(encrypted: recipient != nil)
                if case .created = try createFile(fresh.bytes, named: "format", in: folder, what: "the format file") { return fresh }
                // Another device made it at the same moment: use theirs.
                found = try read()
            }
            guard let found else { throw RemoteError.unreachable("\(place) appeared and vanished; sync will try again") }
            switch RemoteFormat.parse(found) {
            case .readable(let f) where f.version == RemoteFormat.current:
                return f
            case .readable:
                // An unencrypted earlier format: never rewritten by a device that encrypts.
                if recipient != nil { throw RemoteFormat.downgrade(at: place) }
                try replace(RemoteFormat.fresh().bytes, named: "format", in: folder)
                let now = try read() ?? []
                guard case .readable(let f) = RemoteFormat.parse(now), f.version == RemoteFormat.current else {
                    throw RemoteFormat.refusal(RemoteFormat.parse(now), found: now, at: place)
                }
                return f
            case let other:
                throw RemoteFormat.refusal(other, found: found, at: place)
            }
        }
    }

    public func readKeycheck(account: String, maxBytes: Int) async throws -> [UInt8]? {
        try check(account)
        return try withFolder(["users", account], create: false) { folder in
            try readRegularFile(Keycheck.fileName, in: folder, maxBytes: maxBytes, what: "the keycheck file")
        } ?? nil
    }

    public func createKeycheck(account: String, bytes: [UInt8]) async throws -> CreateResult {
        try check(account)
        let found = try withFolder(["users", account], create: true) { folder -> [UInt8]? in
            switch try createFile(bytes, named: Keycheck.fileName, in: folder, what: "the keycheck file") {
            case .created, .same: return nil
            case .different:
                return try readRegularFile(Keycheck.fileName, in: folder, maxBytes: Keycheck.maxBytes, what: "the keycheck file") ?? []
            }
        } ?? nil
        return found.map(CreateResult.found) ?? .created
    }

    /// The device folders of the account and the entries skipped there. An account with no
    /// devices yet gives none.
    public func listDevices(account: String) async throws -> Listing<DeviceID> {
        try check(account)
        return try withFolder(["users", account, "devices"], create: false) { folder in
            RemoteEntries.devices(try entries(of: folder))
        } ?? Listing()
    }

    /// The batches of one device, sorted, and the entries skipped in its folder (temporary
    /// files of writes in progress are passed over).
    public func listBatches(account: String, device: DeviceID) async throws -> Listing<BatchName> {
        try check(account)
        return try withFolder(opsComponents(account, device), create: false) { folder in
            RemoteEntries.batches(try entries(of: folder), device: device)
        } ?? Listing()
    }

    /// A batch's bytes. A batch that is not a regular file or is larger than `maxBytes` is a
    /// permanent error and is not read.
    public func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8] {
        try check(account)
        let what = "batch \(batch) of device \(device.rawValue.prefix(8))"
        let bytes = try withFolder(opsComponents(account, device), create: false) { folder in
            try readRegularFile(batch.fileName, in: folder, maxBytes: maxBytes, what: what)
        } ?? nil
        guard let bytes else {
            throw RemoteError.notFound("\(what) is missing from remote folder \(root); sync again to list it afresh")
        }
        return bytes
    }

    /// Removes a batch through its folder (opened without following links); one already
    /// gone, or a folder gone, is fine. The folder is synced so the removal is durable.
    public func remove(account: String, device: DeviceID, batch: BatchName) async throws {
        try check(account)
        try removeFile(batch.fileName, account, device, durably: true)
    }

    public func markVersion(account: String, device: DeviceID, version: String) async throws {
        try check(account)
        let name = RemoteEntries.versionMarker(version)
        _ = try withFolder(opsComponents(account, device), create: true) { folder in
            try createFile(Array("habitto \(version)\n".utf8), named: name, in: folder, what: "the version marker")
        }
    }

    public func unmarkVersion(account: String, device: DeviceID, version: String) async throws {
        try check(account)
        let name = RemoteEntries.versionMarker(version)
        try removeFile(name, account, device, durably: false)
    }

    /// Writes a batch only if nothing is there yet (atomically: readers never see part of
    /// it); what is there is returned for `BatchAck` to judge, and left alone.
    public func createOnly(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> CreateResult {
        try check(account)
        let what = "batch \(batch) of device \(device.rawValue.prefix(8))"
        switch try withFolder(opsComponents(account, device), create: true, { folder in
            try createFile(bytes, named: batch.fileName, in: folder, what: what)
        }) {
        case .created?, nil: return .created
        case .same?: return .found(bytes)
        case .different(let found)?: return .found(found)
        }
    }

    // MARK: Paths and checks

    /// Removes `name` from a device's `ops` folder (one already gone, or the folder gone, is
    /// fine), syncing the folder when the removal must be durable.
    private func removeFile(_ name: String, _ account: String, _ device: DeviceID, durably: Bool) throws {
        try withFolder(opsComponents(account, device), create: false) { folder in
            do { try sysCall("unlinkat") { unlinkat(folder.fd, name, 0) } } catch let e as SysError where e.errno != ENOENT {
                throw Self.classify(operation: "remove", path: folder.child(name), errno: e.errno)
            } catch {}
            if durably { try syncFolder(folder) }
        }
    }

    private func opsComponents(_ account: String, _ device: DeviceID) -> [String] {
        ["users", account, "devices", device.rawValue, "ops"]
    }

    private func path(_ components: [String]) -> String {
        ([root] + components).joined(separator: "/")
    }

    /// Throws a permanent error for an invalid account name or a root that is not absolute
    /// (both are used to build paths).
    private func check(_ account: String) throws {
        try RemoteError.refusing { try validateAccount(account) }
        guard root.hasPrefix("/") else {
            throw RemoteError.refused("remote folder '\(Sanitize.display(root))' is not an absolute path; fix 'habitto remote set'")
        }
    }

    private var missingRoot: RemoteError {
        .refused("remote folder \(root) does not exist; create it or fix 'habitto remote set'")
    }

    /// Opens the root (following a link there: the user chose it).
    private func openRoot() throws -> Int32 {
        do {
            return try Sys.openFolder(root)
        } catch StoreError.io(_, _, let e) where e == ENOENT || e == ENOTDIR {
            if let st = Sys.status(followingLinks: root), st.st_mode & S_IFMT != S_IFDIR {
                throw RemoteError.refused("remote folder \(root) is not a folder; choose a folder with 'habitto remote set'")
            }
            throw missingRoot
        } catch let e as StoreError {
            throw Self.remoteError(e, operation: "open the remote folder")
        }
    }

    /// Runs `body` on the folder `components` below the root, opened one component at a
    /// time without following a symbolic link, and returns its result; nil when a folder on
    /// the way is missing (with `create`, missing ones are made, mode 0700).
    private func withFolder<T>(_ components: [String], create: Bool, _ body: (Folder) throws -> T) throws -> T? {
        var fd = try openRoot()
        defer { Sys.close(fd) }
        var done = [String]()
        for c in components {
            done.append(c)
            let full = path(done)
            let next: Int32
            do {
                if create { try Sys.makeFolder(in: fd, c, path: full) }
                next = try Sys.open(in: fd, c, O_RDONLY | O_DIRECTORY, path: full)
            } catch StoreError.io(_, _, let e) where e == ENOENT && !create {
                return nil
            } catch StoreError.io(_, _, let e) where e == ENOTDIR || e == ELOOP {
                let mode = (try? Sys.entryStatus(in: fd, c, path: full))??.st_mode ?? 0
                if mode & S_IFMT == S_IFLNK {
                    throw RemoteError.refused("\(full) is a symbolic link; habitto never follows links inside the remote folder (one could send batches elsewhere). Replace it with a real folder")
                }
                throw RemoteError.refused("\(full) is \(mode == 0 ? "not a folder" : Sys.kind(mode) + ", not a folder"); move it out of the remote folder")
            } catch let e as StoreError {
                throw Self.remoteError(e)
            }
            Sys.close(fd)
            fd = next
        }
        return try body(Folder(fd: fd, path: path(components)))
    }

    /// An open folder of the remote and its path (for messages).
    private struct Folder {
        let fd: Int32
        let path: String
        func child(_ name: String) -> String { path + "/" + name }
    }

    /// The entries of an open folder, each with its kind (a link is not followed).
    private func entries(of folder: Folder) throws -> [(name: String, kind: RemoteEntries.Kind)] {
        do {
            return try Sys.entries(of: folder.fd, path: folder.path).compactMap { name in
                guard let st = try Sys.entryStatus(in: folder.fd, name, path: folder.child(name)) else {
                    // Gone since it was listed, or a name that is not valid UTF-8 (shown repaired).
                    return DeviceID(name) == nil && BatchName(fileName: name) == nil ? (name, .other("unreadable")) : nil
                }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: return (name, .folder)
                case S_IFREG: return (name, .file)
                case S_IFLNK: return (name, .symbolicLink)
                default: return (name, .other(Sys.kind(st.st_mode)))
                }
            }
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
    }

    // MARK: Reading and writing

    /// The bytes of the regular file `name` in `folder`, or nil when there is none; a link,
    /// another kind of file (never opened in a way that could block) or a file larger than
    /// `maxBytes` is a permanent error. At most `limit` bytes are read.
    private func readRegularFile(_ name: String, in folder: Folder, maxBytes: Int, limit: Int = .max, what: String) throws -> [UInt8]? {
        let full = folder.child(name)
        do {
            let fd: Int32
            do {
                fd = try Sys.open(in: folder.fd, name, O_RDONLY | O_NONBLOCK, path: full)
            } catch StoreError.io(_, _, let e) where e == ENOENT {
                return nil
            } catch StoreError.io(_, _, let e) where e == ELOOP {
                throw RemoteError.damaged("\(what) at \(full) is not a regular file (a symbolic link: links are never followed); it was not read. Remove it from the remote folder")
            }
            defer { Sys.close(fd) }
            let st = try Sys.status(fd, path: full)
            guard st.st_mode & S_IFMT == S_IFREG else {
                throw RemoteError.damaged("\(what) at \(full) is not a regular file (\(Sys.kind(st.st_mode))); it was not read. Remove it from the remote folder")
            }
            guard Int(st.st_size) <= maxBytes else {
                throw RemoteError.damaged("\(what) at \(full) is \(st.st_size) bytes, larger than the limit of \(maxBytes); it was not read. Remove it from the remote folder")
            }
            return try Sys.pread(fd, count: min(Int(st.st_size), limit), offset: 0, path: full)
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
    }

    /// Removes temporary files left by writers that were killed (older than 15 minutes,
    /// so a write in progress elsewhere is never touched), so they do not spread through a
    /// synced folder. Only regular files named as `createFile` names them.
    private func removeStaleTemporaries(in folder: Folder) {
        guard let names = try? Sys.entries(of: folder.fd, path: folder.path) else { return }
        // The system's own time, not the program's clock: file times are the kernel's.
        let cutoff = Int(SystemClock.now().timeIntervalSince1970) - 15 * 60
        for name in names where RemoteEntries.isTemporary(name, .file) && name.hasPrefix(".tmp-") {
            if let st = try? Sys.entryStatus(in: folder.fd, name, path: folder.child(name)),
               st.st_mode & S_IFMT == S_IFREG, st.st_mtim.tv_sec < cutoff {
                Sys.removeFile(in: folder.fd, name)
            }
        }
    }

    /// What a create-only write found.
    private enum FileCreated {
        case created
        /// The file was already there with the same bytes.
        case same
        /// Something else was already there (its first bytes, when it is a regular file).
        case different([UInt8])
    }

    /// Writes `bytes` as `name` in `folder` only if nothing is there: a temporary file in the
    /// same folder, fsync, `linkat(2)` (which fails rather than replace), fsync of the
    /// folder. The temporary file is removed on every path.
    private func createFile(_ bytes: [UInt8], named name: String, in folder: Folder, what: String) throws -> FileCreated {
        removeStaleTemporaries(in: folder)
        let full = folder.child(name)
        let tmp = ".tmp-\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 16))"
        defer { Sys.removeFile(in: folder.fd, tmp) }
        let linkError: Int32
        do {
            let fd = try Sys.open(in: folder.fd, tmp, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600, path: folder.child(tmp))
            do {
                try Sys.pwriteAll(fd, bytes, offset: 0, path: folder.child(tmp))
                try Sys.fsync(fd, path: folder.child(tmp))
            } catch {
                Sys.close(fd)
                throw error
            }
            Sys.close(fd)
            linkError = Sys.link(in: folder.fd, tmp, to: name)
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
        switch linkError {
        case 0:
            try syncFolder(folder)
            return .created
        case EEXIST:
            // Read whole (up to the largest batch): the same operations may be there in other
            // bytes (another batch format, another seen vector), and `BatchAck` judges that.
            guard let existing = try readRegularFile(name, in: folder, maxBytes: Int.max, limit: max(bytes.count + 1, BatchFile.maxBytes + 1), what: what) else {
                throw RemoteError.unreachable("\(what) at \(full) appeared and vanished while it was written; sync will try again")
            }
            guard existing == bytes else { return .different(existing) }
            // It may have been written by a process that stopped before syncing the folder.
            try syncFolder(folder)
            return .same
        case EPERM, EOPNOTSUPP, ENOSYS:
            throw RemoteError.refused("cannot create \(full): \(String(cString: strerror(linkError))); the remote folder must be writable and on a file system with hard links (FAT and exFAT drives have none)")
        default:
            throw Self.classify(operation: "create", path: full, errno: linkError)
        }
    }

    /// Replaces `name` in `folder` with `bytes` atomically: a temporary file in the same
    /// folder, fsync, `renameat(2)` over the old one, fsync of the folder.
    private func replace(_ bytes: [UInt8], named name: String, in folder: Folder) throws {
        let tmp = ".tmp-\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 16))"
        defer { Sys.removeFile(in: folder.fd, tmp) }
        do {
            let fd = try Sys.open(in: folder.fd, tmp, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600, path: folder.child(tmp))
            defer { Sys.close(fd) }
            try Sys.pwriteAll(fd, bytes, offset: 0, path: folder.child(tmp))
            try Sys.fsync(fd, path: folder.child(tmp))
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
        do { try sysCall("renameat") { renameat(folder.fd, tmp, folder.fd, name) } } catch {
            throw Self.classify(operation: "replace", path: folder.child(name), errno: error.errno)
        }
        try syncFolder(folder)
    }

    /// Makes a folder's new entries durable; file systems that cannot sync a folder are fine.
    private func syncFolder(_ folder: Folder) throws {
        do {
            try Sys.fsync(folder.fd, path: folder.path)
        } catch StoreError.io(_, _, let e) where e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP {
            return
        } catch let e as StoreError {
            throw Self.remoteError(e)
        }
    }
}
