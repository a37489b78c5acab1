import Foundation
import XCTest
import HabitTUI

final class ThemeTests: XCTestCase {
    private let base = Theme.builtInDefault

    // MARK: - Colours and attributes

    func testColourNamesParseToTheAnsiColours() {
        let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
        for (n, name) in names.enumerated() {
            assertStyle("done = \(name)", .done, Style(.ansi(n)))
            assertStyle("done = bright-\(name)", .done, Style(.ansi(n + 8)))
        }
        assertStyle("done = gray", .done, Style(.ansi(8)))
        assertStyle("done = grey", .done, Style(.ansi(8)))
        assertStyle("done = Bright-Red", .done, Style(.ansi(9)))
        assertStyle("done = default", .done, Style())
    }

    func testHexColoursParseToRGB() {
        assertStyle("done = #ff8000", .done, Style(.rgb(255, 128, 0)))
        assertStyle("done = #0A0b0C", .done, Style(.rgb(10, 11, 12)))
    }

    func testColorNumbersBelow16AreAnsiAndTheRestAreTheirXtermRGB() {
        assertStyle("done = color0", .done, Style(.ansi(0)))
        assertStyle("done = color15", .done, Style(.ansi(15)))
        assertStyle("done = color16", .done, Style(.rgb(0, 0, 0)))
        assertStyle("done = color67", .done, Style(.rgb(0x5f, 0x87, 0xaf)))
        assertStyle("done = color196", .done, Style(.rgb(255, 0, 0)))
        assertStyle("done = color231", .done, Style(.rgb(255, 255, 255)))
        assertStyle("done = color232", .done, Style(.rgb(8, 8, 8)))
        assertStyle("done = color255", .done, Style(.rgb(238, 238, 238)))
    }

    func testBackgroundAndEveryAttributeParseInAnyOrder() {
        assertStyle("done = red on blue bold underline reverse dim", .done,
                    Style(.ansi(1), on: .ansi(4), bold: true, underline: true, reverse: true, dim: true))
        assertStyle("done = dim on #000000 bold", .done, Style(on: .rgb(0, 0, 0), bold: true, dim: true))
        assertStyle("done = reverse", .done, Style(reverse: true))
        assertStyle("done = underline green", .done, Style(.ansi(2), underline: true))
    }

    // MARK: - Roles and patching

    func testRoleWrittenInKebabOrCamelCaseNamesTheSameRole() {
        let pairs: [(String, String, Role)] = [
            ("xp-bar", "xpBar", .xpBar), ("xp-bar-empty", "xpBarEmpty", .xpBarEmpty),
            ("status-error", "statusError", .statusError), ("sync-pending", "syncPending", .syncPending),
            ("heat0", "heat0", .heat0),
        ]
        for (kebab, camel, role) in pairs {
            assertStyle("\(kebab) = magenta", role, Style(.ansi(5)))
            assertStyle("\(camel) = cyan", role, Style(.ansi(6)))
        }
    }

    func testEveryRoleCanBeNamedByItsKebabName() {
        XCTAssertEqual(Role.xpBarEmpty.kebabName, "xp-bar-empty")
        XCTAssertEqual(Role.heat3.kebabName, "heat3")
        for role in Role.allCases {
            assertStyle("\(role.kebabName) = #010203 underline", role, Style(.rgb(1, 2, 3), underline: true))
        }
    }

    func testPartialPatchChangesOnlyTheNamedRoles() {
        let (theme, problems) = parse("done = magenta\nheader = blue on white\n")
        XCTAssertEqual(problems, [])
        XCTAssertEqual(theme.styles[.done], Style(.ansi(5)))
        XCTAssertEqual(theme.styles[.header], Style(.ansi(4), on: .ansi(7)))
        for role in Role.allCases where role != .done && role != .header {
            XCTAssertEqual(theme.styles[role], base.styles[role], "\(role)")
        }
        XCTAssertEqual(theme.name, "test")
    }

    func testNamedRoleGetsExactlyTheWrittenStyleNotAMergeWithTheDefault() {
        XCTAssertEqual(base.styles[.header]?.bold, true)
        assertStyle("header = blue", .header, Style(.ansi(4)))
    }

