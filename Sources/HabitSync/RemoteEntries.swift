import FoundationEssentials
import HabitCore

/// The one place that decides what an entry of a remote folder is: a device folder or a
/// batch to use, a temporary file to pass over, or anything else, which is skipped and
/// reported. Every remote lists through it, so a directory and a WebDAV server are
/// judged alike. Names are never trusted: they are parsed strictly, and shown sanitised.
public enum RemoteEntries {
    /// What an entry is, as far as the remote can tell.
    public enum Kind: Equatable, Sendable {
        case folder
        case file
        case symbolicLink
        /// Anything else, in words ("a FIFO (named pipe)").
        case other(String)

        /// Why it cannot be used in place of `wanted` ("a folder"), in words.
        func instead(of wanted: String) -> String {
            self == .symbolicLink ? "a symbolic link, not \(wanted) (links are never followed)" : "\(words), not \(wanted)"
        }

        var words: String {
            switch self {
            case .folder: "a folder"
            case .file: "a file"
            case .symbolicLink: "a symbolic link"
            case .other(let w): w
            }
        }
    }

    /// At most this many skipped entries of one folder are reported (then a count).
    public static let maxReported = 20

    /// The device folders among the entries of `users/{account}/devices`.
    public static func devices(_ entries: [(name: String, kind: Kind)]) -> Listing<DeviceID> {
        var out = Listing<DeviceID>()
        var skipped: [String] = []
        for (name, kind) in entries where !isTemporary(name, kind) {
            let shown = "devices/" + self.shown(name)
            guard let device = DeviceID(name) else {
                skipped.append("\(shown): not a device id (32 lower-case hex digits)")
                continue
            }
            guard kind == .folder else {
                skipped.append("\(shown): \(kind.instead(of: "a folder"))")
                continue
            }
            out.items.append(device)
        }
        out.items.sort()
        out.skipped = capped(skipped, in: "devices/")
        return out
    }

    /// The batches among the entries of a device's `ops` folder.
    public static func batches(_ entries: [(name: String, kind: Kind)], device: DeviceID) -> Listing<BatchName> {
        var out = Listing<BatchName>()
        var skipped: [String] = []
        let folder = "devices/\(device.rawValue.prefix(8))…/ops/"
        for (name, kind) in entries where !isTemporary(name, kind) {
            if kind == .file, let version = versionOfMarker(name) {
                out.versions.append(version)
                continue
            }
            guard let batch = BatchName(fileName: name) else {
                skipped.append("\(folder)\(shown(name)): not a batch name (FIRST-LAST.batch, numbered from 1)")
                continue
            }
            guard kind == .file else {
                skipped.append("\(folder)\(shown(name)): \(kind.instead(of: "a batch file"))")
                continue
            }
            out.items.append(batch)
        }
        out.items.sort()
        out.versions.sort { HabittoVersion.isOlder($0, than: $1) }
        out.skipped = capped(skipped, in: folder)
        return out
    }

    /// The name of a device's marker saying it last ran `version`: `habitto-VERSION.version`.
    public static func versionMarker(_ version: String) -> String { "habitto-\(version).version" }

    /// The version a marker's name gives, read strictly (`HabittoVersion.parse`); nil for
    /// any other name.
    static func versionOfMarker(_ name: String) -> String? {
        guard name.hasPrefix("habitto-"), name.hasSuffix(".version") else { return nil }
        let v = String(name.dropFirst(8).dropLast(8))
        return HabittoVersion.parse(v) == nil ? nil : v
    }

    /// Files being written, left alone: habitto's own (`.tmp-PID-HEX`, see
    /// `DirectoryRemote`) and Syncthing's (`.syncthing.NAME.tmp`, `~syncthing~NAME.tmp`).
    static func isTemporary(_ name: String, _ kind: Kind) -> Bool {
        guard kind == .file else { return false }
        if name.hasPrefix(".tmp-") {
            let parts = name.dropFirst(5).split(separator: "-", omittingEmptySubsequences: false)
            return parts.count == 2 && !parts[0].isEmpty && parts[0].allSatisfy { $0.isASCII && $0.isNumber }
                && !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && $0.isHexDigit }
        }
        return (name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~")) && name.hasSuffix(".tmp")
    }

    /// A name from the remote as it may be shown: control characters replaced, at most 64
    /// characters.
    public static func shown(_ name: String) -> String {
        let safe = Sanitize.display(name)
        return safe.count > 64 ? String(safe.prefix(64)) + "…" : safe
    }

    private static func capped(_ lines: [String], in folder: String) -> [String] {
        guard lines.count > maxReported else { return lines }
        return Array(lines.prefix(maxReported)) + ["\(folder): \(lines.count - maxReported) more entries skipped"]
    }
}
