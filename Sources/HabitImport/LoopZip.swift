import FoundationEssentials
import HabitStore
import HabitSys
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
    /// The longest each run of `unzip` may take, in seconds: a zip of at most 16 MB that
    /// unpacks to at most 128 MB takes about a second (a Loop export far less).
    static var timeLimit: Double { TimeLimits.current[.unzip] }
    /// The most of `unzip`'s listing of a zip read: a line per entry, and an entry takes at
    /// least 76 bytes of the zip, so a zip of at most 16 MB is listed in far less.
    static let maxListingBytes = 64 << 20

    /// Runs `body` on the unpacked export; the temporary folder is removed however it ends.
    /// `tools` lists where `unzip` may be (tests pass a list without one, or another tool).
    static func withUnpacked(_ zip: String, tools: [String] = unzipPaths, timeLimit: Double = timeLimit,
                             _ body: (LoopSource) throws -> ImportPlan) throws -> ImportPlan {
        guard let unzip = tools.first(where: { Sys.canAccess($0, X_OK) }) else {
            throw ImportError("\(zip): reading a zip needs the unzip program, which is not installed; install it (`sudo apt install unzip`) or unpack the zip yourself and import the folder")
        }
        if let st = Sys.status(followingLinks: zip), Int(st.st_size) > ImportSupport.maxFileBytes {
            throw ImportError("\(zip): is \(Int(st.st_size) >> 20) MB; imports read files of at most \(ImportSupport.maxFileBytes >> 20) MB, so this is not Loop's export")
        }
        let temp = try makeTemporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: temp)
            // Also any folder a killed import left, and the marker when none is left.
            Leftovers.removeStaleImportFolders()
        }
        try checkListing(zip, unzip: unzip, timeLimit: timeLimit)
        let files = temp + "/files"
        // -P "": an encrypted entry that slipped past the listing fails instead of asking.
        let (status, log) = try run(unzip, ["-qq", "-o", "-P", "", zip, "-d", files], timeLimit: timeLimit)
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
        let made = template.withUnsafeMutableBufferPointer { buffer -> Result<Void, SysError> in
            Result { () throws(SysError) in _ = try sysCall("mkdtemp") { mkdtemp(buffer.baseAddress!) } }
        }
        if case .failure(let error) = made {
            throw ImportError("\(base): cannot make a temporary folder to unpack the zip (\(error.reason)); unpack it yourself and import the folder")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Refuses a zip that says it unpacks to more than `maxUnpackedBytes`, or that holds an
    /// encrypted entry (Loop's export never does; unzip would ask for a password).
    static func checkListing(_ zip: String, unzip: String, timeLimit: Double) throws {
        let (status, listing) = try run(unzip, ["-Z", "-t", zip], timeLimit: timeLimit)
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
        let (listed, bytes) = try run(unzip, ["-Z", "-s", zip], outputLimit: maxListingBytes, whole: true, timeLimit: timeLimit)
        guard listed == 0 else {
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
            if let st = try? Sys.entryStatus(folder + "/" + relative), (st.st_mode & S_IFMT) == S_IFLNK {
                throw ImportError("\(zip): holds a symbolic link (\(ImportText.shown(relative))), which Loop's export never does; unpack it yourself and check it")
            }
        }
    }

    /// Runs `tool` with `arguments` (see `OutsideProgram`: standard input from /dev/null, a
    /// session of its own, so nothing it runs can open /dev/tty to ask a question), with
    /// only `PATH` and `LC_ALL=C` in its environment, and returns its exit status (-1 when a
    /// signal ended it) and the first `outputLimit` bytes of its output and errors. Being
    /// still at work after `timeLimit` seconds (it is then killed), or not starting, is an
    /// error; so is more output than `outputLimit` when `whole`.
    static func run(_ tool: String, _ arguments: [String], outputLimit: Int = 64 << 10, whole: Bool = false,
                    timeLimit: Double = timeLimit) throws -> (status: Int32, output: [UInt8]) {
        let result = OutsideProgram(tool, arguments, timeLimit: timeLimit, outputLimit: outputLimit, errors: .merge,
                                    environment: .exactly(["PATH=/usr/bin:/bin", "LC_ALL=C"])).run()
        switch result.outcome {
        case .exited(let status):
            if whole && result.outputCut {
                throw ImportError("\(tool): wrote more than \(outputLimit >> 20) MB about the zip, which Loop's export never makes it do; unpack the zip yourself and import the folder")
            }
            return (status, result.output)
        case .signalled: return (-1, result.output)
        case .killedAfterTimeLimit, .couldNotStart, .leftRunning:
            let problem = result.problem ?? ""
            throw ImportError("\(tool): \(problem); unpack the zip yourself and import the folder")
        }
    }

    /// The first line of a tool's output, for a message.
    static func firstLine(of output: [UInt8]) -> String? {
        OutsideProgram.firstLine(output).map { ImportText.shown(ImportText.trimmed($0)) }
    }
}
