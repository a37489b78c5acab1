import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
import WebDAVWire
@testable import WebDAVClient

/// What the WebDAV helper says when a request gets no answer: libcurl's own words when it
/// gave some, and plain words for the failures Foundation raises itself, whose text on Linux
/// is only an error domain and a number.
final class HelperFailureTests: XCTestCase {
    func testATimeoutIsSaidInWordsNotAsAnErrorNumber() {
        let reply = HTTPClient.failure(URLError(.timedOut))
        XCTAssertEqual(reply, .failure(.unreachable, detail: "no answer within the request's time limit"))
        for code: URLError.Code in [.timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
                                    .notConnectedToInternet, .cancelled, .badServerResponse, .resourceUnavailable, .zeroByteResource] {
            guard case let .failure(_, detail) = HTTPClient.failure(URLError(code)) else { return XCTFail("\(code)") }
            XCTAssertFalse(detail.contains("NSURLErrorDomain"), "\(code.rawValue): \(detail)")
            XCTAssertFalse(detail.isEmpty, "\(code.rawValue)")
        }
        XCTAssertEqual(HTTPClient.failure(URLError(.networkConnectionLost)), .failure(.connectionLost, detail: "the connection was lost"))
    }

    func testLibcurlsOwnTextIsKept() {
        let curl = URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"])
        XCTAssertEqual(HTTPClient.failure(curl), .failure(.unreachable, detail: "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"))
        let tls = URLError(.secureConnectionFailed, userInfo: [NSLocalizedDescriptionKey: "SSL peer certificate or SSH remote key was not OK"])
        guard case .failure(.certificate, _) = HTTPClient.failure(tls) else { return XCTFail("a certificate failure") }
    }

    /// A real server on loopback that accepts the connection and never answers: the
    /// request ends at its time limit, and says so in words.
    func testARealRequestThatTimesOutSaysSo() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0 // a free port, chosen by the system
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        XCTAssertTrue(bound)
        XCTAssertEqual(listen(listener, 4), 0)
        let port = UInt16(bigEndian: address.sin_port)
        // The kernel completes the handshake from the backlog; nothing is ever read or sent.
        let client = HTTPClient(timeout: 1)
        let reply = client.perform(WireRequest(method: "GET", url: "http://127.0.0.1:\(port)/dav/format", headers: [], body: nil,
                                               wantsListing: false))
        XCTAssertEqual(reply, .failure(.unreachable, detail: "no answer within the request's time limit"))
    }
}
