import Foundation
import XCTest

/// "Did you mean …?" for commands, options and habits, and ASCII output (`--ascii`, a
/// non-UTF-8 locale).
final class SuggestionAndASCIITests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses", "--icon", "💧")
        box.ok("add", "Café au lait", "--limit", "--goal", "1")
    }

    override func tearDown() { box = nil }

    func testAMistypedCommandOptionOrHabitSuggestsTheNearestAndWritesNothing() {
        let before = box.journalBytes()
        let cases: [([String], Int32, String)] = [
            (["chek", "water"], 2, "habitto: unknown command 'chek'; did you mean 'check'? Run 'habitto --help' for the list of commands"),
            (["lsit"], 2, "habitto: unknown command 'lsit'; did you mean 'list'? Run 'habitto --help' for the list of commands"),
            (["frobnicate"], 2, "habitto: unknown command 'frobnicate'; run 'habitto --help' for the list of commands"),
            (["check", "watr"], 1, "habitto: no habit matches 'watr'; did you mean 'Drink water'?"),
            (["check", "zzzzzz"], 1, "habitto: no habit matches 'zzzzzz'; 'habitto list --all' shows them all"),
            (["check", "water", "--amout", "3"], 2,
             "habitto: unknown option '--amout' for 'habitto check'; did you mean '--amount'? See 'habitto check --help'"),
            (["check", "water", "--amount", "-3"], 1,
             "habitto: --amount '-3' must be positive: 'uncheck --amount 3' does the opposite"),
            (["uncheck", "water", "--amount", "-0.5"], 1,
             "habitto: --amount '-0.5' must be positive: 'check --amount 0.5' does the opposite"),
            (["check", "water", "--zzz"], 2, "habitto: unknown option '--zzz' for 'habitto check'; see 'habitto check --help'"),
        ]
        for (args, code, message) in cases {
            let r = box.run(args)
            XCTAssertEqual(r.status, code, "\(args)")
            XCTAssertEqual(r.stderr, message + "\n", "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
        XCTAssertEqual(box.journalBytes(), before, "a refused command wrote nothing")
    }

    func testASCIIOutputWithTheFlagOrANonUTF8Locale() {
        box.ok("check", "water", "--amount", "3")
        let unicode = box.ok("list")
        XCTAssertTrue(unicode.contains("◐ 💧 Drink water"), unicode)
        XCTAssertTrue(unicode.contains("Café au lait  0 (≤1)"), unicode)
        for env in [[:], ["LANG": "en_US.ISO-8859-1"], ["LC_ALL": "C"], ["LANG": "C.UTF-8", "LC_CTYPE": "POSIX"]] {
            box.extraEnv = env
            let out = env.isEmpty ? box.ok("list", "--ascii") : box.ok("list")
            XCTAssertTrue(out.allSatisfy(\.isASCII), "\(env): \(out)")
            let lines = out.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 3, out)
            XCTAssertEqual(lines[0], "Today, Saturday 2026-11-21 | level 1 | 0/100 XP | +0 XP today (+50 provisional)")
            // Columns line up as printed: the name column is measured after folding.
            XCTAssertTrue(lines[1].hasPrefix("% Drink water   3/8 glasses  streak 0 d"), lines[1])
            XCTAssertTrue(lines[2].hasPrefix("+ Cafe au lait  0 (<=1)      streak 0 d"), lines[2])
        }
        box.extraEnv = ["LANG": "de_DE.UTF-8"]
        XCTAssertEqual(box.ok("list"), unicode, "a UTF-8 locale keeps Unicode")
        box.extraEnv = ["LC_ALL": "C"]
        let r = box.run("check", "Café au lait")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "+ 'Cafe au lait' today: 1 (<=1) | streak 0 days\n")
        let err = box.run("check", "日本")
        XCTAssertEqual(err.stderr, "habitto: no habit matches '??'; 'habitto list --all' shows them all\n")
    }
}
