import Foundation
import XCTest

/// `habitto ask` on a pseudo-terminal: util-linux's `script` gives the binary a terminal of
/// its own (so the test needs none), and each answer is typed only once its prompt shows.
final class AskSession: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var text = ""
    private var closed = false

    init(_ box: Sandbox, _ args: [String]) throws {
        let command = ([Sandbox.binary] + args).map { "'\($0)'" }.joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qefc", command, "/dev/null"]
        process.environment = box.environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] h in
            let data = h.availableData
            guard let self else { return }
            self.condition.lock()
            if data.isEmpty { self.closed = true; h.readabilityHandler = nil } else { self.text += String(decoding: data, as: UTF8.self) }
            self.condition.broadcast()
            self.condition.unlock()
        }
        try process.run()
    }

    /// What the terminal showed so far, without carriage returns.
    var transcript: String {
        condition.lock(); defer { condition.unlock() }
        return text.replacingOccurrences(of: "\r", with: "")
    }

    /// Waits (up to 20 s) until the terminal shows `marker` `count` times.
    func waitFor(_ marker: String, count: Int, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(20)
        condition.lock(); defer { condition.unlock() }
        while text.components(separatedBy: marker).count - 1 < count && !closed {
            guard condition.wait(until: deadline) else { break }
        }
        XCTAssertGreaterThanOrEqual(text.components(separatedBy: marker).count - 1, count,
                                    "no '\(marker)' #\(count) in:\n\(text)", file: file, line: line)
    }

    /// Types bytes on the terminal (`"\u{3}"` is Ctrl-C).
    func type(_ s: String) { input.fileHandleForWriting.write(Data(s.utf8)) }

    /// Waits for the command to end; its exit status.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        condition.lock()
        let deadline = Date().addingTimeInterval(5)
        while !closed { guard condition.wait(until: deadline) else { break } }
        condition.unlock()
        return process.terminationStatus
    }
}

final class CatchUpCommandTests: XCTestCase {
    var box: Sandbox!

    override func setUp() {
        box = Sandbox(inProcess: true)
        box.now = "2026-11-15T09:00:00"
        box.ok("add", "Read")
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses")
        box.ok("add", "Sweets", "--limit", "--goal", "1")
        box.now = "2026-11-21T20:00:00"
    }

    override func tearDown() { box = nil }

    private func day(_ date: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        guard let rows = box.json("list", "--date", date, "--all", "--json", file: file, line: line) as? [[String: Any]],
              let row = rows.first(where: { $0["name"] as? String == name }) else {
            XCTFail("no \(name) on \(date)", file: file, line: line)
            return [:]
        }
        return row
    }

    func testAskRecordsEachAnswerAsItGoesAndAnInterruptKeepsThem() throws {
        box.ok("check", "Read", "--date", "2026-11-17")
        let session = try AskSession(box, ["ask", "--days", "6"])
        // Oldest first, habit by habit: Read only after its last recorded day (the 17th).
        // Sweets, a limit habit, is never asked: a day without a lapse recorded was kept.
        let answers = ["y 2", "s", "nonsense", "", "3", "8"]
        for (i, answer) in answers.enumerated() {
            session.waitFor("enter] ", count: i + 1)
            session.type(answer + "\n")
        }
        session.waitFor("Thu 2026-11-19 · Read [y n s 1-5 enter] ", count: 1)
        session.type("\u{3}")
        XCTAssertEqual(session.finish(), 130, session.transcript)
        let t = session.transcript
        XCTAssertTrue(t.contains("Sun 2026-11-15 · Drink water (at least 8 glasses a day) [y n s amount enter] y 2"), t)
        XCTAssertTrue(t.contains("is not an answer"), t)
        XCTAssertTrue(t.contains("interrupted: 4 answers kept"), t)
        XCTAssertFalse(t.contains("Sweets"), t)
        XCTAssertEqual(t.components(separatedBy: "Read [y n s 1-5 enter]").count - 1, 2, "Read is asked from the 18th: \(t)")

        XCTAssertEqual(day("2026-11-15", "Drink water")["progress"] as? Int, 8)
        XCTAssertEqual(day("2026-11-15", "Drink water")["difficulty"] as? Int, 2)
        XCTAssertEqual(day("2026-11-16", "Drink water")["skipped"] as? Bool, true)
        XCTAssertEqual(day("2026-11-17", "Drink water")["progress"] as? Int, 0, "enter leaves it (after a bad answer asked again)")
        XCTAssertEqual(day("2026-11-17", "Drink water")["skipped"] as? Bool, false)
        XCTAssertEqual(day("2026-11-18", "Read")["completed"] as? Bool, true, "a yes/no habit: 3 is done, that hard")
        XCTAssertEqual(day("2026-11-18", "Read")["difficulty"] as? Int, 3)
        XCTAssertEqual(day("2026-11-18", "Drink water")["progress"] as? Int, 8)
        XCTAssertEqual(day("2026-11-19", "Read")["completed"] as? Bool, false, "interrupted before this answer")
        // Each answer is one change: undo takes back the last one only.
        XCTAssertEqual(box.ok("undo"), "Undid: check 'Drink water' +8 on 2026-11-18\n")
        XCTAssertEqual(day("2026-11-18", "Read")["difficulty"] as? Int, 3)
    }

