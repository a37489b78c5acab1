import XCTest
import HabitCore
@testable import HabitTUI

/// Screens that must agree with themselves: the weekday chart with its legend, a take-back's
/// confirmation with what it took, the edit form with its hint and `add --limit`, a skipped
/// day with the space key, and two rows of habits that share a name.
final class SelfConsistencyTests: XCTestCase {
    private let today = World.today
    private let unit = Amount.scale

    func testTheWeekdayShadeFollowsItsLegend() {
        let g = ChartGlyphs.unicode
        // The legend: · 0%  ░ <25%  ▒ <50%  ▓ <75%  █ 75%+
        let cases: [(Double?, String)] = [(nil, g.shades[0]), (0, "·"), (0.2, "░"), (0.25, "▒"), (0.49, "▒"),
                                          (0.5, "▓"), (0.74, "▓"), (0.75, "█"), (6.0 / 7, "█"), (1, "█")]
        for (ratio, glyph) in cases { XCTAssertEqual(TextChart.shade(ratio, g), glyph, "\(String(describing: ratio))") }
    }

    func testTakingBackMoreThanTheDayHoldsSaysWhatItTook() throws {
        // Water holds 3 glasses today.
        var app = World.app()
        XCTAssertEqual(app.habits.progress(World.water, today), 3 * unit)
        press(&app, .char("n"))
        type(&app, "-20")
        let effects = press(&app, .enter)
        XCTAssertEqual(effects, [.write(.takeBack(World.water, today, amount: 20 * unit))])
        guard case .write(let w)? = effects.first else { return XCTFail("no write") }
        var state = app.habits
        let changes = try w.changes(today: today, in: state)
        for (i, c) in changes.enumerated() {
            state.apply(HabitOperation(id: OpID(device: World.device, seq: state.seen[World.device]! + 1),
                                       hlc: HLC(wallMillis: 1_900_000_000_000, counter: UInt32(i)), change: c))
        }
        XCTAssertEqual(changes, [.progress(World.water, today, delta: -3 * unit)], "the rules take back what the day holds")
        let outcome = w.outcome(changed: true, state: state, today: today)
        XCTAssertEqual(confirmation(outcome, app), "· 'Drink water' today: 0/8 glasses · streak 0 days")
    }

    func testTheKindFieldSaysItsKeysAndSwitchingToLimitKeepsTheGoalAsAddLimitDoes() {
        XCTAssertEqual(HabitForm.Field.kind.hint, "space switches, b build (at least), l limit (at most)")
        var form = HabitForm.new(today: today)
        form.focus = .kind
        form.type("l")
        XCTAssertEqual(form.kind, .limit)
        XCTAssertEqual(form.text(.goal), "1", "habitto add X --limit gives goal 1 too")
        form.type(" ")
        XCTAssertEqual(form.kind, .build)
        form.type("b")
        XCTAssertEqual(form.kind, .build)
        let help = helpLines(.defaults, .unicode)
        XCTAssertTrue(help.contains { $0.keys.trimmingCharacters(in: .whitespaces) == "space b l" && $0.label.contains("kind field") },
                      "the help names the kind field's keys")
    }

    func testSpaceOnASkippedDayThatHoldsItsCheckInChecksInAndUnskips() throws {
        let walk = HabitID("00000000000000e5")!
        let day = today.adding(-2)
        var app = World.app(changes: World.changes + [
            .create(walk, HabitFields(name: "Walk", startDate: World.start)),
            .progress(walk, day, delta: unit), .skip(walk, day, true),
        ])
        app.date = day
        app.selectHabit(walk)
        let effects = press(&app, .char(" "))
        XCTAssertEqual(effects, [.write(.toggle(walk, day))])
        // It un-skips the day and records the answer (a set step to done, as a check on a day shown done does).
        XCTAssertEqual(try Intent.toggle(walk, day).changes(today: today, in: app.habits),
                       [.skip(walk, day, false), .setProgress(walk, day, total: unit)])
    }

    func testRowsOfHabitsThatShareANameShowTheIdPrefixThatPicksEach() {
        let a = HabitID("1a2b000000000001")!, b = HabitID("9c8d000000000002")!
        let app = World.app(changes: World.changes + [
            .create(a, HabitFields(name: "Walk", startDate: World.start)),
            .create(b, HabitFields(name: "Walk", startDate: World.start)),
        ])
        XCTAssertEqual(app.namesakeTags, [a: "1a2b", b: "9c8d"])
        let screen = render(app).text
        XCTAssertTrue(screen.contains("Walk #1a2b"), screen)
        XCTAssertTrue(screen.contains("Walk #9c8d"), screen)
        XCTAssertFalse(screen.contains("Read #"), "a name of its own has no mark")
    }
}
