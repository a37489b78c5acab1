import FoundationEssentials
import HabitCore
import WebDAVWire
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// The sync layout of docs/sync.md ("The queue") on a WebDAV server (Apache mod_dav, Nextcloud,
/// rclone serve webdav): MKCOL for folders, create-only PUT (`If-None-Match: *`) for
/// batches, GET, and PROPFIND `Depth: 1` to list. The HTTP requests themselves are made by
/// the `habitto-webdav` helper process (`WebDAVHelper`: one per remote, so one kept-alive
/// connection), which keeps libcurl out of the `habitto` binary. The password is sent only in the Authorization header and never
/// appears in messages.
///
/// Servers that ignore `If-None-Match` still work: batch names and contents are
/// deterministic per device and sequence range, so an overwrite carries the same bytes.
public final class WebDAVRemote: Remote, @unchecked Sendable {
    let root: URL
    let authorization: String?
    /// The user, when one is set but no source gave a password: every request is refused
    /// here, saying where a password can come from.
    let userWithoutPassword: String?
    let helper: WebDAVHelper
    private let lock = Lock()
    private var knownFolders = Set<String>()

    /// A batch may hold more operations here: fewer requests for a backlog.
    public var maxBatchOperations: Int { 5000 }

    /// `url` is the root (`https://host/dav/habitto`); plain `http` only for loopback hosts.
    public init(url: URL, user: String?, password: String?, caFile: String?, timeout: Double = 20) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty else {
            throw RemoteError.refused("remote \(WebDAVRemote.redacted(url)) is not an http(s) URL")
        }
        if scheme == "http" && !WebDAVRemote.isLoopback(host) {
            throw RemoteError.refused("plain http is only allowed for this machine (a loopback address: 127.0.0.0/8, ::1 or localhost); use https for \(host)")
        }
        var trusted: String?
        if let caFile, !caFile.isEmpty {
            // Checked here so that a wrong path is one clear line, not a TLS error.
            guard caFile.hasPrefix("/") else {
                throw RemoteError.refused("ca_file = \(Sanitize.display(caFile)) is not an absolute path; give the full path of the CA certificate file (PEM)")
            }
            guard let st = Sys.status(followingLinks: caFile), st.st_mode & S_IFMT == S_IFREG, Sys.canAccess(caFile, R_OK) else {
                throw RemoteError.refused("ca_file = \(Sanitize.display(caFile)) is not a readable file; fix the path in the config file or remove ca_file")
            }
            trusted = caFile
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.user = nil
        components.password = nil
        if !components.path.hasSuffix("/") { components.path += "/" }
        root = components.url!
        if let user {
            authorization = "Basic " + Data("\(user):\(password ?? "")".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
        userWithoutPassword = password == nil ? user : nil
        helper = WebDAVHelper(timeout: timeout, caFile: trusted)
    }

    public var location: String { WebDAVRemote.redacted(root) }

    static func redacted(_ url: URL) -> String {
        guard var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(invalid URL)" }
        c.user = nil
        c.password = nil
        return c.string ?? "(invalid URL)"
    }

    static func isLoopback(_ host: String) -> Bool {
        LoopbackHost.contains(host)
    }

    // MARK: Requests

    struct Response {
        let status: Int
        let body: Data
        let headers: [String: String]
    }

    func url(_ parts: [String], folder: Bool = false) -> URL {
        var u = root
        for p in parts { u.appendPathComponent(p, isDirectory: false) }
        return folder ? u.appendingPathComponent("", isDirectory: true) : u
    }

    /// The longest answer body kept for a request whose body is not used (MKCOL, PUT, the
    /// root's PROPFIND): an error page, at most.
    static let smallAnswer = 64 << 10

    func send(_ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:],
              maxBody: Int = WebDAVRemote.smallAnswer) async throws -> Response {
        try await send(method, url, body: body, headers: headers, listing: false, maxBody: maxBody).response
    }

    /// Makes one request through the helper. The helper stops reading an answer's body past
    /// `maxBody` bytes; a reply that holds more anyway is refused here.
    func send(_ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:],
              listing: Bool, maxBody: Int) async throws -> (response: Response, listing: WireListing) {
        if let user = userWithoutPassword {
            throw RemoteError.authentication("no password for WebDAV user '\(Sanitize.display(user))': set HABITTO_WEBDAV_PASSWORD, or password_command or password_file in the config file")
        }
        var sent: [(name: String, value: String)] = []
        if let authorization { sent.append(("Authorization", authorization)) }
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { sent.append((k, v)) }
        let request = WireRequest(method: method, url: url.absoluteString, headers: sent, body: body.map { Array($0) },
                                  wantsListing: listing, maxBody: maxBody)
        switch try await helper.exchange(request) {
        case let .response(_, _, bytes, _) where bytes.count > request.maxBody:
            throw RemoteError.refused("the WebDAV helper \(helper.path) sent an answer longer than the request allows; reinstall habitto-webdav from the same build as habitto")
        case let .response(status, answered, bytes, parsed):
            var headers: [String: String] = [:]
            for h in answered { headers[h.name.lowercased()] = h.value }
            return (Response(status: status, body: Data(bytes), headers: headers), parsed)
        case let .failure(code, detail):
            throw WebDAVRemote.classify(code, detail: detail, url: url, bodySize: body?.count ?? 0)
        }
    }

