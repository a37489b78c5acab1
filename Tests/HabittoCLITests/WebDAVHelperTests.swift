import Foundation
import XCTest
import SyncTestKit

/// The WebDAV transport lives in `habitto-webdav`, next to `habitto`, so that `habitto`
/// itself links no HTTP client (see docs/architecture.md).
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
        // Nor swift-corelibs-foundation and ICU: only FoundationEssentials (docs/architecture.md).
        XCTAssertTrue(habitto.contains("libFoundationEssentials"), "the debug build links the Swift libraries dynamically: \(habitto)")
        // And ncurses is loaded when the UI starts, not by every command.
        for library in ["libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU", "libicu", "libncurses", "libtinfo"] {
            XCTAssertFalse(habitto.contains(library), "habitto loads \(library): \(habitto)")
        }
        let helper = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().appendingPathComponent("habitto-webdav").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: helper), "\(helper) is not built beside habitto")
        XCTAssertTrue(try libraries(helper).contains("libcurl"), "the helper is the one that holds the HTTP client")
    }

    /// A sandbox running a copy of habitto in its own folder, with `helper` (a shell script)
    /// as its habitto-webdav, or none; one habit checked in.
    func sandbox(helper: String?, file: StaticString = #filePath, line: UInt = #line) throws -> (Sandbox, String) {
        let box = Sandbox()
        let bin = box.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Sandbox.binary, toPath: bin + "/habitto")
        if let helper { try box.script(bin + "/habitto-webdav", helper, mode: 0o755, file: file, line: line) }
        box.binaryPath = bin + "/habitto"
        box.queueOneCheckIn(file: file, line: line)
        return (box, bin)
    }

    /// The lines of a failed `habitto sync`, without the plain-http warning.
    func syncFailure(_ box: Sandbox, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        // A watchdog, not a wait: a sync that does not end its helper would hang here.
        let r = try box.runWithin(60, ["sync"], file: file, line: line)
        XCTAssertEqual(r.status, 4, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stdout, "", file: file, line: line)
        XCTAssertFalse(r.killed, file: file, line: line)
        return r.stderr.split(separator: "\n").filter { !$0.contains("warning: plain http") }.map(String.init)
    }

    func testAHelperThatAnswersGarbageOrHangsOrDiesIsOneErrorLineAndIsEnded() throws {
        let cases: [(script: String, message: (String) -> String)] = [
            // A length far above the limit.
            ("printf '\\377\\377\\377\\377'; exec sleep 600",
             { "the WebDAV helper \($0)/habitto-webdav sent a malformed answer (a frame of 4294967295 bytes is larger than \(48 << 20)); reinstall habitto-webdav from the same build as habitto" }),
            // A frame of one byte with an unknown tag.
            ("printf '\\0\\0\\0\\001\\011'; exec sleep 600",
             { "the WebDAV helper \($0)/habitto-webdav sent a malformed answer (reply tag 9 is unknown); reinstall habitto-webdav from the same build as habitto" }),
            // Gone before answering.
            ("exit 0", { "the WebDAV helper \($0)/habitto-webdav stopped before answering" }),
        ]
        for (script, message) in cases {
            let (box, bin) = try sandbox(helper: script)
            box.run("remote", "set", "http://127.0.0.1:9/dav", "--user", "me")
            let lines = try syncFailure(box)
            XCTAssertEqual(lines, ["habitto: sync: \(message(bin)) (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details"], script)
        }
    }

    func testWithoutTheHelperAWebDAVRemoteFailsInOneLineAndAFolderRemoteWorks() throws {
        let (box, bin) = try sandbox(helper: nil)
        let missing = "WebDAV needs habitto-webdav next to habitto, and \(bin)/habitto-webdav is missing or not executable; install habitto-webdav from the same build beside habitto"
        let set = box.run("remote", "set", "http://127.0.0.1:9/dav", "--user", "me")
        XCTAssertEqual(set.status, 4, set.stderr)
        XCTAssertTrue(set.stderr.contains("the first sync failed: \(missing); it resumes with 'habitto sync'"), set.stderr)
        XCTAssertEqual(try syncFailure(box), ["habitto: sync: \(missing) (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details"])

        let folder = box.root + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let operations = try XCTUnwrap(box.stat("operations"))
        XCTAssertEqual(box.ok("remote", "set", "dir:" + folder),
                       "Remote set to dir:\(folder) (account default): pushed \(operations) operations, pulled 0; verified\n")
    }
}
