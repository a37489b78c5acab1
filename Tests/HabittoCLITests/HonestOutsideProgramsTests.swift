import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import HabitStore

/// Outside programs tell the truth, and end with what they started: a reminder counts as
/// shown only when notify-send exited 0 or printed a notification's id; a notify-send that
/// never prints one, or floods, is ended with the child that waited for it; an auto command
/// leaves nothing running behind it. Each fake program writes its process ids to a file,
/// and every process named there is killed when the test ends, whatever it found.
final class HonestOutsideProgramsTests: XCTestCase {
    private var box: Sandbox!
    private var bin: String { box.fakePrograms }
    private var pidsFile: String { box.root + "/pids" }

    override func setUp() {
        box = Sandbox()
        box.useFakePrograms()
        box.now = "2026-11-21T08:30:00"
        box.ok("add", "Read", "--remind", "08:00")
        let file = pidsFile
        addTeardownBlock {
            for pid in Self.pids(file) where Sys.processExists(pid) { kill(pid, SIGKILL) }
        }
    }

    override func tearDown() { box = nil }

    private static func pids(_ file: String) -> [pid_t] {
        ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(whereSeparator: { $0 == "\n" || $0 == " " }).compactMap { pid_t($0) }
    }

    /// A fake notify-send whose help offers actions (so `remind` shows the reminder through a
    /// child `habitto __answer`), then runs `body`.
    private func answerable(_ body: String) throws {
        try box.script(bin + "/notify-send", """
            if [ "$1" = --help ]; then echo '  -p, --print-id  -w, --wait  -A, --action=[NAME=]Text...'; exit 0; fi
            \(body)
            """)
    }

    private var sent: String { (try? String(contentsOfFile: box.home + "/reminders-sent", encoding: .utf8)) ?? "" }

    private func assertAllEnded(_ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        let pids = Self.pids(pidsFile)
        XCTAssertEqual(pids.count, count, "process ids written: \(pids)", file: file, line: line)
        for pid in pids {
            try? Data("\(pid)".utf8).write(to: URL(fileURLWithPath: box.root + "/pid"))
            XCTAssertTrue(processInFileEnds(box.root + "/pid"), "process \(pid) outlived its limit", file: file, line: line)
        }
    }

    func testANotifySendThatFailsIsNotCountedAsShownAndIsTriedAgain() throws {
        // What notify-send says with no notification server, on its output, then exit status 1.
        try answerable("echo 'Failed to connect to bus: No such file or directory'; exit 1")
        let r = try box.runWithin(60, ["remind"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "habitto: remind: the 08:00 reminder for 'Read' was not shown: notify-send failed (exit status 1: Failed to connect to bus: No such file or directory); it is tried again at the next run\n")
        XCTAssertEqual(sent, "", "not recorded as shown")
        // The same on its standard error only, as the real one says it.
        try answerable("echo 'Failed to connect to bus' >&2; exit 1")
        XCTAssertEqual(try box.runWithin(60, ["remind"]).status, 1)
        XCTAssertEqual(sent, "")
        // A plain notify-send (no actions) that fails: the same.
        try box.script(bin + "/notify-send", "[ \"$1\" = --help ] && exit 0\necho 'Failed to connect to bus'; exit 1")
        XCTAssertEqual(try box.runWithin(60, ["remind"]).status, 1)
        XCTAssertEqual(sent, "")
    }

    func testANotifySendThatNeverPrintsAnIDEndsWithTheChildThatWaitedForIt() throws {
        // The limit shortened to half a second (so the child waits a second for the id).
        box.extraEnv[TimeLimits.variable] = "notify-send=0.5"
        // It writes its own id and its parent's (the child `habitto __answer`), then waits.
        try answerable("echo $$ $PPID > '\(pidsFile)'\nexec sleep 300")
        let r = try box.runWithin(60, ["remind"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "habitto: remind: the 08:00 reminder for 'Read' was not shown: notify-send (through 'habitto __answer') did not finish within 1 second and was stopped; it is tried again at the next run\n")
        XCTAssertEqual(sent, "")
        assertAllEnded(2)
    }

    func testANotifySendThatFloodsIsStoppedWithAllItStarted() throws {
        // The limit shortened to half a second (so the child waits a second for the id).
        box.extraEnv[TimeLimits.variable] = "notify-send=0.5"
        // Answerable: an endless output whose first line is no id.
        try answerable("echo $$ $PPID > '\(pidsFile)'\nexec yes")
        let r = try box.runWithin(60, ["remind"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasSuffix("did not finish within 1 second and was stopped; it is tried again at the next run\n"), r.stderr)
        XCTAssertEqual(sent, "")
        assertAllEnded(2)
        // Plain: a flood from a child it started in the background, and it never ends.
        try box.script(bin + "/notify-send", "[ \"$1\" = --help ] && exit 0\nyes & echo $$ $! > '\(pidsFile)'\nwait")
        let plain = try box.runWithin(60, ["remind"])
        XCTAssertEqual(plain.stderr, "habitto: remind: the 08:00 reminder for 'Read' was not shown: notify-send did not finish within 1 second and was stopped; it is tried again at the next run\n")
        XCTAssertEqual(sent, "")
        assertAllEnded(2)
    }

    func testAnAutoCommandThatLeavesChildrenBehindEndsWithThem() throws {
        // `sleep &` (which keeps its output open), and one whose parent is already gone.
        box.ok("auto", "Read", "sleep 300 & echo $! > '\(pidsFile)'; (sleep 300 > /dev/null & echo $! >> '\(pidsFile)'); exit 0")
        let started = Date()
        let r = try box.runWithin(60, ["auto", "--run"])
        XCTAssertEqual(r.stdout, "Read: done (recorded)\n")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "its end waited for nothing it left")
        assertAllEnded(2)
    }
}
