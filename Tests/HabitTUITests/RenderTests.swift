import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// The screens as text, for fixed sizes and states (HABITTO_RECORD_SNAPSHOTS=1 re-records).
final class RenderTests: XCTestCase {
    func testTodayScreen80x24() {
        assertSnapshot(render(World.app()), named: "today-80x24")
    }

    func testTodayScreenNarrow50x12() {
        assertSnapshot(render(World.app(width: 50, height: 12)), named: "today-50x12")
    }

    func testTodayScreenInAscii() {
        assertSnapshot(render(World.app(glyphs: .ascii)), named: "today-ascii-80x24")
    }

    func testABackfilledDayIsMarkedNotToday() {
        var app = World.app()
        press(&app, .char("h"), .char("h"))
        let screen = render(app)
        XCTAssertTrue(screen.line(0).contains("Thu 19 Nov 2026") && screen.line(0).contains("◀ 2 days ago"), screen.line(0))
        assertSnapshot(screen, named: "today-backfill-80x24")
    }

    func testDecimalGoalsAndProgressShowWithoutTrailingZeros() {
        let run = HabitID("00000000000000e5")!
        let changes = World.changes + [
            .create(run, HabitFields(name: "Run", goal: 2_500, unit: "km", startDate: World.start)),
            .progress(run, World.today, delta: 1_200),
        ]
        var app = World.app(changes: changes)
        let row = render(app).text.split(separator: "\n").first { $0.contains("Run") } ?? ""
        XCTAssertTrue(row.contains("1.2/2.5 km"), String(row))
        app.selectedID = run
        XCTAssertEqual(press(&app, .char(" ")), [.write(.toggle(run, World.today))], "space adds one unit")
    }

    func testFirstRunWithNoHabitsSaysHowToStart() {
        let app = AppState(habits: HabitState(), today: World.today, location: "~/.local/share/habitto")
        let screen = render(app)
        XCTAssertTrue(screen.text.contains("No habits yet. Press a to add your first one."))
        assertSnapshot(screen, named: "today-empty-80x24")
    }

    func testTooSmallTerminalSaysSoAtEverySmallSize() {
        for (w, h) in [(39, 24), (80, 9), (30, 8), (1, 1), (0, 0), (12, 3)] {
            let screen = render(World.app(width: w, height: h))
            XCTAssertEqual(screen.width, w)
            XCTAssertEqual(screen.height, h)
            if h >= 3 && w >= 18 { XCTAssertTrue(screen.text.contains("Terminal too small"), "\(w)x\(h)") }
        }
        assertSnapshot(render(World.app(width: 30, height: 8)), named: "too-small-30x8")
    }

    func testEverySizeRendersWithoutCrashingAndWithinBounds() {
        var app = World.app()
        for w in stride(from: 38, through: 140, by: 7) {
            for h in [9, 10, 11, 14, 24, 50] {
                _ = reduce(&app, .resized(width: w, height: h))
                for screenKeys in [[], [Key.enter], [Key.char("w")], [Key.char("?")], [Key.char("a")]] {
                    var s = app
                    for k in screenKeys { _ = reduce(&s, .key(k)) }
                    let b = render(s)
                    XCTAssertEqual(b.cells.count, w * h)
                }
            }
        }
    }

    func testRatingPromptAndConfirmationsUseTheMessageLine() {
        var app = World.app()
        press(&app, .char("j"), .char(" "))
        assertSnapshot(render(app), named: "rating-prompt-80x24")
        press(&app, .escape, .char("D"))
        XCTAssertTrue(render(app).line(21).contains("y deletes"), render(app).line(21))
    }

    func testDetailScreenHasHeatMapStreaksRatesAndDifficulty() {
        var app = World.app(width: 80, height: 24)
        press(&app, .char("j"), .enter)
        let screen = render(app)
        for month in ["October 2026", "November 2026"] {
            XCTAssertTrue(screen.text.contains(month), "missing \(month)")
        }
        XCTAssertFalse(screen.text.contains("September 2026"), "no month before the habit's start")
        XCTAssertTrue(screen.text.contains("Done on due days: 7 days"))
        XCTAssertTrue(screen.text.contains("last 7 rated days"))
        assertSnapshot(screen, named: "detail-read-80x24")
    }

    func testWeekOverviewShowsFourteenDaysOfEveryHabit() {
        var app = World.app()
        press(&app, .char("w"))
        assertSnapshot(render(app), named: "week-80x24")
    }

    func testHelpListsEveryBindingOfEveryMode() {
        var app = World.app(width: 160, height: 50)
        press(&app, .char("?"))
        // Each mode's bindings are listed under its title, over as many pages as it takes.
        var text = ""
        for _ in 0..<helpLayout(app).pages {
            text += render(app).text + "\n"
            press(&app, .char("j"))
        }
        for b in KeyMap.defaults.bindings {
            XCTAssertTrue(text.contains(b.label), "help lacks '\(b.label)' (\(b.mode))")
        }
        XCTAssertTrue(text.contains("Note prompt"), text)
        XCTAssertTrue(text.contains("note on the day"), text)
        XCTAssertTrue(text.contains("fold/unfold group"), text)
    }

