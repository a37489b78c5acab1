import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// Issue 39, points 4, 10 and 11: two habits of one name are told apart on every screen,
/// every screen lists habits in one order, and the small screens show what they must.
final class ScreenNamesTests: XCTestCase {
    static let first = HabitID("0de7000000000001")!
    static let second = HabitID("f967000000000002")!
    static let sizes = [(80, 24), (40, 10)]

    /// The world with two habits named Stretch (a merge can leave two).
    static func namesakes(width: Int, height: Int) -> AppState {
        World.app(width: width, height: height, changes: World.changes + [
            .create(first, HabitFields(name: "Stretch", startDate: World.start)),
            .create(second, HabitFields(name: "Stretch", startDate: World.start)),
            .progress(first, World.today.adding(-1), delta: Amount.scale),
        ])
    }

    /// Each Stretch has a line naming it (cut or whole) with its tag.
    func assertBothTold(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let lines = text.components(separatedBy: "\n")
        for tag in ["#0de7", "#f967"] {
            XCTAssertTrue(lines.contains { $0.contains("Stret") && $0.contains(tag) }, "\(what): \(tag)\n\(text)", file: file, line: line)
        }
    }

    func testTheWeekGridAndTheOverviewTellNamesakesApartAtBothSizes() {
        for (w, h) in Self.sizes {
            var app = Self.namesakes(width: w, height: h)
            XCTAssertEqual(app.namesakeTags, [Self.first: "0de7", Self.second: "f967"])
            assertBothTold(render(app).text, "today \(w)x\(h)")
            press(&app, .char("w"))
            // The grid shows the rows around its cursor: put it on the last habit.
            app.cursorHabit = Self.second
            var text = render(app).text
            assertBothTold(text, "week \(w)x\(h)")
            XCTAssertFalse(text.contains("Read #"), "a name of its own has no tag")
            // The cursor's line names the habit with its tag too.
            XCTAssertTrue(render(app).line(h - 4).contains("Stretch #f967"), render(app).text)
            press(&app, .escape, .char("O"))
            for _ in 0..<10 { press(&app, .char("j")) }
            text = render(app).text
            assertBothTold(text, "overview \(w)x\(h)")
        }
    }

    func testTheDetailTitleItsChartPagesAndTheQuestionsNameTheNamesake() {
        for (w, h) in Self.sizes {
            for (id, tag) in [(Self.first, "Stretch #0de7"), (Self.second, "Stretch #f967")] {
                var app = Self.namesakes(width: w, height: h)
                app.selectHabit(id)
                press(&app, .enter)
                XCTAssertEqual(app.screen, .detail(id))
                XCTAssertTrue(render(app).text.contains(tag), "calendar \(w)x\(h): \(render(app).text)")
                press(&app, .tab)
                XCTAssertTrue(render(app).text.contains(tag), "score page \(w)x\(h): \(render(app).text)")
                press(&app, .escape)
                XCTAssertEqual(app.screen, .today)
                press(&app, .char("A"))
                XCTAssertTrue(render(app).line(h - 3).contains("'\(tag)'"), render(app).line(h - 3))
                press(&app, .char("n"), .char("D"))
                XCTAssertTrue(render(app).line(h - 3).contains("'\(tag)"), render(app).line(h - 3))
            }
        }
    }

    func testTheCatchUpScreenTellsNamesakesApart() {
        var app = Self.namesakes(width: 80, height: 24)
        press(&app, .char("c"))
        XCTAssertEqual(app.screen, .catchUp)
        // Both are due every day with nothing recorded today: both rows for today are there.
        let today = app.catchUp.indices.filter { app.catchUp[$0].day == World.today && app.catchUp[$0].habit.name == "Stretch" }
        XCTAssertEqual(today.count, 2)
        app.catchUpIndex = today[1]
        assertBothTold(render(app).text, "catch-up")
    }

    func testACutNameKeepsItsNamesakeTag() {
        let app = Self.namesakes(width: 80, height: 24)
        let stretch = try! XCTUnwrap(app.habits.habit(Self.first))
        XCTAssertEqual(app.label(stretch, width: 40), "Stretch #0de7")
        XCTAssertEqual(app.label(stretch, width: 10), "Str… #0de7")
        let read = try! XCTUnwrap(app.habits.habit(World.read))
        XCTAssertEqual(app.label(read, width: 3), "Re…")
    }

    // MARK: One order

