import Foundation
@testable import WebDAVHarness
import HabitCore
import HabitStore
import XCTest
import SyncTestKit
#if canImport(Glibc)
import Glibc
#endif

/// Sync through a real Apache httpd with mod_dav (see `WebDAVServer`), with the real
/// `habitto` binary: convergence, the server going away and coming back, wrong passwords,
/// HTTPS with a self-hosted CA, where the password comes from and where it never goes, server
/// errors and lost answers injected by `FaultProxy`, and a large backlog in few requests.
///
/// Convergence, an outage and a wrong password run against a second, different server too
/// (`rclone serve webdav`, see `RcloneServer`); request size limits (413), Digest-only
/// authentication and the requests a round makes against Apache.
///
/// These tests never skip: without apache2, htpasswd, openssl or rclone they fail saying to
/// run `bash .ci/test.sh`, which installs them.
final class WebDAVTests: SyncCLITestCase {
    var a: Sandbox!
    var b: Sandbox!
    var proxy: FaultProxy?

    override func setUp() {
        super.setUp()
        a = Sandbox()
        b = Sandbox()
        b.now = a.now
    }

    override func tearDown() {
        proxy?.stop()
        proxy = nil
        super.tearDown()
        a = nil
        b = nil
    }

    // MARK: Harness

    func testHarnessServesWebDAVWithBasicAuthAndInjectsFaults() throws {
        let server = try startServer()
        let pw = server.password
        XCTAssertTrue(server.rawRequest("PROPFIND", "/dav/", headers: ["Depth: 0"]).hasPrefix("HTTP/1.1 401 "))
        XCTAssertTrue(server.rawRequest("PROPFIND", "/dav/", password: "wrong", headers: ["Depth: 0"]).hasPrefix("HTTP/1.1 401 "))
        XCTAssertTrue(server.rawRequest("PROPFIND", "/dav/", password: pw, headers: ["Depth: 0"]).hasPrefix("HTTP/1.1 207 "))
        XCTAssertTrue(server.rawRequest("MKCOL", "/dav/folder/", password: pw).hasPrefix("HTTP/1.1 201 "))
        let put = server.rawRequest("PUT", "/dav/folder/x.batch", password: pw, headers: ["If-None-Match: *"], body: "one")
        XCTAssertTrue(put.hasPrefix("HTTP/1.1 201 "), put)
        XCTAssertTrue(server.rawRequest("PUT", "/dav/folder/x.batch", password: pw, headers: ["If-None-Match: *"], body: "two")
            .hasPrefix("HTTP/1.1 412 "), "create-only PUT must not overwrite")
        XCTAssertTrue(server.rawRequest("GET", "/dav/folder/x.batch", password: pw).hasSuffix("\r\n\r\none"))
        XCTAssertEqual(try String(contentsOfFile: server.dataDirectory + "/folder/x.batch", encoding: .utf8), "one")
        let logged = server.requests()
        XCTAssertEqual(logged.map(\.method), ["PROPFIND", "PROPFIND", "PROPFIND", "MKCOL", "PUT", "PUT", "GET"])
        XCTAssertEqual(logged.map(\.status), [401, 401, 207, 201, 201, 412, 200])
        XCTAssertEqual(logged.last?.user, server.user)

        // Going away and coming back on the same port.
        let port = server.port
        server.stop()
        XCTAssertFalse(LoopbackSocket.canConnect(port: port))
        try server.start()
        XCTAssertEqual(server.port, port)
        XCTAssertTrue(server.rawRequest("GET", "/dav/folder/x.batch", password: pw).hasSuffix("\r\n\r\none"))

        // The proxy passes requests through, or spoils the next one as told.
        let proxy = try startProxy(server)
        func viaProxy(_ method: String, _ path: String, headers: [String] = [], body: String = "") -> String {
            WebDAVServer.rawRequest(port: proxy.port, method, path, user: server.user, password: pw, headers: headers, body: body)
        }
        XCTAssertTrue(viaProxy("PROPFIND", "/dav/", headers: ["Depth: 1"]).hasPrefix("HTTP/1.1 207 "))
        proxy.inject(.status(500))
        XCTAssertTrue(viaProxy("PROPFIND", "/dav/", headers: ["Depth: 1"]).hasPrefix("HTTP/1.1 500 "))
        proxy.inject(.tooManyRequests(retryAfter: 7))
        let busy = viaProxy("GET", "/dav/folder/x.batch")
        XCTAssertTrue(busy.hasPrefix("HTTP/1.1 429 ") && busy.contains("\r\nRetry-After: 7\r\n"), busy)
        proxy.inject(.dropResponse, on: "PUT", pathContaining: "/folder/")
        XCTAssertTrue(viaProxy("GET", "/dav/folder/x.batch").hasSuffix("\r\n\r\none"), "a GET is not the PUT the fault waits for")
        XCTAssertEqual(viaProxy("PUT", "/dav/folder/y.batch", headers: ["Expect: 100-continue"], body: "why"), "HTTP/1.1 100 Continue\r\n\r\n",
                       "the answer to the PUT was not dropped")
        XCTAssertEqual(try String(contentsOfFile: server.dataDirectory + "/folder/y.batch", encoding: .utf8), "why",
                       "the dropped PUT did not reach the server")
        XCTAssertEqual(proxy.pendingFaults, 0)
        XCTAssertEqual(proxy.requests.map(\.description), [
            "PROPFIND /dav/", "PROPFIND /dav/ (answer 500)", "GET /dav/folder/x.batch (answer 429, Retry-After 7)",
            "GET /dav/folder/x.batch", "PUT /dav/folder/y.batch (drop the answer)",
        ])
    }

    func testHarnessServesHTTPSWithACertificateFromItsOwnCA() throws {
        let server = try startServer(tls: true)
        let caFile = try XCTUnwrap(server.caFile)
        XCTAssertEqual(server.baseURL.absoluteString, "https://127.0.0.1:\(server.port)/dav")
        let openssl = try XCTUnwrap(WebDAVServer.openssl)
        let request = "OPTIONS /dav/ HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n"
        let trusted = WebDAVServer.tool(openssl, ["s_client", "-connect", "127.0.0.1:\(server.port)", "-CAfile", caFile,
                                                  "-verify_return_error", "-verify_ip", "127.0.0.1", "-quiet"], input: request)
        XCTAssertEqual(trusted.status, 0, trusted.output)
        XCTAssertTrue(trusted.output.contains("HTTP/1.1 401 "), trusted.output)
        let untrusted = WebDAVServer.tool(openssl, ["s_client", "-connect", "127.0.0.1:\(server.port)", "-CApath", "/nonexistent",
                                                    "-CAfile", "/dev/null", "-verify_return_error", "-quiet"], input: request)
        XCTAssertNotEqual(untrusted.status, 0, "the server certificate must not be trusted without the CA: \(untrusted.output)")
        XCTAssertFalse(untrusted.output.contains("HTTP/1.1"), untrusted.output)
    }

    // MARK: Sync through Apache

    func testTwoDataDirectoriesSyncThroughApacheAndConverge() throws {
        try twoDataDirectoriesSyncAndConverge(try startServer())
    }

    func testTwoDataDirectoriesSyncThroughRcloneAndConverge() throws {
        try twoDataDirectoriesSyncAndConverge(try startRclone())
    }

    /// A remote folder whose name has a space, `+`, `%` and a non-ASCII letter (sent
    /// percent-encoded; servers answer with hrefs encoded their own way): both devices see
    /// each other's batches.
    func testARemoteFolderWithSpacesAndNonASCIINamesSyncsThroughApache() throws {
        try remoteFolderWithAnOddNameSyncs(try startServer())
    }

