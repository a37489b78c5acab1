import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitCore
import HabitStore

/// How a failed system call on a folder remote becomes one of the error classes of
/// `RemoteError`, with a message that names the path and says what to do.
extension DirectoryRemote {
    /// A failed store call of a folder remote as a RemoteError (`operation` names what it did).
    static func remoteError(_ e: StoreError, operation: String? = nil) -> RemoteError {
        switch e {
        case .io(let op, let path, let code): return classify(operation: operation ?? op, path: path, errno: code)
        default: return .refused(e.description)
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
        return isTransient(code) ? .unreachable(message) : .refused(message)
    }
}
