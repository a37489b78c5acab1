import FoundationEssentials
import Glibc
import HabitCore
import HabitStore

/// The sync settings the user chose, kept in the text file `remote` in the data directory
/// (beside `sync.json`, which holds only the cursor and status), so that they are easy to
/// see and survive the loss of `sync.json`:
///
/// ```
/// # Habitto's sync settings for this data directory ('habitto remote set' changes them).
/// remote = https://home.example.org/dav/habitto
/// account = anna
/// user = anna
/// offline = on
/// encrypt = age
/// ```
///
/// Only settings that differ from the defaults are written; with none the file is removed.
/// It never holds a password: `remote set` refuses a URL with one.
public struct RemoteSettings: Equatable, Sendable {
    /// `dir:/path` or a WebDAV URL (nil: local only).
    public var remote: String?
    public var account = "default"
    /// The WebDAV user.
    public var user: String?
    /// The user's offline switch.
    public var offline = false
    /// How the remote is encrypted: `age` (its key is `RemoteKey`), or nil: not encrypted.
    public var encrypt: String?

    public init(remote: String? = nil, account: String = "default", user: String? = nil, offline: Bool = false, encrypt: String? = nil) {
        self.remote = remote; self.account = account; self.user = user; self.offline = offline; self.encrypt = encrypt
    }

    /// The one encryption there is.
    public static let age = "age"

    /// The names these settings have in `sync.json` (where an older version kept them).
    static let fieldNames = ["remote", "account", "user", "offline", "encrypt"]

    static func path(_ paths: DataPaths) -> String { paths.directory + "/remote" }

    static func exists(_ paths: DataPaths) -> Bool { Sys.canAccess(path(paths), F_OK) }

    /// The file's text (nil: nothing differs from the defaults).
    var text: String? {
        guard self != RemoteSettings() else { return nil }
        var lines = ["# Habitto's sync settings for this data directory ('habitto remote set' and 'habitto offline' change them).",
                     "# No password is kept here: see WebDAV in docs/sync.md."]
        if let remote { lines.append("remote = \(remote)") }
        if account != "default" { lines.append("account = \(account)") }
        if let user { lines.append("user = \(user)") }
        if offline { lines.append("offline = on") }
        if let encrypt { lines.append("encrypt = \(encrypt)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses the file's text; throws naming the line and what to write.
    init(parsing text: String, path: String) throws {
        // Every line break ends a line (CRLF, CR, NEL, U+2028 too), so no value read holds one
        // and whatever is read can be written back (`save` refuses line breaks).
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingBlanks
            // A comment is a whole line: a URL may hold '#'.
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks }
            let at = "\(path) line \(n + 1)"
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw StoreError.config("\(at): expected 'key = value' (remote, account, user, offline or encrypt)")
            }
            let value = parts[1]
            switch parts[0] {
            case "remote": remote = value
            case "account":
                do { try validateAccount(value) } catch { throw StoreError.config("\(at): \(error)") }
                account = value
            case "user": user = value
            case "offline":
                guard value == "on" || value == "off" else { throw StoreError.config("\(at): offline must be on or off") }
                offline = value == "on"
            case "encrypt":
                guard value == RemoteSettings.age else { throw StoreError.config("\(at): encrypt must be age (set it with habitto remote set SPEC --encrypt)") }
                encrypt = value
            default:
                throw StoreError.config("\(at): unknown setting '\(Sanitize.display(parts[0]))' (known: remote, account, user, offline, encrypt)")
            }
        }
    }

    /// The settings in the data directory's `remote` file, or nil when there is none.
    static func load(_ paths: DataPaths) throws -> RemoteSettings? {
        let file = path(paths)
        guard let bytes = try Sys.readFile(file, limit: 64 << 10, followLinks: false) else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StoreError.config("\(file): not UTF-8 text; fix it, or delete it and run habitto remote set again")
        }
        return try RemoteSettings(parsing: text, path: file)
    }

    /// Writes the file when its text changed (durably), or removes it when there is nothing
    /// to say. A value with a line break, or space at either end, cannot be written.
    func save(_ paths: DataPaths) throws {
        let file = RemoteSettings.path(paths)
        for value in [remote, user].compactMap({ $0 })
        where value.contains(where: \.isNewline) || value != value.trimmingBlanks {
            throw SyncSettingError.valueNotWritable(value)
        }
        guard let text else {
            if RemoteSettings.exists(paths) { Sys.removeFile(file); try Sys.syncDirectory(paths.directory) }
            return
        }
        if let old = try? Sys.readFile(file, limit: 64 << 10, followLinks: false), old == Array(text.utf8) { return }
        try Sys.writeAtomically(Array(text.utf8), to: file)
    }
}
