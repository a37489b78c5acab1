import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The one error type of HabitStore. Every message names the file and says what to do.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A system call failed.
    case io(operation: String, path: String, errno: Int32)
    /// A bad record is followed by good ones: nothing may be written.
    case corrupt(path: String, offset: Int, detail: String)
    /// A file exists but is not what Habitto wrote (wrong format or version).
    case unreadable(path: String, detail: String)
    /// The configuration file is invalid (the message names the line).
    case config(String)
    /// A file Habitto takes commands or a secret from is not this user's own file that no one
    /// else can write (see `LocalTrust`), so nothing in it was used.
    case untrusted(LocalTrust.Refusal)
    /// Another process held a lock for longer than the wait allowed (`Sys.lock`). `lock` names
    /// it ("the data lock"), `holder` says who holds it ("habitto (process 4242)", or "another
    /// process" when that cannot be told), `seconds` is how long was waited.
    case lockBusy(path: String, lock: String, holder: String, seconds: Double)
    /// A file or folder inside the data directory is a symbolic link: never followed, so
    /// nothing was read or written through it.
    case link(path: String)
    /// `backup restore`'s id (as typed) names no backup; `malformed`: it cannot be one (a
    /// path, `.`, `..`, empty).
    case noSuchBackup(id: String, malformed: Bool)

    /// Whether this is a lock held by another process for longer than the wait allowed.
    public var isLockBusy: Bool {
        if case .lockBusy = self { return true }
        return false
    }

    /// Whether this is an invalid config file, or a file of commands or secrets that is not
    /// used (`untrusted`): a setting to fix, not a failure of the storage.
    public var isConfigProblem: Bool {
        switch self {
        case .config, .untrusted: return true
        default: return false
        }
    }

    /// Whether this refuses what the user asked for (a setting to fix, or a backup id that
    /// names none) rather than being a failure of the storage: the command exits 1.
    public var isRefusal: Bool {
        switch self {
        case .config, .untrusted, .noSuchBackup: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .io(let op, let path, let e):
            let reason = String(cString: strerror(e))
            let hint: String
            switch e {
            case ENOSPC, EDQUOT: hint = "free some disk space and try again; nothing was changed"
            case EROFS: hint = "the file system is read-only; use a writable --home"
            case EACCES, EPERM: hint = "check the permissions of the data directory or use another --home"
            case ENOENT: hint = "the path does not exist"
            default: hint = "nothing was changed"
            }
            return "cannot \(op) \(path): \(reason); \(hint)"
        case .corrupt(let path, let offset, let detail):
            return "journal \(path) is corrupt at byte \(offset) (\(detail)), and valid records follow; nothing was written. Run 'habitto doctor': it names the backup to restore"
        case .unreadable(let path, let detail):
            return "\(path): \(detail)"
        case .config(let m):
            return m
        case .untrusted(let refusal):
            return refusal.description
        case .lockBusy(let path, let lock, let holder, let seconds):
            let waited = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
            return "\(holder) has held \(lock) \(path) for more than \(waited) s; close it or try again"
        case .link(let path):
            return "\(path): is a symbolic link; Habitto never follows links inside its data directory (they could send its files elsewhere). Remove the link, or put what it points to there in its place"
        case .noSuchBackup(let id, let malformed):
            return "'\(id)' \(malformed ? "is not a backup id" : "names no backup"); 'habitto backup list' shows the ids"
        }
    }
}