    public var knownToExist: Set<String> { lock.withLock { knownFolders } }
    public func assumeExisting(_ keys: Set<String>) { lock.withLock { knownFolders.formUnion(keys) } }
    func isKnown(_ key: String) -> Bool { lock.withLock { knownFolders.contains(key) } }
    func remember(_ key: String) { lock.withLock { _ = knownFolders.insert(key) } }
    /// Something known to exist turned out missing: check everything again.
    public func forgetExisting() { lock.withLock { knownFolders.removeAll() } }
    public func forgetFormat(account: String) { lock.withLock { _ = knownFolders.remove("users/\(account)/format") } }

    /// Creates a folder if it is missing (MKCOL); 405 means it exists. A folder known to
    /// exist (this round or an earlier one) costs no request.
    func makeFolder(_ parts: [String]) async throws {
        let key = parts.joined(separator: "/")
        if isKnown(key) { return }
        let r = try await send("MKCOL", url(parts, folder: true))
        switch r.status {
        case 200...299, 405: break
        case 409: throw RemoteError.refused("the folder above \(key) is missing on \(location); check the remote URL")
        default: throw failure(r, "MKCOL \(key)")
        }
        remember(key)
    }

    /// Lists a folder (PROPFIND Depth 1): the names of its members, percent-decoded, each
    /// with whether it is a collection (a folder) or not (a file), sorted.
    func list(_ parts: [String]) async throws -> [(name: String, kind: RemoteEntries.Kind)]? {
        let body = Data("<?xml version=\"1.0\" encoding=\"utf-8\"?><D:propfind xmlns:D=\"DAV:\"><D:prop><D:resourcetype/></D:prop></D:propfind>".utf8)
        let target = url(parts, folder: true)
        let (r, listing) = try await send("PROPFIND", target, body: body, headers: ["Depth": "1", "Content-Type": "application/xml; charset=utf-8"],
                                          listing: true, maxBody: Wire.maxBody)
        if r.status == 404 { return nil }
        guard r.status == 207 else { throw failure(r, "PROPFIND \(parts.joined(separator: "/"))") }
        let entries: [WireEntry]
        switch listing {
        case .entries(let parsed): entries = parsed
        case .tooLarge:
            throw RemoteError.damaged("the listing of \(parts.joined(separator: "/")) on \(location) is too large (more than \(Wire.maxEntries) entries or \(Wire.maxBody >> 20) MiB); it was not read")
        case .malformed, .none:
            throw RemoteError.damaged("malformed WebDAV answer from \(location) (listing \(parts.joined(separator: "/")))")
        }
        let own = target.path.percentDecoded ?? target.path
        var members: [(name: String, kind: RemoteEntries.Kind)] = []
        for entry in entries {
            // hrefs may be absolute URLs or paths; compare decoded paths.
            let path = (URL(string: entry.href)?.path ?? entry.href).percentDecoded ?? entry.href
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            if trimmed == (own.hasSuffix("/") ? String(own.dropLast()) : own) { continue }
            guard let name = trimmed.split(separator: "/").last.map(String.init), !name.isEmpty else { continue }
            members.append((name, entry.isCollection ? .folder : .file))
        }
        return members.sorted { $0.name < $1.name }
    }

