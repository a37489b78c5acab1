import Foundation
import XCTest
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

/// The packages of `make deb` and `make dist`, built from the static release build (a build
/// already made is reused: the first run builds it, several minutes). The .deb is checked
/// with lintian, installed into this machine with dpkg, run from the installed files (the
/// binary, its themes, the man page and the completions), removed, and every file it
/// installed must be gone. The tarball is installed with its install.sh under a prefix and
/// uninstalled. Installing into the machine needs root, which CI has: there the test always
/// runs; elsewhere it is skipped without root or where a habitto is installed already.
final class PackageTests: XCTestCase {
    static let repository = ShellIntegrationTests.repository
    private var scratch: String!

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "habitto-package-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A run's exit status (nil: it did not exit by itself) and its output and errors together.
    struct Ran { let status: Int32?; let output: String }

    /// Runs `program` with `args` in a small environment (the system's PATH, a HOME of the
    /// test's own, a UTF-8 locale; `env` adds to it or replaces them), killed after `seconds`.
    func run(_ program: String, _ args: [String], seconds: Double = 120, env: [String] = []) -> Ran {
        let base = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + scratch, "LANG=C.UTF-8", "TERM=dumb", "TZ=UTC"]
            .filter { entry in !env.contains { $0.hasPrefix(entry.prefix { $0 != "=" } + "=") } }
        let result = OutsideProgram(program, args, timeLimit: seconds, outputLimit: 16 << 20, errors: .merge,
                                    environment: .exactly(base + env)).run()
        let status: Int32? = if case .exited(let s) = result.outcome { s } else { nil }
        return Ran(status: status, output: String(decoding: result.output, as: UTF8.self))
    }

    /// Runs and asserts exit status 0; returns the output.
    @discardableResult
    func ok(_ program: String, _ args: [String], seconds: Double = 120, env: [String] = [],
            file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(program, args, seconds: seconds, env: env)
        XCTAssertEqual(r.status, 0, "\(program) \(args.joined(separator: " ")): \(r.output.suffix(3000))", file: file, line: line)
        return r.output
    }

    /// `make TARGET` in the repository: the release build (reused when made) and the package.
    func make(_ target: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        // This process's PATH, where swift is.
        ok(try ShellIntegrationTests.tool("make"), ["-C", Self.repository, target], seconds: 3600,
           env: ["PATH=" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")], file: file, line: line)
    }

    var themes: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: Self.repository + "/Themes")) ?? []).filter { $0.hasSuffix(".theme") }
    }

    func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// The files and links a .deb holds (`dpkg-deb -c`), as absolute paths, and its directories.
    func contents(of deb: String) -> (files: [String], directories: [String]) {
        var files: [String] = [], directories: [String] = []
        for row in ok("/usr/bin/dpkg-deb", ["-c", deb]).split(separator: "\n") {
            guard let dot = row.range(of: " ./") else { continue }
            var path = String(row[dot.upperBound...])
            if let arrow = path.range(of: " -> ") { path = String(path[..<arrow.lowerBound]) }
            if row.hasPrefix("d") { if !path.isEmpty { directories.append("/" + path.dropLast()) } } else { files.append("/" + path) }
        }
        return (files.sorted(), directories)
    }

    func testDebianPackageIsLintianCleanInstallsRunsAndRemovesEverything() throws {
        guard getuid() == 0, !exists("/usr/bin/habitto") else {
            // Under CI (root, a fresh machine) this must run: there it fails instead.
            let why = "installing the package needs root and a machine without /usr/bin/habitto"
            if ProcessInfo.processInfo.environment["CI"] == "true" { return XCTFail(why + " (CI runs the tests as root)") }
            throw XCTSkip(why)
        }
        let arch = ok("/usr/bin/dpkg", ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let name = "habitto_\(HabittoVersion.current)_\(arch).deb"
        let built = try make("deb")
        XCTAssertTrue(built.contains("built \(name) (Depends: "), built.suffix(2000).description)
        let deb = Self.repository + "/" + name

        // The control fields: the version of `habitto --version`, Depends computed from the
        // libraries the binaries load (each an installed package; the C library and libcurl,
        // which habitto-webdav loads, among them; nothing of Swift's, which is linked in).
        let fields = ok("/usr/bin/dpkg-deb", ["-f", deb, "Package", "Version", "Architecture", "Depends", "Recommends", "Suggests"])
        XCTAssertTrue(fields.contains("Package: habitto\nVersion: \(HabittoVersion.current)\nArchitecture: \(arch)\n"), fields)
        XCTAssertTrue(fields.contains("Recommends: libnotify-bin\nSuggests: age, unzip\n"), fields)
        let depends = fields.split(separator: "\n").first { $0.hasPrefix("Depends: ") }.map { $0.dropFirst(9) }
            .map { $0.components(separatedBy: ", ") } ?? []
        XCTAssertTrue(depends.contains("libc6"), fields)
        XCTAssertTrue(depends.contains { $0.hasPrefix("libcurl") }, fields)
        XCTAssertFalse(depends.contains { $0.contains("swift") }, fields)
        for package in depends {
            XCTAssertEqual(run("/usr/bin/dpkg-query", ["-W", "-f", "${db:Status-Abbrev}", package]).output, "ii ", package)
        }

        let (files, directories) = contents(of: deb)
        var expected = ["/usr/bin/habitto", "/usr/bin/habitto-webdav", "/usr/share/man/man1/habitto.1.gz",
                        "/usr/share/bash-completion/completions/habitto", "/usr/share/zsh/vendor-completions/_habitto",
                        "/usr/share/fish/vendor_completions.d/habitto.fish", "/usr/share/doc/habitto/copyright",
                        "/usr/share/doc/habitto/changelog.gz"]
        expected += themes.map { "/usr/share/habitto/themes/" + $0 }
        XCTAssertEqual(files, expected.sorted())

        let lintian = run("/usr/bin/lintian", ["--fail-on", "error", deb], seconds: 900)
        XCTAssertEqual(lintian.status, 0, lintian.output)
        XCTAssertFalse(lintian.output.split(separator: "\n").contains { $0.hasPrefix("E: ") }, lintian.output)

        // Installed into the machine; removed whatever happens below.
        ok("/usr/bin/dpkg", ["-i", deb], seconds: 300)
        var removed = false
        defer { if !removed { _ = run("/usr/bin/dpkg", ["-r", "habitto"], seconds: 300) } }
        XCTAssertEqual(run("/usr/bin/dpkg-query", ["-W", "-f", "${db:Status-Abbrev} ${Version}", "habitto"]).output,
                       "ii  \(HabittoVersion.current)")

        let habitto = "/usr/bin/habitto"
        XCTAssertTrue(ok(habitto, ["--version"]).hasPrefix("habitto \(HabittoVersion.current)\n"))
        let home = scratch + "/home"
        ok(habitto, ["--home", home, "add", "Read"])
        XCTAssertTrue(ok(habitto, ["--home", home, "check", "Read"]).hasPrefix("✓ 'Read' today"))
        let list = ok(habitto, ["--home", home, "list"])
        XCTAssertTrue(list.split(separator: "\n").contains { $0.hasPrefix("✓") && $0.contains(" Read ") }, list)
        // Its themes, from /usr/share/habitto/themes beside /usr/bin.
        let names = ok(habitto, ["__complete", "themes"]).split(separator: "\n").map(String.init)
        XCTAssertEqual(names, Set(["default"] + themes.map { String($0.dropLast(".theme".count)) }).sorted())

        // The man page, found by man as the installed file and rendered.
        XCTAssertEqual(ok("/usr/bin/man", ["-w", "habitto"]), "/usr/share/man/man1/habitto.1.gz\n")
        let page = ok("/usr/bin/man", ["habitto"], env: ["MANPAGER=cat", "MANWIDTH=100"])
        for text in ["SYNOPSIS", "habitto check", "HABITTO_HOME", "EXIT STATUS"] { XCTAssertTrue(page.contains(text), text) }

        // The bash completion from the installed file: commands, and habit names through the
        // installed binary on PATH.
        func bash(_ words: [String]) -> [String] {
            let all = ["habitto"] + words
            let program = "source /usr/share/bash-completion/completions/habitto || exit 9; COMP_WORDS=(\(all.joined(separator: " "))); "
                + "COMP_CWORD=\(all.count - 1); _habitto habitto '\(all[all.count - 1])' '\(all[all.count - 2])'; printf '%s\\n' \"${COMPREPLY[@]}\""
            return ok("/bin/bash", ["-c", program]).split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(bash(["st"]), ["stats", "status"])
        XCTAssertEqual(bash(["--home", home, "check", "R"]), ["Read"])
        // zsh and fish find theirs where they look by default.
        XCTAssertEqual(ok("/usr/bin/zsh", ["-fc", "print -rl -- $^fpath/_habitto(N)"]), "/usr/share/zsh/vendor-completions/_habitto\n")
        let fish = ok("/usr/bin/fish", ["-c", "complete -C 'habitto st'"]).split(separator: "\n")
            .map { String($0.split(separator: "\t").first ?? "") }
        XCTAssertEqual(fish, ["stats", "status"])

        // Removed: every file and link it installed is gone, and its own directories.
        ok("/usr/bin/dpkg", ["-r", "habitto"], seconds: 300)
        removed = true
        for path in files { XCTAssertFalse(exists(path), "\(path) is left after dpkg -r") }
        for path in directories where path.contains("habitto") { XCTAssertFalse(exists(path), "\(path) is left after dpkg -r") }
        XCTAssertNotEqual(run("/usr/bin/dpkg-query", ["-W", "-f", "${db:Status-Abbrev}", "habitto"]).output, "ii ")
    }

    func testTarballInstallsItsFilesUnderAPrefixAndUninstallsThem() throws {
        let arch = ok("/usr/bin/dpkg", ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let name = "habitto-\(HabittoVersion.current)-\(arch)"
        XCTAssertTrue(try make("dist").contains("built \(name).tar.gz"))
        ok("/bin/tar", ["-xzf", Self.repository + "/" + name + ".tar.gz", "-C", scratch])
        let folder = scratch + "/" + name
        let script = folder + "/install.sh"
        let prefix = scratch + "/prefix"

        // The files of `make install`: the programs, themes, man page and completions.
        var expected = ["bin/habitto", "bin/habitto-webdav", "share/man/man1/habitto.1", "share/bash-completion/completions/habitto",
                        "share/zsh/site-functions/_habitto", "share/fish/vendor_completions.d/habitto.fish"]
        expected += themes.map { "share/habitto/themes/" + $0 }
        XCTAssertEqual(ShellIntegrationTests.files(under: folder), (expected + ["install.sh"]).sorted())

        let bad = run(script, ["--prefix", "relative"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.output, "install.sh: the prefix must be an absolute path, not 'relative'\n")
        XCTAssertEqual(run(script, ["--frobnicate"]).status, 2)
        XCTAssertEqual(ShellIntegrationTests.files(under: prefix), [], "a refused run installs nothing")

        XCTAssertEqual(ok(script, ["--prefix", prefix]),
                       "installed \(expected.count) files under \(prefix) ('\(script) --uninstall' removes them)\n")
        XCTAssertEqual(ShellIntegrationTests.files(under: prefix), expected.sorted())
        let habitto = prefix + "/bin/habitto"
        XCTAssertTrue(ok(habitto, ["--version"]).hasPrefix("habitto \(HabittoVersion.current)\n"))
        let names = ok(habitto, ["__complete", "themes"]).split(separator: "\n").map(String.init)
        XCTAssertEqual(names, Set(["default"] + themes.map { String($0.dropLast(".theme".count)) }).sorted())
        XCTAssertTrue(ok("/usr/bin/man", ["-l", prefix + "/share/man/man1/habitto.1"], env: ["MANPAGER=cat"]).contains("SYNOPSIS"))

        // PREFIX from the environment, as make's.
        XCTAssertEqual(ok(script, ["--uninstall"], env: ["PREFIX=" + prefix]), "removed Habitto from \(prefix)\n")
        XCTAssertEqual(ShellIntegrationTests.files(under: prefix), [])
        XCTAssertFalse(exists(prefix + "/share/habitto"))
    }
}
