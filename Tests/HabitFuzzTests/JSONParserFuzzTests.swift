import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// `JSON.parse` on mutated documents: it never crashes, an error's offset is inside the
/// input, an accepted value serialises and parses back to itself, and it agrees with
/// Foundation's `JSONSerialization` (the parser it replaced) on what is JSON and what it
/// says, but for the places it is stricter on purpose (Foundation's reader takes trailing
/// commas and stops at a NUL byte) and byte order marks inside strings (Foundation drops
/// some).
final class JSONParserFuzzTests: XCTestCase {
    /// Equal, a whole `.double` being equal to the same `.int` (the serialisation writes
    /// `3.0` as `3`).
    func same(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(same)
        case (.object(let x), .object(let y)): return x.count == y.count && x.allSatisfy { k, v in y[k].map { same(v, $0) } ?? false }
        default: return a == b
        }
    }

    /// Whether a `JSONSerialization` value is the same as ours.
    func same(_ a: JSON, _ b: Any) -> Bool {
        switch a {
        case .null: return b is NSNull
        case .bool(let x): return (b as? NSNumber).map { String(cString: $0.objCType) == "c" && $0.boolValue == x } ?? false
        case .int(let x): return (b as? NSNumber).map { $0.int64Value == Int64(x) || $0.doubleValue == Double(x) } ?? false
        case .double(let x):
            // Foundation reads a number beyond 64 bits as a decimal, whose Double may differ in
            // the last place.
            guard let y = (b as? NSNumber)?.doubleValue else { return false }
            return y == x || abs(y - x) <= abs(x) * 1e-15
        case .amount: return false
        case .string(let x): return (b as? String).map { withoutBOM($0) == withoutBOM(x) } ?? false
        case .array(let x):
            guard let y = b as? [Any], y.count == x.count else { return false }
            return zip(x, y).allSatisfy { same($0, $1) }
        case .object(let x):
            guard let given = b as? [String: Any], given.count == x.count else { return false }
            let y = Dictionary(given.map { (withoutBOM($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
            return x.allSatisfy { k, v in y[withoutBOM(k)].map { same(v, $0) } ?? false }
        }
    }

    /// Foundation drops a byte order mark (U+FEFF) that starts a run of a string's text (a
    /// value or a key; at its start or after an escape); here it is the text's. Compared
    /// without any.
    func withoutBOM(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { $0 != "\u{FEFF}" }))
    }

    /// Whether a `,` is followed, after white space, by `]` or `}`.
    func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: ",") {
            var j = i + 1
            while j < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[j]) { j += 1 }
            if j < bytes.count, bytes[j] == UInt8(ascii: "]") || bytes[j] == UInt8(ascii: "}") { return true }
        }
        return false
    }

    func testMutatedDocumentsAreRefusedWithAnOffsetOrParseBackAndAgreeWithFoundation() throws {
        let documents = [
            #"{"format": "habitto-export", "version": 2, "habits": [{"name": "Water \u00e9", "goal": 2.5, "days": [{"date": "2026-11-21", "progress": 1, "skipped": false, "note": null}]}]}"#,
            #"[1, -2.5e3, 0, "a\"b\\c\n", true, false, null, {"": []}, 123456789012345678901234567890]"#,
            "{\"SavedHabits\": [{\"id\": \"x\", \"schedule\": \"everyday\", \"completionHistory\": {\"2026-11-20\": 1}}]}",
            "\u{FEFF}{\"a\": \"😀 日本\", \"b\": \"\\uD83D\\uDE00\"}",
        ].map { Array($0.utf8) }
        var accepted = 0, disagreements: [String] = []
        Fuzzer.run("json", iterations: 20_000) { rng, label in
            let input = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng) : Fuzzer.mutate(documents.randomElement(using: &rng)!, corpus: documents, text: true, rng: &rng)
            let result = Result { () throws(JSON.ParseError) -> JSON in try JSON.parse(input) }
            var ours: JSON?, reason = ""
            switch result {
            case .success(let v): ours = v
            case .failure(let error):
                XCTAssertTrue((0...input.count).contains(error.offset), "\(label): offset \(error.offset) of \(input.count) bytes")
                XCTAssertEqual(error.atEnd, error.offset == input.count, label)
                reason = error.reason
            }
            if let ours {
                accepted += 1
                let again = try? JSON.parse(Array(ours.serialized().utf8))
                XCTAssertTrue(again.map { same(ours, $0) } ?? false, "\(label): an accepted value does not parse back")
            }
            let theirs = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])
            switch (ours, theirs) {
            case (let o?, let t?):
                if !same(o, t) { disagreements.append("\(label): different values for \(String(decoding: input, as: UTF8.self).debugDescription)") }
            case (nil, _?):
                // Stricter on purpose: a number too large for a Double, an unpaired surrogate, and
                // what Foundation's reader lets through that RFC 8259 does not: a comma before a
                // closing bracket, and a NUL byte ending the text early.
                if !reason.hasPrefix("number out of range") && !reason.hasPrefix("an unpaired surrogate")
                    && !hasTrailingComma(input) && !input.contains(0) {
                    disagreements.append("\(label): refused (\(reason)) what Foundation reads: \(String(decoding: input, as: UTF8.self).debugDescription)")
                }
            case (_?, nil):
                disagreements.append("\(label): accepted what Foundation refuses: \(String(decoding: input, as: UTF8.self).debugDescription)")
            case (nil, nil): break
            }
        }
        XCTAssertEqual(disagreements.count, 0, disagreements.prefix(10).joined(separator: "\n"))
        XCTAssertGreaterThan(accepted, 20_000 * Fuzzer.factor / 50, "too few mutations parsed: the round trip went untested")
    }
}
