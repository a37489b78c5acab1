import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// What a process killed with kill -9 leaves behind, removed at the next start: the
/// temporary files of `Sys.writeAtomically` (`NAME.tmp-PID-N`) in the data directory and its
/// `backups` and `recovered` folders, and the temporary folders a Loop zip is unpacked into
/// (`habitto-import-PID-XXXXXX` in the temporary directory). Only Habitto's own, by their
/// exact pattern, and only when the process named in them is gone: a write or an import in
/// progress in another process is never touched. Links are never followed, and nothing
/// else is ever removed. Errors are ignored (a read-only directory keeps its leftovers).
public enum Leftovers {
    /// The prefix of an import's temporary folder, followed by `PID-XXXXXX`.
    public static let importFolderPrefix = "habitto-import-"

    /// Removes the stale leftovers of a data directory, and stale import folders.
    public static func removeStale(_ paths: DataPaths) {
        // The sub-folders are entered only when the data folder's listing has them: most
        // starts have neither, and each look costs a system call.
        let top = removeStaleTemporaries(in: paths.directory)
        func listed(_ folder: String) -> Bool {
            let name = folder.pathLastComponent
            guard let top, folder == paths.directory + "/" + name else { return true }
            return top.contains(name)
        }
        if listed(Backups.directory(paths)) { removeStaleTemporaries(in: Backups.directory(paths)) }
        if listed(paths.recovered), let names = removeStaleTemporaries(in: paths.recovered) {
            // A restore of a damaged journal copies files into recovered/damaged-…/.
            for name in names where name.hasPrefix("damaged-") {
                removeStaleTemporaries(in: paths.recovered + "/" + name)
            }
        }
        // The temporary directory is listed only when an import unpacked a zip since the
        // last time it was cleaned (its marker is there): listing a busy /tmp at every start
        // would cost every command a few milliseconds.
        if (try? Sys.entryStatus(importMarker)) != nil {
            removeStaleImportFolders()
        }
    }

    /// A file in the temporary directory, per user, that says import folders may be there:
    /// made before an import makes its folder, removed once no import folder is left.
    public static var importMarker: String { temporaryDirectory + "/habitto-imports-\(getuid())" }

    /// Leaves the marker that makes the next start look for stale import folders. Opening
    /// never waits (a FIFO put in its place has no reader: the marker is then not made).
    public static func markImportFolders() {
        if let fd = try? Sys.open(importMarker, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK) { Sys.close(fd) }
    }

    /// The process that wrote a temporary file named `NAME.tmp-PID-N` (digits only), or
    /// nil when the name is not one.
    public static func temporaryFileOwner(_ name: String) -> pid_t? {
        guard let marker = name.scalarRange(of: ".tmp-", last: true), marker.lowerBound > name.startIndex else { return nil }
        let parts = String(name.unicodeScalars[marker.upperBound...]).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts[0].first != "0", let pid = pid_t(parts[0]) else { return nil }
        return pid
    }

    /// Removes the temporary files of `Sys.writeAtomically` in `folder` (not in its
    /// sub-folders) whose process is gone, and returns the names the folder held (nil when
    /// it could not be listed). A folder that is a link is not entered.
    @discardableResult
    public static func removeStaleTemporaries(in folder: String) -> [String]? {
        guard let names = try? Sys.folderEntries(folder, followLinks: false) else { return nil }
        for name in names {
            guard let pid = temporaryFileOwner(name), !Sys.processExists(pid) else { continue }
            let path = folder + "/" + name
            guard let st = try? Sys.entryStatus(path), st.st_mode & S_IFMT == S_IFREG else { continue }
            Sys.removeFile(path)
        }
        return names
    }

    /// The process that made an import folder named `habitto-import-PID-XXXXXX`, or nil.
    public static func importFolderOwner(_ name: String) -> pid_t? {
        guard name.hasPrefix(importFolderPrefix) else { return nil }
        let parts = name.dropFirst(importFolderPrefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 10, parts[0].first != "0",
              parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
              parts[1].count == 6, parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              let pid = pid_t(parts[0]) else { return nil }
        return pid
    }

    /// The temporary directory import folders are made in (`TMPDIR`, else /tmp), without a
    /// trailing slash.
    public static var temporaryDirectory: String {
        // As NSTemporaryDirectory() finds it, without Foundation (which cost every command the
        // runtime's scan of all protocol conformances).
        var base = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        if base.isEmpty { base = "/tmp" }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// Removes import folders of this user whose process is gone, with what they hold; the
    /// marker goes too when no import folder of this user is left.
    public static func removeStaleImportFolders(in base: String = temporaryDirectory) {
        guard let names = try? Sys.folderEntries(base) else { return }
        var remaining = 0
        for name in names {
            guard let pid = importFolderOwner(name) else { continue }
            remaining += 1
            guard !Sys.processExists(pid) else { continue }
            let path = base + "/" + name
            // A real folder (not a link), made by this user.
            guard let st = try? Sys.entryStatus(path), st.st_mode & S_IFMT == S_IFDIR, st.st_uid == getuid() else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { remaining -= 1 }
        }
        if remaining == 0 && base == temporaryDirectory { Sys.removeFile(importMarker) }
    }
}
