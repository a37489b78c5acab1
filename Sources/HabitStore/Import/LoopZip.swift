import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Unpacks Loop's zip export with the system `unzip` into a private temporary folder that
/// is removed afterwards (and, should the process be killed, at the next start: see
/// `Leftovers`). `unzip` never reads the terminal: it runs in a session of its own, with
/// standard input from /dev/null and an empty password, under a time limit; an encrypted
/// zip is refused before anything is unpacked.
enum LoopZip {
    /// Where `unzip` is looked for.
    static let unzipPaths = ["/usr/bin/unzip", "/bin/unzip"]
    /// The most a zip may unpack to.
    static let maxUnpackedBytes = ImportSupport.maxFileBytes * 8
    /// The longest `unzip` may run, in seconds (a Loop export unpacks in well under one).
    static let timeLimit = 60.0

    /// Runs `body` on the unpacked export; the temporary folder is removed however it ends.
    /// `tools` lists where `unzip` may be (tests pass a list without one, or another tool).
    static func withUnpacked(_ zip: String, tools: [String] = unzipPaths, timeLimit: Double = timeLimit,
                             _ body: (LoopSource) throws -> ImportPlan) throws -> ImportPlan {
        guard let unzip = tools.first(where: { access($0, X_OK) == 0 }) else {
            throw ImportError("\(zip): reading a zip needs the unzip program, which is not installed; install it (`sudo apt install unzip`) or unpack the zip yourself and import the folder")
        }
        var st = stat()
        if stat(zip, &st) == 0, Int(st.st_size) > ImportSupport.maxFileBytes {
            throw ImportError("\(zip): is \(Int(st.st_size) >> 20) MB; imports read files of at most \(ImportSupport.maxFileBytes >> 20) MB, so this is not Loop's export")
        }
        let temp = try makeTemporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: temp)
            // Also any folder a killed import left, and the marker when none is left.
            Leftovers.removeStaleImportFolders()
        }
        try checkListing(zip, unzip: unzip, temp: temp, timeLimit: timeLimit)
        let files = temp + "/files"
        let log = temp + "/unzip.log"
        // -P "": an encrypted entry that slipped past the listing fails instead of asking.
        let status = try run(unzip, ["-qq", "-o", "-P", "", zip, "-d", files], output: log, timeLimit: timeLimit)
        guard status != 82 else { throw encrypted(zip) }
        guard status == 0 || status == 1 else {
            throw ImportError("\(zip): unzip could not unpack it (\(firstLine(of: log) ?? "exit status \(status)")); check that it is Loop's export, or unpack it yourself and import the folder")
        }
        try refuseLinks(in: files, zip: zip)
        let root = try exportRoot(in: files, zip: zip)
        let inside = root == files ? "" : String(root.dropFirst(files.count))
        return try body(LoopSource(root: root, shown: zip + inside))
    }

    /// A new private folder under the temporary directory, named with this process's id
    /// (`habitto-import-PID-XXXXXX`), so that a later start can tell it is left over.
    static func makeTemporaryFolder() throws -> String {
        Leftovers.markImportFolders()
        let base = Leftovers.temporaryDirectory + "/"
        var template = Array((base + Leftovers.importFolderPrefix + "\(getpid())-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else {
            throw ImportError("\(base): cannot make a temporary folder to unpack the zip (\(String(cString: strerror(errno)))); unpack it yourself and import the folder")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Refuses a zip that says it unpacks to more than `maxUnpackedBytes`, or that holds an
    /// encrypted entry (Loop's export never does; unzip would ask for a password).
    static func checkListing(_ zip: String, unzip: String, temp: String, timeLimit: Double) throws {
        let listing = temp + "/list.txt"
        let status = try run(unzip, ["-Z", "-t", zip], output: listing, timeLimit: timeLimit)
        guard status == 0 else {
            throw ImportError("\(zip): is not a zip file unzip can read (\(firstLine(of: listing) ?? "exit status \(status)")); check that it is Loop's export")
        }
        // "2 files, 1234 bytes uncompressed, 567 bytes compressed:  54.1%"
        if let text = firstLine(of: listing),
           let range = text.scalarRange(of: " bytes uncompressed"),
           let bytes = Int(String(text.unicodeScalars[..<range.lowerBound]).split(separator: " ").last ?? ""), bytes > maxUnpackedBytes {
            throw ImportError("\(zip): unpacks to \(bytes >> 20) MB; a Loop export is far smaller (at most \(maxUnpackedBytes >> 20) MB is read), so this is not one")
        }
        // zipinfo's short listing, one line per entry:
        // "-rw-r--r--  3.0 unx     1234 tx defN 26-Nov-21 09:00 Habits.csv"; the fifth field
        // is the type, in upper case ("TX", "BX") when the entry is encrypted.
        let entries = temp + "/entries.txt"
        guard try run(unzip, ["-Z", "-s", zip], output: entries, timeLimit: timeLimit) == 0,
              let bytes = try? Sys.readFile(entries, limit: 64 << 20) else {
            throw ImportError("\(zip): unzip could not list it; check that it is Loop's export, or unpack it yourself and import the folder")
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 9, fields[1].contains("."), let type = fields[4].first else { continue }
            if type == "T" || type == "B" { throw encrypted(zip) }
        }
    }

    /// The error for an encrypted (password-protected) zip.
    static func encrypted(_ zip: String) -> ImportError {
        ImportError("\(zip): is encrypted (password-protected), which Loop's export never is; habitto does not ask for passwords. Unpack it yourself (unzip asks for the password) and import the folder")
    }

    /// The folder holding `Habits.csv`: the top of the zip or its only folder that has one.
    static func exportRoot(in files: String, zip: String) throws -> String {
        let manager = FileManager.default
        if manager.fileExists(atPath: files + "/Habits.csv") { return files }
        let entries = ((try? manager.contentsOfDirectory(atPath: files)) ?? []).sorted()
        let roots = entries.map { files + "/" + $0 }.filter { manager.fileExists(atPath: $0 + "/Habits.csv") }
        guard roots.count == 1, let root = roots.first else {
            throw ImportError("\(zip): holds \(roots.isEmpty ? "no" : "more than one") Habits.csv at its top or in one folder; is it Loop's CSV export?")
        }
        return root
    }

    /// Refuses symbolic links in the unpacked zip: they could point outside it.
    static func refuseLinks(in folder: String, zip: String) throws {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []
        for relative in paths {
            var st = stat()
            if lstat(folder + "/" + relative, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK {
                throw ImportError("\(zip): holds a symbolic link (\(ImportText.shown(relative))), which Loop's export never does; unpack it yourself and check it")
            }
        }
    }

    /// Runs `tool` with `arguments`, stdin from /dev/null and stdout and stderr into
    /// `output`, in a new session (so it has no controlling terminal: nothing it runs can
    /// open /dev/tty to ask a question), and returns its exit status (-1 when a signal ended
    /// it). After `timeLimit` seconds it is killed, and that is an error.
    static func run(_ tool: String, _ arguments: [String], output: String, timeLimit: Double = timeLimit) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 2.26), which Swift's Glibc module does not name.
        posix_spawnattr_setflags(&attributes, 0x80)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let words: [String] = [tool] + arguments
        let environment: [String] = ["PATH=/usr/bin:/bin", "LC_ALL=C"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) }
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let started = posix_spawn(&pid, tool, &actions, &attributes, argv + [nil], envp + [nil])
        guard started == 0 else {
            throw ImportError("\(tool): cannot be started (\(String(cString: strerror(started)))); unpack the zip yourself and import the folder")
        }
        guard let status = try Sys.waitForExit(pid, timeLimit: timeLimit, path: tool) else {
            let seconds = Int(timeLimit.rounded(.up))
            throw ImportError("\(tool): did not finish within \(seconds) second\(seconds == 1 ? "" : "s") and was stopped; unpack the zip yourself and import the folder")
        }
        return status
    }

    /// The first line of a small text file, for a message.
    static func firstLine(of path: String) -> String? {
        guard let bytes = try? Sys.readFile(path, limit: 4096) else { return nil }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init)
        return line.map { ImportText.shown(ImportText.trimmed($0)) }
    }
}
