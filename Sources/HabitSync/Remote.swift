import FoundationEssentials
import HabitCore

/// A batch file's name: `{firstSeq}-{lastSeq}.batch`, the operations of one device it holds.
public struct BatchName: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let first: UInt64
    public let last: UInt64

    public init?(first: UInt64, last: UInt64) {
        guard first >= 1, last >= first else { return nil }
        self.first = first; self.last = last
    }

    /// Parses a file name strictly (digits, no leading zeros, first ≤ last); nil otherwise,
    /// so names with path tricks or anything unexpected are never read.
    public init?(fileName: String) {
        guard fileName.hasSuffix(".batch") else { return nil }
        let parts = fileName.dropLast(6).split(separator: "-", omittingEmptySubsequences: false)
        func number(_ s: Substring) -> UInt64? {
            guard !s.isEmpty, s.count <= 20, s.allSatisfy({ $0.isASCII && $0.isNumber }), s == "0" || s.first != "0"
            else { return nil }
            return UInt64(s)
        }
        guard parts.count == 2, let f = number(parts[0]), let l = number(parts[1]) else { return nil }
        self.init(first: f, last: l)
    }

    public var fileName: String { "\(first)-\(last).batch" }
    public var description: String { fileName }
    public var count: UInt64 { last - first + 1 }
    public static func < (a: BatchName, b: BatchName) -> Bool { (a.first, a.last) < (b.first, b.last) }
}

extension Array where Element == BatchName {
    /// The last operation of a run of these batches with no gap from `start` + 1 on (`start`
    /// itself when none begins there); overlaps are allowed.
    public func contiguousEnd(from start: UInt64 = 0) -> UInt64 {
        var end = start
        for b in sorted() where b.first <= end + 1 { end = Swift.max(end, b.last) }
        return end
    }
}

/// How a create-only write ended.
public enum WriteOutcome: Equatable, Sendable {
    /// The batch was written.
    case created
    /// It already existed with the same bytes (a retry after a lost answer): an ack.
    case alreadyThere
}

/// A remote failure, classified as DESIGN.md section 6 says.
public struct RemoteError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Try again later (timeouts, refused connections, 5xx, 429, unreachable folder).
        case transient
        /// Needs a fix or an explicit retry (authentication, missing root, bad data, conflicts).
        case permanent
    }
    public let kind: Kind
    public let message: String
    /// Seconds the remote asked to wait (HTTP Retry-After), if it said.
    public let retryAfter: Double?
    /// The remote refused a write because of its size (HTTP 413, or the connection closed
    /// while the body was being sent): a smaller batch may go through.
    public let tooLarge: Bool
    /// A batch that was listed is not there (removed since, by a compaction that wrote a
    /// batch covering it): listing the device again finds what covers it.
    public let missing: Bool
    /// A create-only write found the batch already there with other bytes, which do not hold
    /// the same operations as plain batch files: a remote that writes other bytes for the same
    /// operations (`EncryptedRemote`) compares what they hold.
    public let exists: Bool

    public init(_ kind: Kind, _ message: String, retryAfter: Double? = nil, tooLarge: Bool = false, missing: Bool = false,
                exists: Bool = false) {
        self.kind = kind; self.message = message; self.retryAfter = retryAfter; self.tooLarge = tooLarge; self.missing = missing
        self.exists = exists
    }
    public var description: String { message }
    public static func transient(_ m: String, retryAfter: Double? = nil) -> RemoteError { RemoteError(.transient, m, retryAfter: retryAfter) }
    public static func permanent(_ m: String) -> RemoteError { RemoteError(.permanent, m) }
}

