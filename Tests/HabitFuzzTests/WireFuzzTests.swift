import XCTest
import HabitCore
import WebDAVWire

/// Random and mutated frames of the protocol between the sync engine and habitto-webdav:
/// the engine trusts nothing the helper sends. Each payload must be refused with a
/// `WireError` or decode to a value that re-encodes to the same bytes; the frame decoder
/// must refuse an oversized length and cut a stream the same however it arrives.
final class WireFuzzTests: XCTestCase {
    static let replies: [WireReply] = [
        .response(status: 207, headers: [("Content-Type", "application/xml"), ("DAV", "1,2")], body: [],
                  listing: .entries([WireEntry(href: "/dav/users/", isCollection: true), WireEntry(href: "/dav/users/1-3.batch", isCollection: false)])),
        .response(status: 200, headers: [], body: Array("habitto-sync 1\n".utf8), listing: .none),
        .response(status: 429, headers: [("Retry-After", "7")], body: [], listing: .none),
        .response(status: 207, headers: [], body: [], listing: .malformed),
        .response(status: 207, headers: [], body: [], listing: .tooLarge),
        .failure(.challenged, detail: "Digest realm=\"x\", nonce=\"y\""),
        .failure(.unreachable, detail: "Could not connect to the server."),
    ]
    static let requests: [WireRequest] = [
        WireRequest(method: "PROPFIND", url: "https://127.0.0.1:8443/dav/users/", headers: [("Authorization", "Basic dTpw"), ("Depth", "1")],
                    body: Array("<?xml version=\"1.0\"?>".utf8), wantsListing: true),
        WireRequest(method: "PUT", url: "http://localhost/dav/users/a/devices/d/ops/1-2.batch", headers: [("If-None-Match", "*")], body: [0, 1, 2, 0xFF]),
        WireRequest(method: "MKCOL", url: "https://h/x/"),
    ]

    func testMutatedRepliesAreRefusedOrReencode() {
        let corpus = Self.replies.map { $0.encoded() }
        var accepted = 0
        Fuzzer.run("wire reply", iterations: 30_000) { rng, label in
            let input = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng) : Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng)
            let reply: WireReply
            do { reply = try WireReply(decoding: input) } catch {
                XCTAssertTrue(error is WireError, "\(label): \(error)")
                return
            }
            accepted += 1
            XCTAssertEqual(try? WireReply(decoding: reply.encoded()), reply, "\(label): an accepted reply does not re-encode")
            if case let .response(status, headers, _, _) = reply {
                XCTAssertTrue((100...599).contains(status), label)
                XCTAssertTrue(headers.allSatisfy { !$0.name.isEmpty && !$0.value.contains("\n") && !$0.value.contains("\r") }, label)
            }
        }
        XCTAssertGreaterThan(accepted, 30_000 * Fuzzer.factor / 50, "too few mutations decoded: the re-encoding went untested")
    }

    func testMutatedRequestsAreRefusedOrReencode() {
        let corpus = Self.requests.map { $0.encoded() }
        Fuzzer.run("wire request", iterations: 20_000) { rng, label in
            let input = Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng)
            let request: WireRequest
            do { request = try WireRequest(decoding: input) } catch {
                XCTAssertTrue(error is WireError, "\(label): \(error)")
                return
            }
            XCTAssertEqual(try? WireRequest(decoding: request.encoded()), request, label)
            XCTAssertTrue(request.url.hasPrefix("http"), label)
        }
    }

    func testFramesCutAnywhereGiveTheSamePayloads() throws {
        Fuzzer.run("wire frames", iterations: 2_000) { rng, label in
            let payloads = (0..<Int.random(in: 1...5, using: &rng)).map { _ in Self.replies.randomElement(using: &rng)!.encoded() }
            let stream = payloads.flatMap { Wire.frame($0) }
            var decoder = FrameDecoder()
            var got: [[UInt8]] = []
            var at = 0
            while at < stream.count {
                let end = min(stream.count, at + Int.random(in: 1...40, using: &rng))
                guard let more = try? decoder.feed(Array(stream[at..<end])) else { return XCTFail("\(label): a valid stream was refused") }
                got += more
                at = end
            }
            XCTAssertEqual(got, payloads, label)
            XCTAssertEqual(decoder.pending, 0, label)
        }
    }

    func testAFrameLongerThanTheLimitIsRefusedBeforeItsBytesArrive() {
        var decoder = FrameDecoder()
        XCTAssertThrowsError(try decoder.feed([0xFF, 0xFF, 0xFF, 0xFF, 1])) { error in
            XCTAssertEqual((error as? WireError)?.message, "a frame of 4294967295 bytes is larger than \(Wire.maxFrame)")
        }
        var ok = FrameDecoder()
        XCTAssertEqual(try ok.feed([0, 0, 0, 2, 7]), [])
        XCTAssertEqual(try ok.feed([8, 0, 0]), [[7, 8]])
        XCTAssertEqual(ok.pending, 2)
    }

    func testNoiseStreamsAreCutOrRefusedNeverTrap() {
        Fuzzer.run("wire noise stream", iterations: 5_000) { rng, label in
            var decoder = FrameDecoder()
            do {
                for payload in try decoder.feed(Fuzzer.noise(&rng)) {
                    XCTAssertLessThanOrEqual(payload.count, Wire.maxFrame, label)
                    _ = try? WireReply(decoding: payload)
                }
            } catch {
                XCTAssertTrue(error is WireError, "\(label): \(error)")
            }
        }
    }
}
