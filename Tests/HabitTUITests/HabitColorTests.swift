import XCTest
import HabitCore
@testable import HabitTUI

/// A habit's chosen colour on its cells: the today screen's name, the heat map, the week grid.
final class HabitColorTests: XCTestCase {
    let orange = ThemeColor.rgb(0xff, 0x88, 0x00)

    /// Drink water is #ff8800, Read is blue, No sugar and Gym have no colour.
    func colored(width: Int = 80, height: Int = 24) -> AppState {
        World.app(width: width, height: height,
                  changes: World.changes + [.set(World.water, .color("#ff8800")), .set(World.read, .color("blue"))])
    }

    /// The cells of row `y` whose text starts `text`, from its first column.
    func cells(_ b: ScreenBuffer, _ text: String, file: StaticString = #filePath, line: UInt = #line) -> [Cell] {
        for y in 0..<b.height {
            let row = (0..<b.width).map { b[$0, y] }
            let line = row.map(\.text).joined()
            if let r = line.range(of: text) {
                let start = line.distance(from: line.startIndex, to: r.lowerBound)
                // Columns are cells; a wide character's right half is "" so it adds no characters.
                var col = 0, chars = 0
                while chars < start { chars += row[col].text.count; col += 1 }
                return Array(row[col..<col + text.count])
            }
        }
        XCTFail("'\(text)' is not on the screen", file: file, line: line)
        return []
    }

    func testTheTodayScreenDrawsAHabitsNameInItsColourAndTheTextIsUnchanged() {
        let screen = render(colored())
        XCTAssertEqual(screen.text, render(World.app()).text, "colours are not in the text")
        XCTAssertEqual(Set(cells(screen, "Drink water").map(\.color)), [orange])
        XCTAssertEqual(Set(cells(screen, "Read").map(\.color)), [.ansi(4)])
        XCTAssertEqual(Set(cells(screen, "No sugar").map(\.color)), [nil])
        // The progress beside it keeps its role's colour.
        XCTAssertEqual(Set(cells(screen, "3/8 glasses").map(\.color)), [nil])
    }

    func testTheHeatMapAndTheWeekGridDrawAHabitsCellsInItsColour() {
        var app = colored()
        press(&app, .enter)
        let heat = render(app)
        let heatCells = heat.cells.filter { [.heat1, .heat2, .heat3, .heat4].contains($0.role) }
        XCTAssertFalse(heatCells.isEmpty)
        XCTAssertEqual(Set(heatCells.map(\.color)), [orange])
        press(&app, .escape, .char("w"))
        let week = render(app)
        let y = (0..<week.height).first { week.line($0).contains("Drink water") }!
        let grid = (app.weekGridX..<week.width).map { week[$0, y] }.filter { [.done, .partial].contains($0.role) }
        XCTAssertFalse(grid.isEmpty)
        XCTAssertEqual(Set(grid.map(\.color)), [orange])
        let sugarY = (0..<week.height).first { week.line($0).contains("No sugar") }!
        XCTAssertEqual(Set((0..<week.width).map { week[$0, sugarY].color }), [nil])
    }

    func testARoleTakesTheHabitColourOnlyWhenItsThemeStyleSaysSo() {
        let cell = Cell("x", .done, color: orange)
        let theme = Theme.builtInDefault
        XCTAssertEqual(theme.style(.done).foreground(for: cell), orange)
        XCTAssertEqual(theme.style(.done).foreground(for: Cell("x", .done)), .ansi(2))
        XCTAssertEqual(theme.style(.missed).foreground(for: Cell("x", .missed, color: orange)), .ansi(8))
        // A theme overrides by role: without habit-color the role keeps its colour.
        let (custom, problems) = Theme.parse("done = cyan\nheat4 = #00ff00 bold habit-color", name: "t", file: "t.theme", over: theme)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(custom.style(.done).foreground(for: cell), .ansi(6))
        XCTAssertEqual(custom.style(.heat4).foreground(for: Cell("x", .heat4, color: orange)), orange)
    }

    func testHabitColoursMapToTheTerminalsPaletteAndToNothingWithoutColour() {
        for name in Validate.colorNames { XCTAssertNotNil(ThemeColor(habitColor: name), name) }
        XCTAssertEqual(ThemeColor(habitColor: "Blue"), .ansi(4))
        XCTAssertEqual(ThemeColor(habitColor: "#FF8800"), orange)
        XCTAssertNil(ThemeColor(habitColor: nil))
        XCTAssertNil(ThemeColor(habitColor: "#ff88"))
        XCTAssertEqual(orange.index(for: .palette256), 208)
        XCTAssertEqual(orange.index(for: .ansi16), 3, "the nearest of the 16: yellow")
        XCTAssertNil(orange.index(for: .none), "NO_COLOR draws no colour")
        XCTAssertNil(ThemeColor(habitColor: "red")!.index(for: .none))
    }
}
