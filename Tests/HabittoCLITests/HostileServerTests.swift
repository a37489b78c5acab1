import Foundation
import XCTest
import WebDAVWire
import SyncTestKit
#if canImport(Glibc)
import Glibc
#endif

/// What a hostile WebDAV server can do, tried as an attacker would: a redirect elsewhere,
/// answers without end, a compressed bomb, a trickle, silence, a listing too long to read.
/// None of it may move the password, exhaust memory or time, or lose the queue.
final class HostileServerTests: XCTestCase {
    var logs = ""

    override func setUpWithError() throws {
        logs = NSTemporaryDirectory() + "habitto-hostile-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: logs) }

    /// A sandbox with one check-in waiting to be sent and a WebDAV password in its
    /// environment.
    func sandbox(file: StaticString = #filePath, line: UInt = #line) -> Sandbox {
        let box = Sandbox()
        box.queueOneCheckIn(file: file, line: line)
        return box
    }

    /// `remote set` against `url` fails as a first sync does (exit 4), in one line besides the
    /// plain-http warning, and keeps the queue; returns that line.
    func remoteSetFails(_ box: Sandbox, _ url: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = box.run("remote", "set", url, "--user", "me", file: file, line: line)
        XCTAssertEqual(r.status, 4, r.stderr, file: file, line: line)
        let lines = r.stderr.split(separator: "\n").filter { !$0.contains("warning: plain http") }
        XCTAssertEqual(lines.count, 1, r.stderr, file: file, line: line)
        let status = box.run("status", "--json", file: file, line: line)
        let fields = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any]
        XCTAssertEqual(fields?["pending"] as? Int, 2, "the queue is kept: \(status.stdout)", file: file, line: line)
        return lines.first.map(String.init) ?? ""
    }

    func testARedirectIsNeverFollowedAndTheFailureNamesItsLocation() throws {
        let elsewhere = try HostileServer("ok", host: "127.0.0.2", log: logs + "/elsewhere.log")
        let redirecting = try HostileServer("redirect", extra: ["--target", elsewhere.url], log: logs + "/redirect.log")
        let box = sandbox()
        let message = remoteSetFails(box, redirecting.url + "/dav")
        XCTAssertTrue(message.contains("redirected PROPFIND of the root (307) to \(elsewhere.url)/dav/; Habitto follows no redirects"), message)
        XCTAssertTrue(message.contains("habitto remote set"), message)
        let sync = box.run("sync")
        XCTAssertEqual(sync.status, 4, sync.stderr)
        XCTAssertTrue(sync.stderr.contains("redirected"), sync.stderr)
        XCTAssertEqual(elsewhere.requests, [], "no request, and so no password, went to the other address")
        XCTAssertFalse(redirecting.requests.isEmpty, "the configured server was asked")
    }

    func testAnswersWithoutEndOrInflatingEndTheRoundInOneLineAndTheHelperStaysSmall() throws {
        for mode in ["bigbody", "endless", "gzip"] {
            let server = try HostileServer(mode, log: logs + "/\(mode).log")
            let helper = try HelperUnderTest(timeout: 20)
            let reply = try helper.exchange(WireRequest(method: "GET", url: server.url + "/dav/users/a/devices/d/ops/1-1.batch",
                                                        maxBody: Wire.maxBody))
            switch (mode, reply) {
            case ("gzip", let .response(status, headers, body, _)):
                // Kept as the server sent it, never inflated (300 MB of zeros).
                XCTAssertEqual(status, 200)
                XCTAssertEqual(Array(body.prefix(2)), [0x1f, 0x8b])
                XCTAssertEqual(headers.first { $0.name.lowercased() == "content-length" }?.value, String(body.count))
            case (_, .failure(.answerTooLarge, let detail)):
                XCTAssertEqual(detail, "its body is longer than \(Wire.maxBody) bytes", mode)
            default:
                XCTFail("\(mode): \(reply)")
            }
            XCTAssertLessThan(helper.peakKiB, 64 << 10, "\(mode): the helper's peak memory")
            XCTAssertGreaterThan(helper.peakKiB, 0)
            helper.close()
            XCTAssertFalse(server.requests.contains { $0.lowercased().contains("accept-encoding") }, "no compressed encoding is asked for")

            let message = remoteSetFails(sandbox(), server.url + "/dav")
            XCTAssertTrue(message.contains("sent an answer too large to read"), "\(mode): \(message)")
        }
    }

    func testEveryRequestEndsAtItsTimeLimitWithoutKeepingACoreBusy() throws {
        for mode in ["hang", "trickle"] {
            let server = try HostileServer(mode, log: logs + "/\(mode).log")
            let helper = try HelperUnderTest(timeout: 2)
            let started = Date()
            // A body limit the trickle's announced length fits in: only time can end it.
            let reply = try helper.exchange(WireRequest(method: "GET", url: server.url + "/dav/format", maxBody: Wire.maxBody))
            let took = Date().timeIntervalSince(started)
            XCTAssertEqual(reply, .failure(.unreachable, detail: "no complete answer within the request's time limit (2 s)"), mode)
            XCTAssertGreaterThanOrEqual(took, 1.9, mode)
            XCTAssertLessThan(took, 15, "\(mode): the limit is the whole request's, however slowly bytes come")
            XCTAssertLessThan(helper.cpuSeconds, 0.5, "\(mode): waiting must not keep a core busy")
            helper.close()
        }
    }

    /// The pid of a running `habitto-webdav` whose parent is `parent`, or nil.
    func helper(of parent: Int32) -> Int32? {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  stat.contains("(habitto-webdav)") else { continue }
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            if fields.count > 2, Int32(fields[1]) == parent, fields[0] != "Z" { return pid }
        }
        return nil
    }

    func testTheHelperHasNoPasswordInItsEnvironmentAndEndsWhenItsCommandIsKilled() throws {
        let server = try HostileServer("trickle", log: logs + "/trickle.log")
        let box = sandbox()
        let (command, tag) = try box.start(["remote", "set", server.url + "/dav", "--user", "me"])
        var pid: Int32?
        let deadline = Date().addingTimeInterval(30)
        while pid == nil && Date() < deadline && command.isRunning {
            pid = helper(of: command.processIdentifier)
            if pid == nil { usleep(20_000) }
        }
        let child = try XCTUnwrap(pid, "the command started its helper")
        // The password goes in each request's header; the helper's environment has none.
        let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/environ"))) ?? Data()
        XCTAssertFalse(environ.isEmpty, "the helper's environment was read")
        XCTAssertFalse(String(decoding: environ, as: UTF8.self).contains("HABITTO_WEBDAV_PASSWORD"))
        kill(command.processIdentifier, SIGKILL)
        _ = box.finish(command, tag)
        let gone = Date().addingTimeInterval(10)
        while Date() < gone && kill(child, 0) == 0 && !isZombie(child) { usleep(20_000) }
        XCTAssertTrue(kill(child, 0) != 0 || isZombie(child), "habitto-webdav \(child) outlived the command that started it")
    }

    func isZombie(_ pid: Int32) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    func testAValidListingTooLongToReadIsTooLargeNotMalformed() throws {
        let server = try HostileServer("listing", extra: ["--entries", "300000"], log: logs + "/listing.log")
        let message = remoteSetFails(sandbox(), server.url + "/dav")
        XCTAssertTrue(message.contains("the listing of users/default/devices"), message)
        XCTAssertTrue(message.contains("on \(server.url)/dav/ is too large (more than \(Wire.maxEntries) entries or 16 MiB); it was not read"), message)
        XCTAssertFalse(message.contains("malformed"), message)
    }
}
