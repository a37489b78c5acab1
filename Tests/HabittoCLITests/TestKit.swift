// `Sandbox` (a data and config directory, and a way to run the binary or a command in this
// process on it) and the sync tests' helpers live in the sync test kit (Tests/SyncTestKit);
// every file of this target sees them.
@_exported import SyncTestKit

extension Sandbox {
    /// A fresh in-process sandbox on the same day with `export` (a JSON export) imported,
    /// written first to `name` in this sandbox's root.
    func importing(_ export: String, as name: String = "export.json", file: StaticString = #filePath, line: UInt = #line) throws -> Sandbox {
        let path = root + "/" + name
        try export.write(toFile: path, atomically: true, encoding: .utf8)
        let other = Sandbox(inProcess: true)
        other.now = now
        other.ok("import", path, "--from", "json", file: file, line: line)
        return other
    }
}
