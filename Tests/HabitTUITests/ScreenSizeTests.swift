import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// A realistic account for the size snapshots: a counted habit with a unit and a long name,
/// a yes/no one, a limit one, a 3/week one, icons on some, a remote with one habit waiting
/// to sync, and yesterday left unrecorded (so there is something to catch up). To show a new
/// kind of row, add a habit to `habits` and its days to `days`, then re-record.
enum Account {
    static let device = DeviceID("fedcba9876543210fedcba9876543210")!
    static let today = LocalDay("2026-11-21")!
    static let start = LocalDay("2026-09-01")!
    static let water = HabitID("00000000000000f1")!
    static let read = HabitID("00000000000000f2")!
    static let coffee = HabitID("00000000000000f3")!
    static let gym = HabitID("00000000000000f4")!
    static let stretch = HabitID("00000000000000f5")!

    static let habits: [(HabitID, HabitFields)] = [
        (water, HabitFields(name: "Drink a glass of water before every meal", icon: "💧", goal: 8 * Amount.scale,
                            unit: "glasses", startDate: start)),
        (read, HabitFields(name: "Read", icon: "📚", startDate: start)),
        (coffee, HabitFields(name: "Coffee", icon: "☕", kind: .limit, goal: 2 * Amount.scale, unit: "cups", startDate: start)),
        (gym, HabitFields(name: "Gym", schedule: .perWeek(3), startDate: start)),
        (stretch, HabitFields(name: "Stretch", schedule: .weekdays([.monday, .wednesday, .friday]), startDate: start)),
    ]

    /// What was recorded on a day before today (yesterday is left empty).
    static func days(_ d: Int, _ day: LocalDay) -> [Change] {
        var c: [Change] = [.progress(water, day, delta: (d % 4 == 0 ? 6 : 8) * Amount.scale)]
        if d % 6 != 5 { c.append(.progress(read, day, delta: Amount.scale)) }
        if d % 5 == 0 { c.append(.rate(read, day, 1 + d % 5)) }
        c.append(.progress(coffee, day, delta: (d % 9 == 0 ? 3 : 1) * Amount.scale))
        if [1, 3, 5].contains(day.weekday.rawValue) && d % 3 != 2 { c.append(.progress(gym, day, delta: Amount.scale)) }
        if [1, 3, 5].contains(day.weekday.rawValue) { c.append(.progress(stretch, day, delta: Amount.scale)) }
        return c
    }

    static var changes: [Change] {
        var c = habits.map { Change.create($0.0, $0.1) }
        for d in 0..<start.days(to: today.adding(-1)) { c += days(d, start.adding(d)) }
        c += [.progress(water, today, delta: 5 * Amount.scale), .progress(coffee, today, delta: Amount.scale),
              .rate(coffee, today, 2), .note(read, today.adding(-3), "finished the first part of a long book")]
        return c
    }

    static func app(width: Int, height: Int, glyphs: Glyphs = .unicode) -> AppState {
        var app = AppState(habits: World.state(changes), today: today, width: width, height: height, glyphs: glyphs,
                           themeName: "default", themeNames: ["default"], location: "~/.local/share/habitto")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = reduce(&app, .tick(now))
        _ = reduce(&app, .syncChanged(SyncInfo(
            mode: .online, remote: "dir:/mnt/shared", pending: 1, lastSyncAt: now.addingTimeInterval(-120),
            habitStatus: [water: .pending],
            queue: [SyncInfo.QueueItem(habit: "Drink a glass of water before every meal", kind: "check-in",
                                       madeAt: now.addingTimeInterval(-30))],
            history: [SyncInfo.Attempt(at: now.addingTimeInterval(-120), pushed: 3, pulled: 2, error: nil)],
            devices: [SyncInfo.Device(id: "0123456789abcdef0123456789abcdef", lastSeen: now.addingTimeInterval(-120),
                                      aheadSeconds: nil)])))
        return app
    }
}

/// Every screen at 40×10, 60×15, 80×24 and 160×50, compared with Snapshots/screen-NAME-WxH.txt
/// (HABITTO_RECORD_SNAPSHOTS=1 re-records), with checks that hold at every size.
final class ScreenSizeTests: XCTestCase {
    static let sizes = [(40, 10), (60, 15), (80, 24), (160, 50)]

