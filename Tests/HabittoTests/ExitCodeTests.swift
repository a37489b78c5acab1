import Foundation
import XCTest
@testable import HabittoCLI

/// The exit statuses the docs list are the `ExitCode` enum's: the reference's table row for
/// row, and the help's and docs/commands.md's line naming every code.
final class ExitCodeTests: XCTestCase {
    private func doc(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("docs/" + name), encoding: .utf8)
    }

    func testTheReferenceTableIsTheEnum() throws {
        let reference = try doc("reference.md")
        guard let start = reference.range(of: "## Exit status\n\n| status | meaning |\n|---|---|\n") else {
            return XCTFail("docs/reference.md has no exit status table")
        }
        let rows = reference[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("|") }.map(String.init)
        XCTAssertEqual(rows, ExitCode.allCases.map { "| \($0.rawValue) | \($0.meaning) |" })
        XCTAssertEqual(ExitCode.allCases.map(\.rawValue), Array(0...5), "the codes are 0 to 5 without a gap")
    }

    /// The codes a sentence "Exit codes: 0 …, 1 …; 2 …." lists, in its order: a digit that
    /// starts an item (after the colon, a comma, a semicolon or a line break).
    private func listedCodes(_ text: String) -> [Int32]? {
        guard let start = text.range(of: "Exit codes: ") else { return nil }
        let sentence = Array(text[text.index(start.upperBound, offsetBy: -2)...].prefix { $0 != "." })
        var codes: [Int32] = []
        for i in 2..<sentence.count - 1 where sentence[i].isNumber && sentence[i + 1] == " " {
            let before = sentence[i - 1]
            if before == "\n" || (before == " " && [":", ",", ";"].contains(sentence[i - 2])) { codes.append(Int32(String(sentence[i]))!) }
        }
        return codes
    }

    func testTheHelpAndTheCommandsPageNameEveryCode() throws {
        let all = ExitCode.allCases.map(\.rawValue)
        XCTAssertEqual(listedCodes(try doc("commands.md")), all, "docs/commands.md's 'Exit codes:' sentence")
        XCTAssertEqual(listedCodes(Specs.overview), all, "the help's 'Exit codes:' sentence")
        XCTAssertEqual(ExitCode.interrupted(by: 2), 130, "Ctrl-C (SIGINT) exits 130, as the docs say")
    }
}

/// The typed names commands read options and commands by are the command table's names.
final class NameTests: XCTestCase {
    func testEveryOptionNameIsInTheTableAndEveryOptionOfTheTableHasAName() {
        let inTable = Set((Specs.all.flatMap(\.options) + Specs.globalOptions).map(\.name))
        XCTAssertEqual(Set(OptionName.allCases.map(\.rawValue)), inTable)
    }

    func testEveryCommandNameIsInTheTableAndEveryCommandHasAName() {
        XCTAssertEqual(CommandName.allCases.map(\.rawValue).sorted(), Specs.all.map(\.name).sorted())
        XCTAssertEqual(try ArgumentParser.parse(["uncheck", "Read"], specs: Specs.all).command, .uncheck)
    }

    func testOptionsAreReadByName() throws {
        let inv = try ArgumentParser.parse(["check", "Read", "--date", "yesterday", "--amount=2"], specs: Specs.all)
        XCTAssertEqual(inv.value(.date), "yesterday")
        XCTAssertEqual(inv.value(.amount), "2")
        XCTAssertNil(inv.value(.note))
        XCTAssertFalse(inv.flag(.json))
        XCTAssertTrue(inv.given(.date))
        XCTAssertTrue(try ArgumentParser.parse(["list", "--all"], specs: Specs.all).flag(.all))
    }
}