    // MARK: Remote

    /// The recipient the last `prepare` was given: the layout made again after a folder
    /// turned out missing (in `listDevices` or `create`) names it too.
    private var recipient: String?

    @discardableResult
    public func prepare(account: String, recipient: String?) async throws -> RemoteFormat? {
        try RemoteError.refusing { try validateAccount(account) }
        lock.withLock { self.recipient = recipient }
        // Checked by an earlier round: the root, the account's folders and its format.
        let formatKey = "users/\(account)/format"
        if isKnown(formatKey) { return nil }
        // The root must exist and speak WebDAV.
        let probe = try await send("PROPFIND", root, body: nil, headers: ["Depth": "0"])
        switch probe.status {
        case 207: break
        case 404: throw RemoteError.refused("the remote folder \(location) does not exist on the server; create it or fix 'habitto remote set'")
        default: throw failure(probe, "PROPFIND of the root")
        }
        try await makeFolder(["users"])
        try await makeFolder(["users", account])
        try await makeFolder(["users", account, "devices"])
        let format = try await readOrWriteFormat(account)
        remember(formatKey)
        return format
    }

    /// The account's format: created when missing (create-only), replaced by version 2 when
    /// it is version 1, refused (and left alone) when it is anything else.
    private func readOrWriteFormat(_ account: String) async throws -> RemoteFormat {
        let formatURL = url(["users", account, "format"])
        let place = "users/\(account)/format on \(location)"
        func read() async throws -> [UInt8]? {
            let r = try await send("GET", formatURL, maxBody: 4096)
            if r.status == 404 { return nil }
            guard r.status == 200 else { throw failure(r, "GET format") }
            return Array(r.body)
        }
        var found = try await read()
        if found == nil {
            let fresh = RemoteFormat.fresh(encrypted: lock.withLock { recipient } != nil)
            let put = try await send("PUT", formatURL, body: Data(fresh.bytes), headers: ["If-None-Match": "*"])
            guard (200...299).contains(put.status) || put.status == 412 else { throw failure(put, "PUT format") }
            if put.status != 412 { return fresh }
            // Another device made it at the same moment: use theirs.
            found = try await read()
        }
        guard var found else { throw RemoteError.unreachable("\(place) appeared and vanished; sync will try again") }
        if case .readable(let f) = RemoteFormat.parse(found), f.version < RemoteFormat.current {
            // An unencrypted earlier format: never rewritten by a device that encrypts.
            if lock.withLock({ recipient }) != nil { throw RemoteFormat.downgrade(at: place) }
            let put = try await send("PUT", formatURL, body: Data(RemoteFormat.fresh().bytes))
            guard (200...299).contains(put.status) else { throw failure(put, "PUT format") }
            found = try await read() ?? []
        }
        let parsed = RemoteFormat.parse(found)
        guard case .readable(let f) = parsed, f.version == RemoteFormat.current else {
            throw RemoteFormat.refusal(parsed, found: found, at: place)
        }
        return f
    }