/// Dumb storage with the layout of DESIGN.md section 6:
/// `{root}/users/{account}/devices/{device}/ops/{first}-{last}.batch` (immutable,
/// create-only) and `{root}/users/{account}/format`. Implementations: `DirectoryRemote`,
/// later WebDAV; `FaultyRemote` wraps one to inject failures.
public protocol Remote: Sendable {
    /// Where it is, for status lines (never containing a password).
    var location: String { get }
    /// The most operations one batch file holds (fewer, larger requests where they cost).
    var maxBatchOperations: Int { get }
    /// Creates the account's folders and format file when missing (a new format file names
    /// `recipient`, the age recipient batches are encrypted to, when one is given); checks the
    /// format and replaces a version 1 format with version 2 (never encrypted). Returns the
    /// format it read, or nil when an earlier round checked it (`knownToExist`) and nothing
    /// was read.
    @discardableResult
    func prepare(account: String, recipient: String?) async throws -> RemoteFormat?
    /// The devices that have a folder in the account, sorted, and the entries of the devices
    /// folder that were skipped (`RemoteEntries.devices` decides).
    func listDevices(account: String) async throws -> Listing<DeviceID>
    /// The batches of one device, sorted, and the entries of its folder that were skipped
    /// (`RemoteEntries.batches` decides).
    func listBatches(account: String, device: DeviceID) async throws -> Listing<BatchName>
    /// A batch's bytes; throws a permanent error when it is larger than `maxBytes`.
    func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8]
    /// Writes a batch only if it does not exist. An existing batch with the same bytes is an
    /// ack; with other bytes, a permanent error.
    func create(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> WriteOutcome
    /// Removes a batch (compaction, once a read-back batch covers it); one already gone is
    /// fine. Only ever called for this device's own batches.
    func remove(account: String, device: DeviceID, batch: BatchName) async throws
    /// Writes this device's version marker (`RemoteEntries.versionMarker(version)`, holding
    /// `habitto VERSION`) in its `ops` folder, create-only; one already there is fine.
    func markVersion(account: String, device: DeviceID, version: String) async throws
    /// Removes a version marker of this device; one already gone is fine.
    func unmarkVersion(account: String, device: DeviceID, version: String) async throws
    /// What the remote has learnt exists (folders, a checked format file), as opaque keys,
    /// so that the next round, even in another process, makes only the requests it needs.
    var knownToExist: Set<String> { get }
    /// Starts from what an earlier round learnt (`knownToExist`).
    func assumeExisting(_ keys: Set<String>)
    /// Forgets what it learnt exists, so that the next `prepare` checks the root and the
    /// layout again (when something known turned out missing).
    func forgetExisting()
}

extension Remote {
    /// The most operations one batch file holds.
    public var maxBatchOperations: Int { BatchFile.maxOperations }

    /// `prepare` for a plain (not encrypted) remote.
    @discardableResult
    public func prepare(account: String) async throws -> RemoteFormat? { try await prepare(account: account, recipient: nil) }

    /// Nothing is remembered (creating a folder that exists costs nothing here).
    public var knownToExist: Set<String> { [] }
    public func assumeExisting(_ keys: Set<String>) {}
    public func forgetExisting() {}

    /// The devices that have a folder in the account, sorted (skipped entries left out).
    public func devices(account: String) async throws -> [DeviceID] { try await listDevices(account: account).items }

    /// The batches of one device, sorted (skipped entries left out).
    public func batches(account: String, device: DeviceID) async throws -> [BatchName] {
        try await listBatches(account: account, device: device).items
    }
}

/// What listing a folder of the remote found: the entries to use, and one line for each
/// entry that was skipped (where it is, what it is and why, with nothing from the remote
/// shown raw).
public struct Listing<Item: Equatable & Sendable>: Equatable, Sendable {
    public var items: [Item]
    public var skipped: [String]
    /// The versions of Habitto the device's version markers name (an `ops` listing only).
    public var versions: [String] = []
    public init(items: [Item] = [], skipped: [String] = []) { self.items = items; self.skipped = skipped }
}

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

/// What a remote needs besides its address: the password (looked up only when needed) and
/// a CA file. Never stored by Habitto.
public struct RemoteAccess: Sendable {
    public var password: @Sendable () throws -> String?
    public var caFile: String?
    public init(password: @escaping @Sendable () throws -> String? = { nil }, caFile: String? = nil) {
        self.password = password
        self.caFile = caFile
    }
}

/// What `{root}/users/{account}/format` says: one line, `habitto-sync 2 remote ID`, where ID
/// (32 lower-case hex digits) is made at random by the device that makes the layout, so a
/// layout made again (an emptied or replaced remote) has another identity, followed by
/// ` age RECIPIENT` on an encrypted remote (every batch is an age file for that recipient,
/// see `EncryptedRemote`); or `habitto-sync 1`, as earlier versions wrote it, which this
/// version replaces with version 2 (earlier versions then refuse the remote in one line,
/// before changing anything).
public struct RemoteFormat: Equatable, Sendable {
    /// The version this Habitto writes.
    public static let current = 2
    public let version: Int
    /// The remote's identity (nil for version 1, which had none).
    public let id: String?
    /// The age recipient (`age1…`) every batch is encrypted to; nil: not encrypted.
    public let recipient: String?

