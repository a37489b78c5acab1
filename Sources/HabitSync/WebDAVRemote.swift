import FoundationEssentials
import HabitCore
import WebDAVWire
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// The sync layout of DESIGN.md section 6 on a WebDAV server (Apache mod_dav, Nextcloud,
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
            throw RemoteError.permanent("remote \(WebDAVRemote.redacted(url)) is not an http(s) URL")
        }
        if scheme == "http" && !WebDAVRemote.isLoopback(host) {
            throw RemoteError.permanent("plain http is only allowed for this machine (127.0.0.1, localhost); use https for \(host)")
        }
        var trusted: String?
        if let caFile, !caFile.isEmpty {
            // Checked here so that a wrong path is one clear line, not a TLS error.
            guard caFile.hasPrefix("/") else {
                throw RemoteError.permanent("ca_file = \(Sanitize.display(caFile)) is not an absolute path; give the full path of the CA certificate file (PEM)")
            }
            guard let st = Sys.status(followingLinks: caFile), st.st_mode & S_IFMT == S_IFREG, access(caFile, R_OK) == 0 else {
                throw RemoteError.permanent("ca_file = \(Sanitize.display(caFile)) is not a readable file; fix the path in the config file or remove ca_file")
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
            throw RemoteError.permanent("no password for WebDAV user '\(Sanitize.display(user))': set HABITTO_WEBDAV_PASSWORD, or password_command or password_file in the config file")
        }
        var sent: [(name: String, value: String)] = []
        if let authorization { sent.append(("Authorization", authorization)) }
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { sent.append((k, v)) }
        let request = WireRequest(method: method, url: url.absoluteString, headers: sent, body: body.map { Array($0) },
                                  wantsListing: listing, maxBody: maxBody)
        switch try await helper.exchange(request) {
        case let .response(_, _, bytes, _) where bytes.count > request.maxBody:
            throw RemoteError.permanent("the WebDAV helper \(helper.path) sent an answer longer than the request allows; reinstall habitto-webdav from the same build as habitto")
        case let .response(status, answered, bytes, parsed):
            var headers: [String: String] = [:]
            for h in answered { headers[h.name.lowercased()] = h.value }
            return (Response(status: status, body: Data(bytes), headers: headers), parsed)
        case let .failure(code, detail):
            throw WebDAVRemote.classify(code, detail: detail, url: url, bodySize: body?.count ?? 0)
        }
    }

    /// A body this large whose connection is closed may have been refused for its size.
    static let largeBody = 64 << 10

    /// Turns the helper's account of a request that got no answer into the error class of
    /// DESIGN.md section 6. `detail` comes from another process: shown sanitised and short.
    static func classify(_ code: WireFailureCode, detail: String, url: URL, bodySize: Int) -> RemoteError {
        let where_ = redacted(url)
        let text = Sanitize.display(String(detail.prefix(300)))
        switch code {
        case .certificate:
            return .permanent("the server's certificate is not trusted (\(where_)): \(text); fix the certificate or add its CA to the system's trust store")
        case .badURL:
            return .permanent("\(where_) is not a usable URL")
        case .challenged:
            // A refused login arrives as a cancelled authentication challenge.
            return refused(detail)
        case .connectionLost where bodySize > largeBody:
            // The server closed the connection on a large body: what some servers do with a
            // body above their limit (`create` checks).
            return RemoteError(.transient, "cannot reach \(where_): \(text)", tooLarge: true)
        case .connectionLost, .unreachable:
            return .transient("cannot reach \(where_): \(text)")
        case .answerTooLarge:
            return .permanent("\(where_) sent an answer too large to read (\(text)); it was not kept")
        case .badRequest:
            return .permanent("the WebDAV helper refused a request (\(text)); reinstall habitto-webdav from the same build as habitto")
        }
    }

    /// Why a login was refused, from the server's challenge (`WWW-Authenticate`): a wrong
    /// user or password, or a server that offers no scheme Habitto speaks (only Basic).
    static func refused(_ challenge: String?) -> RemoteError {
        let schemes = authenticationSchemes(challenge ?? "")
        guard !schemes.isEmpty, !schemes.contains(where: { $0.lowercased() == "basic" }) else {
            return .permanent("authentication failed: check user and password")
        }
        let offered = schemes.map { Sanitize.display(String($0.prefix(32))) }.joined(separator: ", ")
        return .permanent("the server offers only \(offered) authentication; Habitto supports Basic (over https): enable Basic authentication on the server (Nextcloud, Apache, nginx and rclone all offer it)")
    }

    /// The scheme names of a `WWW-Authenticate` value (`Digest realm="x", nonce="y", Basic
    /// realm="z"` → Digest, Basic): each comma-separated piece that starts with a bare token.
    static func authenticationSchemes(_ header: String) -> [String] {
        var schemes: [String] = []
        for piece in header.split(separator: ",") {
            let trimmed = piece.trimmingBlanks
            guard let word = trimmed.split(separator: " ", maxSplits: 1).first, !word.contains("="), !word.contains("\""),
                  !schemes.contains(String(word)) else { continue }
            schemes.append(String(word))
        }
        return schemes
    }

    /// Turns an unexpected status into the error class of DESIGN.md section 6.
    func failure(_ r: Response, _ what: String) -> RemoteError {
        switch r.status {
        case 300...399:
            // Never followed: a redirect could take the password to another host, or drop a
            // body on the way. The user decides whether the new place is the remote.
            let target = r.headers["location"].map { Sanitize.display(String($0.prefix(300))) } ?? "no Location given"
            return .permanent("the server redirected \(what) (\(r.status)) to \(target); Habitto follows no redirects: if the remote moved, set its new URL with 'habitto remote set'")
        case 401: return WebDAVRemote.refused(r.headers["www-authenticate"])
        case 403: return .permanent("authentication failed: check user and password")
        case 413:
            return RemoteError(.permanent, "the server refused \(what) as too large (413): raise its request size limit (client_max_body_size for nginx, LimitRequestBody for Apache)", tooLarge: true)
        case 405, 501: return .permanent("\(location) is not a WebDAV server (\(what) answered \(r.status))")
        case 507: return .permanent("the server's storage is full (\(what) answered 507)")
        case 429:
            return .transient("the server asked to slow down (429)", retryAfter: retryAfter(r.headers["retry-after"]))
        case 500...599:
            return .transient("the server failed (\(what) answered \(r.status))", retryAfter: retryAfter(r.headers["retry-after"]))
        default:
            return .permanent("\(what) answered \(r.status)")
        }
    }

    func retryAfter(_ value: String?) -> Double? {
        guard let v = value?.trimmingBlanks, !v.isEmpty else { return nil }
        if let seconds = Double(v) { return max(0, min(seconds, 3600)) }
        let now = Date()
        return UTCTime.httpDate(v, now: now).map { max(0, min($0.timeIntervalSince(now), 3600)) }
    }

    public var knownToExist: Set<String> { lock.withLock { knownFolders } }
    public func assumeExisting(_ keys: Set<String>) { lock.withLock { knownFolders.formUnion(keys) } }
    func isKnown(_ key: String) -> Bool { lock.withLock { knownFolders.contains(key) } }
    func remember(_ key: String) { lock.withLock { _ = knownFolders.insert(key) } }
    /// Something known to exist turned out missing: check everything again.
    public func forgetExisting() { lock.withLock { knownFolders.removeAll() } }

    /// Creates a folder if it is missing (MKCOL); 405 means it exists. A folder known to
    /// exist (this round or an earlier one) costs no request.
    func makeFolder(_ parts: [String]) async throws {
        let key = parts.joined(separator: "/")
        if isKnown(key) { return }
        let r = try await send("MKCOL", url(parts, folder: true))
        switch r.status {
        case 200...299, 405: break
        case 409: throw RemoteError.permanent("the folder above \(key) is missing on \(location); check the remote URL")
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
            throw RemoteError.permanent("the listing of \(parts.joined(separator: "/")) on \(location) is too large (more than \(Wire.maxEntries) entries or \(Wire.maxBody >> 20) MiB); it was not read")
        case .malformed, .none:
            throw RemoteError.permanent("malformed WebDAV answer from \(location) (listing \(parts.joined(separator: "/")))")
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
        do { try validateAccount(account) } catch let e as CoreError { throw RemoteError.permanent(e.description) }
        lock.withLock { self.recipient = recipient }
        // Checked by an earlier round: the root, the account's folders and its format.
        let formatKey = "users/\(account)/format"
        if isKnown(formatKey) { return nil }
        // The root must exist and speak WebDAV.
        let probe = try await send("PROPFIND", root, body: nil, headers: ["Depth": "0"])
        switch probe.status {
        case 207: break
        case 404: throw RemoteError.permanent("the remote folder \(location) does not exist on the server; create it or fix 'habitto remote set'")
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
            let fresh = RemoteFormat.fresh(recipient: lock.withLock { recipient })
            let put = try await send("PUT", formatURL, body: Data(fresh.bytes), headers: ["If-None-Match": "*"])
            guard (200...299).contains(put.status) || put.status == 412 else { throw failure(put, "PUT format") }
            if put.status != 412 { return fresh }
            // Another device made it at the same moment: use theirs.
            found = try await read()
        }
        guard var found else { throw RemoteError.transient("\(place) appeared and vanished; sync will try again") }
        if case .readable(let f) = RemoteFormat.parse(found), f.version < RemoteFormat.current {
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
                throw RemoteError(.permanent, "batch \(batch) of device \(device.rawValue.prefix(8)) disappeared from \(location)", missing: true)
            }
            throw failure(r, "GET \(batch)")
        }
        guard r.body.count <= maxBytes else {
            throw RemoteError.permanent("batch \(batch) of device \(device.rawValue.prefix(8)) is larger than \(maxBytes) bytes; it was not read")
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

    public func unmarkVersion(account: String, device: DeviceID, version: String) async throws {
        let r = try await send("DELETE", url(["users", account, "devices", device.rawValue, "ops", RemoteEntries.versionMarker(version)]))
        guard (200...299).contains(r.status) || r.status == 404 else { throw failure(r, "DELETE the version marker") }
    }

    public func create(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> WriteOutcome {
        let folder = ["users", account, "devices", device.rawValue]
        try await makeFolder(folder)
        try await makeFolder(folder + ["ops"])
        let target = url(folder + ["ops", batch.fileName])
        func put() async throws -> Response {
            try await send("PUT", target, body: Data(bytes), headers: ["If-None-Match": "*", "Content-Type": "application/octet-stream"])
        }
        var r: Response
        do {
            r = try await put()
        } catch let e as RemoteError where e.tooLarge {
            // The connection closed on a large body: refused for its size if the batch is not
            // there (then a smaller one may fit); an ack if it was written after all.
            let existing = try await send("GET", target, maxBody: BatchFile.maxBytes)
            if existing.status == 200 && BatchFile.holdsSame(Array(existing.body), as: bytes, device: device, name: batch) {
                return .alreadyThere
            }
            guard existing.status == 404 else { throw RemoteError(e.kind, e.message, retryAfter: e.retryAfter) }
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
            // Already there: an ack when it is the same batch (a retry after a lost answer).
            let existing = try await send("GET", target, maxBody: BatchFile.maxBytes)
            guard existing.status == 200 else { throw failure(existing, "GET \(batch)") }
            guard BatchFile.holdsSame(Array(existing.body), as: bytes, device: device, name: batch) else {
                throw RemoteError(.permanent, "batch \(batch) of device \(device.rawValue.prefix(8)) already exists on \(location) with different contents", exists: true)
            }
            return .alreadyThere
        case 413:
            throw RemoteError(.permanent, "the server refused batch \(batch) (\(bytes.count) bytes, \(Plural.count(batch.count, "operation"))) as too large (413): raise its request size limit (client_max_body_size for nginx, LimitRequestBody for Apache)", tooLarge: true)
        default:
            throw failure(r, "PUT \(batch)")
        }
    }
}
