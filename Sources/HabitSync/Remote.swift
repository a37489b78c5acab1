import Foundation
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

    public init(_ kind: Kind, _ message: String, retryAfter: Double? = nil) {
        self.kind = kind; self.message = message; self.retryAfter = retryAfter
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
    /// Creates the account's folders and format file when missing; checks the format.
    func prepare(account: String) async throws
    /// The devices that have a folder in the account (invalid names are left out).
    func devices(account: String) async throws -> [DeviceID]
    /// The batches of one device, sorted (files with other names are left out).
    func batches(account: String, device: DeviceID) async throws -> [BatchName]
    /// A batch's bytes; throws a permanent error when it is larger than `maxBytes`.
    func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8]
    /// Writes a batch only if it does not exist. An existing batch with the same bytes is an
    /// ack; with other bytes, a permanent error.
    func create(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> WriteOutcome
}

extension Remote {
    /// The most operations one batch file holds.
    public var maxBatchOperations: Int { BatchFile.maxOperations }
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

/// The format version written to `{root}/users/{account}/format`.
public let remoteFormat = "habitto-sync 1\n"

/// Account names: 1–64 of `a-z 0-9 . _ -`, not starting with a dot.
public func validateAccount(_ name: String) throws {
    let ok = !name.isEmpty && name.count <= 64 && name.first != "."
        && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-" }
    guard ok else {
        throw CoreError.invalid("account '\(Sanitize.display(name))' is not valid: use 1 to 64 of a-z, 0-9, '.', '_' and '-', not starting with '.'")
    }
}
