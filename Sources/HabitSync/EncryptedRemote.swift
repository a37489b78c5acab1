import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// The `age` program (https://age-encryption.org), run as a child process for each file it
/// encrypts or decrypts, with the bytes on its standard input and the result on its output
/// (`OutsideProgram`): no plaintext is ever written to a file, and no cryptography is written
/// here. `age-keygen` makes and checks identities. Both come in the Debian package `age`.
public struct AgeTool: Sendable {
    /// The `age` program's path.
    public let age: String
    /// The `age-keygen` program's path.
    public let keygen: String

    /// The longest one `age` run may take (a 16 MiB batch takes well under a second).
    public static var timeLimit: Double { TimeLimits.current[.age] }

    /// `age` and `age-keygen` in the directories of `searchPath` (this process's `PATH` when
    /// nil), or nil when either is missing.
    public static func find(searchPath: String? = nil) -> AgeTool? {
        let path = searchPath ?? getenv("PATH").map { String(cString: $0) }
        guard let age = OutsideProgram.find("age", searchPath: path),
              let keygen = OutsideProgram.find("age-keygen", searchPath: path) else { return nil }
        return AgeTool(age: age, keygen: keygen)
    }

    /// What to do when `age` is missing (the end of a one-line message).
    public static let install = "install the Debian package age (sudo apt install age)"

    /// `bytes` encrypted to `recipient` (an age file, starting `age-encryption.org/v1`).
    public func encrypt(_ bytes: [UInt8], to recipient: String, what: String) throws -> [UInt8] {
        // age adds a header and 16 bytes to each 64 KiB chunk.
        try run(age, ["-r", recipient], input: bytes, limit: bytes.count + bytes.count / 4096 + 4096, what: "encrypt \(what)")
    }

    /// The plaintext of the age file `bytes`, decrypted with the identity in `identityFile`;
    /// throws when it is damaged, not an age file, not for that identity, or longer than
    /// `maxBytes`.
    public func decrypt(_ bytes: [UInt8], identityFile: String, maxBytes: Int, what: String) throws -> [UInt8] {
        try run(age, ["-d", "-i", identityFile], input: bytes, limit: maxBytes, what: "decrypt \(what)")
    }

    /// A new identity file, as `age-keygen` writes it.
    func generate() throws -> [UInt8] {
        try run(keygen, [], input: nil, limit: 4096, what: "make a key")
    }

    /// The recipient (public key) of an identity file's text.
    func recipient(of identity: [UInt8]) throws -> String {
        let out = try run(keygen, ["-y"], input: identity, limit: 4096, what: "read the key")
        let line = String(decoding: out, as: UTF8.self).trimmingWhitespace
        guard AgeRecipient.isValid(line) else { throw AgeError("age-keygen -y gave no age recipient for the key") }
        return line
    }

    private func run(_ program: String, _ arguments: [String], input: [UInt8]?, limit: Int, what: String) throws -> [UInt8] {
        var child = OutsideProgram(program, arguments, timeLimit: AgeTool.timeLimit, outputLimit: limit, errors: .collect,
                                   environment: .inherited)
        child.input = input
        let result = child.run()
        if let problem = result.problem { throw AgeError("cannot \(what): \(program.split(separator: "/").last ?? "age") \(problem)") }
        if result.outputCut { throw AgeError("cannot \(what): the result is larger than \(limit) bytes") }
        // A program given part of its input would encrypt or decrypt only that part.
        if result.inputCut { throw AgeError("cannot \(what): its input could not be given to \(program) whole") }
        return result.output
    }
}

/// A failure of the `age` program, in one line (never holding a key).
public struct AgeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ message: String) { description = Sanitize.display(message) }
}

/// The identity (secret key) of an encrypted remote, in the data directory's file
/// `remote-key` (mode 0600, written atomically): a comment naming its recipient, then the
/// `AGE-SECRET-KEY-1…` line. It is never in `sync.json`, the config, a backup or any output
/// but `habitto remote key`.
public struct RemoteKey: Equatable, Sendable {
    /// The key file's path.
    public let path: String
    /// The identity's recipient (public key).
    public let recipient: String

    /// The key file of a data directory.
    public static func path(_ paths: DataPaths) -> String { paths.directory + "/remote-key" }

    static let recipientComment = "# public key: "