    /// A screen: its snapshot name and the keys that open it from the today screen.
    static let screens: [(name: String, keys: [Key])] = [
        ("today", []),
        ("today-all", [.char("v")]),
        ("detail", [.char("j"), .enter]),
        ("week", [.char("w")]),
        ("help", [.char("?")]),
        ("sync", [.char("y")]),
        ("catch-up", [.char("c")]),
        ("form", [.char("a")]),
        ("rating", [.char("j"), .char(" ")]),
        ("amount", [.char("n"), .char("3")]),
    ]

    func testEveryScreenAtEverySizeMatchesItsSnapshot() {
        for (name, keys) in Self.screens {
            for (w, h) in Self.sizes {
                var app = Account.app(width: w, height: h)
                for k in keys { _ = reduce(&app, .key(k)) }
                assertSnapshot(render(app), named: "screen-\(name)-\(w)x\(h)")
            }
        }
        // The ASCII glyph set on the screens that show the most glyphs.
        for (name, keys) in Self.screens where ["today", "detail", "week", "help"].contains(name) {
            for (w, h) in [(40, 10), (80, 24)] {
                var app = Account.app(width: w, height: h, glyphs: .ascii)
                for k in keys { _ = reduce(&app, .key(k)) }
                assertSnapshot(render(app), named: "screen-\(name)-ascii-\(w)x\(h)")
            }
        }
        for (w, h) in [(39, 10), (80, 9)] {
            assertSnapshot(render(Account.app(width: w, height: h)), named: "screen-too-small-\(w)x\(h)")
        }
    }

    func testATodayRowKeepsMarkGlyphNameProgressAndStreakAtEveryWidth() {
        for w in 40...160 {
            let app = Account.app(width: w, height: 24)
            let layout = RowLayout(app.rows, width: w, glyphs: app.glyphs)
            for c in [RowColumn.mark, .glyph, .noteMark, .name, .progress, .streak] {
                XCTAssertTrue(layout.has(c), "\(c) at \(w) columns")
            }
            XCTAssertGreaterThanOrEqual(layout.columns[.name]?.width ?? 0, minimumNameWidth, "\(w) columns")
            // The optional columns give way in their order: a kept one never gives way before a dropped one.
            let kept = RowColumn.allCases.filter { $0.givesWay != nil && layout.has($0) }.map { $0.givesWay! }
            let dropped = RowColumn.allCases.filter { $0.givesWay != nil && !layout.has($0) }.map { $0.givesWay! }
            if let lowestKept = kept.min(), let highestDropped = dropped.max() {
                XCTAssertLessThan(highestDropped, lowestKept, "\(w) columns")
            }
            let screen = render(app)
            XCTAssertTrue(screen.line(2).contains("Drink a gla"), "the name stays: \(screen.line(2))")
            let last = (layout.columns.values.map { $0.x + $0.width }.max() ?? 0)
            XCTAssertLessThanOrEqual(last, w - 1, "nothing reaches the right edge at \(w)")
        }
        // At 40 columns: the unit, the bar, the difficulty and the icons have given way.
        let narrow = Account.app(width: 40, height: 10)
        XCTAssertEqual(render(narrow).line(2), "▶ ◐  Drink a glas…  5/8     0d   68%  ↑")
        let layout80 = RowLayout(narrow.rows, width: 80, glyphs: narrow.glyphs)
        // At 80 columns every column but the recent days (the long name takes their room).
        XCTAssertTrue(RowColumn.allCases.allSatisfy { $0 == .days || layout80.has($0) }, "80 columns show every column")
        XCTAssertFalse(layout80.has(.days))
        XCTAssertEqual(RowLayout(narrow.rows, width: 120, glyphs: narrow.glyphs).dayCount, 15)
    }

    func testAnNPerWeekHabitShowsTheWeeksProgress() throws {
        let app = Account.app(width: 80, height: 24)
        let gym = try XCTUnwrap(app.rows.first { $0.habit.id == Account.gym })
        // Mon 16 and Wed 18 done, Fri 20 (yesterday) left empty: 2 of 3.
        XCTAssertEqual(gym.weekDone, 2)
        XCTAssertEqual(gym.weekQuota, 3)
        XCTAssertEqual(progressText(gym, .unicode), "2/3 this wk")
        XCTAssertEqual(progressText(gym, .unicode, unit: false), "2/3 wk")
        let row = render(app).text.split(separator: "\n").first { $0.contains("Gym") } ?? ""
        XCTAssertTrue(row.contains("2/3 this wk"), String(row))
        XCTAssertEqual(dayGlyph(gym, .unicode).1, .dim, "an open day of an N/week habit is not a miss")
    }

