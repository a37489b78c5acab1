import Foundation
import XCTest
@testable import HabittoCLI

/// ASCII output removes accents without Foundation's folding (docs/architecture.md): the
/// result is Foundation's diacritic- and width-insensitive folding for accented Latin text,
/// full-width forms and combining marks.
final class ASCIIFoldTests: XCTestCase {
    func testAccentsGoAsFoundationsFoldingRemovesThem() {
        var samples = ["Café", "naïve façade", "Ångström", "Crème brûlée", "e\u{301}te\u{301}", "Ｆｕｌｌ ｗｉｄｔｈ！", "ŁÓDŹ"]
        // Every precomposed Latin letter with marks in Latin-1 Supplement and Extended-A/B.
        for v in 0xC0...0x24F {
            guard let u = Unicode.Scalar(v), let name = u.properties.name, name.contains(" WITH ") else { continue }
            samples.append(String(u))
        }
        for s in samples {
            let foundation = String(s.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil).map { $0.isASCII ? $0 : "?" })
            let ours = ASCIIText.fold(s)
            if foundation.contains("?") {
                // Letters that do not decompose (a stroke, a hook): Foundation keeps them, and
                // they print as `?`; here the base letter its Unicode name gives, if one.
                XCTAssertEqual(ours.count, foundation.count, s)
                XCTAssertTrue(zip(ours, foundation).allSatisfy { $0 == $1 || $1 == "?" }, "\(s): \(ours) vs \(foundation)")
            } else {
                XCTAssertEqual(ours, foundation, s)
            }
        }
        XCTAssertEqual(ASCIIText.fold("Café 😀 日本"), "Cafe ? ??")
    }

    func testUTF8LocaleNames() {
        for name in ["en_GB.UTF-8", "C.utf8", "de_DE.UTF-8@euro", "sr_RS.utf-8@latin", "x.Utf8"] {
            XCTAssertTrue(ASCIIText.isUTF8(locale: name), name)
        }
        for name in ["C", "POSIX", "de_DE.ISO-8859-1@euro", "de_DE@euro", "@euro.UTF-8", "en_US.UTF-16", "", "."] {
            XCTAssertFalse(ASCIIText.isUTF8(locale: name), name)
        }
    }
}
