import FoundationEssentials
import HabitCore

/// The remote a device's settings name, parsed once: a folder or a WebDAV server, either of
/// them encrypted with age. Its `setting` is the text the settings file keeps.
public indirect enum RemoteSpec: Equatable, Sendable, CustomStringConvertible {
    /// A plain folder: a shared or Syncthing folder, a mount (`dir:/path`, `file:///path`).
    case folder(path: String)
    /// A WebDAV server (`https://…`, or `http://` to this machine), logged in as `user` when
    /// one is set.
    case webDAV(url: URL, user: String?)
    /// Either of them with every batch an age file (`EncryptedRemote`).
    case encrypted(RemoteSpec)

    /// Reads a remote setting: `dir:/abs/path`, `file:///abs/path`, or an `https://` (or
    /// loopback `http://`) URL, with the WebDAV user and whether it is encrypted. Throws
    /// `SyncSettingError` in one line saying what to write.
    public init(_ setting: String, user: String? = nil, encrypted: Bool = false) throws {
        let plain: RemoteSpec
        if setting.hasPrefix("https://") || setting.hasPrefix("http://") {
            guard let url = URL(string: setting) else { throw SyncSettingError.remoteNotAURL(setting: setting) }
            plain = .webDAV(url: url, user: user)
        } else if setting.hasPrefix("dir:") {
            let path = String(setting.dropFirst(4))
            guard path.hasPrefix("/") else {
                throw SyncSettingError.remoteDirNotAbsolute(setting: setting)
            }
            plain = .folder(path: path)
        } else if setting.hasPrefix("file://") {
            let path = String(setting.dropFirst(7))
            guard path.hasPrefix("/") else { throw SyncSettingError.remoteFileNotAbsolute(setting: setting) }
            plain = .folder(path: path.percentDecoded ?? path)
        } else {
            throw SyncSettingError.remoteNotUnderstood(setting: setting)
        }
        self = encrypted ? .encrypted(plain) : plain
    }

    /// The remote under its encryption.
    /// Whether the plain remote is a WebDAV server (which answers change probes).
    public var isWebDAV: Bool {
        if case .webDAV = plain { return true }
        return false
    }

    public var plain: RemoteSpec {
        if case .encrypted(let inner) = self { return inner.plain }
        return self
    }

    /// Whether every batch is an age file.
    public var isEncrypted: Bool {
        if case .encrypted = self { return true }
        return false
    }

    /// The WebDAV user, if any.
    public var user: String? {
        if case .webDAV(_, let user) = plain { return user }
        return nil
    }

    /// The setting's text, as `habitto remote set` takes it (the encryption and the user
    /// are settings of their own).
    public var setting: String {
        switch plain {
        case .folder(let path): "dir:" + path
        case .webDAV(let url, _): url.absoluteString
        case .encrypted: "" // not reached: `plain` is not encrypted
        }
    }

    public var description: String { setting }

    /// The plain remote it names, ready to use (the encryption is put over it once the
    /// remote's format and this device's key agree: `Negotiation`). Throws `SyncSettingError`
    /// for a WebDAV setting that cannot work (plain http to another machine, a CA file that is
    /// not there).
    public func remote(access: RemoteAccess = RemoteAccess()) throws -> any Remote {
        switch plain {
        case .folder(let path):
            return DirectoryRemote(root: path)
        case .webDAV(let url, let user):
            do {
                return try WebDAVRemote(url: url, user: user, password: user == nil ? nil : try access.password(), caFile: access.caFile)
            } catch let e as RemoteError {
                throw SyncSettingError.remoteUnusable(e)
            }
        case .encrypted(let inner):
            return try inner.remote(access: access)
        }
    }
}

/// The remote a spec makes, kept from round to round (the UI's WebDAV remote keeps its
/// helper process and its connection), made again when the spec changes.
struct RemoteCache {
    private var kept: (spec: RemoteSpec, remote: any Remote)?

    /// The plain remote of `spec` (wrapped in a `FaultyRemote` with `faults`), starting from
    /// what earlier rounds learnt `existing` there.
    mutating func remote(for spec: RemoteSpec, access: RemoteAccess, faults: FaultPlan?, clock: any SyncClock,
                         existing: [String]) throws -> any Remote {
        if let kept, kept.spec == spec { return kept.remote }
        var r: any Remote
        do { r = try spec.remote(access: access) } catch let e as SyncSettingError { throw RemoteError.refused(e.description) }
        if let faults { r = FaultyRemote(r, plan: faults, clock: clock) }
        r.assumeExisting(Set(existing))
        kept = (spec, r)
        return r
    }
}

/// Builds a plain remote from its setting's text (see `RemoteSpec`).
public func makeRemote(_ setting: String, user: String? = nil, access: RemoteAccess = RemoteAccess()) throws -> any Remote {
    try RemoteSpec(setting, user: user).remote(access: access)
}

/// Where this device's data goes: a remote (its setting's text) and an account there. Kept
/// in `sync.json` as `REMOTE#ACCOUNT` (an account never holds `#`).
public struct SyncTarget: Hashable, Sendable, Codable, CustomStringConvertible {
    public let remote: String
    public let account: String

    public init(remote: String, account: String) { self.remote = remote; self.account = account }

    public var description: String { "\(remote)#\(account)" }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        // Split at the last '#' (a URL may hold one); without one it names no target this
        // version makes, so it equals none.
        if let cut = text.lastIndex(of: "#") {
            self.init(remote: String(text[..<cut]), account: String(text[text.index(after: cut)...]))
        } else {
            self.init(remote: text, account: "")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
