import HabitCore

/// A remote failure, in the classes docs/sync.md names. Each class is transient (the round
/// ends `unreachable` and is retried with backoff) or permanent (the round ends `failed` and
/// waits for the user): `kind` says which. The message is one line that says what to do.
public enum RemoteError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The remote cannot be reached or did not answer now (a timeout, a refused connection,
    /// 5xx, 429, a folder that is not mounted): tried again. `retryAfter`: the seconds the
    /// remote asked to wait (HTTP Retry-After), if it said.
    case unreachable(String, retryAfter: Double? = nil)
    /// The remote refused what was asked in a way retrying will not fix (a missing root, a
    /// read-only folder, a redirect, an unexpected status, a setting that cannot work).
    case refused(String)
    /// The login was refused (401, 403), or no password was given for the user.
    case authentication(String)
    /// The remote refused a write for its size (413; `transient` when the connection closed
    /// while a large body was sent): a smaller batch may go through.
    case tooLarge(String, transient: Bool = false)
    /// A batch that was listed is not there: removed since by a compaction that wrote a batch
    /// covering it, so listing the device again finds what covers it.
    case notFound(String)
    /// A create-only write found other contents under the name (`BatchAck` decided).
    case conflict(String)
    /// What the remote holds cannot be used: an invalid or damaged batch, a file that does
    /// not decrypt, a format file of another kind or version.
    case damaged(String)

    /// Whether retrying later may help.
    public enum Kind: Equatable, Sendable {
        /// Try again later, with backoff.
        case transient
        /// Needs a fix or an explicit retry.
        case permanent
    }

    public var kind: Kind {
        switch self {
        case .unreachable, .tooLarge(_, transient: true): .transient
        default: .permanent
        }
    }

    /// The one-line message.
    public var message: String {
        switch self {
        case .unreachable(let m, _), .refused(let m), .authentication(let m), .tooLarge(let m, _), .notFound(let m),
             .conflict(let m), .damaged(let m):
            m
        }
    }

    public var description: String { message }

    /// The seconds the remote asked to wait, if it said.
    public var retryAfter: Double? {
        if case .unreachable(_, let seconds) = self { return seconds }
        return nil
    }

    /// The write was refused for its size.
    public var tooLarge: Bool {
        if case .tooLarge = self { return true }
        return false
    }

    /// What the remote holds cannot be used (a damaged, undecryptable or unauthentic file).
    public var isDamaged: Bool {
        if case .damaged = self { return true }
        return false
    }

    /// A listed batch is gone.
    public var missing: Bool {
        if case .notFound = self { return true }
        return false
    }

    /// Turns a `SyncSettingError` of a check made on the way to the remote (an account name) into
    /// the refusal it is.
    static func refusing(_ body: () throws -> Void) throws {
        do { try body() } catch let e as SyncSettingError { throw RemoteError.refused(e.description) }
    }
}
