import Foundation
import XCTest
import HabitCore

/// Issue 39, point 14: `undo` gives back the definitions a habit had before an edit, on every
/// day, however many edits are undone in turn (a dated register the edit made is cleared,
/// one it changed gets its value back).
final class UndoDefinitionCommandTests: XCTestCase {
    private let days = (1...10).map { String(format: "2026-11-%02d", $0) }

    /// Each day's goal and unit as `list --date D --json` gives them.
    private func definitions(_ box: Sandbox, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        days.map { day in
            let entry = box.listEntry("Water", ["--date", day], file: file, line: line)
            return "\(day): \(entry?["goal"] ?? "none") \(entry?["unit"] ?? "none")"
        }
    }

    private func goals(_ box: Sandbox, file: StaticString = #filePath, line: UInt = #line) -> [Int] {
        days.map { box.listEntry("Water", ["--date", $0], file: file, line: line)?["goal"] as? Int ?? -1 }
    }

    func testUndoingADatedEditAndTheEditBeforeItGivesBackTheDefinitionsBeforeBoth() {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-01T08:00:00"
        box.ok("add", "Water", "--goal", "8", "--start", "2026-11-01")
        box.now = "2026-11-10T09:00:00"
        box.ok("edit", "Water", "--goal", "10", "--from", "2026-11-06")
        let first = [8, 8, 8, 8, 8, 10, 10, 10, 10, 10]
        XCTAssertEqual(goals(box), first)
        box.ok("edit", "Water", "--goal", "10", "--from", "2026-11-03")
        XCTAssertEqual(goals(box), [8, 8, 10, 10, 10, 10, 10, 10, 10, 10])
        box.ok("edit", "Water", "--goal", "12", "--from", "2026-11-05")
        XCTAssertEqual(goals(box), [8, 8, 10, 10, 12, 12, 12, 12, 12, 12])
        box.ok("undo")
        XCTAssertEqual(goals(box), [8, 8, 10, 10, 10, 10, 10, 10, 10, 10])
        box.ok("undo")
        XCTAssertEqual(goals(box), first, "the register the edit from 2026-11-03 made is gone, the one from 2026-11-06 stays")
        box.ok("undo")
        XCTAssertEqual(goals(box), Array(repeating: 8, count: 10))
        XCTAssertFalse(box.ok("show", "Water").contains("earlier:"))
    }

    /// Random edits of the goal and the unit from random days (or from the start), then
    /// undone one by one: after each undo every day reads what it read before that edit.
    func testRandomEditsUndoneInTurnGiveBackEveryDaysDefinition() {
        let units = ["glasses", "cups", "litres"]
        for seed in UInt64(1)...40 {
            var rng = SplitMix64(seed: seed &* 0x9E37_79B9)
            let box = Sandbox(inProcess: true)
            box.now = "2026-11-01T08:00:00"
            let withUnit = Bool.random(using: &rng)
            XCTAssertEqual(box.run(["add", "Water", "--goal", "8", "--start", "2026-11-01"] + (withUnit ? ["--unit", "glasses"] : [])).status, 0)
            box.now = "2026-11-10T09:00:00"
            var before: [[String]] = []
            var edits: [[String]] = []
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                var args = ["edit", "Water"]
                let what = Int.random(in: 0..<3, using: &rng)
                if what != 1 { args += ["--goal", String(Int.random(in: 6...12, using: &rng))] }
                if what != 0 { args += ["--unit", units.randomElement(using: &rng)!] }
                let from = Int.random(in: -2...10, using: &rng)
                args += ["--from", from < 0 ? "start" : from == 0 ? "2026-10-30" : days[from - 1]]
                let reading = definitions(box)
                let journal = box.journalBytes()
                guard box.run(args).status == 0, box.journalBytes() != journal else { continue }
                before.append(reading)
                edits.append(args)
            }
            for (k, reading) in before.enumerated().reversed() {
                box.ok("undo")
                XCTAssertEqual(definitions(box), reading, "seed \(seed), with unit \(withUnit): undoing \(edits[k]) of \(edits)")
            }
        }
    }
}