    func testLaterLineForTheSameRoleWins() {
        assertStyle("done = red\ndone = green bold", .done, Style(.ansi(2), bold: true))
    }

    func testCommentsBlankLinesBOMAndCRLFAreIgnored() {
        let text = "\u{FEFF}# a theme\r\n\r\n   # indented comment\r\n  done = red   # trailing note\r\n\t\r\n"
            + "partial = #ff0000 #\nmissed = blue #a comment-like word is not a comment\n"
        let (theme, problems) = parse(text)
        XCTAssertEqual(theme.styles[.done], Style(.ansi(1)))
        XCTAssertEqual(theme.styles[.partial], Style(.rgb(255, 0, 0)))
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.first?.hasPrefix("t.theme line 7: ") == true, "\(problems)")
        XCTAssertEqual(theme.styles[.missed], base.styles[.missed])
    }

    func testNameLineSetsTheDisplayNameAndTheThemeKeepsItsGivenName() {
        let (named, p1) = parse("name = Gruvbox Dark\n")
        XCTAssertEqual(p1, [])
        XCTAssertEqual(named.displayName, "Gruvbox Dark")
        XCTAssertEqual(named.name, "test")
        XCTAssertEqual(named.styles, base.styles)
        let (unnamed, p2) = parse("done = red\n")
        XCTAssertEqual(p2, [])
        XCTAssertEqual(unnamed.displayName, "test")
    }

    // MARK: - Problems

    func testUnknownRoleGivesOneMessageListingValidRolesAndKeepsTheDefault() {
        let (theme, problems) = parse("done = red\n\nheder = blue\n")
        XCTAssertEqual(problems.count, 1)
        let message = problems.first ?? ""
        XCTAssertTrue(message.hasPrefix("t.theme line 3: unknown role 'heder'"), message)
        XCTAssertTrue(message.contains("did you mean 'header'?"), message)
        XCTAssertTrue(message.contains("xp-bar") && message.contains("status-error"), message)
        XCTAssertTrue(message.hasSuffix(", using the default for it"), message)
        XCTAssertEqual(theme.styles[.header], base.styles[.header])
        XCTAssertEqual(theme.styles[.done], Style(.ansi(1)))

        assertOneProblem("flurble = red", contains: "unknown role 'flurble' (roles include")
        let (_, far) = parse("flurble = red")
        XCTAssertFalse(far.first?.contains("did you mean") ?? true)
    }

    func testBadColourGivesOneMessageAndKeepsTheDefault() {
        for style in ["purple", "#12345", "#1234567", "#gggggg", "color256", "color-1", "colour", "bright-orange",
                      "red on mauve", "on #12"] {
            assertOneProblem("done = \(style)", contains: "is not a colour (use default, a name such as red")
        }
        assertOneProblem("done = purple bold", contains: "'purple' is not a colour")
        assertOneProblem("done = red on mauve", contains: "'mauve' is not a colour")
    }

    func testUnknownAttributeGivesOneMessageAndKeepsTheDefault() {
        for style in ["green blink", "red bold sparkly", "italic", "bold inverse"] {
            assertOneProblem("done = \(style)", contains: "is not an attribute (use bold, underline, reverse, dim or habit-color)")
        }
        assertOneProblem("done = green blink", contains: "'blink' is not an attribute")
    }

    func testMalformedLineGivesOneMessageAndKeepsTheDefault() {
        let cases = [
            ("done green", "'done green' is not 'role = style'"),
            ("done =", "no style after 'done ='"),
            ("= red", "no role before '='"),
            ("done = red on", "'on' needs a background colour"),
            ("done = red blue", "two foreground colours"),
            ("done = red on blue on black", "two background colours"),
            ("done = red = blue", "more than one '='"),
            ("xp bar = red", "'xp bar' is not one word"),
            ("name =", "no name after 'name ='"),
        ]
        for (line, fragment) in cases {
            assertOneProblem(line, contains: fragment)
        }
    }

    func testEveryBadLineGivesOneMessageWithItsLineWhileGoodLinesStillApply() {
        let text = """
        # mixed
        done = green
        heder = red
        partial = mauve
        missed = blue blink
        skipped blue
        streak = #00ff00 bold
        """
        let (theme, problems) = parse(text)
        XCTAssertEqual(problems.count, 4, "\(problems)")
        XCTAssertEqual(problems.map { $0.split(separator: ":").first.map(String.init) ?? "" },
                       ["t.theme line 3", "t.theme line 4", "t.theme line 5", "t.theme line 6"])
        XCTAssertTrue(problems.allSatisfy { $0.hasSuffix(", using the default for it") }, "\(problems)")
        XCTAssertEqual(theme.styles[.done], Style(.ansi(2)))
        XCTAssertEqual(theme.styles[.streak], Style(.rgb(0, 255, 0), bold: true))
        for role in [Role.header, .partial, .missed, .skipped] {
            XCTAssertEqual(theme.styles[role], base.styles[role], "\(role)")
        }
    }

    func testMessagesCarryNoControlCharactersFromTheFile() {
        let (_, problems) = parse("do\u{1B}[31mne = red\n")
        XCTAssertEqual(problems.count, 1)
        XCTAssertFalse(problems.first?.unicodeScalars.contains { $0.value == 0x1B } ?? true, "\(problems)")
    }

    // MARK: - Bundled themes

    func testEveryBundledThemeParsesWithoutProblemsAndHasADistinctName() throws {
        let files = try bundledThemeFiles()
        let names = files.map { $0.name }
        for required in ["default", "light", "high-contrast", "monochrome", "gruvbox", "solarized-dark"] {
            XCTAssertTrue(names.contains(required), "missing Themes/\(required).theme")
        }
        var displayNames: [String] = []
        for (name, text) in files {
            let (theme, problems) = Theme.parse(text, name: name, file: "\(name).theme", over: base)
            XCTAssertEqual(problems, [], name)
            XCTAssertEqual(theme.name, name)
            XCTAssertNotEqual(theme.displayName, name, "\(name).theme has no 'name =' line")
            displayNames.append(theme.displayName)
        }
        XCTAssertEqual(Set(displayNames).count, files.count, "\(displayNames)")
    }

    func testBundledDefaultThemeWritesOutEveryRoleOfTheBuiltInDefault() throws {
        let text = try XCTUnwrap(bundledThemeFiles().first { $0.name == "default" }?.text)
        let (theme, problems) = Theme.parse(text, name: "default", file: "default.theme",
                                            over: Theme(name: "empty", styles: [:]))
        XCTAssertEqual(problems, [])
        XCTAssertEqual(theme.styles, base.styles)
        XCTAssertEqual(theme.displayName, base.displayName)
    }

    func testMonochromeThemeNamesEveryRoleWithoutAnyColour() throws {
        let text = try XCTUnwrap(bundledThemeFiles().first { $0.name == "monochrome" }?.text)
        let (overEmpty, _) = Theme.parse(text, name: "monochrome", file: "monochrome.theme",
                                         over: Theme(name: "empty", styles: [:]))
        XCTAssertEqual(Set(overEmpty.styles.keys), Set(Role.allCases))
        let (theme, problems) = Theme.parse(text, name: "monochrome", file: "monochrome.theme", over: base)
        XCTAssertEqual(problems, [])
        for role in Role.allCases {
            XCTAssertEqual(theme.style(role).foreground, .terminalDefault, "\(role)")
            XCTAssertEqual(theme.style(role).background, .terminalDefault, "\(role)")
            XCTAssertFalse(theme.style(role).habitColor, "\(role) takes habit colours in the monochrome theme")
        }
        XCTAssertEqual(theme.style(.selection).reverse, true)
    }

    func testEveryBundledThemeMarksTheSelectionWithAnAttributeSoItShowsWithoutColour() throws {
        for (name, text) in try bundledThemeFiles() {
            let selection = Theme.parse(text, name: name, file: name, over: base).0.style(.selection)
            XCTAssertTrue(selection.reverse || selection.bold || selection.underline, name)
        }
    }

    func testEveryBundledThemeKeepsItsHeatMapStepsApartAt256Colours() throws {
        let heat: [Role] = [.heat0, .heat1, .heat2, .heat3, .heat4]
        for (name, text) in try bundledThemeFiles() {
            let theme = Theme.parse(text, name: name, file: name, over: base).0
            let drawn = heat.map { role -> String in
                let s = theme.style(role)
                return "\(String(describing: s.foreground.index(for: .palette256)))/"
                    + "\(String(describing: s.background.index(for: .palette256)))/"
                    + "\(s.bold)\(s.underline)\(s.reverse)\(s.dim)"
            }
            XCTAssertEqual(Set(drawn).count, heat.count, "\(name): \(drawn)")
        }
    }

    func testEveryBundledThemeHeaderSaysWhatItIsTheFormatAndThatItIsAPatch() throws {
        for (name, text) in try bundledThemeFiles() {
            XCTAssertTrue(text.hasPrefix("# \(name).theme: "), name)
            XCTAssertTrue(text.contains("[FG] [on BG] [bold] [underline] [reverse] [dim]"), name)
            XCTAssertTrue(text.contains("#RRGGBB") && text.contains("color0..color255"), name)
            XCTAssertTrue(text.contains("partial patch over the built-in default"), name)
        }
    }

    // MARK: - Colour mapping

    func testPureRedMapsToCube196At256AndToRedAt16And8() {
        let red = ThemeColor.rgb(255, 0, 0)
        XCTAssertEqual(red.index(for: .palette256), 196)
        XCTAssertEqual(red.index(for: .trueColor), 196)
        XCTAssertEqual(red.index(for: .ansi16), 9)
        XCTAssertEqual(red.index(for: .ansi8), 1)
    }

    func testGreysMapToTheGreyRampAt256AndToGreyOrWhiteAtFewerColours() {
        let mid = ThemeColor.rgb(0x80, 0x80, 0x80)
        XCTAssertEqual(mid.index(for: .palette256), 244)   // 8 + 10 × 12 = 128 exactly
        XCTAssertEqual(mid.index(for: .ansi16), 8)         // #7f7f7f
        XCTAssertEqual(mid.index(for: .ansi8), 7)          // a grey stays grey: white, not #cdcd00 yellow
        XCTAssertEqual(ThemeColor.rgb(0xc0, 0xc0, 0xc0).index(for: .ansi16), 7)
        XCTAssertEqual(ThemeColor.ansi(244).index(for: .ansi16), 8)
        XCTAssertEqual(ThemeColor.rgb(0x76, 0x76, 0x76).index(for: .palette256), 243)
        XCTAssertEqual(ThemeColor.rgb(0x30, 0x30, 0x30).index(for: .palette256), 236)
        XCTAssertEqual(ThemeColor.rgb(0x30, 0x30, 0x30).index(for: .ansi16), 0)
    }

    func testOtherColoursMapToTheirHandCheckedNearest() {
        XCTAssertEqual(ThemeColor.rgb(0x5f, 0x87, 0xaf).index(for: .palette256), 67)
        XCTAssertEqual(ThemeColor.rgb(0x60, 0x88, 0xb0).index(for: .palette256), 67)
        XCTAssertEqual(ThemeColor.rgb(0x5c, 0x5c, 0xff).index(for: .ansi16), 12)
        XCTAssertEqual(ThemeColor.rgb(0x00, 0x00, 0xee).index(for: .ansi16), 4)
        XCTAssertEqual(ThemeColor.rgb(0xfa, 0xbd, 0x2f).index(for: .ansi16), 3)   // #cdcd00 beats #ffff00
        XCTAssertEqual(ThemeColor.rgb(0xfa, 0xbd, 0x2f).index(for: .ansi8), 3)
        XCTAssertEqual(ThemeColor.rgb(0x40, 0x40, 0xc0).index(for: .ansi8), 4)    // bluish, not grey
    }

    func testEveryXterm256ColourMapsBackToItsOwnIndex() {
        for n in 16...255 {
            let (theme, problems) = parse("done = color\(n)")
            XCTAssertEqual(problems, [])
            XCTAssertEqual(theme.style(.done).foreground.index(for: .palette256), n)
        }
    }

    func testAnsiColoursKeepTheirIndexAt16AndUpAndLoseBrightnessAt8() {
        XCTAssertEqual(ThemeColor.ansi(12).index(for: .ansi8), 4)
        XCTAssertEqual(ThemeColor.ansi(8).index(for: .ansi8), 0)
        XCTAssertEqual(ThemeColor.ansi(3).index(for: .ansi8), 3)
        XCTAssertEqual(ThemeColor.ansi(12).index(for: .ansi16), 12)
        XCTAssertEqual(ThemeColor.ansi(12).index(for: .palette256), 12)
        XCTAssertEqual(ThemeColor.ansi(12).index(for: .trueColor), 12)
        XCTAssertEqual(ThemeColor.ansi(196).index(for: .palette256), 196)
        XCTAssertEqual(ThemeColor.ansi(196).index(for: .ansi16), 9)
        XCTAssertNil(ThemeColor.ansi(256).index(for: .palette256))
        XCTAssertNil(ThemeColor.ansi(-1).index(for: .ansi16))
    }

    func testNoColourDepthAndTheTerminalDefaultHaveNoIndex() {
        for colour in [ThemeColor.ansi(1), .rgb(1, 2, 3), .terminalDefault] {
            XCTAssertNil(colour.index(for: .none))
        }
        for depth in [ColorDepth.ansi8, .ansi16, .palette256, .trueColor] {
            XCTAssertNil(ThemeColor.terminalDefault.index(for: depth))
        }
    }

    // MARK: - Catalog

    func testCatalogNamesAreSortedUniqueAndIncludeDefault() {
        let catalog = memoryCatalog(user: "/u", bundled: ["/b1", "/b2"], files: [
            "/b1/light.theme": "", "/b1/gruvbox.theme": "", "/b1/notes.txt": "", "/b1/.theme": "",
            "/b2/light.theme": "", "/b2/nord.theme": "",
            "/u/zeta.theme": "", "/u/gruvbox.theme": "",
        ])
        XCTAssertEqual(catalog.names, ["default", "gruvbox", "light", "nord", "zeta"])
        XCTAssertEqual(memoryCatalog(user: nil, bundled: [], files: [:]).names, ["default"])
    }

    func testUserThemeOverridesBundledThemeOfTheSameName() {
        let catalog = memoryCatalog(user: "/u", bundled: ["/b"], files: [
            "/b/gruvbox.theme": "name = Bundled\ndone = green\n",
            "/u/gruvbox.theme": "name = Mine\ndone = magenta\n",
        ])
        let (theme, problems) = catalog.load("gruvbox")
        XCTAssertEqual(problems, [])
        XCTAssertEqual(theme.displayName, "Mine")
        XCTAssertEqual(theme.style(.done), Style(.ansi(5)))
    }

    func testEarlierBundledDirectoryWinsOverALaterOne() {
        let catalog = memoryCatalog(user: nil, bundled: ["/first", "/second"], files: [
            "/first/nord.theme": "done = blue\n", "/second/nord.theme": "done = red\n",
        ])
        XCTAssertEqual(catalog.load("nord").0.style(.done), Style(.ansi(4)))
    }

    func testLoadedThemeIsNamedAfterItsFileAndPatchesTheBuiltInDefault() {
        let catalog = memoryCatalog(user: nil, bundled: ["/b/"], files: ["/b/my-theme.theme": "done = red\n"])
        let (theme, problems) = catalog.load("my-theme")
        XCTAssertEqual(problems, [])
        XCTAssertEqual(theme.name, "my-theme")
        XCTAssertEqual(theme.displayName, "my-theme")
        XCTAssertEqual(theme.style(.done), Style(.ansi(1)))
        XCTAssertEqual(theme.style(.header), base.style(.header))
    }

    func testUnknownThemeNameFallsBackToTheDefaultWithAMessageListingTheNames() {
        let catalog = memoryCatalog(user: nil, bundled: ["/b"], files: ["/b/light.theme": "", "/b/gruvbox.theme": ""])
        let (theme, problems) = catalog.load("solar")
        XCTAssertEqual(theme, base)
        XCTAssertEqual(problems, ["no theme named 'solar' (available: default, gruvbox, light), using the default theme"])
    }

    func testDefaultWithoutAFileIsTheBuiltInDefaultWithoutMessages() {
        let (theme, problems) = memoryCatalog(user: nil, bundled: [], files: [:]).load("default")
        XCTAssertEqual(theme, base)
        XCTAssertEqual(problems, [])
    }

    func testProblemsInACatalogThemeNameItsPathAndLine() {
        let catalog = memoryCatalog(user: "/u", bundled: [], files: ["/u/odd.theme": "done = red\nheat9 = blue\n"])
        let (theme, problems) = catalog.load("odd")
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.first?.hasPrefix("/u/odd.theme line 2: unknown role 'heat9'") == true, "\(problems)")
        XCTAssertEqual(theme.style(.done), Style(.ansi(1)))
    }

    func testUnreadableThemeFileFallsBackToTheDefaultWithAMessage() {
        let catalog = ThemeCatalog(userDirectory: "/u", bundledDirectories: [],
                                   listFiles: { _ in ["gone.theme"] }, readFile: { _ in nil })
        let (theme, problems) = catalog.load("gone")
        XCTAssertEqual(theme, base)
        XCTAssertEqual(problems, ["/u/gone.theme could not be read, using the default theme"])
    }

    func testLiveCatalogLoadsTheRepositoryThemes() throws {
        let catalog = ThemeCatalog(userDirectory: "/nonexistent/habitto-themes", bundledDirectories: [themesDirectory],
                                   listFiles: ThemeCatalog.live.listFiles, readFile: ThemeCatalog.live.readFile)
        XCTAssertEqual(catalog.names, try bundledThemeFiles().map { $0.name }.sorted())
        let (theme, problems) = catalog.load("gruvbox")
        XCTAssertEqual(problems, [])
        XCTAssertEqual(theme.displayName, "Gruvbox Dark")
        XCTAssertEqual(theme.style(.done), Style(.rgb(0xb8, 0xbb, 0x26), habitColor: true))
        XCTAssertNil(ThemeCatalog.live.readFile(themesDirectory))
        XCTAssertEqual(ThemeCatalog.live.listFiles("/nonexistent/habitto-themes"), [])
    }

    func testUserDirectoryFollowsXDGConfigHomeThenHome() {
        XCTAssertEqual(ThemeCatalog.userDirectory(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]),
                       "/x/habitto/themes")
        XCTAssertEqual(ThemeCatalog.userDirectory(environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"]),
                       "/h/.config/habitto/themes")
        XCTAssertNil(ThemeCatalog.userDirectory(environment: [:]))
    }

    func testBundledDirectoriesFindAThemesFolderWalkingUpFromTheExecutable() throws {
        let root = try temporaryDirectory()
        try makeDirectory(root + "/repo/Themes")
        let exe = try makeExecutable(root + "/repo/.build/x86_64-unknown-linux-gnu/debug/habitto")
        XCTAssertEqual(ThemeCatalog.bundledDirectories(executablePath: exe, environment: [:]), [root + "/repo/Themes"])
    }

    func testBundledDirectoriesLookNoMoreThanSixLevelsUp() throws {
        let root = try temporaryDirectory()
        try makeDirectory(root + "/a/Themes")
        let seven = try makeExecutable(root + "/a/1/2/3/4/5/6/7/habitto")
        XCTAssertEqual(ThemeCatalog.bundledDirectories(executablePath: seven, environment: [:]), [])
        let six = try makeExecutable(root + "/a/1/2/3/4/5/6/habitto")
        XCTAssertEqual(ThemeCatalog.bundledDirectories(executablePath: six, environment: [:]), [root + "/a/Themes"])
    }

    func testBundledDirectoriesPutTheEnvironmentFirstThenTheInstalledShareFolder() throws {
        let root = try temporaryDirectory()
        let prefix = root + "/1/2/3/4/5/6/prefix"
        try makeDirectory(prefix + "/share/habitto/themes")
        let exe = try makeExecutable(prefix + "/bin/habitto")
        XCTAssertEqual(ThemeCatalog.bundledDirectories(executablePath: exe, environment: ["HABITTO_THEMES_DIR": "/custom"]),
                       ["/custom", prefix + "/share/habitto/themes"])
        XCTAssertEqual(ThemeCatalog.bundledDirectories(executablePath: exe, environment: ["HABITTO_THEMES_DIR": ""]),
                       [prefix + "/share/habitto/themes"])
    }

    func testBundledDirectoriesFollowASymlinkedExecutable() throws {
        let root = try temporaryDirectory()
        try makeDirectory(root + "/repo/Themes")
        let exe = try makeExecutable(root + "/repo/.build/debug/habitto")
        try makeDirectory(root + "/bin")
        try FileManager.default.createSymbolicLink(atPath: root + "/bin/habitto", withDestinationPath: exe)
        XCTAssertEqual(ThemeCatalog.bundledDirectories(executablePath: root + "/bin/habitto", environment: [:]),
                       [root + "/repo/Themes"])
    }

    // MARK: - Helpers

    private func parse(_ text: String) -> (Theme, [String]) {
        Theme.parse(text, name: "test", file: "t.theme", over: base)
    }

    /// Parses `text` and checks that `role` got `expected`, with no problems.
    private func assertStyle(_ text: String, _ role: Role, _ expected: Style,
                             file: StaticString = #filePath, line: UInt = #line) {
        let (theme, problems) = parse(text)
        XCTAssertEqual(problems, [], "for '\(text)'", file: file, line: line)
        XCTAssertEqual(theme.styles[role], expected, "for '\(text)'", file: file, line: line)
    }

    /// Puts `badLine` on line 2 after a good line and checks for exactly one message naming
    /// the file and line 2 and containing `fragment`, with the default kept for `done`.
    private func assertOneProblem(_ badLine: String, contains fragment: String,
                                  file: StaticString = #filePath, line: UInt = #line) {
        let (theme, problems) = parse("streak = blue\n\(badLine)\n")
        XCTAssertEqual(problems.count, 1, "for '\(badLine)': \(problems)", file: file, line: line)
        let message = problems.first ?? ""
        XCTAssertTrue(message.hasPrefix("t.theme line 2: "), message, file: file, line: line)
        XCTAssertTrue(message.contains(fragment), "for '\(badLine)': \(message)", file: file, line: line)
        XCTAssertTrue(message.hasSuffix(", using the default for it"), message, file: file, line: line)
        XCTAssertEqual(theme.styles[.done], base.styles[.done], "for '\(badLine)'", file: file, line: line)
        XCTAssertEqual(theme.displayName, "test", "for '\(badLine)'", file: file, line: line)
        XCTAssertEqual(theme.styles[.streak], Style(.ansi(4)), "for '\(badLine)'", file: file, line: line)
    }

    private func memoryCatalog(user: String?, bundled: [String], files: [String: String]) -> ThemeCatalog {
        ThemeCatalog(userDirectory: user, bundledDirectories: bundled,
                     listFiles: { directory in
                         let prefix = directory.hasSuffix("/") ? directory : directory + "/"
                         return files.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
                     },
                     readFile: { files[$0] })
    }

    private var themesDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Themes").path
    }

    /// Every `Themes/*.theme` file of the repository, by base name.
    private func bundledThemeFiles(file: StaticString = #filePath, line: UInt = #line) throws -> [(name: String, text: String)] {
        let entries = try FileManager.default.contentsOfDirectory(atPath: themesDirectory).sorted()
        let files = try entries.filter { $0.hasSuffix(".theme") }.map { entry in
            (name: String(entry.dropLast(".theme".count)),
             text: try String(contentsOfFile: themesDirectory + "/" + entry, encoding: .utf8))
        }
        XCTAssertGreaterThanOrEqual(files.count, 6, "Themes/ holds too few themes", file: file, line: line)
        return files
    }

    /// A fresh directory (symbolic links resolved), removed after the test.
    private func temporaryDirectory() throws -> String {
        let path = standardized(FileManager.default.temporaryDirectory
            .appendingPathComponent("habitto-theme-tests-\(UUID().uuidString)").path)
        try makeDirectory(path)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    private func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    private func makeExecutable(_ path: String) throws -> String {
        try makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n".utf8)))
        return path
    }

    private func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardized.path }
}
