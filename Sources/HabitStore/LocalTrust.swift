import FoundationEssentials
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// Which local files Habitto takes commands or secrets from, decided in one place (as ssh
/// decides for its keys and config): the config file (its `password_command` is run), the
/// `auto` file (its commands are run), the data directory's `remote-key` and the config's
/// `password_file`. Such a file is used only when it is a regular file owned by the user
/// running Habitto (the effective user) that neither group nor others can write (a secret:
/// neither read nor write). Outside the data directory a symbolic link is followed, and
/// the file it leads to must be so; inside it no link is followed. Anything else is refused
/// with `StoreError.untrusted`, one line that names the file and the `chown` or `chmod`
/// that fixes it, and nothing in it is read. The check is made on the opened file
/// (`fstat`), so the file read is the file checked.
public enum LocalTrust {
    /// What a file holds, which says how private it must be.
    public enum Holds: Sendable, Equatable {
        /// Settings or commands (the config, `auto`): no one else may write it.
        case commands
        /// A key or a password: no one else may read or write it.
        case secret

        /// The mode bits that must be clear.
        var forbidden: mode_t { self == .secret ? 0o077 : 0o022 }
    }

    /// Why a file is not used.
    public enum Problem: Sendable, Equatable {
        /// It is not a regular file: `kind` says what it is ("a FIFO (named pipe)", and inside
        /// the data directory "a symbolic link").
        case notRegular(kind: String)
        /// It is owned by another user (`owner`, a name or "uid N"); `mode` is its mode.
        case owner(String, mode: mode_t)
        /// It is this user's, but its mode lets group or others write it (a secret: read it).
        case mode(mode_t)
    }

    /// A file that was not used, and why: what `StoreError.untrusted` renders.
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The path Habitto looked at.
        public let path: String
        /// What it is, in words that start a sentence's subject ("the config file").
        public let what: String
        /// Where a symbolic link at `path` leads (nil: not a link, or not followed).
        public let target: String?
        public let holds: Holds
        public let problem: Problem

        /// What is wrong, after "WHAT PATH is not used: ".
        public var reason: String {
            switch problem {
            case .notRegular(let kind):
                return "it is \(kind), not a regular file"
            case .owner(let owner, let mode):
                let loose = mode & holds.forbidden != 0 ? ", and \(Self.who(mode, holds)) (mode \(Self.octal(mode)))" : ""
                return "it belongs to \(owner), not to \(LocalTrust.currentUser) who runs Habitto\(loose)"
            case .mode(let mode):
                return "\(Self.who(mode, holds)) (mode \(Self.octal(mode)))"
            }
        }

        /// What to do about it, as advice that follows the reason.
        public var fix: String {
            let file = Doctor.shellQuoted(target ?? path)
            let chmod = holds == .secret ? "chmod 600 \(file)" : "chmod go-w \(file)"
            switch problem {
            case .notRegular(let kind) where kind == Sys.kind(S_IFLNK):
                return "Habitto follows no link inside its data directory: put the file itself in the link's place"
            case .notRegular:
                return "move it away and put a regular file of yours in its place"
            case .owner(_, let mode):
                let both = mode & holds.forbidden != 0 ? " && \(chmod)" : ""
                return "check what it holds; if you trust it, run chown \(LocalTrust.currentUser) \(file)\(both)"
            case .mode:
                return holds == .secret ? "run \(chmod)" : "check what it holds; if you trust it, run \(chmod)"
            }
        }

        /// "the auto file /home/anna/.config/habitto/auto (a link to /tmp/auto) is not used: REASON"
        public var statement: String {
            "\(what) \(path)\(target.map { " (a link to \($0))" } ?? "") is not used: \(reason)"
        }

        /// The statement and the fix, in one line.
        public var description: String { "\(statement); \(fix)" }

        static func who(_ mode: mode_t, _ holds: Holds) -> String {
            let others = mode & 0o002 != 0 || (holds == .secret && mode & 0o004 != 0)
            let group = mode & 0o020 != 0 || (holds == .secret && mode & 0o040 != 0)
            let whom = group && others ? "group and others" : group ? "its group" : "others"
            return holds == .secret ? "\(whom) can read or write it" : "\(whom) can write it"
        }

