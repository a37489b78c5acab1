import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Unpacks Loop's zip export with the system `unzip` into a private temporary folder that
/// is removed afterwards.
enum LoopZip {
    /// Where `unzip` is looked for.
    static let unzipPaths = ["/usr/bin/unzip", "/bin/unzip"]
    /// The most a zip may unpack to.
    static let maxUnpackedBytes = ImportSupport.maxFileBytes * 8

    /// Runs `body` on the unpacked export; the temporary folder is removed however it ends.
    /// `tools` lists where `unzip` may be (tests pass a list without one).
    static func withUnpacked(_ zip: String, tools: [String] = unzipPaths,
                             _ body: (LoopSource) throws -> ImportPlan) throws -> ImportPlan {
        guard let unzip = tools.first(where: { access($0, X_OK) == 0 }) else {
            throw ImportError("\(zip): reading a zip needs the unzip program, which is not installed; install it (`sudo apt install unzip`) or unpack the zip yourself and import the folder")
        }
        var st = stat()
        if stat(zip, &st) == 0, Int(st.st_size) > ImportSupport.maxFileBytes {
            throw ImportError("\(zip): is \(Int(st.st_size) >> 20) MB; imports read files of at most \(ImportSupport.maxFileBytes >> 20) MB, so this is not Loop's export")
        }
        let temp = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: temp) }
        try checkUnpackedSize(zip, unzip: unzip, temp: temp)
        let files = temp + "/files"
        let log = temp + "/unzip.log"
        let status = try run(unzip, ["-qq", "-o", zip, "-d", files], output: log)
        guard status == 0 || status == 1 else {
            throw ImportError("\(zip): unzip could not unpack it (\(firstLine(of: log) ?? "exit status \(status)")); check that it is Loop's export, or unpack it yourself and import the folder")
        }
        try refuseLinks(in: files, zip: zip)
        let root = try exportRoot(in: files, zip: zip)
        let inside = root == files ? "" : String(root.dropFirst(files.count))
        return try body(LoopSource(root: root, shown: zip + inside))
    }

    /// A new private folder under the temporary directory.
    static func makeTemporaryFolder() throws -> String {
        var base = NSTemporaryDirectory()
        if !base.hasSuffix("/") { base += "/" }
        var template = Array((base + "habitto-import-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else {
            throw ImportError("\(base): cannot make a temporary folder to unpack the zip (\(String(cString: strerror(errno)))); unpack it yourself and import the folder")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Refuses a zip that says it unpacks to more than `maxUnpackedBytes`.
    static func checkUnpackedSize(_ zip: String, unzip: String, temp: String) throws {
        let listing = temp + "/list.txt"
        let status = try run(unzip, ["-Z", "-t", zip], output: listing)
        guard status == 0 else {
            throw ImportError("\(zip): is not a zip file unzip can read (\(firstLine(of: listing) ?? "exit status \(status)")); check that it is Loop's export")
        }
        // "2 files, 1234 bytes uncompressed, 567 bytes compressed:  54.1%"
        guard let text = firstLine(of: listing),
              let range = text.range(of: " bytes uncompressed"),
              let bytes = Int(text[..<range.lowerBound].split(separator: " ").last ?? "") else { return }
        if bytes > maxUnpackedBytes {
            throw ImportError("\(zip): unpacks to \(bytes >> 20) MB; a Loop export is far smaller (at most \(maxUnpackedBytes >> 20) MB is read), so this is not one")
        }
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
    /// `output`, and returns its exit status (-1 when a signal ended it).
    static func run(_ tool: String, _ arguments: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let words: [String] = [tool] + arguments
        let environment: [String] = ["PATH=/usr/bin:/bin", "LC_ALL=C"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) }
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let started = posix_spawn(&pid, tool, &actions, nil, argv + [nil], envp + [nil])
        guard started == 0 else {
            throw ImportError("\(tool): cannot be started (\(String(cString: strerror(started)))); unpack the zip yourself and import the folder")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ImportError("\(tool): lost track of it (\(String(cString: strerror(errno))))") }
        }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }

    /// The first line of a small text file, for a message.
    static func firstLine(of path: String) -> String? {
        guard let bytes = try? Sys.readFile(path, limit: 4096) else { return nil }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init)
        return line.map { ImportText.shown(ImportText.trimmed($0)) }
    }
}
