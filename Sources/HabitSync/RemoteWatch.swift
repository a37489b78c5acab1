import FoundationEssentials
import HabitCore
import HabitStore
import HabitSys

/// How this process learns that a folder remote changed, as `status` and the UI say it.
public enum WatchMode: Equatable, Sendable {
    /// Not watched: no loop runs (a command), the remote is not a folder, or sync is off.
    case off
    /// Other devices' folders are watched (inotify): their batches are pulled at once.
    case watching
    /// The folder is on a file system that does not report other machines' changes (its
    /// name), or cannot be watched (why): the loop pulls on its timer.
    case timer(String)
}

/// Watches a folder remote's account for other devices' batches (Linux inotify, through
/// `FolderWatch`): `users/{account}` (for its `devices` folder to appear), `devices`, and
/// each other device's folder and its `ops`, added as they appear. This device's own folder
/// is not watched, so its own pushes wake nothing. Every event calls `changed`; what changed
/// is read by the round it starts, as any listing is.
final class RemoteWatch: Sendable {
    let root: String
    let account: String
    let own: DeviceID
    private let watch: FolderWatch

    /// Starts watching, or throws when the account's folder cannot be watched.
    init(root: String, account: String, own: DeviceID, changed: @escaping @Sendable () -> Void) throws {
        self.root = root; self.account = account; self.own = own
        let base = root + "/users/" + account
        let devices = base + "/devices"
        let ownFolder = own.rawValue
        // The events come on the watch's queue; folders are added from a task, never there.
        let box = WatchBox()
        watch = try FolderWatch { event in
            changed()
            guard event.isFolder, let w = box.watch else { return }
            let path = event.folder + "/" + event.name
            if event.folder == base && event.name == "devices" {
                Task { RemoteWatch.addDevices(devices, own: ownFolder, to: w) }
            } else if event.folder == devices && event.name != ownFolder && DeviceID(event.name) != nil {
                Task { try? w.add(path); try? w.add(path + "/ops") }
            } else if event.name == "ops" && event.folder.hasPrefix(devices + "/") {
                Task { try? w.add(path) }
            }
        }
        box.watch = watch
        try watch.add(base)
        Self.addDevices(devices, own: ownFolder, to: watch)
    }

    deinit { watch.stop() }

    /// The folders watched now.
    var folders: Set<String> { watch.watched }

    /// Watches `devices` and each other device's folder and `ops` in it that are there now.
    private static func addDevices(_ devices: String, own: String, to watch: FolderWatch) {
        guard (try? watch.add(devices)) != nil else { return }
        for name in ((try? Sys.folderEntries(devices, followLinks: false)) ?? []).sorted().prefix(FolderWatch.maxFolders / 2 - 2) where name != own && DeviceID(name) != nil {
            try? watch.add(devices + "/" + name)
            try? watch.add(devices + "/" + name + "/ops")
        }
    }

    /// How a loop on `spec` learns of changes: watched when it is a folder (plain or
    /// encrypted) on a file system that reports them.
    static func mode(for spec: RemoteSpec) -> (root: String?, mode: WatchMode) {
        guard case .folder(let root) = spec.plain else { return (nil, .off) }
        guard Sys.status(followingLinks: root) != nil else { return (root, .timer("the folder cannot be read")) }
        let mounts = String(decoding: mountTable(), as: UTF8.self)
        guard let type = fileSystemType(of: Sys.resolvedPath(root), mounts: mounts), let name = nonReporting(type) else {
            return (root, .watching)
        }
        return (root, .timer("\(name) does not report other machines' changes"))
    }

    /// `/proc/self/mounts` (its size reads as 0, so it is read to its end, at most 1 MiB);
    /// empty when it cannot be read.
    static func mountTable() -> [UInt8] {
        guard let (fd, _) = try? Sys.openRegularFile("/proc/self/mounts") else { return [] }
        defer { Sys.close(fd) }
        return (try? Sys.pread(fd, count: 1 << 20, offset: 0, path: "/proc/self/mounts")) ?? []
    }

    /// The type of the file system `path` (resolved) is on, by the longest mount point of
    /// `/proc/self/mounts` (`mounts`) that holds it; nil when none does.
    static func fileSystemType(of path: String, mounts: String) -> String? {
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = unescaped(fields[1])
            let holds = point == "/" || path == point || path.hasPrefix(point + "/")
            if holds && point.count >= (best?.point.count ?? -1) { best = (point, String(fields[2])) }
        }
        return best?.type
    }

    /// A mount point as `/proc/self/mounts` writes it, with its octal escapes (`\\040` for a
    /// space, as for a tab, a newline and a backslash) read back.
    static func unescaped(_ field: Substring) -> String {
        var out: [UInt8] = []
        let bytes = Array(field.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\"), i + 3 < bytes.count,
               let v = UInt8(String(decoding: bytes[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                out.append(v)
                i += 4
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The name of a file system type whose changes from other machines inotify does not
    /// see (network and FUSE file systems: only this machine's own changes would be), nil
    /// for one that reports them.
    static func nonReporting(_ type: String) -> String? {
        let network = ["nfs": "NFS", "nfs4": "NFS", "cifs": "SMB", "smb3": "SMB", "smbfs": "SMB", "9p": "9p", "ceph": "Ceph",
                       "afs": "AFS", "coda": "Coda", "gfs2": "GFS2", "ocfs2": "OCFS2", "lustre": "Lustre", "glusterfs": "GlusterFS",
                       "davfs": "davfs", "sshfs": "sshfs"]
        if let name = network[type] { return name }
        if type == "fuse" || type.hasPrefix("fuse.") { return "FUSE (\(type))" }
        return nil
    }
}

/// Holds the watch for its own event handler, which starts before the watch is made.
private final class WatchBox: @unchecked Sendable {
    // @unchecked: set once, before the first folder is added and so before any event.
    var watch: FolderWatch?
}
