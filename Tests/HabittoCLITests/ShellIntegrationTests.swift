import Foundation
import XCTest
import HabitCore

/// Habitto in a terminal user's setup: the prompt segment (`status --short`), the shell
/// completions run in real shells, the man page through man and groff, and `make install`.
final class ShellIntegrationTests: XCTestCase {
    var box: Sandbox!
    override func setUp() { box = Sandbox() }
    override func tearDown() { box = nil }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Four habits on Saturday 2026-11-21: Read (done), Drink water (1 of 8), Walk (skipped),
    /// Stretch (Mondays, not due).
    func addHabits() {
        box.ok("add", "Read")
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses")
        box.ok("add", "Walk")
        box.ok("add", "Stretch", "--schedule", "mon")
        box.ok("check", "Read")
        box.ok("check", "Drink water")
        box.ok("skip", "Walk")
    }

    /// Every file of the data directory with its size and modification time.
    func listing() -> [String] {
        let files = FileManager.default.enumerator(atPath: box.home)?.allObjects as? [String] ?? []
        return files.sorted().map { f in
            let a = try? FileManager.default.attributesOfItem(atPath: box.home + "/" + f)
            return "\(f) \(a?[.size] ?? 0) \((a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
    }

    // MARK: Prompt segment

    func testStatusShortCountsTheHabitsDoneAndDueTodayAndWritesOnlyItsCache() {
        addHabits()
        let before = listing()
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2\n")
        let cached = listing()
        XCTAssertEqual(cached.filter { !$0.hasPrefix("segment ") }, before, "the segment wrote to the data directory")
        XCTAssertEqual(cached.filter { $0.hasPrefix("segment ") }.count, 1, "no cache was written")
        XCTAssertEqual(box.ok("status", "--format", "%d of %t done (%q queued)%s %%"), "1 of 2 done (0 queued) %\n")
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2\n")
        XCTAssertEqual(listing(), cached, "a segment answered from the cache wrote to the data directory")
        box.ok("check", "Drink water", "--amount", "7")
        XCTAssertEqual(box.ok("status", "--short"), "✓2/2\n")
    }

    /// The cache file's counts replaced by others that no count could give.
    func tamper() throws {
        let path = box.home + "/segment"
        let line = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(line.hasSuffix(" 1 2 - 0\n"), line)
        try (String(line.dropLast(" 1 2 - 0\n".count)) + " 7 9 - 0\n").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(box.ok("status", "--short"), "✓7/9\n", "a key that matches is answered from the cache alone")
    }

    /// The cache answers only for the data, the day and the week start it counted: a
    /// check-in, another day, another week start or damage to the file all count again.
    func testTheCacheAnswersOnlyWhileTheDataTheDayAndTheWeekStartAreUnchanged() throws {
        addHabits()
        // Swim, once a week, done on Sunday 2026-11-15: due today when weeks start on
        // Monday, already done this week when they start on Sunday.
        box.ok("add", "Swim", "--schedule", "1/week", "--start", "2026-11-01")
        box.ok("check", "Swim", "--date", "2026-11-15")
        XCTAssertEqual(box.ok("status", "--short"), "✓1/3\n")
        box.ok("archive", "Swim")
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2\n", "an archive is a change to the data")
        try tamper()

        box.now = "2026-11-22T09:00:00"
        XCTAssertEqual(box.ok("status", "--short"), "✓0/3\n", "another day")
        box.now = "2026-11-21T23:59:00"
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2\n")
        try tamper()

        box.ok("unarchive", "Swim")
        XCTAssertEqual(box.ok("status", "--short"), "✓1/3\n")
        try FileManager.default.createDirectory(atPath: box.config + "/habitto", withIntermediateDirectories: true)
        try Data("week_start = sunday\n".utf8).write(to: URL(fileURLWithPath: box.config + "/habitto/config"))
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2\n", "another week start")
        try tamper()

        for damage in ["", "garbage\n", String(repeating: "x", count: 5000)] {
            try Data(damage.utf8).write(to: URL(fileURLWithPath: box.home + "/segment"))
            XCTAssertEqual(box.ok("status", "--short"), "✓1/2\n", "damage \(damage.prefix(9).debugDescription)")
            XCTAssertTrue(try String(contentsOfFile: box.home + "/segment", encoding: .utf8).hasSuffix(" 1 2 - 0\n"),
                          "the damaged cache was not replaced")
        }
        box.ok("check", "Drink water", "--amount", "7")
        XCTAssertEqual(box.ok("status", "--short"), "✓2/2\n")
    }

    /// The README's tmux line, in a real tmux whose status line is read back: a tmux client
    /// attached inside another tmux's window, whose screen shows the inner status line. It
    /// follows check-ins made from another shell, through the segment's cache.
    func testTheSegmentInATmuxStatusLineFollowsCheckIns() throws {
        addHabits()
        let inner = try TmuxSession.forTest(box: box), outer = try TmuxSession.forTest(box: box)
        defer { outer.kill(); inner.kill() }
        let env = box.environment.filter { ["HABITTO_HOME", "XDG_CONFIG_HOME", "HABITTO_NOW", "TZ", "LANG"].contains($0.key) }
            .sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        inner.tmux(["new-session", "-d", "-s", "ui", "-x", "60", "-y", "5", "sleep", "600"])
        inner.tmux(["set", "-g", "status-interval", "1"])
        inner.tmux(["set", "-g", "status-right", "#(\(env) '\(Sandbox.binary)' status --short) "])
        let path = TmuxSession.tmuxPath ?? "/usr/bin/tmux"
        outer.tmux(["new-session", "-d", "-s", "ui", "-x", "60", "-y", "5", "sh", "-c",
                    "unset TMUX; LANG=C.UTF-8 exec '\(path)' -u -L '\(inner.socket)' -f /dev/null attach -t ui"])
        outer.waitFor(text: "✓1/2")
        box.ok("check", "Drink water", "--amount", "7")
        outer.waitFor(text: "✓2/2")
        box.ok("uncheck", "Read")
        outer.waitFor(text: "✓1/2")
        XCTAssertTrue(FileManager.default.fileExists(atPath: box.home + "/segment"), "the status line did not use the cache")
    }

    func testStatusShortIsASCIIWithTheOptionAndUnderALocaleThatIsNotUTF8() {
        addHabits()
        XCTAssertEqual(box.ok("status", "--short", "--ascii"), "+1/2\n")
        box.extraEnv["LANG"] = "C"
        XCTAssertEqual(box.ok("status", "--short"), "+1/2\n")
    }

    func testStatusShortWithoutDataPrintsZeroAndCreatesNothing() {
        XCTAssertEqual(box.ok("status", "--short"), "✓0/0\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: box.home), "the segment created the data directory")
    }

    func testStatusShortShowsTheQueueWithARemoteAndAMarkWhenTheLastSyncFailed() throws {
        addHabits()
        let remote = box.root + "/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        box.ok("remote", "set", "dir:" + remote)
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2\n", "everything is sent: nothing about sync")
        XCTAssertEqual(box.ok("status", "--format", "[%s%q]"), "[✓0]\n")
        box.ok("check", "Drink water")
        box.ok("check", "Drink water")
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2 ↑2\n")
        XCTAssertEqual(box.ok("status", "--short", "--ascii"), "+1/2 ^2\n")
        // The remote folder replaced by a file: the next sync fails.
        try FileManager.default.removeItem(atPath: remote)
        XCTAssertTrue(FileManager.default.createFile(atPath: remote, contents: Data("x".utf8)))
        XCTAssertEqual(box.run("sync").status, 4)
        XCTAssertEqual(box.ok("status", "--short"), "✓1/2 ↑2!\n")
        XCTAssertEqual(box.ok("status", "--format", "%s"), "!\n")
    }

    func testAnUnknownPlaceholderOrALonePercentIsAUsageError() {
        addHabits()
        let r = box.run("status", "--format", "%d/%y")
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "habitto: unknown placeholder '%y' in --format: use %d %t %q %s %S %g %%\n")
        XCTAssertEqual(box.run("status", "--format", "100%").status, 2)
        XCTAssertEqual(box.run("status", "--short", "--json").status, 2)
    }

    // MARK: Completions

    /// bash's completion of the command line `words` (after `habitto`, the last one being
    /// completed), with the script from `completions bash` sourced. The function gets, as
    /// from readline, the text it replaces: the last word, after its opening quote if any.
    func bash(_ words: [String], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        let all = [Sandbox.binary] + words
        let last = all[all.count - 1]
        let text = last.hasPrefix("\"") || last.hasPrefix("'") ? String(last.dropFirst()) : last == "=" ? "" : last
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let program = "source <('\(Sandbox.binary)' completions bash) || exit 9; COMP_WORDS=(\(all.map(quoted).joined(separator: " "))); "
            + "COMP_CWORD=\(all.count - 1); _habitto habitto \(quoted(text)) \(quoted(all[all.count - 2])); printf '%s\\n' \"${COMPREPLY[@]}\""
        let r = box.run(["-c", program], program: "/bin/bash", file: file, line: line)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return r.stdout.split(separator: "\n").map(String.init)
    }

    func testBashCompletesCommandsOptionsAndTheirValues() {
        let r = box.run(["-c", "source <('\(Sandbox.binary)' completions bash); complete -p habitto"], program: "/bin/bash")
        XCTAssertEqual(r.stdout, "complete -F _habitto habitto\n")
        // Every command of the help, and no hidden one.
        let help = box.ok("--help").split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        XCTAssertGreaterThan(help.count, 20)
        XCTAssertEqual(bash([""]), help)
        XCTAssertEqual(bash(["st"]), ["stats", "status"])
        XCTAssertEqual(bash(["--"]), ["--home", "--theme", "--ascii", "--help", "--version"])
        XCTAssertEqual(bash(["check", "--d"]), ["--date", "--difficulty"])
        XCTAssertEqual(bash(["status", "--"]), ["--json", "--short", "--format", "--waybar", "--i3blocks", "--watch", "--home", "--ascii", "--help"])
        XCTAssertEqual(bash(["check", "Read", "--date", "y"]), ["yesterday"])
        XCTAssertEqual(bash(["add", "Run", "--schedule", "week"]), ["weekdays", "weekends"])
        XCTAssertEqual(bash(["import", "x", "--from", ""]), ["habitto-legacy", "loop-csv", "harsh", "json"])
        XCTAssertEqual(bash(["show", "Read", "--chart", "s"]), ["score", "streaks"])
        XCTAssertEqual(bash(["export", "--format", "=", "c"]), ["csv"], "--format=c")
        XCTAssertEqual(bash(["remote", ""]), ["set", "show", "key"])
        XCTAssertEqual(bash(["completions", ""]), ["bash", "zsh", "fish"])
        XCTAssertEqual(bash(["status", "--format", ""]), [], "a free value completes to nothing")
    }

    func testBashCompletesHabitNamesWithSpacesFromTheDataDirectory() throws {
        addHabits()
        XCTAssertEqual(bash(["check", "Dr"]), ["Drink\\ water"])
        XCTAssertEqual(bash(["check", "Drink\\ w"]), ["Drink\\ water"])
        XCTAssertEqual(bash(["check", "\"Dri"]), ["Drink water"], "after an opening quote, bash quotes it")
        XCTAssertEqual(bash(["move", "Read", "--before", ""]), ["Read", "Drink\\ water", "Walk", "Stretch"])
        XCTAssertEqual(bash(["rate", "Read", ""]), ["1", "2", "3", "4", "5", "clear"])
        XCTAssertEqual(bash(["check", "Read", ""]), [], "check takes one habit")
        // --home on the command line is where the names come from.
        let other = box.root + "/other"
        box.ok("--home", other, "add", "Floss daily")
        XCTAssertEqual(bash(["--home", other, "check", "F"]), ["Floss\\ daily"])
        XCTAssertEqual(bash(["--theme", "dra"]), ["dracula"])
    }

    /// `log` completes its options, dates, habit names and the starts of the ids of the
    /// devices whose changes this one holds (`__complete devices`).
    func testBashCompletesTheLogsOptionsHabitsAndDevices() throws {
        addHabits()
        let device = try XCTUnwrap(String(data: FileManager.default.contents(atPath: box.home + "/device") ?? Data(), encoding: .utf8))
        XCTAssertEqual(bash(["log", "--"]), ["--device", "--since", "--until", "--json", "--home", "--ascii", "--help"])
        XCTAssertEqual(bash(["log", "--since", "y"]), ["yesterday"])
        XCTAssertEqual(bash(["log", "Dr"]), ["Drink\\ water"])
        XCTAssertEqual(bash(["log", "--device", ""]), [String(device.prefix(8))])
        XCTAssertEqual(box.ok("__complete", "devices"), String(device.prefix(8)) + "\n")
    }

    /// The path of `tool`; a machine without it fails the test, never skips it (.ci/test.sh
    /// installs it), as a missing tmux does.
    static func tool(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
            return dir + "/" + name
        }
        XCTFail("\(name) is not installed; run the suite with 'bash .ci/test.sh', which installs it", file: file, line: line)
        throw XCTestError(.failureWhileWaiting)
    }