    func testARemoteFolderWithSpacesAndNonASCIINamesSyncsThroughRclone() throws {
        try remoteFolderWithAnOddNameSyncs(try startRclone())
    }

    func remoteFolderWithAnOddNameSyncs(_ server: any WebDAVTestServer) throws {
        // Made as the server's own folders are (Apache runs as another user).
        var owner = Glibc.stat()
        XCTAssertEqual(lstat(server.dataDirectory, &owner), 0)
        for folder in ["/my habits", "/my habits/häbits+x%"] {
            try FileManager.default.createDirectory(atPath: server.dataDirectory + folder, withIntermediateDirectories: true)
            XCTAssertEqual(chown(server.dataDirectory + folder, owner.st_uid, owner.st_gid), 0)
        }
        let url = try XCTUnwrap(URL(string: server.baseURL.absoluteString + "/my%20habits/h%C3%A4bits%2Bx%25"))
        a.ok("add", "Water")
        b.ok("add", "Read")
        XCTAssertEqual(connect(a, url: url, server).status, 0)
        let setB = connect(b, url: url, server)
        XCTAssertEqual(setB.status, 0, setB.stderr)
        XCTAssertEqual(run(a, "sync").status, 0)
        for box in [a!, b!] {
            XCTAssertNotNil(box.listEntry("Water"), "Water reached both devices")
            XCTAssertNotNil(box.listEntry("Read"), "Read reached both devices")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: server.dataDirectory + "/my habits/häbits+x%/users/default/format"))
    }

    func twoDataDirectoriesSyncAndConverge(_ server: any WebDAVTestServer) throws {
        a.ok("add", "Water", "--goal", "8", "--start", "2026-11-01")
        a.ok("add", "Read", "--unit", "chapters")   // counted: both devices' check-ins add up
        for _ in 0..<3 { a.ok("check", "Water") }
        a.ok("check", "Read", "--difficulty", "2")
        let opsA = try XCTUnwrap(a.stat("operations"))

        let setA = connect(a, server)
        XCTAssertEqual(setA.status, 0, setA.stderr)
        XCTAssertTrue(setA.stdout.hasSuffix(": pushed \(opsA) operations, pulled 0; verified\n"), setA.stdout)
        XCTAssertTrue(setA.stderr.contains("http"), "plain http to this machine is accepted with a warning: \(setA.stderr)")
        let setB = connect(b, server)
        XCTAssertEqual(setB.status, 0, setB.stderr)
        XCTAssertTrue(setB.stdout.hasSuffix(": pushed 0 operations, pulled \(opsA); verified\n"), setB.stdout)
        b.ok("check", "Water", "--amount", "2")
        b.ok("check", "Read")
        b.ok("check", "Water", "--date", "yesterday")

        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 3 operations in 1 batch, pulled 0\n")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 3\n")
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")

        let exportA = a.ok("export"), exportB = b.ok("export")
        XCTAssertFalse(exportA.isEmpty)
        XCTAssertEqual(exportA, exportB, "two replicas that saw the same operations differ")
        for box in [a!, b!] {
            XCTAssertEqual(progress(box, "Water"), 3 + 2)
            XCTAssertEqual(progress(box, "Read"), 1 + 1)
            XCTAssertEqual(progress(box, "Water", date: "yesterday"), 1)
            XCTAssertEqual(box.stat("checkIns"), 3, "habit-days with progress: Water today and yesterday, Read today")
            XCTAssertEqual(box.stat("operations"), opsA + 3)
            XCTAssertEqual(syncStatus(box, "Water"), "synced")
        }
        let statusA = try status(a), statusB = try status(b)
        let deviceA = try XCTUnwrap(statusA["device"] as? String), deviceB = try XCTUnwrap(statusB["device"] as? String)
        for (st, other) in [(statusA, deviceB), (statusB, deviceA)] {
            XCTAssertEqual(st["mode"] as? String, "online")
            XCTAssertEqual(st["pending"] as? Int, 0)
            XCTAssertEqual(st["account"] as? String, "default")
            XCTAssertTrue(st["lastError"] is NSNull, "\(st)")
            XCTAssertTrue(st["nextRetryAt"] is NSNull, "\(st)")
            let remote = try XCTUnwrap(st["remote"] as? String)
            XCTAssertTrue(remote.contains("127.0.0.1:\(server.port)/dav"), remote)
            XCTAssertFalse(remote.contains(server.password), remote)
            XCTAssertEqual((st["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [other])
        }
        for box in [a!, b!] {
            let shown = ok(box, "remote", "show")
            XCTAssertTrue(shown.contains("127.0.0.1:\(server.port)/dav"), shown)
            XCTAssertTrue(shown.contains("pushed and verified"), shown)
            let text = ok(box, "status")
            XCTAssertTrue(text.hasPrefix("Sync: online"), text)
        }

        // The server holds the layout of docs/sync.md ("The queue"), written by Apache.
        let account = server.dataDirectory + "/users/default"
        XCTAssertNotNil(try String(contentsOfFile: account + "/format", encoding: .utf8).range(of: "^habitto-sync 2 remote [0-9a-f]{32}\n$", options: .regularExpression))
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: account + "/devices")), [deviceA, deviceB])
        XCTAssertEqual(try batchFiles(server, deviceA), ["1-\(opsA).batch"])
        XCTAssertEqual(try batchFiles(server, deviceB), ["1-3.batch"])
        guard let server = server as? WebDAVServer else { return }
        let logged = server.requests()
        XCTAssertFalse(logged.isEmpty)
        XCTAssertEqual(logged.filter { $0.status >= 500 }, [], "Apache answered with server errors")
        XCTAssertEqual(logged.filter { $0.status < 300 && $0.user != server.user }, [], "a request got through without the user")
    }

    func testEntriesTheServerListsThatCannotBeUsedAreReportedOnceAsForAFolder() throws {
        let server = try startServer()
        a.ok("add", "Water")
        XCTAssertEqual(connect(a, server).status, 0)
        let deviceA = try XCTUnwrap(try status(a)["device"] as? String)
        // Written straight into the folder Apache serves: a collection under a batch's name,
        // a name that is not a batch's, and a collection whose name is not a device id.
        let devices = server.dataDirectory + "/users/default/devices"
        try FileManager.default.createDirectory(atPath: devices + "/\(deviceA)/ops/5-5.batch", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: devices + "/\(deviceA)/ops/0-0.batch", contents: Data([1])))
        try FileManager.default.createDirectory(atPath: devices + "/not a device", withIntermediateDirectories: true)
        let set = connect(b, server)
        XCTAssertEqual(set.status, 0, set.stderr)
        let short = deviceA.prefix(8)
        let expected = [
            "devices/not a device: not a device id (32 lower-case hex digits)",
            "devices/\(short)…/ops/0-0.batch: not a batch name (FIRST-LAST.batch, numbered from 1)",
            "devices/\(short)…/ops/5-5.batch: a folder, not a batch file",
        ]
        for line in expected { XCTAssertTrue(set.stderr.contains("habitto: skipped on the remote: \(line)\n"), set.stderr) }
        XCTAssertEqual(progress(b, "Water"), 0, "the good batch arrived")
        let again = run(b, "sync")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stderr, "", "reported once")
        XCTAssertEqual(try status(b)["remoteProblems"] as? [String], expected)
    }

    func testServerGoingAwayBetweenRoundsQueuesAndRestartDrainsWithoutDuplicates() throws {
        try serverGoingAwayBetweenRoundsQueuesAndRestartDrains(try startServer())
    }

    func testRcloneGoingAwayBetweenRoundsQueuesAndRestartDrainsWithoutDuplicates() throws {
        try serverGoingAwayBetweenRoundsQueuesAndRestartDrains(try startRclone())
    }

    func serverGoingAwayBetweenRoundsQueuesAndRestartDrains(_ server: any WebDAVTestServer) throws {
        a.ok("add", "Water", "--goal", "100")
        XCTAssertEqual(connect(a, server).status, 0)
        XCTAssertEqual(connect(b, server).status, 0)
        let created = try XCTUnwrap(a.stat("operations"))

        server.stop()
        for _ in 0..<3 { a.ok("check", "Water") }
        for round in 1...2 {
            let r = run(a, "sync")
            XCTAssertEqual(r.status, 4, "round \(round): \(r.stdout) \(r.stderr)")
            XCTAssertEqual(r.stdout, "")
            XCTAssertTrue(r.stderr.hasPrefix("habitto: sync: "), r.stderr)
            XCTAssertTrue(r.stderr.hasSuffix(" (pushed 0 operations in 0 batches, pulled 0); 'habitto status' shows the details\n"), r.stderr)
            XCTAssertFalse(r.stderr.contains("authentication"), r.stderr)
            let st = try status(a)
            XCTAssertEqual(st["mode"] as? String, "unreachable", "round \(round): \(st)")
            XCTAssertEqual(st["pending"] as? Int, 3)
            XCTAssertFalse(st["nextRetryAt"] is NSNull, "a transient failure is retried by itself: \(st)")
            XCTAssertFalse(st["lastError"] is NSNull)
            XCTAssertEqual(syncStatus(a, "Water"), "pending")
        }
        let text = ok(a, "status")
        XCTAssertTrue(text.hasPrefix("Sync: unreachable"), text)

        try server.start()
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 3 operations in 1 batch, pulled 0\n")
        let st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertEqual(st["pending"] as? Int, 0)
        XCTAssertTrue(st["nextRetryAt"] is NSNull)
        XCTAssertTrue(st["lastError"] is NSNull)
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 3\n")
        XCTAssertEqual(progress(b, "Water"), 3)
        XCTAssertEqual(b.stat("operations"), created + 3)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    func testServerStoppedMidSyncLosesAndDuplicatesNothing() async throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "1000", "--start", "2000-01-01")
        XCTAssertEqual(connect(a, server).status, 0)
        XCTAssertEqual(connect(b, server).status, 0)
        let created = try XCTUnwrap(a.stat("operations"))
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let total = 6000
        try await appendCheckIns(a, habit: "Water", count: total)
        XCTAssertEqual(try status(a)["pending"] as? Int, total)

        // Slow remote calls, so the round is still going when the server stops.
        a.extraEnv["HABITTO_FAULTS"] = "latency=400ms"
        let batchPath = "/dav/users/default/devices/\(device)/ops/"
        let before = server.requests().count
        let (process, tag) = try a.start(["sync"])
        let deadline = Date().addingTimeInterval(60)
        var uploaded = false
        while Date() < deadline && process.isRunning {
            if server.requests().dropFirst(before).contains(where: { $0.method == "PUT" && $0.path.hasPrefix(batchPath) && $0.status == 201 }) {
                uploaded = true
                break
            }
            usleep(20_000)
        }
        server.stop()
        let r = finish(a, process, tag, ["sync"])
        XCTAssertTrue(uploaded, "no batch was uploaded before the round ended: \(r.stderr)")
        XCTAssertEqual(r.status, 4, "the round finished before the server stopped: \(r.stdout) \(r.stderr)")
        XCTAssertFalse(r.killed)
        var st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "unreachable", "\(st)")
        let pendingAfterStop = try XCTUnwrap(st["pending"] as? Int)
        XCTAssertLessThan(pendingAfterStop, total, "the batch the server took is still pending")

        try server.start()
        a.extraEnv["HABITTO_FAULTS"] = nil
        let drained = try XCTUnwrap(parseSynced(ok(a, "sync")))
        XCTAssertEqual(drained.pushed, pendingAfterStop)
        XCTAssertEqual(drained.pulled, 0)
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertEqual(st["pending"] as? Int, 0)
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled \(total)\n")
        XCTAssertEqual(b.stat("checkIns"), total, "check-ins were duplicated or lost")
        XCTAssertEqual(b.stat("operations"), created + total)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
        // The batches on the server hold each operation once: consecutive, no gaps, no overlap.
        let ranges = try batchFiles(server, device).map(range)
        XCTAssertEqual(ranges.first?.first, 1)
        XCTAssertEqual(ranges.last?.last, UInt64(created + total))
        for (x, y) in zip(ranges, ranges.dropFirst()) {
            XCTAssertEqual(y.first, x.last + 1, "batches \(x) and \(y) overlap or leave a gap")
        }
    }

    func testWrongPasswordFailsOnceKeepsTheQueueAndTheRightOneDrainsIt() throws {
        try wrongPasswordFailsOnceAndTheRightOneDrains(try startServer())
    }

    func testWrongPasswordForRcloneFailsOnceKeepsTheQueueAndTheRightOneDrainsIt() throws {
        try wrongPasswordFailsOnceAndTheRightOneDrains(try startRclone())
    }

    /// Against Apache, also that each round is a few refused requests (its access log).
    func wrongPasswordFailsOnceAndTheRightOneDrains(_ server: any WebDAVTestServer) throws {
        let apache = server as? WebDAVServer
        a.ok("add", "Water", "--goal", "8")
        XCTAssertEqual(connect(a, server).status, 0)
        a.ok("check", "Water")
        a.ok("check", "Water")
        let wrong = "wrong-" + UUID().uuidString
        secrets.append(wrong)
        a.extraEnv[WebDAVTests.passwordVariable] = wrong
        let message = "authentication failed: check user and password"

        var perSync: [Int] = []
        for round in 1...2 {
            let before = apache?.requests().count ?? 0
            let r = run(a, "sync")
            XCTAssertEqual(r.status, 4, "round \(round): \(r.stdout) \(r.stderr)")
            XCTAssertEqual(r.stdout, "")
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
            XCTAssertEqual(linesMentioning("authentication failed", r), 1, r.stderr)
            let st = try status(a)
            XCTAssertEqual(st["mode"] as? String, "failed", "\(st)")
            XCTAssertTrue((st["lastError"] as? String)?.contains(message) == true, "\(st)")
            XCTAssertEqual(st["pending"] as? Int, 2, "the queue changed")
            XCTAssertTrue(st["nextRetryAt"] is NSNull, "a permanent failure is not retried by itself: \(st)")
            XCTAssertEqual(syncStatus(a, "Water"), "failed")
            guard let apache else { continue }
            let requests = Array(apache.requests().dropFirst(before))
            XCTAssertGreaterThan(requests.count, 0)
            XCTAssertEqual(requests.filter { $0.status != 401 }, [], "only refused requests: \(requests)")
            perSync.append(requests.count)
        }
        // One short round per explicit sync: no retry loop against a server that says no.
        if apache != nil {
            XCTAssertLessThanOrEqual(perSync[0], 3, "\(perSync)")
            XCTAssertLessThanOrEqual(perSync[1], perSync[0], "\(perSync)")
        }
        let text = ok(a, "status")
        XCTAssertTrue(text.hasPrefix("Sync: failed"), text)
        XCTAssertTrue(text.contains(message), text)

        a.extraEnv[WebDAVTests.passwordVariable] = server.password
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 2 operations in 1 batch, pulled 0\n")
        let st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertEqual(st["pending"] as? Int, 0)
        XCTAssertTrue(st["lastError"] is NSNull)
        XCTAssertEqual(syncStatus(a, "Water"), "synced")
        XCTAssertEqual(connect(b, server).status, 0)
        XCTAssertEqual(progress(b, "Water"), 2)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    /// HTTPS against a server whose certificate comes from a CA made for the test: without
    /// `ca_file` the untrusted certificate is a permanent failure that says so, never retried
    /// in a loop or ignored; a `ca_file` that is not a readable file is one line; the CA's
    /// file as `ca_file` makes the server trusted and the queue drains.
    func testHTTPSWithAnUntrustedCertificateFailsClearlyAndACAFileMakesItTrusted() throws {
        let server = try startServer(tls: true)
        let caFile = try XCTUnwrap(server.caFile)
        a.ok("add", "Water", "--goal", "8")
        a.ok("check", "Water", "--amount", "3")
        let journal = a.journalBytes()

        let set = connect(a, server)
        XCTAssertEqual(set.status, 4, set.stdout)
        XCTAssertEqual(set.stdout, "")
        XCTAssertTrue(set.stderr.lowercased().contains("certificate is not trusted"), set.stderr)
        XCTAssertEqual(set.stderr.split(separator: "\n").count, 1, set.stderr)
        var st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "failed", "\(st)")
        XCTAssertTrue((st["lastError"] as? String)?.lowercased().contains("certificate") == true, "\(st)")
        XCTAssertTrue(st["nextRetryAt"] is NSNull, "\(st)")
        let again = run(a, "sync")
        XCTAssertEqual(again.status, 4)
        XCTAssertTrue(again.stderr.lowercased().contains("certificate"), again.stderr)
        XCTAssertEqual(try status(a)["pending"] as? Int, 2, "the queue is intact")

        try writeConfig(a, "ca_file = \(caFile).missing\n")
        let refused = run(a, "sync")
        XCTAssertEqual(refused.status, 4)
        XCTAssertTrue(refused.stderr.contains("ca_file = \(caFile).missing is not a readable file; fix the path in the config file or remove ca_file"), refused.stderr)
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "failed")
        XCTAssertEqual(a.journalBytes(), journal, "nothing local changed")

        try writeConfig(a, "ca_file = \(caFile)\n")
        let trusted = run(a, "sync")
        XCTAssertEqual(trusted.status, 0, trusted.stderr)
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online", "\(st)")
        XCTAssertEqual(st["pending"] as? Int, 0, "the queue drained over the trusted connection")
    }

    func testThePasswordNeverAppearsInOutputStateOrConfig() throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "8")
        a.ok("check", "Water")
        XCTAssertEqual(connect(a, server).status, 0)
        XCTAssertEqual(connect(b, server).status, 0)
        b.ok("check", "Water")
        ok(b, "sync")
        ok(a, "sync")
        for box in [a!, b!] {
            ok(box, "status")
            ok(box, "status", "--json")
            ok(box, "remote", "show")
            ok(box, "list", "--all", "--json")
            ok(box, "export")
        }
        // Failures print messages too: a wrong password, then the server gone.
        let wrong = "wrong-" + UUID().uuidString
        secrets.append(wrong)
        a.extraEnv[WebDAVTests.passwordVariable] = wrong
        a.ok("check", "Water")
        XCTAssertEqual(run(a, "sync").status, 4)
        ok(a, "status")
        ok(a, "status", "--json")
        a.extraEnv[WebDAVTests.passwordVariable] = server.password
        server.stop()
        XCTAssertEqual(run(a, "sync").status, 4)
        ok(a, "status")
        ok(a, "status", "--json")
        try server.start()
        ok(a, "sync")
        // Connecting again with the password in the URL must not store it either.
        var withPassword = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        withPassword.user = server.user
        withPassword.password = server.password
        let inURL = run(b, "remote", "set", withPassword.string!, "--user", server.user)
        XCTAssertFalse((inURL.stdout + inURL.stderr).contains(server.password), "\(inURL)")
        ok(b, "status", "--json")

        XCTAssertFalse(outputs.isEmpty)
        let basic = Data("\(server.user):\(server.password)".utf8).base64EncodedString()
        for secret in [server.password, wrong, basic] {
            for text in outputs {
                XCTAssertFalse(text.contains(secret), "printed: \(text)")
            }
            for dir in [a.home, a.config, b.home, b.config] {
                for file in filesContaining(secret, under: dir) {
                    XCTFail("\(file) contains a password")
                }
            }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: a.home + "/sync.json"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: a.journalPath))
    }

    func testPasswordFileMustBePrivateAndPasswordCommandUsesItsFirstLine() throws {
        let server = try startServer()
        let secretsDir = a.root + "/secrets"
        try FileManager.default.createDirectory(atPath: secretsDir, withIntermediateDirectories: true)
        let passwordFile = secretsDir + "/webdav-password"
        try (server.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(passwordFile, 0o600), 0)
        try writeConfig(a, "password_file = \(passwordFile)\n")
        a.extraEnv[WebDAVTests.passwordVariable] = nil
        XCTAssertNil(a.environment[WebDAVTests.passwordVariable], "the password must come from the file here")

        a.ok("add", "Water", "--goal", "8")
        let set = run(a, "remote", "set", server.baseURL.absoluteString, "--user", server.user)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(try status(a)["mode"] as? String, "online")

        // Readable by others: refused, saying why, and nothing leaves.
        XCTAssertEqual(chmod(passwordFile, 0o644), 0)
        a.ok("check", "Water")
        let open = run(a, "sync")
        XCTAssertNotEqual(open.status, 0, open.stdout)
        XCTAssertEqual(open.stdout, "")
        XCTAssertTrue(open.stderr.contains(passwordFile), "the message names the file: \(open.stderr)")
        let why = open.stderr.lowercased()
        XCTAssertTrue(["readable", "permission", "chmod", "600", "mode"].contains { why.contains($0) }, "the message says why: \(open.stderr)")
        XCTAssertEqual(try status(a)["pending"] as? Int, 1)

        XCTAssertEqual(chmod(passwordFile, 0o600), 0)
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")

        // A command: its first line is the password, the rest is ignored.
        let script = secretsDir + "/print-password"
        try "#!/bin/sh\nprintf '%s\\n' '\(server.password)' 'not-the-password'\n".write(toFile: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(script, 0o700), 0)
        try writeConfig(a, "password_command = \(script)\n")
        a.ok("check", "Water")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")

        // The command's answer is really used: a command printing a wrong password fails.
        let wrongScript = secretsDir + "/print-wrong"
        try "#!/bin/sh\necho wrong-password-from-command\n".write(toFile: wrongScript, atomically: true, encoding: .utf8)
        secrets.append("wrong-password-from-command")
        XCTAssertEqual(chmod(wrongScript, 0o700), 0)
        try writeConfig(a, "password_command = \(wrongScript)\n")
        a.ok("check", "Water")
        let refused = run(a, "sync")
        XCTAssertEqual(refused.status, 4)
        XCTAssertTrue(refused.stderr.contains("authentication failed: check user and password"), refused.stderr)
        XCTAssertEqual(try status(a)["pending"] as? Int, 1)

        b.extraEnv[WebDAVTests.passwordVariable] = server.password
        XCTAssertEqual(connect(b, server).status, 0)
        XCTAssertEqual(progress(b, "Water"), 2)
    }

    // MARK: Faults through the proxy

    func testServerErrorAndTooManyRequestsAreTransientAndRetryAfterIsRespected() throws {
        let (_, proxy) = try aThroughTheProxy(adding: "Water", "--goal", "8")
        a.ok("check", "Water")
        a.ok("check", "Water")

        proxy.inject(.status(500))
        let failed = run(a, "sync")
        XCTAssertEqual(failed.status, 4, failed.stdout)
        XCTAssertTrue(failed.stderr.hasPrefix("habitto: sync: "), failed.stderr)
        XCTAssertEqual(proxy.pendingFaults, 0, "the sync never reached the proxy")
        var st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "unreachable", "a 500 is transient: \(st)")
        XCTAssertEqual(st["pending"] as? Int, 2)
        XCTAssertFalse(st["nextRetryAt"] is NSNull, "\(st)")
        XCTAssertFalse(st["lastError"] is NSNull, "\(st)")
        XCTAssertEqual(syncStatus(a, "Water"), "pending")

        proxy.inject(.tooManyRequests(retryAfter: 120))
        let busy = run(a, "sync")
        XCTAssertEqual(busy.status, 4, busy.stdout)
        XCTAssertEqual(proxy.pendingFaults, 0)
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "unreachable", "a 429 is transient: \(st)")
        XCTAssertEqual(st["pending"] as? Int, 2)
        let now = try XCTUnwrap(ISO8601DateFormatter().date(from: a.now + "Z"))
        let next = try XCTUnwrap((st["nextRetryAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(st)")
        XCTAssertGreaterThanOrEqual(next.timeIntervalSince(now), 120, "Retry-After: 120 was not respected: \(st)")
        XCTAssertLessThanOrEqual(next.timeIntervalSince(now), 130, "\(st)")

        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 2 operations in 1 batch, pulled 0\n")
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertTrue(st["nextRetryAt"] is NSNull)
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 2\n")
        XCTAssertEqual(progress(b, "Water"), 2)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    func testAnswerLostAfterTheUploadIsAckedByTheResendWithoutDuplicates() throws {
        let (server, proxy) = try aThroughTheProxy(adding: "Water", "--goal", "100")
        let created = try XCTUnwrap(a.stat("operations"))
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        XCTAssertEqual(try batchFiles(server, device), ["1-\(created).batch"])
        // Two check-ins: the batches then hold 1 to 3, which no compaction merges yet.
        for _ in 0..<2 { a.ok("check", "Water") }

        let batch = "\(created + 1)-\(created + 2).batch"
        proxy.inject(.dropResponse, on: "PUT", pathContaining: "/ops/")
        let lost = run(a, "sync")
        XCTAssertEqual(lost.status, 4, lost.stdout)
        XCTAssertEqual(proxy.pendingFaults, 0)
        XCTAssertEqual(try batchFiles(server, device), ["1-\(created).batch", batch], "the upload whose answer was lost reached the server")
        var st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "unreachable", "a lost answer is transient: \(st)")
        XCTAssertEqual(st["pending"] as? Int, 2, "operations left the outbox without an answer")

        // The resend finds the same batch with the same bytes: that is the ack.
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 2 operations in 1 batch, pulled 0\n")
        XCTAssertEqual(try batchFiles(server, device), ["1-\(created).batch", batch], "the resend wrote another batch")
        st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online")
        XCTAssertEqual(st["pending"] as? Int, 0)
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 2\n")
        XCTAssertEqual(progress(b, "Water"), 2, "check-ins were duplicated or lost")
        XCTAssertEqual(b.stat("operations"), created + 2)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    // MARK: Volume

    func testTenThousandPendingOperationsGoUpInAtMostElevenPUTs() async throws {
        let server = try startServer()
        a.ok("add", "Big", "--goal", "1000", "--start", "2000-01-01")
        XCTAssertEqual(connect(a, server).status, 0)
        XCTAssertEqual(connect(b, server).status, 0)
        let created = try XCTUnwrap(a.stat("operations"))
        try await appendCheckIns(a, habit: "Big", count: 10_000)
        XCTAssertEqual(try status(a)["pending"] as? Int, 10_000)

        let before = server.requests().count
        let report = try XCTUnwrap(parseSynced(ok(a, "sync")))
        XCTAssertEqual(report.pushed, 10_000)
        XCTAssertEqual(report.pulled, 0)
        let requests = Array(server.requests().dropFirst(before))
        let puts = requests.filter { $0.method == "PUT" }
        XCTAssertGreaterThanOrEqual(puts.count, 1)
        XCTAssertLessThanOrEqual(puts.count, 11, "too many requests for a backlog: \(puts)")
        XCTAssertLessThanOrEqual(report.batches, puts.count)
        XCTAssertEqual(puts.filter { !(200..<300).contains($0.status) }, [], "\(puts)")
        XCTAssertEqual(try status(a)["pending"] as? Int, 0)

        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 10000\n")
        XCTAssertEqual(b.stat("checkIns"), 10_000)
        XCTAssertEqual(b.stat("operations"), created + 10_000)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    func testLosingSyncJSONKeepsTheRemoteSettingAndTheNextPushSendsOneNewBatchToApache() throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "8")
        XCTAssertEqual(connect(a, server).status, 0)
        for _ in 0..<2 { a.ok("check", "Water"); ok(a, "sync") }
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let before = try batchFiles(server, device)
        XCTAssertEqual(before, ["1-1.batch", "2-2.batch", "3-3.batch"])
        let remoteFile = try String(contentsOfFile: a.home + "/remote", encoding: .utf8)
        XCTAssertTrue(remoteFile.contains("remote = \(server.baseURL.absoluteString)\nuser = \(server.user)\n"), remoteFile)

        try FileManager.default.removeItem(atPath: a.home + "/sync.json")
        XCTAssertTrue(ok(a, "remote", "show").hasPrefix("Remote \(server.baseURL.absoluteString), account default;"))
        XCTAssertTrue(ok(a, "status").hasPrefix("Sync: online · \(server.baseURL.absoluteString) · account default\n"))
        a.ok("check", "Water")
        let requestsBefore = server.requests().count
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")
        let puts = server.requests().dropFirst(requestsBefore).filter { $0.method == "PUT" }
        // One PUT of a batch, of the new one only, and the change marker that tells probing devices.
        XCTAssertEqual(puts.map(\.path), ["/dav/users/default/devices/\(device)/ops/4-4.batch", "/dav/users/default/changed"])
        let after = try batchFiles(server, device)
        XCTAssertEqual(after, before + ["4-4.batch"])
        XCTAssertEqual(overlappingBatches(after), [])

        XCTAssertEqual(connect(b, server).status, 0)
        XCTAssertEqual(b.ok("export"), a.ok("export"), "a second device converges")
    }

    // MARK: Request size

    /// A server that refuses large bodies (413): the batch is halved until it fits, the size
    /// that fit is remembered so the next round sends no refused request, and the batches on
    /// the server are consecutive, each within the limit, each operation once.
    func testBatchTooLargeForTheServerIsHalvedUntilItFitsAndTheSizeIsRemembered() async throws {
        let limit = 4096
        let server = try startServer(limitRequestBody: limit)
        a.ok("add", "Big", "--goal", "1000", "--start", "2000-01-01")
        XCTAssertEqual(connect(a, server).status, 0)
        XCTAssertEqual(connect(b, server).status, 0)
        let created = try XCTUnwrap(a.stat("operations"))
        try await appendCheckIns(a, habit: "Big", count: 600)

        let before = server.requests().count
        XCTAssertEqual(ok(a, "sync").hasPrefix("Synced: pushed 600 operations in "), true)
        // The batches' PUTs (the round's last PUT is the change marker's, after them).
        let all = Array(server.requests().dropFirst(before)).filter { $0.method == "PUT" }
        XCTAssertEqual(all.last?.path, "/dav/users/default/changed")
        let puts = all.filter { !$0.path.hasSuffix("/changed") }
        XCTAssertGreaterThan(puts.filter { $0.status == 413 }.count, 0, "the server refused nothing: \(puts)")
        XCTAssertEqual(puts.filter { $0.status != 413 && $0.status != 201 }, [], "\(puts)")
        let st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "online", "\(st)")
        XCTAssertEqual(st["pending"] as? Int, 0)

        let device = try XCTUnwrap(st["device"] as? String)
        let ranges = try assertBatchesFollowOn(server, device, within: limit)
        XCTAssertEqual(ranges.first?.first, 1)
        XCTAssertEqual(ranges.last?.last, UInt64(created + 600))
        // Remembered in the sync state, for this remote.
        let saved = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: a.home + "/sync.json"))) as? [String: Any])
        let learnt = try XCTUnwrap(saved["learnt"] as? [String: Any], "\(saved)")
        let size = try XCTUnwrap(learnt["maxBatchOperations"] as? Int)
        XCTAssertEqual(UInt64(size), ranges.dropFirst().map { $0.last - $0.first + 1 }.max())

        // The next round sends batches of the remembered size at once: nothing refused.
        try await appendCheckIns(a, habit: "Big", count: 2 * size + 1)
        let again = server.requests().count
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed \(2 * size + 1) operations in 3 batches, pulled 0\n")
        let next = Array(server.requests().dropFirst(again)).filter { $0.method == "PUT" && !$0.path.hasSuffix("/changed") }
        XCTAssertEqual(next.map(\.status), [201, 201, 201], "\(next)")

        // Pulling takes the batches of every size.
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled \(600 + 2 * size + 1)\n")
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    /// A server (here a proxy in front of Apache) that closes the connection on a large body
    /// instead of answering 413: the batch is not on the server, so it is halved as for a 413;
    /// nothing is sent twice and nothing is lost.
    func testConnectionClosedOnALargeBodyIsHalvedLikeA413() async throws {
        let (server, proxy) = try aThroughTheProxy(adding: "Big", "--goal", "1000", "--start", "2000-01-01")
        let limit = 96 << 10
        proxy.closeConnections(onBodiesLargerThan: limit)
        try await appendCheckIns(a, habit: "Big", count: 5000)

        XCTAssertEqual(ok(a, "sync").hasPrefix("Synced: pushed 5000 operations in "), true)
        let puts = proxy.requests.filter { $0.method == "PUT" && $0.path.contains("/ops/") }
        XCTAssertGreaterThan(puts.filter { $0.fault == .closeConnection }.count, 0, "no body was too large: \(puts)")
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        try assertBatchesFollowOn(server, device, within: limit)
        XCTAssertEqual(try status(a)["pending"] as? Int, 0)
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 5000\n")
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    /// One operation larger than the server accepts (a long note): the operations before it
    /// go up, then the round fails naming the server's setting to raise, once, not in a loop.
    func testOneOperationLargerThanTheServerAcceptsFailsNamingTheSettingToRaise() throws {
        let server = try startServer(limitRequestBody: 1500)
        a.ok("add", "Water", "--goal", "8")
        XCTAssertEqual(connect(a, server).status, 0)
        a.ok("check", "Water")
        a.ok("note", "Water", String(repeating: "long note ", count: 200))
        a.ok("check", "Water")
        let before = server.requests().count
        let r = run(a, "sync")
        XCTAssertEqual(r.status, 4, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("too large (413)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("client_max_body_size for nginx, LimitRequestBody for Apache"), r.stderr)
        let st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "failed", "\(st)")
        XCTAssertEqual(st["pending"] as? Int, 2, "the check-in before the note went up; the note and what follows wait")
        let puts = Array(server.requests().dropFirst(before)).filter { $0.method == "PUT" }
        XCTAssertEqual(puts.map(\.status), [413, 201, 413], "\(puts)")
    }

    // MARK: Requests a round makes

    /// The folders and format checked once are remembered in the sync state: a later round
    /// (another process) makes only this device's listing, the PUT and the devices listing.
    /// A layout removed on the server is noticed by that listing (this device's batches are
    /// gone): everything is pushed again, the layout created again when the PUT finds it
    /// missing, and read back, so a new device sees everything. A root folder removed is
    /// `failed`, and not created again.
    func testARoundMakesOnlyTheRequestsItNeedsAndRefillsALayoutRemovedOnTheServer() throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "8")
        XCTAssertEqual(connect(a, server).status, 0)
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        a.ok("check", "Water")
        var before = server.requests().count
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")
        let ops = "/dav/users/default/devices/\(device)/ops/"
        let seq = try XCTUnwrap(a.stat("operations"))
        XCTAssertEqual(server.requests().dropFirst(before).map(\.description),
                       ["PROPFIND \(ops) 207", "PUT \(ops)\(seq)-\(seq).batch 201", "PROPFIND /dav/users/default/devices/ 207",
                        "PUT /dav/users/default/changed 204"])

        // Nothing to send: two listings.
        before = server.requests().count
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(server.requests().dropFirst(before).map(\.description),
                       ["PROPFIND \(ops) 207", "PROPFIND /dav/users/default/devices/ 207"])

        // The layout removed on the server: this device's batches are gone from its listing,
        // so everything is pushed again; the PUT finds no folder, and the layout is created again.
        try FileManager.default.removeItem(atPath: server.dataDirectory + "/users")
        before = server.requests().count
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed \(seq) operations in 1 batch, pulled 0\n")
        let methods = server.requests().dropFirst(before).map { "\($0.method) \($0.status)" }
        // This device's listing (404), the root's check, then the layout made again.
        XCTAssertEqual(Array(methods.prefix(3)), ["PROPFIND 404", "PROPFIND 207", "MKCOL 201"], "\(methods)")
        XCTAssertFalse(methods.contains("PUT 409"), "\(methods)")
        XCTAssertEqual(try batchFiles(server, device), ["1-\(seq).batch"])
        XCTAssertNotNil(try String(contentsOfFile: server.dataDirectory + "/users/default/format", encoding: .utf8).range(of: "^habitto-sync 2 remote [0-9a-f]{32}\n$", options: .regularExpression))
        XCTAssertEqual(try status(a)["mode"] as? String, "online")
        XCTAssertEqual(connect(b, server).status, 0)
        XCTAssertEqual(progress(b, "Water"), 1)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    /// A root folder removed on the server is `failed`, naming it, and not created again,
    /// whether the round has something to send or not; rclone, which creates the folders
    /// above a file it is sent, too.
    func testARemoteRootRemovedOnTheServerIsFailedAndNotCreatedAgain() throws {
        try remoteRootRemovedFails(try startServer())
    }

    func testARemoteRootRemovedOnRcloneIsFailedAndNotCreatedAgain() throws {
        try remoteRootRemovedFails(try startRclone())
    }

    func remoteRootRemovedFails(_ server: any WebDAVTestServer) throws {
        let folder = server.dataDirectory + "/habitto"
        // Made as the server's own folders are (Apache runs as another user).
        var owner = Glibc.stat()
        XCTAssertEqual(lstat(server.dataDirectory, &owner), 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        XCTAssertEqual(chown(folder, owner.st_uid, owner.st_gid), 0)
        let url = server.baseURL.appendingPathComponent("habitto")
        a.ok("add", "Water", "--goal", "8")
        XCTAssertEqual(connect(a, url: url, server).status, 0)
        a.ok("check", "Water")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")
        try FileManager.default.removeItem(atPath: folder)
        for pending in [0, 1] {
            if pending > 0 { a.ok("check", "Water") }
            let gone = run(a, "sync")
            XCTAssertNotEqual(gone.status, 0)
            XCTAssertTrue(gone.stderr.contains("the remote folder \(url.absoluteString)/ does not exist on the server; create it or fix 'habitto remote set'"), gone.stderr)
            XCTAssertEqual(try status(a)["mode"] as? String, "failed")
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder))
        }
    }

    // MARK: Compaction

    /// A device that checks in and syncs 20 times keeps at most 9 batch files on Apache: it
    /// merges them into a batch it writes, reads back, and only then removes (DELETE) what
    /// that batch covers. A new device joins reading one batch per file at most, and a
    /// round with nothing to do is one listing per device.
    func testBatchesAreCompactedOnApacheAndANewDeviceJoinsInAFewRequests() throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "100")
        XCTAssertEqual(connect(a, server).status, 0)
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let start = server.requests().count
        for _ in 0..<20 {
            a.ok("check", "Water")
            XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")
        }
        let files = try batchFiles(server, device)
        XCTAssertLessThanOrEqual(files.count, 9, "\(files)")
        let ranges = files.map(range)
        XCTAssertEqual(ranges.first?.first, 1, "\(files)")
        for (x, y) in zip(ranges, ranges.dropFirst()) { XCTAssertEqual(y.first, x.last + 1, "\(files)") }
        XCTAssertEqual(ranges.last?.last, UInt64(try XCTUnwrap(a.stat("operations"))))

        // Every DELETE comes after the PUT and the read-back of the batch that covers it.
        let requests = Array(server.requests().dropFirst(start))
        let ops = "/dav/users/default/devices/\(device)/ops/"
        let deletes = requests.enumerated().filter { $0.element.method == "DELETE" }
        XCTAssertGreaterThan(deletes.count, 0)
        for (i, d) in deletes {
            XCTAssertEqual(d.status, 204, "\(d)")
            let gone = range(String(d.path.dropFirst(ops.count)))
            let cover = requests[..<i].last { $0.method == "PUT" && $0.status == 201 && range(String($0.path.dropFirst(ops.count))).first <= gone.first
                && range(String($0.path.dropFirst(ops.count))).last >= gone.last && range(String($0.path.dropFirst(ops.count))) != gone }
            let covering = try XCTUnwrap(cover, "no covering batch was written before \(d)")
            XCTAssertTrue(requests[..<i].contains { $0.method == "GET" && $0.path == covering.path && $0.status == 200 }, "not read back before \(d)")
        }

        var before = server.requests().count
        XCTAssertEqual(connect(b, server).status, 0)
        let join = Array(server.requests().dropFirst(before))
        XCTAssertLessThanOrEqual(join.filter { $0.method == "GET" && $0.path.hasPrefix(ops) }.count, files.count, "\(join)")
        XCTAssertLessThanOrEqual(join.count, 40, "\(join)")
        XCTAssertEqual(progress(b, "Water"), 20)
        XCTAssertEqual(b.ok("export"), a.ok("export"))

        before = server.requests().count
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        let idle = Array(server.requests().dropFirst(before))
        XCTAssertLessThanOrEqual(idle.count, 4, "\(idle)")
        XCTAssertEqual(idle.filter { $0.method != "PROPFIND" }, [], "\(idle)")
    }

    /// A batch that answers 404 after it was listed (removed by its device's compaction) makes
    /// the pull list that device again and go on: every operation arrives, once.
    func testABatchGoneAfterTheListingIsListedAgainAndEveryOperationArrivesOnce() throws {
        let server = try startServer()
        let proxy = try startProxy(server)
        a.ok("add", "Water", "--goal", "100")
        XCTAssertEqual(connect(a, server).status, 0)
        for _ in 0..<2 {
            a.ok("check", "Water")
            ok(a, "sync")
        }
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let files = try batchFiles(server, device)
        XCTAssertEqual(files.count, 3, "\(files)")
        proxy.inject(.status(404), on: "GET", pathContaining: "/ops/" + files[2])
        XCTAssertEqual(connect(b, url: proxy.baseURL, server).status, 0)
        XCTAssertEqual(proxy.pendingFaults, 0)
        let seen = proxy.requests.map(\.description).filter { $0.contains("/\(device)/ops/") }
        XCTAssertEqual(seen.filter { $0.hasPrefix("PROPFIND") }.count, 2, "listed again after the 404: \(seen)")
        XCTAssertEqual(try status(b)["mode"] as? String, "online")
        XCTAssertEqual(progress(b, "Water"), 2)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    /// A compaction against Apache that fails at any step (the covering batch's PUT
    /// refused, or written with its answer lost; its read-back failing; a DELETE failing or
    /// its connection closed) leaves every operation on the server: a new device joins with
    /// each check-in once, and the next round finishes the compaction.
    func testACompactionThatFailsAtAnyStepOnApacheLosesNothingAndTheNextRoundFinishes() throws {
        let server = try startServer()
        let proxy = try startProxy(server)
        // (method, which request: the covering batch or the nth small one, fault)
        let steps: [(String, Int?, FaultProxy.Fault)] = [
            ("PUT", nil, .status(500)), ("PUT", nil, .dropResponse), ("GET", nil, .status(500)),
            ("DELETE", 0, .status(500)), ("DELETE", 4, .closeConnection),
        ]
        for (i, (method, small, fault)) in steps.enumerated() {
            let device = Sandbox(), joiner = Sandbox()
            joiner.now = device.now
            let account = "step\(i)"
            device.ok("add", "Water", "--goal", "100")
            device.extraEnv[WebDAVTests.passwordVariable] = server.password
            joiner.extraEnv[WebDAVTests.passwordVariable] = server.password
            ok(device, "remote", "set", proxy.baseURL.absoluteString, "--user", server.user, "--account", account)
            let id = try XCTUnwrap(try status(device)["device"] as? String)
            let folder = server.dataDirectory + "/users/\(account)/devices/\(id)/ops"
            func held() throws -> [(first: UInt64, last: UInt64)] {
                try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".batch") }.map(range)
                    .sorted { ($0.first, $0.last) < ($1.first, $1.last) }
            }
            // Operations 1 to 15 sent one round at a time: 1-8, 9-12, 13, 14 and 15; the next
            // check-in's compaction writes 1-16 and removes those and 16.
            for _ in 0..<14 {
                device.ok("check", "Water")
                ok(device, "sync")
            }
            let smalls = try held()
            XCTAssertEqual(smalls.map { "\($0.first)-\($0.last)" }, ["1-8", "9-12", "13-13", "14-14", "15-15"], "step \(i)")
            let last = try XCTUnwrap(smalls.last?.last) + 1
            let target = small.map { "/ops/\(smalls[$0].first)-\(smalls[$0].last).batch" } ?? "/ops/1-\(last).batch"
            proxy.inject(fault, on: method, pathContaining: target)
            device.ok("check", "Water")
            let failed = run(device, "sync")
            XCTAssertNotEqual(failed.status, 0, "step \(i): \(failed.stdout)")
            XCTAssertEqual(proxy.pendingFaults, 0, "step \(i)")
            XCTAssertEqual(try status(device)["pending"] as? Int, 0, "step \(i): the check-in was pushed before the compaction")
            let after = try held()
            var end: UInt64 = 0
            for r in after where r.first <= end + 1 { end = max(end, r.last) }
            XCTAssertEqual(end, last, "step \(i): every operation is on the server: \(after)")

            XCTAssertEqual(run(joiner, ["remote", "set", server.baseURL.absoluteString, "--user", server.user, "--account", account]).status, 0)
            XCTAssertEqual(progress(joiner, "Water"), 15, "step \(i)")
            device.ok("check", "Water")
            ok(device, "sync")
            XCTAssertEqual(try held().map { "\($0.first)-\($0.last)" }, ["1-\(last)", "\(last + 1)-\(last + 1)"], "step \(i)")
            ok(joiner, "sync")
            XCTAssertEqual(progress(joiner, "Water"), 16, "step \(i)")
            XCTAssertEqual(joiner.ok("export"), device.ok("export"), "step \(i)")
        }
    }

    /// Two devices whose syncs run at the same moment every round, both compacting their
    /// own batches on Apache while the other reads them, each keep few files, and both end
    /// with every check-in of both once.
    func testTwoDevicesCompactingAtOnceOnApacheEndWithEveryCheckInOnce() throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "100")
        b.ok("add", "Read", "--goal", "100")
        XCTAssertEqual(connect(a, server).status, 0)
        XCTAssertEqual(connect(b, server).status, 0)
        for round in 0..<14 {
            a.ok("check", "Water")
            b.ok("check", "Read")
            let (pa, ta) = try a.start(["sync"])
            let (pb, tb) = try b.start(["sync"])
            for (box, r) in [(a!, a.finish(pa, ta)), (b!, b.finish(pb, tb))] {
                outputs += [r.stdout, r.stderr]
                XCTAssertEqual(r.status, 0, "round \(round), \(box === a ? "a" : "b"): \(r.stdout) \(r.stderr)")
            }
        }
        ok(a, "sync")
        ok(b, "sync")
        for box in [a!, b!] {
            let device = try XCTUnwrap(try status(box)["device"] as? String)
            let files = try batchFiles(server, device)
            XCTAssertLessThanOrEqual(files.count, 9, "\(files)")
            XCTAssertEqual(try assertBatchesFollowOn(server, device, within: 1 << 20).first?.first, 1, "\(files)")
        }
        XCTAssertEqual(progress(a, "Read"), 14)
        XCTAssertEqual(progress(b, "Water"), 14)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    /// A server that answers 201 to PUTs and does not keep them, for two rounds (a write-back
    /// cache whose upload failed; here the proxy in front of Apache answers for it): the round
    /// that finds the batch gone sends it again, and when that is lost too, `sync` says so and
    /// `status` counts what the server lacks as waiting; the next round sends it with what was
    /// checked in since, and B gets every operation of A. No `doctor --repair` is run.
    func testPutsTheServerAnsweredAndDidNotKeepWaitInTheStatusAndTheNextRoundSendsThem() throws {
        let (server, proxy) = try aThroughTheProxy(adding: "Water", "--goal", "8")
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        a.ok("check", "Water")
        let lost = try XCTUnwrap(a.stat("operations"))
        proxy.inject(.status(201), on: "PUT", pathContaining: ".batch")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")
        XCTAssertEqual(try status(a)["pending"] as? Int, 0, "answered: A cannot know yet")
        XCTAssertFalse(try batchFiles(server, device).contains("\(lost)-\(lost).batch"))

        // The next round finds it gone and sends it again, and the server loses that too.
        proxy.inject(.status(201), on: "PUT", pathContaining: ".batch")
        let failed = run(a, "sync")
        XCTAssertEqual(failed.status, 4, failed.stdout + failed.stderr)
        XCTAssertEqual(failed.stderr, "habitto: sync: verification failed: the remote lacks this device's operations from \(lost), which it had acknowledged; they wait to be sent again: run 'habitto sync' again (pushed 1 operation in 1 batch, pulled 0); 'habitto status' shows the details\n")
        XCTAssertEqual(proxy.pendingFaults, 0)
        XCTAssertEqual(proxy.requests.filter { $0.method == "PUT" && $0.path.hasSuffix("/\(lost)-\(lost).batch") }.count, 2)
        let waiting = try status(a)
        XCTAssertEqual(waiting["pending"] as? Int, 1, "\(waiting)")
        XCTAssertTrue(ok(a, "status").contains("This device: \(device) · 1 operation waiting to be sent"))

        // A later check-in, and a round the server keeps: both go, and B gets everything.
        a.ok("check", "Water")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 2 operations in 1 batch, pulled 0\n")
        let healed = try status(a)
        XCTAssertEqual(healed["pending"] as? Int, 0, "\(healed)")
        XCTAssertEqual(healed["mode"] as? String, "online", "\(healed)")
        XCTAssertEqual(try assertBatchesFollowOn(server, device, within: 1 << 20).last?.last, UInt64(lost + 1))
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 2\n", "the two A sent since B joined")
        XCTAssertEqual(progress(b, "Water"), 2)
        XCTAssertEqual(b.ok("export"), a.ok("export"))
    }

    // MARK: Authentication

    /// A server that offers only Digest: the message names what it offers and what Habitto
    /// speaks, not a wrong password.
    func testAServerOfferingOnlyDigestIsToldApartFromAWrongPassword() throws {
        let server = try startServer(authentication: .digest)
        a.ok("add", "Water", "--goal", "8")
        let r = connect(a, server)
        XCTAssertEqual(r.status, 4, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("the server offers only Digest authentication; Habitto supports Basic"), r.stderr)
        XCTAssertFalse(r.stderr.contains("check user and password"), r.stderr)
        let st = try status(a)
        XCTAssertEqual(st["mode"] as? String, "failed", "\(st)")
    }

    /// `--user` without a password from any source: said, with the three sources, before
    /// any request.
    func testAUserWithoutAPasswordFromAnySourceIsToldWhereOneCanComeFrom() throws {
        let server = try startServer()
        a.ok("add", "Water", "--goal", "8")
        XCTAssertEqual(connect(a, server).status, 0)
        a.ok("check", "Water")
        a.extraEnv[WebDAVTests.passwordVariable] = nil
        let before = server.requests().count
        let r = run(a, "sync")
        XCTAssertEqual(r.status, 4, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("no password for WebDAV user '\(server.user)': set HABITTO_WEBDAV_PASSWORD, or password_command or password_file in the config file"), r.stderr)
        XCTAssertEqual(server.requests().count, before, "a request was sent without a password")
    }

    // MARK: Helpers

    /// A fault-injecting proxy in front of `server`, stopped when the test ends.
    /// Apache with the fault proxy in front of it: `a` adds a habit (`add` with these
    /// arguments) and connects through the proxy, `b` straight to the server.
    func aThroughTheProxy(adding habit: String..., file: StaticString = #filePath, line: UInt = #line) throws -> (WebDAVServer, FaultProxy) {
        let server = try startServer()
        let proxy = try startProxy(server)
        ok(a, ["add"] + habit, file: file, line: line)
        XCTAssertEqual(connect(a, url: proxy.baseURL, server).status, 0, file: file, line: line)
        XCTAssertEqual(connect(b, server).status, 0, file: file, line: line)
        return (server, proxy)
    }

    func startProxy(_ server: WebDAVServer) throws -> FaultProxy {
        let p = try FaultProxy(targetPort: server.port)
        proxy = p
        return p
    }

    /// Adds `count` check-ins (one a day from the habit's start) to a sandbox's data directory
    /// straight through the repository, in commits of 1000: a backlog without 10,000 runs.
    func appendCheckIns(_ box: Sandbox, habit name: String, count: Int) async throws {
        let clock = try XCTUnwrap(ISO8601DateFormatter().date(from: box.now + "Z"))
        let repo = try HabitRepository(directory: box.home, now: { clock })
        let state = await repo.state
        let habit = try XCTUnwrap(state.habits.first { $0.name == name })
        var done = 0
        while done < count {
            let n = min(1000, count - done), from = done
            try await repo.commit { _, _ in
                (0..<n).map { .progress(habit.id, habit.startDate.adding(from + $0), delta: Amount.scale) }
            }
            done += n
        }
    }

    /// Regular files under `dir` whose bytes contain `text`.
    func filesContaining(_ text: String, under dir: String) -> [String] {
        let needle = Data(text.utf8)
        guard let walker = FileManager.default.enumerator(atPath: dir) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            let path = dir + "/" + relative
            var st = stat()
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
                  let data = FileManager.default.contents(atPath: path) else { continue }
            if data.range(of: needle) != nil { found.append(path) }
        }
        return found
    }
}
