import XCTest
import HabitCore
@testable import HabitTUI

/// Issue 39, point 9: the amount prompt's refusals say what is wrong in the prompt's terms.
final class PromptMessageTests: XCTestCase {
    /// Opens the amount prompt on the first row (Drink water, 3/8 today), types `text` and
    /// presses enter: the effects, and the reason shown (in the prompt, or as the message).
    private func submit(_ text: String) -> (effects: [Effect], prompt: String?, message: String?) {
        var app = World.app()
        press(&app, .char("n"))
        type(&app, text)
        let effects = press(&app, .enter)
        guard case .amount(let p) = app.overlay else { return (effects, nil, app.message?.text) }
        return (effects, p.error, app.message?.text)
    }

    func testASignWithoutAnAmountAsksForAnAmount() {
        let asked = "type an amount: 3 adds, -2 takes back, =8 sets the day's total (esc cancels)"
        for sign in ["+", "-", "=", "+ "] {
            let r = submit(sign)
            XCTAssertEqual(r.effects, [], "'\(sign)' was recorded")
            XCTAssertEqual(r.prompt, asked, "'\(sign)'")
        }
        XCTAssertEqual(submit("").prompt, asked, "an empty entry says the same")
    }

    func testATotalAboveWhatADayHoldsIsTooLargeWithoutAConfusingHas() {
        let r = submit("=1000001")
        XCTAssertEqual(r.effects, [])
        XCTAssertEqual(r.message, "a day's total of 1000001 is too large: a day holds at most 1000000")
        XCTAssertEqual(submit("=1000000").effects, [.write(.setTotal(World.water, World.today, Limits.maxDayProgress))],
                       "the most a day holds is taken")
    }

    /// An amount added that would take the day past what it holds says what was added, and
    /// on a day holding nothing it says no "has 0".
    func testAnAmountAddedAboveWhatADayHoldsSaysWhatWasAdded() {
        let r = submit("+1000001")
        XCTAssertEqual(r.effects, [])
        XCTAssertEqual(r.message ?? r.prompt,
                       "'Drink water' has 3 on \(World.today): adding 1000001 is too much, a day holds at most 1000000 (999997 more fit)")
        let empty = CoreError.dayFull(habit: "Water", progress: 0, adding: 1_000_001 * Amount.scale, day: World.today)
        XCTAssertEqual(empty.description, "adding 1000001 is too much: a day holds at most 1000000")
    }
}