    /// The data directory's key, or nil when it has no key file. A key file that is not a
    /// regular file of ours (a link, another kind of file, another user's, one that group or
    /// others can read or write: see `LocalTrust`; no recipient comment) is an error saying
    /// what to do.
    public static func load(_ paths: DataPaths) throws -> RemoteKey? {
        let file = path(paths)
        let bytes: [UInt8]
        do {
            guard let read = try LocalTrust.read(file, what: "the key file", holds: .secret, inDataDirectory: true, limit: 64 << 10) else { return nil }
            bytes = read
        } catch StoreError.untrusted(let refusal) {
            throw SyncSettingError.untrusted(refusal)
        } catch {
            throw SyncSettingError.keyFileUnreadable(file: file, detail: "\(error)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(recipientComment) }),
              case let recipient = String(line.dropFirst(recipientComment.count)).trimmingWhitespace, AgeRecipient.isValid(recipient)
        else {
            throw SyncSettingError.keyFileNotOurs(file: file)
        }
        return RemoteKey(path: file, recipient: recipient)
    }

    /// The key file's text, for `habitto remote key` (the one output that shows it).
    public static func text(_ paths: DataPaths) throws -> String? {
        guard try load(paths) != nil, let bytes = try Sys.readFile(path(paths), limit: 64 << 10, followLinks: false) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Makes a new identity with `age-keygen` and keeps it as the data directory's key.
    public static func generate(_ paths: DataPaths, tool: AgeTool) throws -> RemoteKey {
        try store(try tool.generate(), in: paths, tool: tool, source: "age-keygen's output")
    }

    /// Keeps the identity in `bytes` (an age identity file, or what `habitto remote key`
    /// printed; `source` names where it came from in messages) as the data directory's key,
    /// after checking it: exactly one `AGE-SECRET-KEY-1…` line, other lines blank or comments,
    /// and a recipient `age-keygen -y` derives from it.
    public static func store(_ bytes: [UInt8], in paths: DataPaths, tool: AgeTool, source: String) throws -> RemoteKey {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SyncSettingError.identityNotText(source: source)
        }
        var secrets: [String] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = raw.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard isSecretLine(line) else {
                throw SyncSettingError.identityLineNotUnderstood(source: source)
            }
            secrets.append(line)
        }
        guard secrets.count == 1, let secret = secrets.first else {
            throw SyncSettingError.identityCount(source: source, count: secrets.count)
        }
        let recipient: String
        do { recipient = try tool.recipient(of: Array((secret + "\n").utf8)) } catch let e as AgeError {
            throw SyncSettingError.identityInvalid(source: source, detail: e.description)
        }
        let stored = """
        # The key of this data directory's encrypted remote (an age identity): keep it secret.
        # 'habitto remote key' prints it; 'habitto remote set SPEC --key FILE' brings it to another device.
        \(recipientComment)\(recipient)
        \(secret)

        """
        let file = path(paths)
        try Sys.writeAtomically(Array(stored.utf8), to: file, mode: 0o600)
        return RemoteKey(path: file, recipient: recipient)
    }

    /// `AGE-SECRET-KEY-1` and upper-case bech32 (the form `age-keygen` prints).
    static func isSecretLine(_ line: String) -> Bool {
        let prefix = "AGE-SECRET-KEY-1"
        guard line.hasPrefix(prefix), line.count == 74 else { return false }
        let allowed = Set("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
        return line.dropFirst(prefix.count).allSatisfy { allowed.contains($0) }
    }

    /// A recipient as messages show it (its start and end).
    static func shown(_ recipient: String) -> String { "\(recipient.prefix(12))…\(recipient.suffix(6))" }
}

/// A remote whose batches are age files: wraps any remote (like `FaultyRemote`), encrypting
/// each batch it creates to the remote's recipient and decrypting each it reads with the
/// data directory's key, one `age` process per file. Listing, removing and the layout pass
/// through: file and folder names hold device ids and sequence ranges only.
///
/// On a remote made by this version (its format says ` age`, `binding` set) the recipient is
/// known only to key holders, so a file that decrypts was made by one; and each batch's
/// plaintext starts with a sealed line naming where it belongs, `habitto-batch 1 remote ID
/// account NAME device HEX batch FIRST-LAST`, covered by age's authentication with the rest,
/// and checked against where the file was found: a batch moved to another device, renamed to
/// another range, replayed under another name or taken from another remote or account is
/// refused. On a remote made by an earlier version (its format names the recipient) batches
/// have no such line, as before.
///
/// age's output is different on every run, so a create-only write that finds its batch
/// already there (a retry after a lost answer or a kill) compares what the two decrypt to
/// (`BatchAck`, without the sealed line, which was checked). A file that does not decrypt
/// (truncated or changed: age authenticates every chunk; or a new file made with another key)
/// or is not sealed for where it is, is a permanent error for that batch: it is refused in one
/// line naming the device and the file, and the device's other batches still apply.
public struct EncryptedRemote: Remote {
    let inner: any Remote
    /// The recipient batches are encrypted to (derived from the identity).
    public let recipient: String
    let key: RemoteKey
    let tool: AgeTool
    /// Where the batches are sealed for (nil: a remote made by an earlier version, whose
    /// batches carry no sealed line).
    public let binding: Binding?

    /// The remote and account each batch's sealed line names.
    public struct Binding: Equatable, Sendable {
        public let remoteID: String
        public let account: String
        public init(remoteID: String, account: String) { self.remoteID = remoteID; self.account = account }
    }

    /// What `status` and `doctor` say of an encrypted remote made by an earlier version, whose
    /// format names its recipient in the clear.
    public static let clearRecipient = "this remote's recipient was stored in the clear by an earlier version of habitto: anyone who kept it can forge batches; move to a new key: habitto remote set NEW --encrypt (a new, empty remote; every device joins it with --key)"

    /// `inner` with its batches encrypted to `key`'s recipient, sealed for `binding`.
    public init(_ inner: any Remote, key: RemoteKey, tool: AgeTool, binding: Binding? = nil) {
        self.inner = inner
        self.recipient = key.recipient
        self.key = key
        self.tool = tool
        self.binding = binding
    }

    /// The data directory's key and the `age` program, for a device set to encrypt its
    /// remote (`spec`); throws a permanent error in one line saying what to do when either
    /// is missing.
    public static func keyAndTool(_ paths: DataPaths, spec: String) throws -> (RemoteKey, AgeTool) {
        let key: RemoteKey?
        do { key = try RemoteKey.load(paths) } catch let e as SyncSettingError { throw RemoteError.refused(e.description) }
        guard let key else {
            throw RemoteError.refused("this device is set to encrypt its remote, and its key file \(RemoteKey.path(paths)) is missing: join again with habitto remote set \(spec) --key FILE (habitto remote key on a device that has it)")
        }
        guard let tool = AgeTool.find() else {
            throw RemoteError.refused("this remote is encrypted with age, and the age program is not installed here: \(AgeTool.install)")
        }
        return (key, tool)
    }

    public var location: String { inner.location }
    public var maxBatchOperations: Int { inner.maxBatchOperations }
    public var knownToExist: Set<String> { inner.knownToExist }
    public func assumeExisting(_ keys: Set<String>) { inner.assumeExisting(keys) }
    public func forgetExisting() { inner.forgetExisting() }
    public func forgetFormat(account: String) { inner.forgetFormat(account: account) }

    /// The wrapped remote's `prepare`: a format file it creates names this remote's recipient.
    @discardableResult
    public func prepare(account: String, recipient: String?) async throws -> RemoteFormat? {
        try await inner.prepare(account: account, recipient: self.recipient)
    }

    public func listDevices(account: String) async throws -> Listing<DeviceID> { try await inner.listDevices(account: account) }

    public func listBatches(account: String, device: DeviceID) async throws -> Listing<BatchName> {
        try await inner.listBatches(account: account, device: device)
    }

    public func readKeycheck(account: String, maxBytes: Int) async throws -> [UInt8]? {
        try await inner.readKeycheck(account: account, maxBytes: maxBytes)
    }

    public func createKeycheck(account: String, bytes: [UInt8]) async throws -> CreateResult {
        try await inner.createKeycheck(account: account, bytes: bytes)
    }

    /// Checks the account's keycheck against the format's identity `id` (see `Keycheck`),
    /// writing it (create-only) when there is none yet, on an account that holds no device
    /// folder (its maker stopped between the format and the keycheck). Throws a permanent
    /// error in one line saying what to do when it does not decrypt with this device's key
    /// or names another remote or account; nothing is written then. `spec`: for the advice.
    func checkKeycheck(id: String, account: String, spec: String) async throws {
        let place = "users/\(account)/keycheck on \(inner.location)"
        var sealed = try await inner.readKeycheck(account: account, maxBytes: Keycheck.maxBytes)
        if sealed == nil {
            guard try await inner.listDevices(account: account).items.isEmpty else {
                throw RemoteError.damaged("this encrypted remote's \(place) is missing, and the account holds devices: it was removed on the remote, or the format file was replaced by someone without the key; nothing was written. If you emptied the remote yourself, empty it whole (users/\(account)) and sync again")
            }
            let made: [UInt8]
            do { made = try tool.encrypt(Keycheck.plaintext(id: id, account: account), to: recipient, what: "the keycheck") } catch let e as AgeError {
                throw RemoteError.refused(e.description)
            }
            switch try await inner.createKeycheck(account: account, bytes: made) {
            case .created: return
            case .found(let there): sealed = there
            }
        }
        let plain: [UInt8]
        do { plain = try tool.decrypt(sealed ?? [], identityFile: key.path, maxBytes: 512, what: "the keycheck") } catch let e as AgeError {
            throw RemoteError.refused("wrong key: this remote's \(place) does not decrypt with this device's key for \(RemoteKey.shown(recipient)) (\(e.description)), so this device has another key than the remote's, or the keycheck was replaced on the remote; nothing was written. Join with the remote's key: habitto remote set \(spec) --key FILE (habitto remote key on a device that has it)")
        }
        guard let named = Keycheck.parse(plain) else {
            throw RemoteError.damaged("this remote's \(place) decrypts but is not a habitto keycheck; nothing was written")
        }
        guard named.id == id, named.account == account else {
            throw RemoteError.damaged("the format file of users/\(account) on \(inner.location) says remote \(id), but its keycheck was made for remote \(named.id) account \(named.account): the format file was changed, or the keycheck copied, on the remote by someone without the key, and neither was used; nothing was written")
        }
    }

    public func remove(account: String, device: DeviceID, batch: BatchName) async throws {
        try await inner.remove(account: account, device: device, batch: batch)
    }

    /// A version marker carries no habit data: it goes as it is.
    public func markVersion(account: String, device: DeviceID, version: String) async throws {
        try await inner.markVersion(account: account, device: device, version: version)
    }

    public func unmarkVersion(account: String, device: DeviceID, version: String) async throws {
        try await inner.unmarkVersion(account: account, device: device, version: version)
    }

    /// The largest age file a plaintext of `plain` bytes makes.
    static func sealedLimit(_ plain: Int) -> Int { plain + plain / 4096 + 4096 }

    /// The batch read and decrypted.
    public func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8] {
        let sealed = try await inner.read(account: account, device: device, batch: batch, maxBytes: EncryptedRemote.sealedLimit(maxBytes))
        return try open(sealed, account: account, device: device, batch: batch, maxBytes: maxBytes)
    }

    /// The sealed line a batch of `device` named `batch` starts with on this remote.
    func sealLine(account: String, device: DeviceID, batch: BatchName) -> [UInt8]? {
        guard let binding else { return nil }
        return Array("habitto-batch 1 remote \(binding.remoteID) account \(account) device \(device.rawValue) batch \(batch.first)-\(batch.last)\n".utf8)
    }

    /// Encrypts the batch and writes it create-only. What is already there is returned
    /// decrypted (age's output differs on every run, so `BatchAck` compares what the two hold),
    /// or as it is when it does not decrypt (then it holds nothing of this write).
    public func createOnly(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> CreateResult {
        let what = "batch \(batch) of device \(device.rawValue.prefix(8))"
        let sealed: [UInt8]
        let plain = (sealLine(account: account, device: device, batch: batch) ?? []) + bytes
        do { sealed = try tool.encrypt(plain, to: recipient, what: what) } catch let e as AgeError {
            throw RemoteError.refused(e.description)
        }
        guard sealed.count <= BatchFile.maxBytes else {
            // A reader takes no larger file: a smaller batch is sent instead.
            throw RemoteError.tooLarge("\(what) is \(sealed.count) bytes encrypted, above the limit of \(BatchFile.maxBytes)")
        }
        switch try await inner.createOnly(account: account, device: device, batch: batch, bytes: sealed) {
        case .created: return .created
        case .found(let there):
            if let opened = try? open(there, account: account, device: device, batch: batch, maxBytes: BatchFile.maxBytes) { return .found(opened) }
            guard binding != nil else { return .found(there) }
            // On a remote whose recipient only key holders know, a file under this device's
            // name that does not open sealed for it was not written by a key holder for this
            // name (a squatted name, or a damaged copy of this batch): it is replaced, once.
            try await inner.remove(account: account, device: device, batch: batch)
            switch try await inner.createOnly(account: account, device: device, batch: batch, bytes: sealed) {
            case .created: return .created
            case .found(let again):
                return .found((try? open(again, account: account, device: device, batch: batch, maxBytes: BatchFile.maxBytes)) ?? again)
            }
        }
    }

    /// The batch's plaintext, its sealed line checked against where it was found and removed.
    private func open(_ sealed: [UInt8], account: String, device: DeviceID, batch: BatchName, maxBytes: Int) throws -> [UInt8] {
        let what = "batch \(batch) of device \(device.rawValue.prefix(8))"
        let line = sealLine(account: account, device: device, batch: batch)
        let plain: [UInt8]
        do {
            plain = try tool.decrypt(sealed, identityFile: key.path, maxBytes: maxBytes + (line?.count ?? 0), what: what)
        } catch let e as AgeError {
            throw RemoteError.damaged("\(e.description); it was damaged on the remote or made with another key, and was not applied")
        }
        guard let line else { return plain }
        guard plain.starts(with: line) else {
            let end = plain.prefix(300).firstIndex(of: 10) ?? min(plain.count, 300)
            let found = plain.starts(with: Array("habitto-batch 1 ".utf8))
                ? "it is sealed for '\(Sanitize.display(String(decoding: plain[..<end], as: UTF8.self)))'"
                : "it has no sealed line"
            throw RemoteError.damaged("\(what) is not sealed for where it is (\(found)): it was moved, renamed or replayed on the remote, and was not applied")
        }
        return Array(plain[line.count...])
    }
}