    func testTheZshAndFishScriptsAreValidAndFishCompletesNamesAndValues() throws {
        let zsh = try Self.tool("zsh"), fish = try Self.tool("fish")
        let zshScript = box.root + "/_habitto", fishScript = box.root + "/habitto.fish"
        try box.ok("completions", "zsh").write(toFile: zshScript, atomically: true, encoding: .utf8)
        try box.ok("completions", "fish").write(toFile: fishScript, atomically: true, encoding: .utf8)
        let z = box.run(["-n", zshScript], program: zsh)
        XCTAssertEqual(z.status, 0, z.stderr)
        let f = box.run(["-n", fishScript], program: fish)
        XCTAssertEqual(f.status, 0, f.stderr)
        addHabits()
        let binDir = (Sandbox.binary as NSString).deletingLastPathComponent
        box.extraEnv["PATH"] = binDir + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        func fishCompletes(_ line: String) -> [String] {
            let r = box.run(["--no-config", "-c", "source \(fishScript); complete -C '\(line)'"], program: fish)
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        XCTAssertEqual(fishCompletes("habitto stat"), ["stats", "status"])
        XCTAssertEqual(fishCompletes("habitto check Dr"), ["Drink water"])
        XCTAssertEqual(fishCompletes("habitto show Read --chart s"), ["score", "streaks"])
    }

    // MARK: Man page

    func testTheManPageRendersWithoutWarningsAndHoldsEveryCommandKeysAndExitCodes() throws {
        let page = box.root + "/habitto.1"
        try box.ok("__man").write(toFile: page, atomically: true, encoding: .utf8)
        assertManPage(page)
    }

    /// `man -l` and groff read `page` without a warning, and it documents every command.
    func assertManPage(_ page: String, file: StaticString = #filePath, line: UInt = #line) {
        box.extraEnv["MANWIDTH"] = "80"
        let man = box.run(["--warnings", "-l", page], program: "/usr/bin/man", file: file, line: line)
        XCTAssertEqual(man.status, 0, man.stderr, file: file, line: line)
        XCTAssertEqual(man.stderr, "", file: file, line: line)
        let groff = box.run(["-ww", "-z", "-man", page], program: "/usr/bin/groff", file: file, line: line)
        XCTAssertEqual(groff.status, 0, file: file, line: line)
        XCTAssertEqual(groff.stderr, "", file: file, line: line)
        let text = man.stdout.replacingOccurrences(of: "\u{2010}", with: "-")
        let commands = box.ok("--help").split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first }
        for c in commands { XCTAssertTrue(text.contains("habitto \(c)"), "no \(c) in the man page", file: file, line: line) }
        for heading in ["SYNOPSIS", "COMMANDS", "KEYS", "FILES", "ENVIRONMENT", "EXIT STATUS"] {
            XCTAssertTrue(text.contains("\n" + heading + "\n"), heading, file: file, line: line)
        }
        for phrase in ["check in", "HABITTO_HOME", "NO_COLOR", "the doctor found problems", "--format FORMAT"] {
            XCTAssertTrue(text.contains(phrase), phrase, file: file, line: line)
        }
    }

