import Foundation
import XCTest

/// The refusals of the core, the sync settings and the command line are typed, each worded
/// once (`CoreErrorText.swift`, `SyncSettingError.swift`, `CLIError.swift`): this scan of
/// `Sources` fails when a refusal with its text written where it is thrown comes back (a
/// `CoreError.invalid(…)`, or a `CLIError.usage`, `.invalid` or `.syncFailed` given a
/// string literal).
final class TypedErrorScanTests: XCTestCase {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// What a refusal worded at its throw looks like.
    static let patterns = [
        #"CoreError\s*\.\s*invalid\s*\("#,
        #"(CLIError)?\.(usage|invalid|syncFailed)\s*\(\s*("|$)"#,
        #"case\s+(usage|invalid|syncFailed)\s*\(\s*String\s*\)"#,
    ]

    /// The lines of `text` (numbered from 1) that word a refusal where it is thrown.
    static func wordedAtThrow(in text: String) -> [Int] {
        let regexes = patterns.map { try! NSRegularExpression(pattern: $0) }
        var found: [Int] = []
        for (i, line) in text.components(separatedBy: "\n").enumerated() {
            let code = line.range(of: "///").map { String(line[..<$0.lowerBound]) } ?? line
            let ns = code as NSString
            if regexes.contains(where: { $0.firstMatch(in: code, range: NSRange(location: 0, length: ns.length)) != nil }) {
                found.append(i + 1)
            }
        }
        return found
    }

    func testNoRefusalIsWordedWhereItIsThrown() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted() ?? []
        XCTAssertGreaterThan(files.count, 100, "the scan found the sources")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            found += Self.wordedAtThrow(in: text).map { "Sources/\(file):\($0)" }
        }
        XCTAssertEqual(found, [], "give the refusal a case with its data, worded in its error type")
    }

    /// The scan itself: it finds what it must, and nothing else.
    func testTheScanTellsWordedRefusalsFromTypedOnes() {
        let text = """
        throw CoreError.invalid("remote 'x' is not a valid URL")
        throw CLIError.usage("offline takes on or off")
        throw CLIError.invalid(
            "the remote URL contains a password")
        return .syncFailed("online, but the sync failed")
        throw CLIError.usage(.offlineValue)
        throw CLIError.invalid(.setting(e))
        throw CoreError.habitGone
        case usage(String)
        /// `CLIError.usage("…")` in a doc comment is words, not code.
        """
        XCTAssertEqual(Self.wordedAtThrow(in: text), [1, 2, 3, 5, 9])
    }
}
