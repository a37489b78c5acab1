import FoundationEssentials
import Glibc
import HabitCore
import HabitSys

/// The themes a user can choose, found in a user directory and the bundled theme
/// directories, and loaded by name. File access is injected (`listFiles`, `readFile`), so
/// the catalog itself is pure; `ThemeCatalog.live` is the pair that uses the file system.
public struct ThemeCatalog: Sendable {
    /// Where the user's own themes live; searched first, so a user file overrides a bundled
    /// one of the same name.
    public let userDirectory: String?
    /// The bundled theme directories, searched in order after the user directory.
    public let bundledDirectories: [String]
    private let listFiles: @Sendable (String) -> [String]
    private let readFile: @Sendable (String) -> String?

    /// - Parameters:
    ///   - listFiles: the names of the entries of a directory (empty when it does not exist).
    ///   - readFile: the text of the file at a path, or nil when it cannot be read.
    public init(userDirectory: String?, bundledDirectories: [String],
                listFiles: @escaping @Sendable (String) -> [String],
                readFile: @escaping @Sendable (String) -> String?) {
        self.userDirectory = userDirectory
        self.bundledDirectories = bundledDirectories
        self.listFiles = listFiles
        self.readFile = readFile
    }

    /// The names of the available themes: one per `NAME.theme` file, plus `default`
    /// (built in); sorted, each once.
    public var names: [String] { Set(locations().keys).union(["default"]).sorted() }

    /// The theme called `name`: its file parsed over `Theme.builtInDefault`, named `name`,
    /// with the parser's messages. An unknown name or an unreadable file gives the built-in
    /// default and one message saying so (and, for an unknown name, what there is).
    public func load(_ name: String) -> (Theme, [String]) {
        guard let path = locations()[name] else {
            if name == "default" { return (.builtInDefault, []) }
            let message = "no theme named '\(name)' (available: \(names.joined(separator: ", "))), "
                + "using the default theme"
            return (.builtInDefault, [Sanitize.display(message)])
        }
        guard let text = readFile(path) else {
            return (.builtInDefault, [Sanitize.display("\(path) could not be read, using the default theme")])
        }
        return Theme.parse(text, name: name, file: path, over: .builtInDefault)
    }

    /// Each theme name with the path of the file that wins for it.
    private func locations() -> [String: String] {
        var found: [String: String] = [:]
        for directory in (userDirectory.map { [$0] } ?? []) + bundledDirectories {
            for entry in listFiles(directory) {
                let file = entry.split(separator: "/").last.map(String.init) ?? entry
                guard file.hasSuffix(".theme") else { continue }
                let name = String(file.dropLast(".theme".count))
                guard !name.isEmpty, !name.hasPrefix("."), found[name] == nil else { continue }
                found[name] = directory.hasSuffix("/") ? directory + file : directory + "/" + file
            }
        }
        return found
    }
}

public extension ThemeCatalog {
    /// `listFiles` and `readFile` on the real file system. `readFile` reads only regular files
    /// of at most 1 MiB, decoding invalid UTF-8 as U+FFFD.
    static let live: (listFiles: @Sendable (String) -> [String], readFile: @Sendable (String) -> String?) = (
        listFiles: { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        },
        readFile: { path in
            // Not through a link, and never blocking on a FIFO.
            let limit = 1 << 20
            guard let fd = try? sysCall("open", { open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }) else { return nil }
            defer { try? sysClose(fd) }
            var st = stat()
            guard (try? sysCall("fstat") { fstat(fd, &st) }) != nil, st.st_mode & S_IFMT == S_IFREG else { return nil }
            var bytes = [UInt8](repeating: 0, count: limit + 1), count = 0
            while count < bytes.count {
                let n = try? bytes.withUnsafeMutableBytes { raw in try sysCall("read") { read(fd, raw.baseAddress! + count, raw.count - count) } }
                guard let n else { return nil }
                if n == 0 { break }
                count += n
            }
            guard count <= limit else { return nil }
            return String(decoding: bytes[0..<count], as: UTF8.self)
        }
    )

    /// The user's theme directory: `$XDG_CONFIG_HOME/habitto/themes`, else
    /// `$HOME/.config/habitto/themes`; nil when neither variable is set.
    static func userDirectory(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/habitto/themes" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/habitto/themes" }
        return nil
    }

    /// The bundled theme directories, in the order to search them:
    /// `$HABITTO_THEMES_DIR` when set; `<executable's directory>/../share/habitto/themes`
    /// when it exists; and the first `Themes` directory found in the executable's directory
    /// or up to 6 levels above it (so `swift run` in a checkout finds the repository's
    /// `Themes/`). `executablePath` should be absolute (such as `Bundle.main.executablePath`);
    /// symbolic links in it are followed first.
    static func bundledDirectories(executablePath: String, environment: [String: String]) -> [String] {
        var directories: [String] = []
        func add(_ d: String) { if !directories.contains(d) { directories.append(d) } }
        if let d = environment["HABITTO_THEMES_DIR"], !d.isEmpty { add(d) }
        guard !executablePath.isEmpty else { return directories }
        let executable = (try? sysCall("realpath") { realpath(executablePath, nil) }).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? executablePath
        var directory = parent(of: executable)
        let share = parent(of: directory).appendingPathComponentString("share/habitto/themes")
        if isDirectory(share) { add(share) }
        for _ in 0...6 {
            let candidate = directory.appendingPathComponentString("Themes")
            if isDirectory(candidate) { add(candidate); break }
            let up = parent(of: directory)
            if up == directory { break }
            directory = up
        }
        return directories
    }

    private static func parent(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.last == "/" { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    private static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return (try? sysCall("stat") { stat(path, &st) }) != nil && st.st_mode & S_IFMT == S_IFDIR
    }
}

private extension String {
    func appendingPathComponentString(_ component: String) -> String {
        hasSuffix("/") ? self + component : self + "/" + component
    }
}
