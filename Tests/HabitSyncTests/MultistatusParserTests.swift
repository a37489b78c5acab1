import XCTest
import WebDAVWire
@testable import WebDAVClient

/// The listing reader of the WebDAV helper: what real servers send, read in pieces of any
/// size, and what no listing holds refused.
final class MultistatusParserTests: XCTestCase {
    /// Feeds `text` in pieces of `piece` bytes.
    func read(_ text: String, piece: Int = 1 << 20) -> WireListing {
        var parser = MultistatusParser()
        let bytes = Array(text.utf8)
        var at = 0
        while at < bytes.count && parser.wantsMore {
            let end = min(bytes.count, at + piece)
            bytes[at..<end].withUnsafeBufferPointer { parser.feed($0) }
            at = end
        }
        return parser.finish()
    }

    static let apache = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:">
        <D:response xmlns:lp1="DAV:"><D:href>/dav/users/default/devices/</D:href><D:propstat><D:prop>
        <lp1:resourcetype><D:collection/></lp1:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
        <!-- a comment with <tags> and -- dashes -->
        <D:response xmlns:lp1="DAV:"><D:href>/dav/users/default/devices/a%20b/</D:href><D:propstat><D:prop>
        <lp1:resourcetype><D:collection /></lp1:resourcetype></D:prop></D:propstat></D:response>
        <D:response><D:href>http://h/dav/users/default/devices/x&amp;y&#x41;&#66;.batch</D:href><D:propstat><D:prop attr='a>b'>
        <lp1:resourcetype xmlns:lp1="DAV:"/></D:prop></D:propstat></D:response>
        <d:response xmlns:d="DAV:"><d:href><![CDATA[/dav/c<d>.batch]]></d:href></d:response>
        </D:multistatus>
        """
    static let expected: [WireEntry] = [
        WireEntry(href: "/dav/users/default/devices/", isCollection: true),
        WireEntry(href: "/dav/users/default/devices/a%20b/", isCollection: true),
        WireEntry(href: "http://h/dav/users/default/devices/x&yAB.batch", isCollection: false),
        WireEntry(href: "/dav/c<d>.batch", isCollection: false),
    ]

    func testAnApacheStyleListingReadsTheSameInPiecesOfAnySize() {
        for piece in [1, 2, 3, 7, 64, 1 << 20] {
            XCTAssertEqual(read(Self.apache, piece: piece), .entries(Self.expected), "pieces of \(piece)")
        }
    }

    func testADefaultNamespaceAndAnEmptyListingRead() {
        XCTAssertEqual(read("<multistatus xmlns=\"DAV:\"><response><href>/a</href><propstat><prop><resourcetype><collection/></resourcetype></prop></propstat></response></multistatus>"),
                       .entries([WireEntry(href: "/a", isCollection: true)]))
        XCTAssertEqual(read("<D:multistatus xmlns:D=\"DAV:\"/>"), .entries([]))
    }

    func testWhatNoListingHoldsIsMalformed() {
        let cases = [
            "", "   ", "not xml", "<a>", "<a></b>", "</a>", "<a></a><b></b>", "<a>text</a> trailing",
            "<!DOCTYPE m [<!ENTITY x \"y\">]><a/>", "<a><response><href>&unknown;</href></response></a>",
            "<a><response><href>&#0;</href></response></a>", "<a><response><href>\u{FF}</href></response></a>".replacingOccurrences(of: "\u{FF}", with: "&#xD800;"),
            String(repeating: "<a>", count: 65) + String(repeating: "</a>", count: 65), "<a><!-- open comment </a>",
            "<a><![CDATA[ never closed </a>", "<a><?pi never closed </a>", "<a><![JUNK[x]]></a>",
        ]
        for text in cases { XCTAssertEqual(read(text), .malformed, text) }
    }

    func testATagLongerThanItsLimitIsMalformedWithoutBeingKept() {
        let long = "<a " + String(repeating: "x", count: MultistatusParser.maxMarkup + 10) + "/>"
        XCTAssertEqual(read(long, piece: 4096), .malformed)
    }

    func testMoreEntriesThanTheLimitAreTooLargeAndReadingStops() {
        var parser = MultistatusParser()
        let open = Array("<D:multistatus xmlns:D=\"DAV:\">".utf8)
        open.withUnsafeBufferPointer { parser.feed($0) }
        let entry = Array("<D:response><D:href>/x</D:href></D:response>".utf8)
        var fed = 0
        while parser.wantsMore && fed <= Wire.maxEntries + 5 {
            entry.withUnsafeBufferPointer { parser.feed($0) }
            fed += 1
        }
        XCTAssertEqual(fed, Wire.maxEntries + 1, "reading stops at the first entry past the limit")
        XCTAssertEqual(parser.finish(), .tooLarge)
    }

    func testAnHrefLongerThanTheProtocolCarriesDropsOnlyItsEntry() {
        let long = String(repeating: "x", count: Wire.maxText + 1)
        XCTAssertEqual(read("<m><response><href>/\(long)</href></response><response><href>/ok</href></response></m>"),
                       .entries([WireEntry(href: "/ok", isCollection: false)]))
    }
}