    init(version: Int, id: String?, recipient: String? = nil) { self.version = version; self.id = id; self.recipient = recipient }

    /// A new version 2 format with a random identity, encrypted to `recipient` when given
    /// (a valid age recipient: see `AgeRecipient.isValid`).
    public static func fresh(recipient: String? = nil) -> RemoteFormat {
        precondition(recipient.map(AgeRecipient.isValid) ?? true, "not an age recipient")
        let id = (0..<2).map { _ in
            let s = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }.joined()
        return RemoteFormat(version: 2, id: id, recipient: recipient)
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        var line = "habitto-sync \(version)"
        if let id { line += " remote \(id)" }
        if let recipient { line += " age \(recipient)" }
        return Array(line.utf8) + [10]
    }

    /// What a format file holds, read strictly.
    public enum Parsed: Equatable, Sendable {
        /// A format this version reads.
        case readable(RemoteFormat)
        /// A later version's format: this Habitto is too old for the remote.
        case newer(version: Int)
        /// Not a Habitto format file.
        case unknown
    }

    /// Parses a format file: `habitto-sync 1`, `habitto-sync 2 remote ID`, `habitto-sync 2
    /// remote ID age RECIPIENT`, or `habitto-sync N …` with N above 2 (a newer version's);
    /// anything else is `unknown`.
    public static func parse(_ bytes: [UInt8]) -> Parsed {
        guard bytes.count <= 4096, let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return .unknown }
        let words = text.dropLast().split(separator: " ", omittingEmptySubsequences: false)
        guard words.count >= 2, words[0] == "habitto-sync", let n = Int(words[1]), n >= 1, words[1].first != "0",
              words[1].allSatisfy(\.isASCII) else { return .unknown }
        if n > current { return .newer(version: n) }
        if n == 1 { return words.count == 2 ? .readable(RemoteFormat(version: 1, id: nil)) : .unknown }
        guard words.count == 4 || words.count == 6, words[2] == "remote", words[3].count == 32,
              words[3].unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else { return .unknown }
        var recipient: String?
        if words.count == 6 {
            guard words[4] == "age", AgeRecipient.isValid(String(words[5])) else { return .unknown }
            recipient = String(words[5])
        }
        return .readable(RemoteFormat(version: 2, id: String(words[3]), recipient: recipient))
    }

    /// The error for a format file that this version cannot use (`where` names it).
    static func refusal(_ parsed: Parsed, found: [UInt8], at place: String) -> RemoteError {
        if case .newer(let n) = parsed {
            return .permanent("\(place) says format \(n): this remote needs a newer habitto (this one reads formats 1 and 2); update habitto on this device. Nothing was changed on the remote")
        }
        let text = Sanitize.display(String(decoding: found.prefix(64), as: UTF8.self).trimmingWhitespace)
        return .permanent("\(place) says '\(text)', which is not a habitto remote format; choose another remote. The file was left alone")
    }
}

/// Account names: 1–64 of `a-z 0-9 . _ -`, not starting with a dot.
public func validateAccount(_ name: String) throws {
    let ok = !name.isEmpty && name.count <= 64 && name.first != "."
        && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-" }
    guard ok else {
        throw CoreError.invalid("account '\(Sanitize.display(name))' is not valid: use 1 to 64 of a-z, 0-9, '.', '_' and '-', not starting with '.'")
    }
}

/// Age X25519 recipients (public keys), as `age-keygen` prints them: `age1` followed by the
/// key in lower-case bech32 (52 characters) and its 6-character checksum.
public enum AgeRecipient {
    static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    /// Whether `text` is an age X25519 recipient: the form above, and a checksum that holds
    /// (so a recipient damaged on the remote is not taken for another one).
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 62, bytes.starts(with: Array("age1".utf8)) else { return false }
        var values: [UInt8] = []
        for b in bytes.dropFirst(4) {
            guard let v = charset.firstIndex(of: b) else { return false }
            values.append(UInt8(v))
        }
        // BIP 173: the checksum over the expanded prefix ("age") and the data is 1.
        let prefix = Array("age".utf8)
        let expanded = prefix.map { $0 >> 5 } + [0] + prefix.map { $0 & 31 } + values
        var check: UInt32 = 1
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        for v in expanded {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> i) & 1 == 1 { check ^= generator[i] }
        }
        guard check == 1 else { return false }
        // 52 characters of 5 bits carry the 32-byte key and 4 bits of padding, which are 0.
        return values[51] & 0xf == 0
    }
}