        static func octal(_ mode: mode_t) -> String {
            let text = String(mode & 0o777, radix: 8)
            return String(repeating: "0", count: max(0, 3 - text.count)) + text
        }
    }

    /// The user running Habitto, as `chown` takes it: the name of the effective user id, or
    /// the number when it has no name.
    public static var currentUser: String { userName(geteuid()) }

    /// The name of user `uid`, or "uid N" when the password database has none.
    static func userName(_ uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard (try? sysCallReturningError("getpwuid_r") { getpwuid_r(uid, &entry, &buffer, buffer.count, &result) }) != nil,
              let found = result, let name = found.pointee.pw_name else {
            return uid == geteuid() ? String(uid) : "uid \(uid)"
        }
        return String(cString: name)
    }

    /// Opens the file at `path` for reading when it may be used (see above); nil when nothing
    /// is there. `what` names it in messages ("the auto file"); `inDataDirectory`: a link is
    /// refused, not followed. Opening never blocks (a FIFO is refused, not waited on).
    /// Throws `StoreError.untrusted`, or `StoreError.io` when it cannot be opened.
    public static func open(_ path: String, what: String, holds: Holds, inDataDirectory: Bool = false) throws -> (fd: Int32, status: stat)? {
        func refused(_ problem: Problem, target: String? = nil) -> StoreError {
            .untrusted(Refusal(path: path, what: what, target: target, holds: holds, problem: problem))
        }
        let fd: Int32
        do {
            guard let opened = try Sys.openIfPresent(path, O_RDONLY | O_NONBLOCK | (inDataDirectory ? O_NOFOLLOW : 0)) else { return nil }
            fd = opened
        } catch StoreError.io(_, _, let e) where e == ELOOP && inDataDirectory {
            throw refused(.notRegular(kind: Sys.kind(S_IFLNK)))
        }
        do {
            let st = try Sys.status(fd, path: path)
            let target = inDataDirectory ? nil : (try? Sys.entryStatus(path)).flatMap { $0.st_mode & S_IFMT == S_IFLNK ? Sys.resolvedPath(path) : nil }
            guard st.st_mode & S_IFMT == S_IFREG else { throw refused(.notRegular(kind: Sys.kind(st.st_mode)), target: target) }
            let mode = st.st_mode & 0o7777
            if st.st_uid != geteuid() { throw refused(.owner(userName(st.st_uid), mode: mode), target: target) }
            if mode & holds.forbidden != 0 { throw refused(.mode(mode), target: target) }
            return (fd, st)
        } catch {
            Sys.close(fd)
            throw error
        }
    }

    /// The whole content of the file at `path` when it may be used (see `open`), at most
    /// `limit` bytes; nil when nothing is there.
    public static func read(_ path: String, what: String, holds: Holds, inDataDirectory: Bool = false, limit: Int) throws -> [UInt8]? {
        guard let (fd, st) = try open(path, what: what, holds: holds, inDataDirectory: inDataDirectory) else { return nil }
        defer { Sys.close(fd) }
        guard Int(st.st_size) <= limit else { throw StoreError.unreadable(path: path, detail: "is larger than \(limit) bytes") }
        return try Sys.pread(fd, count: Int(st.st_size), offset: 0, path: path)
    }

    /// Why the file at `path` would not be used now, or nil (nothing there, or it may be
    /// used): for the doctor, which reports it. Nothing is read, and inside the data
    /// directory no link is followed.
    public static func refusal(_ path: String, what: String, holds: Holds, inDataDirectory: Bool = false) -> Refusal? {
        do {
            if let (fd, _) = try open(path, what: what, holds: holds, inDataDirectory: inDataDirectory) { Sys.close(fd) }
            return nil
        } catch StoreError.untrusted(let refusal) {
            return refusal
        } catch {
            return nil
        }
    }
}
