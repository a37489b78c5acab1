import Foundation
import XCTest
@testable import HabitStore

/// `JSON.parse`, the reader of JSON text that replaced Foundation's `JSONSerialization` in
/// `habitto` (imports, backup headers, `sync.json`).
final class JSONParserTests: XCTestCase {
    func parse(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSON.ParseError? {
        error(Array(text.utf8), file: file, line: line)
    }

    func error(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSON.ParseError? {
        do {
            let v = try JSON.parse(bytes)
            XCTFail("accepted as \(v)", file: file, line: line)
            return nil
        } catch { return error }
    }

    func testValuesOfEveryKind() throws {
        XCTAssertEqual(try parse(#" { "a" : [1, -2, 3.5, true, false, null, "x"], "b": {}, "c": [] } "#),
                       .object(["a": .array([.int(1), .int(-2), .double(3.5), .bool(true), .bool(false), .null, .string("x")]),
                                "b": .object([:]), "c": .array([])]))
        XCTAssertEqual(try parse("0"), .int(0))
        XCTAssertEqual(try parse("-0"), .int(0))
        XCTAssertEqual(try parse("1E3"), .double(1000))
        XCTAssertEqual(try parse("2.5e-1"), .double(0.25))
        XCTAssertEqual(try parse("9223372036854775807"), .int(Int.max))
        XCTAssertEqual(try parse("9223372036854775808"), .double(9_223_372_036_854_775_808))
        XCTAssertEqual(try parse("\"\""), .string(""))
        XCTAssertEqual(try parse("\u{FEFF}[1]"), .array([.int(1)]), "a UTF-8 byte order mark is skipped")
        XCTAssertEqual(try parse(#"{"a": 1, "a": 2}"#), .object(["a": .int(2)]), "a repeated key keeps its last value")
    }

    func testStringEscapesAndUTF8() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\b\f\n\r\t""#), .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        XCTAssertEqual(try parse(#""\u00e9\u0000\uD83D\uDE00""#), .string("é\u{0}😀"))
        XCTAssertEqual(try parse("\"Café 🏳️‍🌈 日本\""), .string("Café 🏳️‍🌈 日本"))
    }

    func testSyntaxErrorsSayWhereAndWhy() throws {
        let e = try XCTUnwrap(error("{\"id\": x}"))
        XCTAssertEqual(e.offset, 7)
        XCTAssertEqual(e.reason, "invalid value around character 7")
        XCTAssertFalse(e.atEnd)
        for (text, offset, reason) in [("[1,]", 3, "invalid value"), ("[01]", 2, "invalid number (a leading zero)"),
                                       ("[1 2]", 3, "expected ',' or ']' in an array"), ("{1: 2}", 1, "expected a string key"),
                                       ("{\"a\" 2}", 5, "expected ':' after a key"), ("1 2", 2, "unexpected text after the JSON value"),
                                       ("\"a\u{1}\"", 2, "a control character in a string (write it as an escape)"),
                                       (#""\x""#, 2, "an invalid escape in a string"), (#""\uD800x""#, 7, "an unpaired surrogate escape in a string"),
                                       (#""\uDC00""#, 7, "an unpaired surrogate escape in a string"), (#""\u12G4""#, 5, #"an invalid \u escape in a string"#),
                                       ("1e400", 0, "number out of range"), ("-", 1, ""), ("tru", 3, ""), ("nul1", 3, "invalid value"),
                                       ("1.", 2, ""), ("1.e3", 2, "invalid number (no digit after '.')"), ("+1", 0, "invalid value")] {
            let e = try XCTUnwrap(error(text), text)
            XCTAssertEqual(e.offset, offset, text)
            XCTAssertEqual(e.reason, e.atEnd ? "unexpected end of the text" : "\(reason) around character \(offset)", text)
        }
        XCTAssertNotNil(error(""))
        XCTAssertNotNil(error("   "))
    }

    func testCutShortTextSaysSo() throws {
        for text in ["{", "[1, 2", "{\"a\": ", "\"abc", "\"\\u12", "[true", "{\"a\"", "12e"] {
            let e = try XCTUnwrap(error(text), text)
            XCTAssertTrue(e.atEnd, text)
            XCTAssertEqual(e.offset, text.utf8.count, text)
        }
    }

    func testMalformedUTF8IsRefused() throws {
        for bytes: [UInt8] in [[0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xE2, 0x82, 0x22],
                               [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0x80, 0x22]] {
            let e = try XCTUnwrap(error(bytes), "\(bytes)")
            XCTAssertEqual(e.reason, "text that is not UTF-8 around character 1", "\(bytes)")
        }
        XCTAssertTrue(try XCTUnwrap(error([0x22, 0xE2, 0x82])).atEnd)
    }

    func testNestingIsLimitedNotRecursedWithoutEnd() throws {
        let deepest = String(repeating: "[", count: JSON.maxDepth) + String(repeating: "]", count: JSON.maxDepth)
        XCTAssertNoThrow(try parse(deepest))
        let e = try XCTUnwrap(error(String(repeating: "[", count: JSON.maxDepth + 1) + String(repeating: "]", count: JSON.maxDepth + 1)))
        XCTAssertEqual(e.reason, "too many nested arrays and objects around character \(JSON.maxDepth)")
        // A million brackets: refused at the limit, not a stack overflow.
        XCTAssertNotNil(error(String(repeating: "{\"a\":", count: 1_000_000)))
    }

    func testSerializedValuesParseBack() throws {
        let value = JSON.object(["name": .string("Tab\there \"quoted\" \u{1} é"), "n": .int(-42), "d": .double(0.1),
                                 "list": .array([.null, .bool(true), .object(["x": .amount(2500)])])])
        let back = try JSON.parse(Array(value.serialized().utf8))
        XCTAssertEqual(back, .object(["name": .string("Tab\there \"quoted\" \u{1} é"), "n": .int(-42), "d": .double(0.1),
                                      "list": .array([.null, .bool(true), .object(["x": .double(2.5)])])]))
    }
}
