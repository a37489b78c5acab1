import XCTest
import HabitCore
import WebDAVWire
@testable import WebDAVClient

/// Mutated WebDAV listings, fed to the helper's listing reader in random pieces: it must
/// end in entries, `malformed` or `tooLarge`, never trap, and read the same bytes the same
/// way however they are cut.
final class MultistatusFuzzTests: XCTestCase {
    static let corpus: [[UInt8]] = [
        Array("<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/dav/a/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response><D:response><D:href>/dav/a/1-2.batch</D:href></D:response></D:multistatus>".utf8),
        Array("<multistatus xmlns=\"DAV:\"><!-- c --><response><href><![CDATA[/x]]>&amp;&#65;</href></response></multistatus>".utf8),
    ]
    static let tokens = ["<", ">", "/>", "</", "<!--", "-->", "<![CDATA[", "]]>", "<?", "?>", "&amp;", "&#x41;", "&", ";", "\"", "'",
                         "<D:response>", "</D:response>", "<D:href>", "</D:href>", "<D:collection/>", "<!DOCTYPE x>"]

    func read(_ bytes: [UInt8], cuts: [Int]) -> WireListing {
        var parser = MultistatusParser()
        var at = 0
        for cut in cuts + [bytes.count] where cut > at && parser.wantsMore {
            let end = min(cut, bytes.count)
            bytes[at..<end].withUnsafeBufferPointer { parser.feed($0) }
            at = end
        }
        if at < bytes.count && parser.wantsMore { bytes[at...].withUnsafeBufferPointer { parser.feed($0) } }
        return parser.finish()
    }

    func testMutatedListingsReadTheSameHoweverTheyAreCut() {
        var entries = 0
        Fuzzer.run("multistatus", iterations: 4_000) { rng, label in
            var input = Fuzzer.mutate(Self.corpus.randomElement(using: &rng)!, corpus: Self.corpus, text: true, rng: &rng)
            if Int.random(in: 0..<3, using: &rng) == 0 {
                let at = Int.random(in: 0...input.count, using: &rng)
                input.insert(contentsOf: Array(Self.tokens.randomElement(using: &rng)!.utf8), at: at)
            }
            let whole = read(input, cuts: [])
            let cuts = (0..<Int.random(in: 1...8, using: &rng)).map { _ in Int.random(in: 0...max(1, input.count), using: &rng) }.sorted()
            XCTAssertEqual(read(input, cuts: cuts), whole, label)
            if case .entries(let list) = whole {
                entries += 1
                XCTAssertTrue(list.allSatisfy { !$0.href.isEmpty && $0.href.utf8.count <= Wire.maxText }, label)
            }
        }
        XCTAssertGreaterThan(entries, 0, "no mutation was a listing: the entries path went untested")
    }
}
