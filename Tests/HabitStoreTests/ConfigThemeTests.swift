import Foundation
import HabitStore
import XCTest

final class ConfigThemeTests: XCTestCase {
    func testSettingTheThemeRewritesOnlyTheLineThatCounts() {
        XCTAssertEqual(Config.settingTheme("nord", in: ""), "theme = nord\n")
        XCTAssertEqual(Config.settingTheme("nord", in: "# mine\nweek_start = sunday"),
                       "# mine\nweek_start = sunday\ntheme = nord\n")
        XCTAssertEqual(Config.settingTheme("nord", in: "week_start = sunday\n"), "week_start = sunday\ntheme = nord\n")
        // The last theme line counts when parsing, so it is the one changed; comments stay.
        let text = "# theme = light (a comment, not a setting)\ntheme = light\n  theme=gruvbox   # dark at night\nday_start_hour = 4\n"
        XCTAssertEqual(Config.settingTheme("nord", in: text),
                       "# theme = light (a comment, not a setting)\ntheme = light\n  theme = nord # dark at night\nday_start_hour = 4\n")
        XCTAssertEqual(Config.settingTheme("nord", in: "theme = light\r\nweek_start = monday\r\n"),
                       "theme = nord\r\nweek_start = monday\r\n")
    }

    func testSavingTheThemeKeepsTheFileReadableAndFollowsALink() throws {
        let dir = NSTemporaryDirectory() + "habitto-config-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Missing folder and file: both are made.
        try Config.saveTheme("gruvbox", path: dir + "/habitto/config")
        XCTAssertEqual(try Config.load(path: dir + "/habitto/config").theme, "gruvbox")
        // A config kept in a dotfiles folder behind a link: the target is rewritten, the link stays.
        try FileManager.default.createDirectory(atPath: dir + "/dotfiles", withIntermediateDirectories: true)
        try "# my settings\nweek_start = sunday\n".write(toFile: dir + "/dotfiles/config", atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(dir + "/dotfiles/config", 0o640), 0)
        try FileManager.default.removeItem(atPath: dir + "/habitto/config")
        try FileManager.default.createSymbolicLink(atPath: dir + "/habitto/config", withDestinationPath: dir + "/dotfiles/config")
        try Config.saveTheme("nord", path: dir + "/habitto/config")
        XCTAssertEqual(try String(contentsOfFile: dir + "/dotfiles/config", encoding: .utf8), "# my settings\nweek_start = sunday\ntheme = nord\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/habitto/config"), dir + "/dotfiles/config")
        let mode = (try FileManager.default.attributesOfItem(atPath: dir + "/dotfiles/config")[.posixPermissions] as? Int) ?? 0
        XCTAssertEqual(mode, 0o640, "permissions kept")
        // A config that would not parse afterwards is not written.
        try "week_start = someday\n".write(toFile: dir + "/dotfiles/config", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Config.saveTheme("nord", path: dir + "/habitto/config"))
        XCTAssertEqual(try String(contentsOfFile: dir + "/dotfiles/config", encoding: .utf8), "week_start = someday\n")
    }
}

final class ConfigMouseTests: XCTestCase {
    /// `mouse = false` turns the UI's mouse off; it is on without the line; other values are refused.
    func testTheMouseSetting() throws {
        XCTAssertTrue(try Config(parsing: "", path: "config").mouse)
        XCTAssertFalse(try Config(parsing: "mouse = false\n", path: "config").mouse)
        XCTAssertTrue(try Config(parsing: "mouse = on\n", path: "config").mouse)
        XCTAssertThrowsError(try Config(parsing: "mouse = sometimes\n", path: "config")) { error in
            XCTAssertEqual("\(error)".contains("config line 1: mouse must be true or false"), true, "\(error)")
        }
        XCTAssertTrue(Config.keys.contains("mouse"))
    }
}
