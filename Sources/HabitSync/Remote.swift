import FoundationEssentials
import HabitCore

/// Dumb storage with the layout of docs/sync.md ("The queue"):
/// `{root}/users/{account}/devices/{device}/ops/{first}-{last}.batch` (immutable,
/// create-only) and `{root}/users/{account}/format`. Implementations: `DirectoryRemote`,
/// `WebDAVRemote`; `EncryptedRemote` and `FaultyRemote` wrap either.
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
    /// Writes a batch only if nothing is there under its name; what is there instead is
    /// returned as it is, for `create` (and so `BatchAck`, the one rule) to judge.
    func createOnly(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> CreateResult
    /// Removes a batch (compaction, once a read-back batch covers it); one already gone is
    /// fine. Only ever called for this device's own batches.
    func remove(account: String, device: DeviceID, batch: BatchName) async throws
    /// The account's keycheck file (`users/{account}/keycheck`, see `Keycheck`), or nil when
    /// there is none; a file that is not a regular one (links are never followed) or is larger
    /// than `maxBytes` is a permanent error and is not read.
    func readKeycheck(account: String, maxBytes: Int) async throws -> [UInt8]?
    /// Writes the account's keycheck file only if nothing is there; what is there instead is
    /// returned as it is.
    func createKeycheck(account: String, bytes: [UInt8]) async throws -> CreateResult
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
    /// Forgets that the account's format file was checked, so that the next `prepare` reads
    /// it again (an encrypted remote's, every round).
    func forgetFormat(account: String)
    /// Rewrites the account's change marker (`users/{account}/changed`, a line naming this
    /// device), after a round wrote batches, so that a probe sees that something changed.
    func touchChangeMarker(account: String, device: DeviceID) async throws
    /// Whether the account's change marker changed since it read as `tag` (nil: never read),
    /// in one small request (a conditional GET on WebDAV); `.unsupported` where the remote has
    /// no such probe or no marker yet.
    func probeChanges(account: String, since tag: String?) async throws -> ChangeProbe
}

/// What a probe of the account's change marker found (`Remote.probeChanges`).
public enum ChangeProbe: Equatable, Sendable {
    case unchanged
    /// Changed since the tag given; the marker's new tag (its ETag).
    case changed(String?)
    /// No probe here (a folder, which is watched instead) or no marker written yet.
    case unsupported
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
    public func forgetFormat(account: String) {}
    public func touchChangeMarker(account: String, device: DeviceID) async throws {}
    public func probeChanges(account: String, since tag: String?) async throws -> ChangeProbe { .unsupported }

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

/// Account names: 1–64 of `a-z 0-9 . _ -`, not starting with a dot.
public func validateAccount(_ name: String) throws {
    let ok = !name.isEmpty && name.count <= 64 && name.first != "."
        && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-" }
    guard ok else {
        throw SyncSettingError.accountInvalid(name)
    }
}