    func testTheWeekGridDrawsAnNPerWeekHabitsOpenDaysAsMissesOnlyInAWeekThatFellShort() throws {
        var app = Account.app(width: 160, height: 50)
        press(&app, .char("w"))
        let history = app.habits.history(try XCTUnwrap(app.habits.habit(Account.gym)), through: Account.today,
                                         today: Account.today)
        func day(_ s: String) -> DaySummary? { history.first { $0.day == LocalDay(s) } }
        // The running week (16–22 Nov): open days are neutral.
        XCTAssertEqual(day("2026-11-17")?.missed, false)
        XCTAssertEqual(day("2026-11-21")?.missed, false)
        // A week that is over and short of three (9–15 Nov: done Mon 9 and Fri 13 only): misses.
        XCTAssertEqual(day("2026-11-10")?.missed, true)
        XCTAssertEqual(day("2026-11-09")?.missed, false, "a done day is never a miss")
        let row = render(app).text.split(separator: "\n").first { $0.contains("Gym") }.map(String.init) ?? ""
        let cells = weekCells(row, app)
        XCTAssertEqual(cells.suffix(6), ["✓", " ", "✓", " ", " ", " "], "16–21 Nov: \(row)")
        XCTAssertEqual(cells[cells.count - 12], "·", "Tue 10 Nov is a miss: \(row)")
    }

    func testTheWeekGridHoldsTodayWithTheCursorOnItAtEveryWidth() {
        for w in 40...160 {
            var app = Account.app(width: w, height: 24)
            press(&app, .char("w"))
            XCTAssertEqual(app.weekDays.last, Account.today, "\(w) columns")
            press(&app, .char("h"), .char("h"), .char("h"), .char("t"))
            XCTAssertEqual(app.weekDays.last, Account.today, "back to today at \(w) columns")
            let screen = render(app)
            XCTAssertTrue(screen.line(0).contains("the \(app.weekDayCount) days to 2026-11-21"), screen.line(0))
            XCTAssertTrue(screen.line(3).hasSuffix("21"), "today's column: \(screen.line(3))")
            XCTAssertTrue(screen.text.contains("Drink a gla"), "names get their cells at \(w)")
        }
    }

    func testTheDetailScreenShowsTheCursorsWholeMonthAtEverySize() {
        for (w, h) in Self.sizes + [(40, 11), (50, 13), (60, 10)] {
            var app = Account.app(width: w, height: h)
            press(&app, .char("j"), .enter)
            for back in [0, 25, 56] {   // November (6 week rows), October, September
                var s = app
                for _ in 0..<back { press(&s, .char("h")) }
                let c = s.cursorDay.components
                let weeks = monthWeeks(year: c.year, month: c.month)
                let lines = render(s).text.components(separatedBy: "\n")
                guard let header = lines.firstIndex(where: { $0.contains("Mo Tu We Th Fr Sa Su") }) else {
                    XCTFail("\(w)x\(h): no calendar"); continue
                }
                // The cursor's month is the right-most of its row of months, or the only one.
                let column = lines[header].range(of: "Mo Tu We Th Fr Sa Su", options: .backwards)!.lowerBound
                let start = lines[header].distance(from: lines[header].startIndex, to: column)
                // Every week row fits above the message line, the first one holds the 1st (a day
                // of the habit), and the cursor shows.
                XCTAssertLessThanOrEqual(header + weeks, h - 4, "\(w)x\(h), \(s.cursorDay)\n\(lines.joined(separator: "\n"))")
                let firstWeek = Array(lines[header + 1])
                let cells = String(firstWeek[min(firstWeek.count, start)..<min(firstWeek.count, start + 21)])
                XCTAssertFalse(cells.trimmingCharacters(in: .whitespaces).isEmpty, "\(w)x\(h), \(s.cursorDay): no first week")
                XCTAssertTrue(render(s).text.contains("["), "the cursor shows at \(w)x\(h)")
            }
        }
    }

