import Foundation
import XCTest

/// docs/reference.md is what `habitto __reference` prints, so the reference cannot drift
/// from the command table and the key map.
final class ReferenceTests: XCTestCase {
    func testDocsReferenceIsWhatTheBinaryPrints() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/reference.md")
        let written = try String(contentsOf: docs, encoding: .utf8)
        let box = Sandbox()
        let printed = box.ok("__reference")
        XCTAssertEqual(written, printed, "docs/reference.md is stale: regenerate it with 'habitto __reference > docs/reference.md'")
        XCTAssertTrue(printed.contains("### habitto check\n"), "every command has its section")
        XCTAssertTrue(printed.contains("## Keys"))
    }
}