    func testHelpOpensOnItsFirstPageFromEveryScreenAtEverySizeAndGoesBackWhereItCameFrom() {
        for (w, h) in [(40, 10), (120, 35)] {
            var app = World.app(width: w, height: h)
            for (open, screen) in [([Key.char("?")], Screen.today), ([.char("w"), .char("?")], .week), ([.char("O"), .char("?")], .overview)] {
                for key in open { press(&app, key) }
                XCTAssertEqual(app.helpPage, 0, "\(w)x\(h) from \(screen)")
                let text = render(app).text
                XCTAssertTrue(text.contains("What the symbols mean"), "\(w)x\(h) from \(screen): \(text)")
                if helpLayout(app).pages > 1 { XCTAssertTrue(render(app).line(0).contains("page 1/") || render(app).line(0).contains(" 1/"), render(app).line(0)) }
                // A page turned before does not carry over to the next opening.
                press(&app, .char("j"))
                press(&app, .escape)
                XCTAssertEqual(app.screen, screen, "\(w)x\(h)")
                if screen != .today { press(&app, .escape) }
                XCTAssertEqual(app.screen, .today)
            }
        }
    }

    func testTheHelpFooterShowsThePreviousPageKeyAt40ColumnsOnEveryPageAfterTheFirst() {
        var app = World.app(width: 40, height: 10)
        press(&app, .char("?"))
        let pages = helpLayout(app).pages
        XCTAssertGreaterThan(pages, 2, "40x10 has several pages")
        for page in 0..<pages {
            let footer = render(app).line(9)
            XCTAssertEqual(footer.contains("k previous page"), page > 0, "page \(page + 1): \(footer)")
            XCTAssertEqual(footer.contains("j next page"), page < pages - 1, "page \(page + 1): \(footer)")
            XCTAssertTrue(footer.contains("esc back"), "page \(page + 1): \(footer)")
            XCTAssertLessThanOrEqual(TextWidth.of(footer), 40)
            press(&app, .char("j"))
        }
    }

    func testHelpPagesReachEveryBindingOnAnOrdinaryTerminal() {
        var app = World.app(width: 80, height: 24)
        press(&app, .char("?"))
        var seen = ""
        for _ in 0..<helpLayout(app).pages {
            seen += render(app).text
            press(&app, .char("j"))
        }
        XCTAssertGreaterThan(helpLayout(app).pages, 1)
        for b in KeyMap.defaults.bindings { XCTAssertTrue(seen.contains(b.label), "help never shows '\(b.label)'") }
        press(&app, .escape)
        XCTAssertEqual(app.screen, .today)
    }

    func testAddFormShowsProblemsInline() {
        var app = World.app()
        press(&app, .char("a"))
        type(&app, "Read")
        assertSnapshot(render(app), named: "form-duplicate-name-80x24")
    }

    func testALongErrorWrapsAboveTheStatusBarAndKeepsItsEnd() {
        var app = World.app()
        _ = reduce(&app, .failed("cannot write /tmp/a-very-long-directory-name/with/many/parts/data/journal.hbj: No space left on device; free some disk space and try again; nothing was changed"))
        let screen = render(app)
        XCTAssertTrue(screen.text.contains("No space left"), screen.text)
        XCTAssertTrue(screen.line(21).hasSuffix("changed"), "the message keeps its end: \(screen.line(21))")
        XCTAssertTrue(screen.line(19).hasPrefix(" cannot write"), "and starts two rows higher: \(screen.line(19))")
        XCTAssertTrue(screen.line(22).contains("theme default"), "the status bar stays")
        XCTAssertEqual(messageLines(String(repeating: "word ", count: 100), width: 40).count, 3)
    }

