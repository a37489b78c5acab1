import Foundation
import HabitCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The sync layout of DESIGN.md section 6 on a WebDAV server (Apache mod_dav, Nextcloud,
/// rclone serve webdav): MKCOL for folders, create-only PUT (`If-None-Match: *`) for
/// batches, GET, and PROPFIND `Depth: 1` to list. One URLSession (so one kept-alive
/// connection) per remote. The password is sent only in the Authorization header and never
/// appears in messages.
///
/// Servers that ignore `If-None-Match` still work: batch names and contents are
/// deterministic per device and sequence range, so an overwrite carries the same bytes.
public final class WebDAVRemote: Remote, @unchecked Sendable {
    let root: URL
    let authorization: String?
    let session: URLSession
    let challenges = ChallengeRecorder()
    private let lock = NSLock()
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
        if let caFile, !caFile.isEmpty {
            throw RemoteError.permanent("ca_file is set (\(caFile)), but this build's HTTP client (URLSession on Linux) cannot trust an extra CA; add the CA to the system's trust store (update-ca-certificates) and remove ca_file")
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
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout * 6
        config.httpMaximumConnectionsPerHost = 1
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpCookieStorage = nil
        session = URLSession(configuration: config, delegate: challenges, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public var location: String { WebDAVRemote.redacted(root) }

    static func redacted(_ url: URL) -> String {
        guard var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(invalid URL)" }
        c.user = nil
        c.password = nil
        return c.string ?? "(invalid URL)"
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
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

    func send(_ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:]) async throws -> Response {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let session = self.session
        let challenges = self.challenges
        return try await withCheckedThrowingContinuation { continuation in
            let box = TaskIDBox()
            let task = session.dataTask(with: request) { data, response, error in
                if let error {
                    // A refused login arrives as a cancelled authentication challenge.
                    if challenges.wasChallenged(box.id) {
                        continuation.resume(throwing: RemoteError.permanent("authentication failed: check user and password"))
                    } else {
                        continuation.resume(throwing: WebDAVRemote.classify(error, url: url))
                    }
                    return
                }
                guard let http = response as? HTTPURLResponse else {
                    continuation.resume(throwing: RemoteError.permanent("\(WebDAVRemote.redacted(url)): not an HTTP answer"))
                    return
                }
                var headers: [String: String] = [:]
                for (k, v) in http.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
                continuation.resume(returning: Response(status: http.statusCode, body: data ?? Data(), headers: headers))
            }
            box.id = task.taskIdentifier
            task.resume()
        }
    }

    static func classify(_ error: Error, url: URL) -> RemoteError {
        let where_ = redacted(url)
        // libcurl's TLS failures arrive on Linux with their own text; a certificate problem is
        // permanent whatever code it came with.
        let text = error.localizedDescription
        if text.localizedCaseInsensitiveContains("certificate") || text.localizedCaseInsensitiveContains("SSL peer") {
            return .permanent("the server's certificate is not trusted (\(where_)): \(text); fix the certificate or add its CA to the system's trust store")
        }
        guard let e = error as? URLError else { return .transient("\(where_): \(text)") }
        switch e.code {
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return .permanent("the server's certificate is not trusted (\(where_)): fix the certificate or add its CA to the system's trust store")
        case .badURL, .unsupportedURL:
            return .permanent("\(where_) is not a usable URL")
        case .userAuthenticationRequired:
            return .permanent("authentication failed: check user and password")
        default:
            return .transient("cannot reach \(where_): \(e.localizedDescription)")
        }
    }

    /// Turns an unexpected status into the error class of DESIGN.md section 6.
    func failure(_ r: Response, _ what: String) -> RemoteError {
        switch r.status {
        case 401, 403: return .permanent("authentication failed: check user and password")
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
        guard let v = value?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return nil }
        if let seconds = Double(v) { return max(0, min(seconds, 3600)) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return f.date(from: v).map { max(0, min($0.timeIntervalSinceNow, 3600)) }
    }

    /// Creates a folder if it is missing (MKCOL); 405 means it exists.
    func makeFolder(_ parts: [String]) async throws {
        let key = parts.joined(separator: "/")
        if lock.withLock({ knownFolders.contains(key) }) { return }
        let r = try await send("MKCOL", url(parts, folder: true))
        switch r.status {
        case 200...299, 405: break
        case 409: throw RemoteError.permanent("the folder above \(key) is missing on \(location); check the remote URL")
        default: throw failure(r, "MKCOL \(key)")
        }
        lock.withLock { _ = knownFolders.insert(key) }
    }

    /// Lists a folder (PROPFIND Depth 1): the names of its members, percent-decoded, each
    /// with whether it is a collection (a folder) or not (a file), sorted.
    func list(_ parts: [String]) async throws -> [(name: String, kind: RemoteEntries.Kind)]? {
        let body = Data("<?xml version=\"1.0\" encoding=\"utf-8\"?><D:propfind xmlns:D=\"DAV:\"><D:prop><D:resourcetype/></D:prop></D:propfind>".utf8)
        let target = url(parts, folder: true)
        let r = try await send("PROPFIND", target, body: body, headers: ["Depth": "1", "Content-Type": "application/xml; charset=utf-8"])
        if r.status == 404 { return nil }
        guard r.status == 207 else { throw failure(r, "PROPFIND \(parts.joined(separator: "/"))") }
        guard r.body.count <= 32 << 20 else { throw RemoteError.permanent("the listing of \(parts.joined(separator: "/")) is too large") }
        let parser = MultistatusParser()
        guard parser.parse(r.body) else {
            throw RemoteError.permanent("malformed WebDAV answer from \(location) (listing \(parts.joined(separator: "/")))")
        }
        let own = target.path.removingPercentEncoding ?? target.path
        var members: [(name: String, kind: RemoteEntries.Kind)] = []
        for entry in parser.entries {
            // hrefs may be absolute URLs or paths; compare decoded paths.
            let path = (URL(string: entry.href)?.path ?? entry.href).removingPercentEncoding ?? entry.href
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            if trimmed == (own.hasSuffix("/") ? String(own.dropLast()) : own) { continue }
            guard let name = trimmed.split(separator: "/").last.map(String.init), !name.isEmpty else { continue }
            members.append((name, entry.isCollection ? .folder : .file))
        }
        return members.sorted { $0.name < $1.name }
    }

    // MARK: Remote

    public func prepare(account: String) async throws {
        do { try validateAccount(account) } catch let e as CoreError { throw RemoteError.permanent(e.description) }
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
        let formatURL = url(["users", account, "format"])
        let existing = try await send("GET", formatURL)
        if existing.status == 200 {
            guard existing.body == Data(remoteFormat.utf8) else {
                throw RemoteError.permanent("users/\(account)/format on \(location) is not '\(remoteFormat.trimmingCharacters(in: .newlines))'; this remote holds another format")
            }
            return
        }
        guard existing.status == 404 else { throw failure(existing, "GET format") }
        let put = try await send("PUT", formatURL, body: Data(remoteFormat.utf8), headers: ["If-None-Match": "*"])
        guard (200...299).contains(put.status) || put.status == 412 else { throw failure(put, "PUT format") }
    }

    /// The device collections of the account; other members are skipped and reported
    /// (`RemoteEntries.devices`, as for a folder remote).
    public func listDevices(account: String) async throws -> Listing<DeviceID> {
        guard let members = try await list(["users", account, "devices"]) else { return Listing() }
        return RemoteEntries.devices(members)
    }

    /// The batches of a device; a collection under a batch's name, or a name that is not a
    /// batch's, is skipped and reported (`RemoteEntries.batches`).
    public func listBatches(account: String, device: DeviceID) async throws -> Listing<BatchName> {
        guard let members = try await list(["users", account, "devices", device.rawValue, "ops"]) else { return Listing() }
        return RemoteEntries.batches(members, device: device)
    }

    public func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8] {
        let r = try await send("GET", url(["users", account, "devices", device.rawValue, "ops", batch.fileName]))
        guard r.status == 200 else {
            if r.status == 404 { throw RemoteError.permanent("batch \(batch) of device \(device.rawValue.prefix(8)) disappeared from \(location)") }
            throw failure(r, "GET \(batch)")
        }
        guard r.body.count <= maxBytes else {
            throw RemoteError.permanent("batch \(batch) of device \(device.rawValue.prefix(8)) is larger than \(maxBytes) bytes; it was not read")
        }
        return Array(r.body)
    }

    public func create(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> WriteOutcome {
        try await makeFolder(["users", account, "devices", device.rawValue])
        try await makeFolder(["users", account, "devices", device.rawValue, "ops"])
        let target = url(["users", account, "devices", device.rawValue, "ops", batch.fileName])
        let r = try await send("PUT", target, body: Data(bytes), headers: ["If-None-Match": "*", "Content-Type": "application/octet-stream"])
        switch r.status {
        case 200...299:
            return .created
        case 412:
            // Already there: an ack when it is the same batch (a retry after a lost answer).
            let existing = try await send("GET", target)
            guard existing.status == 200 else { throw failure(existing, "GET \(batch)") }
            guard BatchFile.holdsSame(Array(existing.body), as: bytes, device: device, name: batch) else {
                throw RemoteError.permanent("batch \(batch) of device \(device.rawValue.prefix(8)) already exists on \(location) with different contents")
            }
            return .alreadyThere
        default:
            throw failure(r, "PUT \(batch)")
        }
    }
}

/// Answers authentication challenges by cancelling them (the credentials are already in
/// the request), and remembers which tasks were challenged. Without a delegate,
/// URLSession on Linux leaves a task that got 401 suspended forever.
final class ChallengeRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var challenged = Set<Int>()

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        lock.withLock { _ = challenged.insert(task.taskIdentifier) }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func wasChallenged(_ id: Int) -> Bool { lock.withLock { challenged.remove(id) != nil } }
}

/// The task's identifier, set once the task exists.
final class TaskIDBox: @unchecked Sendable {
    var id = -1
}

/// Collects the `href`s of a WebDAV multistatus answer and whether each is a collection.
final class MultistatusParser: NSObject, XMLParserDelegate {
    struct Entry { var href = ""; var isCollection = false }
    private(set) var entries: [Entry] = []
    private var current: Entry?
    private var inHref = false
    private var failed = false

    func parse(_ data: Data) -> Bool {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        return parser.parse() && !failed
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch name {
        case "response": current = Entry()
        case "href": inHref = current != nil
        case "collection": current?.isCollection = true
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inHref { current?.href += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch name {
        case "href": inHref = false
        case "response":
            if let c = current { entries.append(c) }
            current = nil
        default: break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { failed = true }
}
