import Foundation
import XCTest
import CHTTPTransfer
import WebDAVWire
@testable import WebDAVClient

/// What the WebDAV helper says when a request gets no answer: libcurl's own words when it
/// gave some, and plain words for a timeout, with the class the engine needs.
final class HelperFailureTests: XCTestCase {
    func testEachLibcurlFailureHasItsClassAndATimeoutIsSaidInWords() {
        XCTAssertEqual(HTTPClient.failure(code: Int32(HABITTO_HTTP_OPERATION_TIMEDOUT), message: "Operation timed out after 20001 milliseconds", timeout: 20),
                       .failure(.unreachable, detail: "no complete answer within the request's time limit (20 s)"))
        XCTAssertEqual(HTTPClient.failure(code: Int32(HABITTO_HTTP_OPERATION_TIMEDOUT), message: "", timeout: 0.5),
                       .failure(.unreachable, detail: "no complete answer within the request's time limit (0.5 s)"))
        let refused = "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"
        XCTAssertEqual(HTTPClient.failure(code: Int32(HABITTO_HTTP_COULDNT_CONNECT), message: refused, timeout: 20), .failure(.unreachable, detail: refused))
        for code in [HABITTO_HTTP_SSL_CONNECT_ERROR, HABITTO_HTTP_PEER_FAILED_VERIFICATION, HABITTO_HTTP_SSL_CACERT_BADFILE] {
            XCTAssertEqual(HTTPClient.failure(code: Int32(code), message: "SSL certificate problem", timeout: 20), .failure(.certificate, detail: "SSL certificate problem"))
        }
        for code in [HABITTO_HTTP_GOT_NOTHING, HABITTO_HTTP_RECV_ERROR, HABITTO_HTTP_SEND_ERROR] {
            guard case .failure(.connectionLost, _) = HTTPClient.failure(code: Int32(code), message: "", timeout: 20) else { return XCTFail("\(code)") }
        }
        XCTAssertEqual(HTTPClient.failure(code: Int32(HABITTO_HTTP_URL_MALFORMAT), message: "URL rejected", timeout: 20), .failure(.badURL, detail: "URL rejected"))
        XCTAssertEqual(HTTPClient.failure(code: 99, message: "", timeout: 20), .failure(.unreachable, detail: "the request failed (libcurl error 99)"))
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
        XCTAssertEqual(habitto_http_global_init(), 0)
        let client = try XCTUnwrap(HTTPClient(timeout: 1))
        let reply = client.perform(WireRequest(method: "GET", url: "http://127.0.0.1:\(port)/dav/format", headers: [], body: nil,
                                               wantsListing: false))
        XCTAssertEqual(reply.wireReply, .failure(.unreachable, detail: "no complete answer within the request's time limit (1 s)"))
    }
}
