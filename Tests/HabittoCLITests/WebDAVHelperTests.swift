import Foundation
import XCTest

/// The WebDAV transport lives in `habitto-webdav`, next to `habitto`, so that `habitto`
/// itself links no HTTP client (see the README's Performance).
final class WebDAVHelperTests: XCTestCase {
    /// `ldd`'s list of the libraries a binary loads, transitively.
    func libraries(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        p.arguments = [path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func testHabittoLoadsNoLibcurlAndTheHelperBesideItDoes() throws {
        let habitto = try libraries(Sandbox.binary)
        XCTAssertTrue(habitto.contains("libc.so"), "ldd did not list habitto's libraries: \(habitto)")
        XCTAssertFalse(habitto.contains("libcurl"), habitto)
        XCTAssertFalse(habitto.contains("FoundationNetworking"), habitto)
        XCTAssertFalse(habitto.contains("libxml2"), habitto)
        let helper = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().appendingPathComponent("habitto-webdav").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: helper), "\(helper) is not built beside habitto")
        XCTAssertTrue(try libraries(helper).contains("libcurl"), "the helper is the one that holds the HTTP client")
    }

    func testWithoutTheHelperAWebDAVRemoteFailsInOneLineAndAFolderRemoteWorks() throws {
        let box = Sandbox()
        let bin = box.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Sandbox.binary, toPath: bin + "/habitto")
        box.binaryPath = bin + "/habitto"
        box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = "secret"
        box.ok("add", "Water")
        box.ok("check", "Water")

        let missing = "WebDAV needs habitto-webdav next to habitto, and \(bin)/habitto-webdav is missing or not executable; install habitto-webdav from the same build beside habitto"
        let set = box.run("remote", "set", "http://127.0.0.1:9/dav", "--user", "me")
        XCTAssertEqual(set.status, 4, set.stderr)
        XCTAssertTrue(set.stderr.contains("the first sync failed: \(missing); it resumes with 'habitto sync'"), set.stderr)
        let sync = box.run("sync")
        XCTAssertEqual(sync.status, 4)
        XCTAssertEqual(sync.stdout, "")
        XCTAssertEqual(sync.stderr.split(separator: "\n").filter { !$0.contains("warning: plain http") }.map(String.init),
                       ["habitto: sync: \(missing) (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details"])

        let folder = box.root + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let operations = try XCTUnwrap(box.stat("operations"))
        XCTAssertEqual(box.ok("remote", "set", "dir:" + folder),
                       "Remote set to dir:\(folder) (account default): pushed \(operations) operations, pulled 0; verified\n")
    }
}