    func testTheDetailScreensTextWrapsWholeWordsAtNarrowWidths() {
        for (w, h) in [(40, 24), (60, 24)] {
            var app = Account.app(width: w, height: h)
            press(&app, .char("j"), .enter)
            let text = render(app).text
            for phrase in ["at least 1 a day,", "Done on due days: 7 days", "(1 very easy … 5 very hard):"] {
                XCTAssertTrue(text.contains(phrase), "\(w)x\(h): '\(phrase)' is not whole\n\(text)")
            }
        }
    }

    func testTheFormScrollsToTheFocusedFieldOnAShortScreen() {
        var app = Account.app(width: 40, height: 10)
        press(&app, .char("a"))
        for _ in 0..<7 { press(&app, .tab) }
        let screen = render(app).text
        XCTAssertTrue(screen.contains("▶ Colour"), screen)
        XCTAssertTrue(screen.contains("habit name is empty") == false, "the bottom line speaks of the focused field: \(screen)")
    }

    /// The state cells of a week grid row.
    private func weekCells(_ row: String, _ app: AppState) -> [String] {
        let chars = Array(row)
        return (0..<app.weekDayCount).map { i in
            let x = app.weekGridX + i * 3
            return x < chars.count ? String(chars[x]) : " "
        }
    }
}

/// The glyphs: a legend entry for each, and none that reads as a key of the screen it is on.
final class GlyphTests: XCTestCase {
    /// Glyph fields that are not shown alone in a cell: a blank, and the connectors inside text
    /// (`5 ≤8`, `40×10`, `Habitto · today`); `streak` is not drawn.
    private static let notInLegend: Set<String> = ["unscheduled", "separator", "atMost", "times", "streak", "showsIcons", "heat"]

    func testNoGlyphIsAKeyOfTheScreenItIsShownOn() {
        for glyphs in [Glyphs.ascii, .unicode] {
            for item in glyphs.legend {
                for mode in item.modes {
                    let keys = Set(KeyMap.defaults.bindings(in: mode).flatMap(\.keys))
                    for ch in item.glyph {
                        XCTAssertFalse(keys.contains(.char(ch)), "'\(ch)' (\(item.meaning)) is a key of \(mode.rawValue)")
                    }
                }
            }
        }
        for item in Glyphs.ascii.legend {
            XCTAssertFalse(item.glyph.contains { $0.isLetter || $0.isNumber }, "ASCII glyph '\(item.glyph)' is a letter or digit")
        }
    }

    func testTheLegendListsEveryGlyph() {
        for glyphs in [Glyphs.ascii, .unicode] {
            let shown = glyphs.legend.map(\.glyph).joined()
            for child in Mirror(reflecting: glyphs).children {
                guard let label = child.label, !Self.notInLegend.contains(label), let value = child.value as? String else { continue }
                XCTAssertTrue(shown.contains(value), "the legend lacks \(label) '\(value)'")
            }
            for shade in glyphs.heat { XCTAssertTrue(shown.contains(shade)) }
        }
    }

    func testTheHelpShowsTheLegendInTheGlyphSetInUseAndCutsNoWord() {
        for glyphs in [Glyphs.ascii, .unicode] {
            for (w, h) in ScreenSizeTests.sizes {
                var app = Account.app(width: w, height: h, glyphs: glyphs)
                press(&app, .char("?"))
                // The help opens on its first page, the legend's.
                XCTAssertEqual(app.helpPage, 0)
                var text = ""
                for _ in 0..<helpLayout(app).pages { text += render(app).text + "\n"; press(&app, .char("j")) }
                let words = Set(text.split { $0 == " " || $0 == "\n" }.map(String.init))
                for item in glyphs.legend {
                    XCTAssertTrue(words.contains(item.glyph), "\(w)x\(h): no '\(item.glyph)' in the legend")
                    for word in item.meaning.split(separator: " ") {
                        XCTAssertTrue(words.contains(String(word)), "\(w)x\(h): '\(word)' of '\(item.meaning)' is cut")
                    }
                }
                for b in KeyMap.defaults.bindings {
                    for word in (b.label.split(separator: " ") + b.keys.map { Substring($0.description) }) where word != "space" {
                        XCTAssertTrue(words.contains(String(word)), "\(w)x\(h): '\(word)' (\(b.mode.rawValue) \(b.label)) is cut")
                    }
                }
                XCTAssertFalse(render(app).line(0).contains("…"), render(app).line(0))
            }
        }
    }
}