    /// Ungrouped and grouped habits mixed in the habit order: Walk (Health), Read, Gym
    /// (Fitness), Stretch, Water (Health).
    static func mixed(width: Int = 80, height: Int = 24) -> AppState {
        let ids = (1...5).map { HabitID("00000000000000e\($0)")! }
        let defs: [(String, String?)] = [("Walk", "Health"), ("Read", nil), ("Gym", "Fitness"), ("Stretch", nil), ("Water", "Health")]
        var app = World.app(width: width, height: height, changes: zip(ids, defs).map { id, d in
            .create(id, HabitFields(name: d.0, startDate: World.start, group: d.1))
        })
        app.showAll = true
        return app
    }

    func testEveryScreenListsHabitsInTheListingOrder() {
        var app = Self.mixed()
        let expected = ["Read", "Stretch", "Walk", "Water", "Gym"]
        XCTAssertEqual(app.habits.listed.map(\.name), expected)
        XCTAssertEqual(app.rows.map(\.habit.name), expected, "the today screen")
        XCTAssertEqual(app.weekHabits.map(\.name), expected, "the week grid")
        XCTAssertEqual(app.habits.overviewHabits(today: app.today, weeks: 4).map(\.name), expected, "the overview")
        XCTAssertEqual(CatchUp.items(app.habits, today: app.today).filter { $0.day == app.today }.map(\.habit.name), expected,
                       "catching up, within a day")
        // The detail screen's j goes down the same list.
        app.selectHabit(app.rows[0].habit.id)
        press(&app, .enter)
        var seen: [String] = []
        for _ in expected {
            if case .detail(let id) = app.screen { seen.append(app.habits.habit(id)?.name ?? "") }
            press(&app, .char("j"))
        }
        XCTAssertEqual(seen, expected, "the detail screen's j")
        // The group order is the first habit's, among every habit, not among those due today.
        XCTAssertEqual(HabitState.listing(app.habits.habits.filter { $0.name != "Walk" }).map(\.name), ["Read", "Stretch", "Gym", "Water"])
    }

    // MARK: Small screens: the overview starts at the first habit's start

    func testTheOverviewStartsOnTheFirstStartOfTheHabitsItShowsAtBothSizes() throws {
        // Tuesday 2026-11-10 and Thursday 2026-11-12, seen on Saturday 2026-11-21.
        let a = HabitID("00000000000000f1")!, b = HabitID("00000000000000f2")!
        for (w, h) in [(40, 10), (120, 35)] {
            var app = World.app(width: w, height: h, changes: [
                .create(a, HabitFields(name: "Walk", startDate: LocalDay("2026-11-12")!)),
                .create(b, HabitFields(name: "Read", startDate: LocalDay("2026-11-10")!)),
                .progress(b, LocalDay("2026-11-10")!, delta: Amount.scale),
            ])
            press(&app, .char("O"))
            let layout = overviewLayout(app)
            let o = app.habits.overview(today: app.today, weeks: layout.weeks, fromFirstStart: true)
            XCTAssertEqual(o.first, LocalDay("2026-11-10"), "\(w)x\(h)")
            XCTAssertEqual(o.completion.count, 12)
            XCTAssertEqual(o.xpWeeks.map(\.weekStart), [LocalDay("2026-11-09")!, LocalDay("2026-11-16")!], "whole weeks of XP")
            let text = render(app).text
            let lines = text.components(separatedBy: "\n")
            let read = try XCTUnwrap(lines.first { $0.hasPrefix(" Read") }, text)
            // The first cell after the name column is Read's first day (done), not a blank.
            let left = 1 + layout.nameWidth + 1
            XCTAssertEqual(Array(read)[left], "█", "\(w)x\(h): \(text)")
            XCTAssertTrue(text.contains("2 weeks"), text)
            XCTAssertFalse(text.contains("2026-11-09"), "no day before the first start: \(text)")
        }
    }

    func testSnapshotsOfNamesakesAndAYoungOverviewAt40x10And80x24() {
        for (w, h) in Self.sizes {
            var app = Self.namesakes(width: w, height: h)
            press(&app, .char("w"))
            app.cursorHabit = Self.second
            assertSnapshot(render(app), named: "namesakes-week-\(w)x\(h)")
            var young = World.app(width: w, height: h, changes: [
                .create(World.read, HabitFields(name: "Read", startDate: LocalDay("2026-11-10")!)),
                .create(World.gym, HabitFields(name: "Gym", startDate: LocalDay("2026-11-12")!)),
                .progress(World.read, LocalDay("2026-11-10")!, delta: Amount.scale),
                .progress(World.gym, LocalDay("2026-11-20")!, delta: Amount.scale),
            ])
            press(&young, .char("O"))
            assertSnapshot(render(young), named: "overview-young-\(w)x\(h)")
        }
    }
}
