import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif
#if canImport(Glibc)
import Glibc
#endif
import WebDAVWire

/// The WebDAV transport of `habitto-webdav`: reads `WireRequest` frames on standard input,
/// makes each request with one URLSession (one kept-alive connection), and writes one
/// `WireReply` frame for each on standard output, until its input ends. It states facts (a
/// status, headers, a body, a parsed listing, or why there was no answer); the sync engine
/// in `habitto` decides what they mean.
public enum HelperServer {
    /// Serves standard input and output; returns the exit status.
    public static func run(arguments: [String]) -> Int32 {
        var timeout = 20.0
        if let i = arguments.firstIndex(of: "--timeout"), i + 1 < arguments.count, let t = Double(arguments[i + 1]), t > 0, t <= 3600 {
            timeout = t
        }
        _ = signal(SIGPIPE, SIG_IGN)
        let client = HTTPClient(timeout: timeout)
        var decoder = FrameDecoder()
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(0, &buf, buf.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return 0 }
            let payloads: [[UInt8]]
            do { payloads = try decoder.feed(Array(buf[0..<n])) } catch { return 2 }
            for payload in payloads {
                let reply: WireReply
                do { reply = client.perform(try WireRequest(decoding: payload)) } catch {
                    reply = .failure(.badRequest, detail: "\(error)")
                }
                var bytes = reply.encoded()
                if bytes.count > Wire.maxFrame {
                    bytes = WireReply.failure(.answerTooLarge, detail: "\(bytes.count) bytes").encoded()
                }
                guard writeAll(Wire.frame(bytes)) else { return 0 }
            }
        }
    }

    static func writeAll(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
}

/// Makes requests with URLSession, one at a time.
final class HTTPClient: @unchecked Sendable {
    let session: URLSession
    let challenges = ChallengeRecorder()

    init(timeout: Double) {
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout * 6
        config.httpMaximumConnectionsPerHost = 1
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpCookieStorage = nil
        session = URLSession(configuration: config, delegate: challenges, delegateQueue: nil)
    }

    /// The largest multistatus answer that is parsed.
    static let maxListing = 32 << 20

    func perform(_ wire: WireRequest) -> WireReply {
        guard let url = URL(string: wire.url) else { return .failure(.badURL, detail: "") }
        var request = URLRequest(url: url)
        request.httpMethod = wire.method
        request.httpBody = wire.body.map { Data($0) }
        for h in wire.headers { request.setValue(h.value, forHTTPHeaderField: h.name) }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        let task = session.dataTask(with: request) { data, response, error in
            box.set(data, response, error)
            done.signal()
        }
        let id = task.taskIdentifier
        task.resume()
        done.wait()
        let (data, response, error) = box.get()
        if let error {
            if let offered = challenges.challenge(id) { return .failure(.challenged, detail: offered) }
            return HTTPClient.failure(error)
        }
        guard let http = response as? HTTPURLResponse else { return .failure(.unreachable, detail: "not an HTTP answer") }
        var headers: [(name: String, value: String)] = []
        for (k, v) in http.allHeaderFields {
            let name = String(describing: k), value = String(describing: v)
            // Only what the protocol can carry; a header it cannot is of no use to the engine.
            guard !name.isEmpty, name.utf8.count <= 64, value.utf8.count <= Wire.maxText,
                  name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }),
                  value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f }), headers.count < Wire.maxHeaders
            else { continue }
            headers.append((name, value))
        }
        let body = data ?? Data()
        var listing = WireListing.none
        if wire.wantsListing && http.statusCode == 207 {
            if body.count > HTTPClient.maxListing {
                listing = .tooLarge
            } else {
                let parser = MultistatusParser()
                listing = parser.parse(body) ? .entries(parser.entries.filter { $0.href.utf8.count <= Wire.maxText }) : .malformed
            }
        }
        let status = (100...599).contains(http.statusCode) ? http.statusCode : 502
        return .response(status: status, headers: headers, body: wire.wantsListing ? [] : Array(body), listing: listing)
    }

    /// What kind of failure a URLSession error is (the engine classifies it).
    static func failure(_ error: Error) -> WireReply {
        // libcurl's TLS failures arrive on Linux with their own text; a certificate problem
        // is one whatever code it came with.
        let text = reason(error)
        if text.localizedCaseInsensitiveContains("certificate") || text.localizedCaseInsensitiveContains("SSL peer") {
            return .failure(.certificate, detail: text)
        }
        guard let e = error as? URLError else { return .failure(.unreachable, detail: text) }
        switch e.code {
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return .failure(.certificate, detail: text)
        case .badURL, .unsupportedURL:
            return .failure(.badURL, detail: text)
        case .userAuthenticationRequired:
            return .failure(.challenged, detail: "")
        case .networkConnectionLost:
            return .failure(.connectionLost, detail: text)
        default:
            return .failure(.unreachable, detail: text)
        }
    }
}

extension HTTPClient {
    /// What went wrong, in words: libcurl's text when it gave one; for the failures that
    /// Foundation on Linux raises itself (a timeout, above all), whose text is only
    /// "The operation could not be completed. (NSURLErrorDomain error -1001.)", a plain
    /// account of the code.
    static func reason(_ error: Error) -> String {
        let text = error.localizedDescription
        guard text.contains("NSURLErrorDomain error"), let e = error as? URLError else { return text }
        switch e.code {
        case .timedOut: return "no answer within the request's time limit"
        case .cannotConnectToHost: return "the connection was refused"
        case .cannotFindHost, .dnsLookupFailed: return "the server's name was not found"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "no network connection"
        case .cancelled: return "the request was cancelled"
        case .badServerResponse: return "the server's answer could not be read"
        case .resourceUnavailable: return "the server is not available"
        default: return "the request failed (URL error \(e.code.rawValue))"
        }
    }
}

/// A finished task's outcome, handed from URLSession's queue to the waiting thread.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (Data?, URLResponse?, Error?) = (nil, nil, nil)
    func set(_ d: Data?, _ r: URLResponse?, _ e: Error?) { lock.withLock { value = (d, r, e) } }
    func get() -> (Data?, URLResponse?, Error?) { lock.withLock { value } }
}

/// Answers authentication challenges by cancelling them (the credentials are already in
/// the request), and remembers which tasks were challenged. Without a delegate,
/// URLSession on Linux leaves a task that got 401 suspended forever.
final class ChallengeRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let lock = NSLock()
    /// The challenged tasks and the server's `WWW-Authenticate` (empty when not known).
    private var challenged: [Int: String] = [:]

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        var offered = ""
        if let response = challenge.failureResponse as? HTTPURLResponse {
            for (k, v) in response.allHeaderFields where String(describing: k).lowercased() == "www-authenticate" {
                offered += (offered.isEmpty ? "" : ", ") + String(describing: v)
            }
        }
        if offered.isEmpty, let method = challenge.protectionSpace.authenticationMethod as String? {
            if method == NSURLAuthenticationMethodHTTPDigest { offered = "Digest" }
            else if method == NSURLAuthenticationMethodHTTPBasic { offered = "Basic" }
        }
        lock.withLock { challenged[task.taskIdentifier] = offered }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// What the server offered when the task was challenged (and forgets it); nil when the
    /// task was not challenged.
    func challenge(_ id: Int) -> String? { lock.withLock { challenged.removeValue(forKey: id) } }
}

/// Collects the `href`s of a WebDAV multistatus answer and whether each is a collection.
final class MultistatusParser: NSObject, XMLParserDelegate {
    private(set) var entries: [WireEntry] = []
    private var current: WireEntry?
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
        case "response": current = WireEntry(href: "", isCollection: false)
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
