import FoundationEssentials
import HabitCore
import HabitSys
import WebDAVWire

/// How a WebDAV request that failed, or got an unexpected status, becomes one of the error
/// classes of `RemoteError`, with a message that says what to do.
extension WebDAVRemote {
    /// A body this large whose connection is closed may have been refused for its size.
    static let largeBody = 64 << 10

    /// Turns the helper's account of a request that got no answer into the error class (transient,
    /// permanent, ...) of docs/sync.md ("Errors"). `detail` comes from another process: shown sanitised and short.
    static func classify(_ code: WireFailureCode, detail: String, url: URL, bodySize: Int) -> RemoteError {
        let where_ = redacted(url)
        let text = Sanitize.display(String(detail.prefix(300)))
        switch code {
        case .certificate:
            return .refused("the server's certificate is not trusted (\(where_)): \(text); fix the certificate or add its CA to the system's trust store")
        case .badURL:
            return .refused("\(where_) is not a usable URL")
        case .challenged:
            // A refused login arrives as a cancelled authentication challenge.
            return refused(detail)
        case .connectionLost where bodySize > largeBody:
            // The server closed the connection on a large body: what some servers do with a
            // body above their limit (`create` checks).
            return .tooLarge("cannot reach \(where_): \(text)", transient: true)
        case .connectionLost, .unreachable:
            return .unreachable("cannot reach \(where_): \(text)")
        case .answerTooLarge:
            return .damaged("\(where_) sent an answer too large to read (\(text)); it was not kept")
        case .badRequest:
            return .refused("the WebDAV helper refused a request (\(text)); reinstall habitto-webdav from the same build as habitto")
        }
    }

    /// Why a login was refused, from the server's challenge (`WWW-Authenticate`): a wrong
    /// user or password, or a server that offers no scheme Habitto speaks (only Basic).
    static func refused(_ challenge: String?) -> RemoteError {
        let schemes = authenticationSchemes(challenge ?? "")
        guard !schemes.isEmpty, !schemes.contains(where: { $0.lowercased() == "basic" }) else {
            return .authentication("authentication failed: check user and password")
        }
        let offered = schemes.map { Sanitize.display(String($0.prefix(32))) }.joined(separator: ", ")
        return .authentication("the server offers only \(offered) authentication; Habitto supports Basic (over https): enable Basic authentication on the server (Nextcloud, Apache, nginx and rclone all offer it)")
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

    /// Turns an unexpected status into the error class of docs/sync.md ("Errors").
    func failure(_ r: Response, _ what: String) -> RemoteError {
        switch r.status {
        case 300...399:
            // Never followed: a redirect could take the password to another host, or drop a
            // body on the way. The user decides whether the new place is the remote.
            let target = r.headers["location"].map { Sanitize.display(String($0.prefix(300))) } ?? "no Location given"
            return .refused("the server redirected \(what) (\(r.status)) to \(target); Habitto follows no redirects: if the remote moved, set its new URL with 'habitto remote set'")
        case 401: return WebDAVRemote.refused(r.headers["www-authenticate"])
        case 403: return .authentication("authentication failed: check user and password")
        case 413:
            return .tooLarge("the server refused \(what) as too large (413): raise its request size limit (client_max_body_size for nginx, LimitRequestBody for Apache)")
        case 405, 501: return .refused("\(location) is not a WebDAV server (\(what) answered \(r.status))")
        case 507: return .refused("the server's storage is full (\(what) answered 507)")
        case 429:
            return .unreachable("the server asked to slow down (429)", retryAfter: retryAfter(r.headers["retry-after"]))
        case 500...599:
            return .unreachable("the server failed (\(what) answered \(r.status))", retryAfter: retryAfter(r.headers["retry-after"]))
        default:
            return .refused("\(what) answered \(r.status)")
        }
    }

    func retryAfter(_ value: String?) -> Double? {
        guard let v = value?.trimmingBlanks, !v.isEmpty else { return nil }
        if let seconds = Double(v) { return max(0, min(seconds, 3600)) }
        // The system's own time, not the program's clock: the date is the server's.
        let now = SystemClock.now()
        return UTCTime.httpDate(v, now: now).map { max(0, min($0.timeIntervalSince(now), 3600)) }
    }
}
