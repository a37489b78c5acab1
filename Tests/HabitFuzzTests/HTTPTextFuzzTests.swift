import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// The two readers of text a WebDAV server sends that replaced Foundation's: a listing's
/// percent-encoded hrefs (`percentDecoded`) and `Retry-After` dates (`UTCTime.httpDate`), fed
/// mutated and random text. Neither crashes; the first agrees with Foundation's
/// `removingPercentEncoding` but where Foundation turns invalid UTF-8 into U+FFFD (it gives
/// nil), the second reads every date Foundation writes and gives only dates that write back
/// to the text they came from.
final class HTTPTextFuzzTests: XCTestCase {
    func testMutatedHrefsDecodeAsFoundationDecodesThem() {
        let corpus = ["/dav/Habit%20Data/users/default/ops/1-2.batch", "%E6%97%A5%E6%9C%AC/", "a%2Fb%25c", "%C3%A9t%C3%A9"]
            .map { Array($0.utf8) }
        var decoded = 0
        Fuzzer.run("percent", iterations: 20_000) { rng, label in
            let bytes = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng, upTo: 64) : Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, text: true, rng: &rng)
            let text = String(decoding: bytes, as: UTF8.self)
            let ours = text.percentDecoded
            if ours != nil { decoded += 1 }
            let foundation = text.removingPercentEncoding
            if ours != foundation {
                XCTAssertNil(ours, "\(label): \(text.debugDescription)")
                func replacements(_ t: String?) -> Int { t?.unicodeScalars.filter { $0 == "\u{FFFD}" }.count ?? 0 }
                XCTAssertGreaterThan(replacements(foundation), replacements(text),
                              "\(label): \(text.debugDescription): nil where Foundation gives \(foundation.debugDescription)")
            }
        }
        XCTAssertGreaterThan(decoded, 20_000 * Fuzzer.factor / 10, "too few inputs decoded")
    }

    func testMutatedHTTPDatesAreRefusedOrWriteBackToTheirText() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "dd MMM yyyy HH:mm:ss 'GMT'"
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let corpus = ["Sun, 06 Nov 1994 08:49:37 GMT", "Fri, 27 Nov 2026 23:59:59 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
                      "Sun Nov  6 08:49:37 1994"].map { Array($0.utf8) }
        let full = DateFormatter()
        full.locale = Locale(identifier: "en_US_POSIX")
        full.timeZone = TimeZone(identifier: "GMT")
        full.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var accepted = 0
        Fuzzer.run("http-date", iterations: 20_000) { rng, label in
            if Int.random(in: 0..<4, using: &rng) == 0 {
                // A date as a server writes it, from 1900 to 2100.
                let instant = Date(timeIntervalSince1970: Double(Int64.random(in: -2_208_988_800...4_102_444_799, using: &rng)))
                XCTAssertEqual(UTCTime.httpDate(full.string(from: instant), now: now), instant, "\(label): \(full.string(from: instant))")
                return
            }
            let bytes = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng, upTo: 48) : Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, text: true, rng: &rng)
            let text = String(decoding: bytes, as: UTF8.self)
            guard let date = UTCTime.httpDate(text, now: now) else { return }
            accepted += 1
            let words = text.split(separator: " ")
            // The preferred form writes back exactly, but for the weekday (not checked), where
            // Foundation's calendar is Gregorian (it is Julian before 1582).
            if words.count == 6, words[0].hasSuffix(","), let year = Int(words[3]), year >= 1600 {
                XCTAssertEqual(formatter.string(from: date), words[1...].joined(separator: " "), "\(label): \(text.debugDescription)")
            }
            XCTAssertTrue(date.timeIntervalSince1970 > -62_200_000_000 && date.timeIntervalSince1970 < 253_403_300_000,
                          "\(label): \(text.debugDescription) gave \(date)")
        }
        XCTAssertGreaterThan(accepted, 20, "too few mutated dates accepted: the write-back went untested")
    }
}
