import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitCore

/// Settings read from `config` in the configuration directory: `key = value` lines,
/// `#` comments. A missing file means the defaults.
public struct Config: Sendable, Equatable {
    /// Hour (0–23) at which a new habit day begins; before it, it is still yesterday.
    public var dayStartHour = 0
    /// First day of the week for N-per-week habits.
    public var weekStart: Weekday = .monday
    /// The terminal UI's theme (a file name in the themes folders, without `.theme`).
    public var theme: String?
    /// Faults to inject into the sync remote (as `HABITTO_FAULTS`), for demos and tests.
    public var faults: String?
    /// A command whose first line of output is the WebDAV password.
    public var passwordCommand: String?
    /// A file holding the WebDAV password (it must not be readable by others).
    public var passwordFile: String?
    /// A CA certificate file for a self-hosted server.
    public var caFile: String?
    /// How many days backups are kept (the newest one is always kept).
    public var backupKeepDays = 30
    /// Whether a change made by a command starts a sync round in the background
    /// (`sync_after_change`; the environment's `HABITTO_SYNC_AFTER_CHANGE` wins over it).
    public var syncAfterChange = true
    /// Whether the terminal UI takes the mouse (clicks, the wheel): `mouse = false` leaves it
    /// to the terminal (for selecting text without shift).
    public var mouse = true

    public init() {}

    /// The keys this version understands.
    public static let keys = ["day_start_hour", "week_start", "theme", "faults", "password_command", "password_file", "ca_file", "backup_keep_days",
                                   "sync_after_change", "mouse"]

    /// Parses config text; throws `StoreError.config` naming the line and what to write.
    public init(parsing text: String, path: String) throws {
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingBlanks } ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks }
            let at = "\(path) line \(n + 1)"
            guard parts.count == 2, !parts[0].isEmpty else {
                throw StoreError.config("\(at): expected 'key = value'")
            }
            let value = parts[1].trimming { $0 == "\"" }
            switch parts[0] {
            case "day_start_hour":
                guard let h = Int(value), (0...23).contains(h) else {
                    throw StoreError.config("\(at): day_start_hour must be a whole number from 0 to 23")
                }
                dayStartHour = h
            case "week_start":
                guard let d = Weekday(name: value) else {
                    throw StoreError.config("\(at): week_start must be a weekday such as monday or sunday")
                }
                weekStart = d
            case "theme":
                guard !value.isEmpty, value.count <= 64, !value.contains("/"), !value.contains(where: \.isWhitespace) else {
                    throw StoreError.config("\(at): theme must be a theme name such as gruvbox")
                }
                theme = value
            case "faults":
                faults = value
            case "password_command":
                passwordCommand = value
            case "password_file":
                passwordFile = value
            case "ca_file":
                caFile = value
            case "backup_keep_days":
                guard let n = Int(value), (1...36_500).contains(n) else {
                    throw StoreError.config("\(at): backup_keep_days must be a whole number of days from 1 to 36500")
                }
                backupKeepDays = n
            case "sync_after_change":
                guard let on = Config.switchValue(value) else {
                    throw StoreError.config("\(at): sync_after_change must be true or false")
                }
                syncAfterChange = on
            case "mouse":
                guard let on = Config.switchValue(value) else {
                    throw StoreError.config("\(at): mouse must be true or false")
                }
                mouse = on
            default:
                throw StoreError.config("\(at): unknown setting '\(Sanitize.display(parts[0]))' (known: \(Config.keys.joined(separator: ", ")))")
            }
        }
    }

    /// A switch's value: true, on or yes; false, off or no (any case); nil for anything else.
    public static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "on", "yes": true
        case "false", "off", "no": false
        default: nil
        }
    }

    /// Reads the file at `path`; defaults when it does not exist. A file that may not be
    /// read is named as the config file, with what to do about it; one that another user
    /// owns or can write is not used at all (`LocalTrust`: its `password_command` would run
    /// as this user), and throws `StoreError.untrusted`.
    public static func load(path: String) throws -> Config {
        let read: [UInt8]?
        do {
            read = try LocalTrust.read(path, what: "the config file", holds: .commands, limit: 1 << 20)
        } catch StoreError.io(_, _, let e) where e == EACCES || e == EPERM {
            throw StoreError.config("cannot read the config file \(path): \(String(cString: strerror(e))); "
                                    + "make it readable (chmod u+r \(path)) or remove it to use the defaults")
        }
        guard let bytes = read else { return Config() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StoreError.config("\(path): not UTF-8 text")
        }
        return try Config(parsing: text, path: path)
    }

    /// `text` with the theme set to `name`: the last `theme = …` line (the one that counts) gets
    /// the new value, keeping its indentation and comment; without one, a `theme = NAME` line is
    /// added at the end. Every other byte is kept.
    public static func settingTheme(_ name: String, in text: String) -> String {
        // Lines with their ends ("\n", "\r\n", …) kept, as the parser splits them.
        var lines: [(body: String, end: String)] = []
        var body = ""
        for c in text {
            if c.isNewline { lines.append((body, String(c))); body = "" } else { body.append(c) }
        }
        if !body.isEmpty { lines.append((body, "")) }
        let target = lines.lastIndex { line in
            let code = line.body.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let parts = code.split(separator: "=", maxSplits: 1)
            return parts.count == 2 && parts[0].trimmingBlanks == "theme"
        }
        guard let i = target else {
            let end = lines.last.map { $0.end.isEmpty ? "\n" : "" } ?? ""
            return text + end + "theme = \(name)\n"
        }
        let old = lines[i].body
        let indent = old.prefix { $0 == " " || $0 == "\t" }
        let comment = old.firstIndex(of: "#").map { " " + old[$0...] } ?? ""
        lines[i].body = "\(indent)theme = \(name)\(comment)"
        return lines.map { $0.body + $0.end }.joined()
    }

    /// Saves `theme = name` into the config file at `path` (see `settingTheme`), durably and
    /// atomically, creating the file and its folder when missing; a link is followed and its
    /// target rewritten, with the file's permissions kept. Throws, writing nothing, when the
    /// file cannot be read or the result would not parse.
    public static func saveTheme(_ name: String, path: String) throws {
        let real = Sys.resolvedPath(path)
        let old: String
        if let bytes = try Sys.readFile(real, limit: 1 << 20) {
            guard let text = String(validating: bytes, as: UTF8.self) else { throw StoreError.config("\(path): not UTF-8 text") }
            old = text
        } else {
            old = ""
            try Sys.makeDirectories(real.pathParent)
        }
        let new = settingTheme(name, in: old)
        _ = try Config(parsing: new, path: path)
        let mode: mode_t = Sys.status(followingLinks: real).map { $0.st_mode & 0o7777 } ?? 0o644
        try Sys.writeAtomically(Array(new.utf8), to: real, mode: mode)
    }

    /// The rule settings that follow from this config.
    public var rules: RuleSettings { RuleSettings(weekStart: weekStart) }
}