    // MARK: Install

    func testMakeInstallPutsEveryFileInPlaceAndUninstallRemovesThem() throws {
        let dest = box.root + "/dest"
        let binDir = (Sandbox.binary as NSString).deletingLastPathComponent
        let make = try Self.tool("make")
        let args = ["-C", Self.repository, "DESTDIR=" + dest, "PREFIX=/usr", "BUILT=" + binDir]
        let installed = box.run(args + ["install"], program: make)
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let usr = dest + "/usr"
        let themes = try FileManager.default.contentsOfDirectory(atPath: Self.repository + "/Themes").filter { $0.hasSuffix(".theme") }
        var expected = ["bin/habitto", "bin/habitto-webdav", "share/man/man1/habitto.1", "share/bash-completion/completions/habitto",
                        "share/zsh/site-functions/_habitto", "share/fish/vendor_completions.d/habitto.fish"]
        expected += themes.map { "share/habitto/themes/" + $0 }
        XCTAssertEqual(Self.files(under: usr), expected.sorted())
        // The installed binary runs and finds its themes next to it.
        let binary = usr + "/bin/habitto"
        XCTAssertTrue(box.run(["--version"], program: binary).stdout.hasPrefix("habitto \(HabittoVersion.current)\n"))
        let names = box.run(["__complete", "themes"], program: binary).stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(names, Set(["default"] + themes.map { String($0.dropLast(".theme".count)) }).sorted())
        assertManPage(usr + "/share/man/man1/habitto.1")
        let sourced = box.run(["-c", "source \(usr)/share/bash-completion/completions/habitto; complete -p habitto"], program: "/bin/bash")
        XCTAssertEqual(sourced.stdout, "complete -F _habitto habitto\n")
        let removed = box.run(args + ["uninstall"], program: make)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(Self.files(under: usr), [])
    }

    /// The files (not directories) under `dir`, as sorted relative paths.
    static func files(under dir: String) -> [String] {
        (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter { path in
            (try? FileManager.default.attributesOfItem(atPath: dir + "/" + path))?[.type] as? FileAttributeType != .typeDirectory
        }.sorted()
    }
}