    public func readKeycheck(account: String, maxBytes: Int) async throws -> [UInt8]? {
        try RemoteError.refusing { try validateAccount(account) }
        let r = try await send("GET", url(["users", account, Keycheck.fileName]), maxBody: min(maxBytes, Wire.maxBody))
        if r.status == 404 { return nil }
        guard r.status == 200 else { throw failure(r, "GET keycheck") }
        guard r.body.count <= maxBytes else {
            throw RemoteError.damaged("users/\(account)/keycheck on \(location) is larger than \(maxBytes) bytes; it was not read")
        }
        return Array(r.body)
    }

    /// A create-only PUT (`If-None-Match: *`); what is there instead (412) is read back.
    public func createKeycheck(account: String, bytes: [UInt8]) async throws -> CreateResult {
        try RemoteError.refusing { try validateAccount(account) }
        let r = try await send("PUT", url(["users", account, Keycheck.fileName]), body: Data(bytes),
                               headers: ["If-None-Match": "*", "Content-Type": "application/octet-stream"])
        if (200...299).contains(r.status) { return .created }
        guard r.status == 412 else { throw failure(r, "PUT keycheck") }
        guard let there = try await readKeycheck(account: account, maxBytes: Keycheck.maxBytes) else {
            throw RemoteError.unreachable("users/\(account)/keycheck appeared and vanished on \(location); sync will try again")
        }
        return .found(there)
    }

    /// The device collections of the account; other members are skipped and reported
    /// (`RemoteEntries.devices`, as for a folder remote).
    public func listDevices(account: String) async throws -> Listing<DeviceID> {
        var members = try await list(["users", account, "devices"])
        if members == nil && isKnown("users/\(account)/devices") {
            // The folder was there in an earlier round: check the root and create it again.
            forgetExisting()
            try await prepare(account: account, recipient: lock.withLock { recipient })
            members = try await list(["users", account, "devices"])
        }
        return RemoteEntries.devices(members ?? [])
    }

    /// The batches of a device; a collection under a batch's name, or a name that is not a
    /// batch's, is skipped and reported (`RemoteEntries.batches`).
    public func listBatches(account: String, device: DeviceID) async throws -> Listing<BatchName> {
        guard let members = try await list(["users", account, "devices", device.rawValue, "ops"]) else { return Listing() }
        return RemoteEntries.batches(members, device: device)
    }