    func testAskWithoutATerminalOrWithNothingToAskEndsAtOnce() throws {
        let r = box.run("ask")
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.hasPrefix("habitto: ask needs a terminal"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
        for d in 15...21 { box.ok("skip", "Read", "--date", "2026-11-\(d)") }
        for name in ["Drink water"] {
            box.ok("skip", name, "--date", "2026-11-20")   // the last recorded day: nothing before it is asked
            box.ok("skip", name, "--date", "2026-11-21")
        }
        XCTAssertEqual(box.ok("ask"), "Nothing to catch up: every due day of the last 7 days and today has something recorded\n")
    }

    func testAskStopsAtTheEndOfInputKeepingWhatWasAnswered() throws {
        let session = try AskSession(box, ["ask", "--days", "1"])
        session.waitFor("enter] ", count: 1)
        session.type("y\n")
        session.waitFor("enter] ", count: 2)
        session.type("\u{4}")
        XCTAssertEqual(session.finish(), 0, session.transcript)
        XCTAssertTrue(session.transcript.contains("Stopped: 1 answer kept"), session.transcript)
        XCTAssertEqual(day("2026-11-20", "Read")["completed"] as? Bool, true)
    }

    func testAYesNoHabitIsCheckedOnceAndUncheckedWhole() {
        box.ok("check", "Read")
        let again = box.run("check", "Read")
        XCTAssertEqual(again.status, 0)
        // A check on a day shown done records the answer again (so it wins over an earlier uncheck elsewhere).
        XCTAssertEqual(again.stdout, "✓ 'Read' today: 1/1, done · streak 1 day\n")
        XCTAssertEqual(day("2026-11-21", "Read")["progress"] as? Int, 1)
        XCTAssertTrue(box.ok("list").contains("1/1"))
        box.ok("uncheck", "Read")
        XCTAssertEqual(box.ok("check", "Read", "--amount", "2"), "✓ 'Read' today: 1/1, done · streak 1 day\n")
        box.ok("undo")
        box.ok("check", "Read")
        box.ok("uncheck", "Read")
        XCTAssertEqual(day("2026-11-21", "Read")["progress"] as? Int, 0)
        XCTAssertEqual(box.ok("undo"), "Undid: mark 'Read' not done on 2026-11-21\n")
        XCTAssertEqual(day("2026-11-21", "Read")["progress"] as? Int, 1)
        XCTAssertTrue(box.ok("export").contains("\"progress\": 1"), "undo gives back what the uncheck took, not a million")
        // A counted habit keeps adding.
        box.ok("check", "Drink water", "--amount", "8")
        box.ok("check", "Drink water")
        XCTAssertEqual(day("2026-11-21", "Drink water")["progress"] as? Int, 9)
    }
}

/// `n` in `ask` is an answer: recorded, not asked again, undone by `undo`, and the count
/// `ask` starts with says how much of it is today.
final class AskNotDoneTests: XCTestCase {
    func testNotDoneIsRecordedAndNotAskedAgain() throws {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-19T09:00:00"
        box.ok("add", "Read")
        box.now = "2026-11-21T20:00:00"
        let first = try AskSession(box, ["ask", "--days", "2"])
        first.waitFor("Thu 2026-11-19 · Read [y n s 1-5 enter] ", count: 1)
        first.type("n\n")
        first.waitFor("yesterday · Read [y n s 1-5 enter] ", count: 1)
        first.type("\u{4}")
        XCTAssertEqual(first.finish(), 0, first.transcript)
        let t = first.transcript
        XCTAssertTrue(t.hasPrefix("3 habit-days to catch up (2 before today, 1 today), oldest first"), t)
        XCTAssertTrue(t.contains("⊘ 'Read' on 2026-11-19: 0/1 · streak 0 days · answered not done"), t)
        XCTAssertTrue(t.contains("Stopped: 1 answer kept"), t)

        // Asked again: the answered day is not.
        let second = try AskSession(box, ["ask", "--days", "2"])
        second.waitFor("enter] ", count: 1)
        second.type("\u{4}")
        XCTAssertEqual(second.finish(), 0, second.transcript)
        XCTAssertTrue(second.transcript.hasPrefix("2 habit-days to catch up (1 before today, 1 today), oldest first"), second.transcript)
        XCTAssertFalse(second.transcript.contains("2026-11-19"), second.transcript)
        // The answer counts as a miss (as a day with nothing did), and undo withdraws it.
        let day = try XCTUnwrap((box.json("list", "--date", "2026-11-19", "--json") as? [[String: Any]])?.first)
        XCTAssertEqual(day["completed"] as? Bool, false)
        XCTAssertEqual(box.ok("undo"), "Undid: answer 'Read' not done on 2026-11-19\n")
        let third = try AskSession(box, ["ask", "--days", "2"])
        third.waitFor("Thu 2026-11-19 · Read [y n s 1-5 enter] ", count: 1)
        third.type("\u{4}")
        XCTAssertEqual(third.finish(), 0, third.transcript)
    }
}