    func testTheStatusBarShowsSyncLiveWithQueueCountdownAndError() throws {
        var app = World.app()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = reduce(&app, .tick(now))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .unreachable, remote: "dir:/mnt/shared", pending: 3, inFlight: 0,
                                               lastSyncAt: now.addingTimeInterval(-120), nextRetryAt: now.addingTimeInterval(42),
                                               lastError: "cannot reach /mnt/shared", habitStatus: [World.water: .pending])))
        var bar = render(app).line(22)
        XCTAssertTrue(bar.contains("unreachable · retry in 42s · queue 3 · checked 2m ago · cannot reach"), bar)
        let sync = try XCTUnwrap(RowLayout(app.rows, width: app.width, glyphs: app.glyphs).columns[.sync]).x
        XCTAssertEqual(render(app)[sync, 2].text, "↑", "the pending habit's icon: \(render(app).line(2))")
        XCTAssertEqual(render(app)[sync, 3].text, "✓", render(app).line(3))
        _ = reduce(&app, .tick(now.addingTimeInterval(40)))
        bar = render(app).line(22)
        XCTAssertTrue(bar.contains("retry in 2s"), "the countdown moves while idle: \(bar)")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: "dir:/mnt/shared", pending: 3, inFlight: 3,
                                               lastSyncAt: now, habitStatus: [World.water: .syncing])))
        bar = render(app).line(22)
        XCTAssertTrue(bar.contains("online · ⟳ syncing 3 · queue 3"), bar)
        XCTAssertEqual(press(&app, .char("o")), [.setOffline(true)])
        XCTAssertTrue(render(app).line(22).contains("offline"))
        XCTAssertEqual(press(&app, .char("S")), [], "offline: nothing is sent")
        XCTAssertEqual(app.message?.text, "offline: press o to go online")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .unreachable, remote: "dir:/mnt/shared", pending: 2, inFlight: 0,
                                               lastSyncAt: now.addingTimeInterval(-300), nextRetryAt: now.addingTimeInterval(60),
                                               lastError: "cannot reach /mnt/shared",
                                               queue: [SyncInfo.QueueItem(habit: "Drink water", kind: "check-in", madeAt: now.addingTimeInterval(-90)),
                                                       SyncInfo.QueueItem(habit: "Read", kind: "rating", madeAt: now.addingTimeInterval(-30))],
                                               attempts: 3,
                                               history: [SyncInfo.Attempt(at: now.addingTimeInterval(-300), pushed: 4, pulled: 1, error: nil),
                                                         SyncInfo.Attempt(at: now.addingTimeInterval(-20), pushed: 0, pulled: 0, error: "cannot reach /mnt/shared")],
                                               devices: [SyncInfo.Device(id: "0123456789abcdef0123456789abcdef", lastSeen: now.addingTimeInterval(-300), aheadSeconds: 172_800,
                                                                         lastChange: now.addingTimeInterval(-3_600))])))
        press(&app, .char("y"))
        XCTAssertEqual(app.screen, .sync)
        let screen = render(app).text
        XCTAssertTrue(screen.contains("Drink water") && screen.contains("check-in") && screen.contains("1m old") && screen.contains("tried 3×"), screen)
        XCTAssertTrue(screen.contains("clock 2d ahead"), screen)
        assertSnapshot(render(app), named: "sync-screen-80x24")
    }

    func testEntriesSkippedOnTheRemoteShowInTheStatusBarAndOnTheSyncScreen() {
        var app = World.app()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = reduce(&app, .tick(now))
        let problems = (0..<12).map { "devices/eeeeeeee…/ops/\($0)-\($0).batch: a FIFO (named pipe), not a batch file" }
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: "dir:/mnt/shared", lastSyncAt: now, remoteProblems: problems)))
        XCTAssertTrue(render(app).line(22).contains("online · queue 0 · checked 0s ago · remote entries skipped (y)"),
                      render(app).line(22))
        press(&app, .char("y"))
        let screen = render(app)
        XCTAssertTrue(screen.text.contains("Skipped on the remote (remove or fix these there):"), screen.text)
        XCTAssertTrue(screen.text.contains("   devices/eeeeeeee…/ops/0-0.batch: a FIFO (named pipe), not a batch file"), screen.text)
        XCTAssertTrue(screen.text.contains("more: habitto status lists them all"), "a long list leaves room for the rest: \(screen.text)")
        XCTAssertTrue(screen.text.contains("Devices seen"), screen.text)
    }

    func testWithoutARemoteSyncKeysExplainInsteadOfActing() {
        var app = World.app()
        XCTAssertEqual(press(&app, .char("o")), [])
        XCTAssertTrue(app.message?.text.contains("habitto remote set") == true)
        XCTAssertTrue(render(app).line(22).contains("⌂ local only"))
    }

    func testWideCharactersTakeTwoColumnsAndNeverSplit() {
        var b = ScreenBuffer(width: 6, height: 1)
        b.put("a💧b", x: 0, y: 0)
        XCTAssertEqual(b[1, 0].text, "💧")
        XCTAssertEqual(b[2, 0].text, "")
        XCTAssertEqual(b[3, 0].text, "b")
        var edge = ScreenBuffer(width: 3, height: 1)
        edge.put("ab読", x: 0, y: 0)
        XCTAssertEqual(edge.line(0), "ab", "a wide character that does not fit becomes a space")
    }

    func testEscapeSequencesInTextNeverReachTheScreen() {
        var b = ScreenBuffer(width: 20, height: 1)
        b.put("x\u{1B}[31my\u{7}", x: 0, y: 0)
        XCTAssertFalse(b.text.contains("\u{1B}"))
        XCTAssertFalse(b.text.contains("\u{7}"))
    }
}