    public func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8] {
        let r = try await send("GET", url(["users", account, "devices", device.rawValue, "ops", batch.fileName]), maxBody: min(maxBytes, Wire.maxBody))
        guard r.status == 200 else {
            if r.status == 404 {
                throw RemoteError.notFound("batch \(batch) of device \(device.rawValue.prefix(8)) disappeared from \(location)")
            }
            throw failure(r, "GET \(batch)")
        }
        guard r.body.count <= maxBytes else {
            throw RemoteError.damaged("batch \(batch) of device \(device.rawValue.prefix(8)) is larger than \(maxBytes) bytes; it was not read")
        }
        return Array(r.body)
    }

    /// Removes a batch (DELETE); 404 means it is already gone.
    public func remove(account: String, device: DeviceID, batch: BatchName) async throws {
        let r = try await send("DELETE", url(["users", account, "devices", device.rawValue, "ops", batch.fileName]))
        guard (200...299).contains(r.status) || r.status == 404 else { throw failure(r, "DELETE \(batch)") }
    }

    public func markVersion(account: String, device: DeviceID, version: String) async throws {
        let folder = ["users", account, "devices", device.rawValue, "ops"]
        let r = try await send("PUT", url(folder + [RemoteEntries.versionMarker(version)]), body: Data("habitto \(version)\n".utf8),
                               headers: ["If-None-Match": "*", "Content-Type": "text/plain"])
        guard (200...299).contains(r.status) || r.status == 412 else { throw failure(r, "PUT the version marker") }
    }

    /// The account's change marker: `users/{account}/changed`, a line naming the device
    /// that wrote last (its bytes say nothing else; its ETag is what a probe compares).
    func changeMarkerURL(_ account: String) -> URL { url(["users", account, "changed"]) }

    public func touchChangeMarker(account: String, device: DeviceID) async throws {
        try RemoteError.refusing { try validateAccount(account) }
        let r = try await send("PUT", changeMarkerURL(account), body: Data("\(device.rawValue)\n".utf8), headers: ["Content-Type": "text/plain"])
        guard (200...299).contains(r.status) else { throw failure(r, "PUT the change marker") }
    }

    /// One conditional GET (`If-None-Match` with the tag read last): 304 is unchanged, 200
    /// changed (with its new ETag), 404 no marker yet. At most 1 KiB of body is read.
    public func probeChanges(account: String, since tag: String?) async throws -> ChangeProbe {
        try RemoteError.refusing { try validateAccount(account) }
        let r = try await send("GET", changeMarkerURL(account), headers: tag.map { ["If-None-Match": $0] } ?? [:], maxBody: 1024)
        switch r.status {
        case 304: return .unchanged
        case 200: return .changed(r.headers["etag"].flatMap(Self.markerTag))
        case 404: return .unsupported
        default: throw failure(r, "GET the change marker")
        }
    }

    /// An ETag worth sending back in `If-None-Match`: 1 to 256 visible ASCII characters (what
    /// RFC 9110's entity-tag is made of). Any other value, from a broken or hostile server,
    /// is no tag: the probe counts as a change and the next one asks without a tag.
    static func markerTag(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        return (1...256).contains(bytes.count) && bytes.allSatisfy({ (0x21...0x7E).contains($0) }) ? value : nil
    }

    public func unmarkVersion(account: String, device: DeviceID, version: String) async throws {
        let r = try await send("DELETE", url(["users", account, "devices", device.rawValue, "ops", RemoteEntries.versionMarker(version)]))
        guard (200...299).contains(r.status) || r.status == 404 else { throw failure(r, "DELETE the version marker") }
    }

    /// A create-only PUT (`If-None-Match: *`); what is there instead (412) is read back for
    /// `BatchAck` to judge.
    public func createOnly(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> CreateResult {
        let folder = ["users", account, "devices", device.rawValue]
        try await makeFolder(folder)
        try await makeFolder(folder + ["ops"])
        let target = url(folder + ["ops", batch.fileName])
        func put() async throws -> Response {
            try await send("PUT", target, body: Data(bytes), headers: ["If-None-Match": "*", "Content-Type": "application/octet-stream"])
        }
        /// What is there now; nil when nothing is.
        func found() async throws -> CreateResult? {
            let existing = try await send("GET", target, maxBody: BatchFile.maxBytes)
            if existing.status == 404 { return nil }
            guard existing.status == 200 else { throw failure(existing, "GET \(batch)") }
            return .found(Array(existing.body))
        }
        var r: Response
        do {
            r = try await put()
        } catch let e as RemoteError where e.tooLarge {
            // The connection closed on a large body: refused for its size if the batch is not
            // there (then a smaller one may fit); written after all if it is.
            if let there = try await found() { return there }
            throw e
        }
        if r.status == 404 || r.status == 409 {
            // A folder known to exist is gone (removed, or a server emptied): create the
            // layout again, once.
            forgetExisting()
            try await prepare(account: account, recipient: lock.withLock { recipient })
            try await makeFolder(folder)
            try await makeFolder(folder + ["ops"])
            r = try await put()
        }
        switch r.status {
        case 200...299:
            return .created
        case 412:
            guard let there = try await found() else {
                throw RemoteError.unreachable("batch \(batch) of device \(device.rawValue.prefix(8)) appeared and vanished on \(location); sync will try again")
            }
            return there
        case 413:
            throw RemoteError.tooLarge("the server refused batch \(batch) (\(bytes.count) bytes, \(Plural.count(batch.count, "operation"))) as too large (413): raise its request size limit (client_max_body_size for nginx, LimitRequestBody for Apache)")
        default:
            throw failure(r, "PUT \(batch)")
        }
    }
}
