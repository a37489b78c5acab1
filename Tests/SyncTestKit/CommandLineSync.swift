import Foundation
import XCTest
import HabitCore
import HabitStore
@testable import WebDAVHarness
#if canImport(Glibc)
import Glibc
#endif

// MARK: What a sandbox shows of its sync

/// A habit's progress in `list --json` (optionally on a date).
public func progress(_ box: Sandbox, _ habit: String, date: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> Int? {
    box.listEntry(habit, date.map { ["--date", $0] } ?? [], file: file, line: line)?["progress"] as? Int
}

/// A habit's `syncStatus` in `list --json`.
public func syncStatus(_ box: Sandbox, _ habit: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
    box.listEntry(habit, file: file, line: line)?["syncStatus"] as? String
}

/// How many lines of a run's output (both streams) contain `text`.
public func linesMentioning(_ text: String, _ r: RunResult) -> Int {
    (r.stdout + r.stderr).split(separator: "\n").filter { $0.contains(text) }.count
}

/// The numbers of a "Synced: pushed N operations in M batches, pulled K" line.
public func parseSynced(_ stdout: String) -> (pushed: Int, batches: Int, pulled: Int)? {
    let w = stdout.split(separator: " ")
    guard stdout.hasSuffix("\n"), w.count == 9, w[0] == "Synced:", w[1] == "pushed", w[4] == "in", w[7] == "pulled",
          let pushed = Int(w[2]), let batches = Int(w[5]), let pulled = Int(w[8].dropLast()),
          w[3] == (pushed == 1 ? "operation" : "operations"), w[6] == (batches == 1 ? "batch," : "batches,")
    else { return nil }
    return (pushed, batches, pulled)
}

// MARK: Batch files on a remote

/// The range of operations a batch file name (`FIRST-LAST.batch`) gives; (0, 0) for another name.
public func batchRange(_ name: String) -> (first: UInt64, last: UInt64) {
    let n = name.dropLast(6).split(separator: "-").compactMap { UInt64($0) }
    return n.count == 2 ? (n[0], n[1]) : (0, 0)
}

/// Pairs of batch file names (`FIRST-LAST.batch`) whose ranges of operations overlap, as
/// "A overlaps B" lines (none when every operation is in exactly one batch).
public func overlappingBatches(_ names: [String]) -> [String] {
    let ranges = names.compactMap { name -> (String, UInt64, UInt64)? in
        let n = name.dropLast(6).split(separator: "-").compactMap { UInt64($0) }
        return n.count == 2 ? (name, n[0], n[1]) : nil
    }.sorted { ($0.1, $0.2) < ($1.1, $1.2) }
    return zip(ranges, ranges.dropFirst()).filter { $0.2 >= $1.1 }.map { "\($0.0) overlaps \($1.0)" }
}

/// The `ops` folder of `device` (its id) in the remote tree at `remote` (a folder remote, or
/// the folder a server serves).
public func opsFolder(_ remote: String, _ device: String, account: String = "default") -> String {
    remote + "/users/\(account)/devices/\(device)/ops"
}

/// The names of the batch files in the folder `ops`, in no particular order (none when the
/// folder is not there).
public func batchFileNames(inOps ops: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: ops)) ?? []).filter { $0.hasSuffix(".batch") }
}

/// The names of the batch files in the folder `ops`, in the order of their ranges.
public func sortedBatchFiles(inOps ops: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: ops).filter { $0.hasSuffix(".batch") }.sorted {
        let x = batchRange($0), y = batchRange($1)
        return x.first != y.first ? x.first < y.first : x.last < y.last
    }
}

/// The batch files of `device` in the folder remote at `remote`, in the order of their
/// ranges, and each operation's encoded bytes by sequence number. Each file is checked
/// (magic of batch format 3, checksum, name against contents, consecutive sequence numbers); batches that
/// overlap must hold the same bytes for every operation they share.
public func remoteBatches(_ remote: String, _ device: String, account: String = "default",
                          file: StaticString = #filePath, line: UInt = #line) throws -> (files: [String], ops: [UInt64: [UInt8]]) {
    let dir = opsFolder(remote, device, account: account)
    let names = try sortedBatchFiles(inOps: dir)
    let magic = Array("HABITTO-BATCH\u{3}".utf8)
    var ops: [UInt64: [UInt8]] = [:]
    for name in names {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
        guard bytes.count > magic.count + 4, bytes.starts(with: magic) else {
            XCTFail("\(name) is not a batch file", file: file, line: line)
            continue
        }
        let n = bytes.count
        let stored = UInt32(bytes[n - 4]) | UInt32(bytes[n - 3]) << 8 | UInt32(bytes[n - 2]) << 16 | UInt32(bytes[n - 1]) << 24
        XCTAssertEqual(CRC32C.checksum(bytes, 0..<(n - 4)), stored, "\(name): checksum", file: file, line: line)
        var r = ByteReader(bytes, from: magic.count, to: n - 4)
        XCTAssertEqual(try r.device().rawValue, device, "\(name): device", file: file, line: line)
        let first = try r.u64le(), last = try r.u64le()
        XCTAssertEqual(name, "\(first)-\(last).batch", file: file, line: line)
        // What the writer had seen: a count, then each device and sequence number.
        for _ in 0..<(try r.count(max: 200)) { _ = try r.device(); _ = try r.u64le() }
        let count = try r.count(max: 1 << 20)
        XCTAssertEqual(UInt64(count), last &- first &+ 1, "\(name): count", file: file, line: line)
        for i in 0..<count {
            let start = r.position
            let op = try r.operation()
            XCTAssertEqual(op.id.seq, first + UInt64(i), "\(name): sequence", file: file, line: line)
            let raw = Array(bytes[start..<r.position])
            if let seen = ops[op.id.seq] {
                XCTAssertEqual(seen, raw, "\(name): operation \(op.id.seq) differs from another batch's", file: file, line: line)
            } else {
                ops[op.id.seq] = raw
            }
        }
        XCTAssertTrue(r.isAtEnd, "\(name): trailing bytes", file: file, line: line)
    }
    return (names, ops)
}

// MARK: Runs under a watchdog

extension Sandbox {
    /// Runs `habitto ARGS` under a watchdog: a run still going after `seconds` fails the test
    /// and is killed (a hang must fail the test, not stop the suite).
    public func runWithin(_ seconds: Double, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> RunResult {
        try finishWithin(seconds, start(args), args, file: file, line: line)
    }

    /// Waits for a run started with `start` under a watchdog (see `runWithin`).
    public func finishWithin(_ seconds: Double, _ started: (Process, String), _ args: [String],
                             file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        let (p, tag) = started
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        let hung = p.isRunning
        if hung { kill(p.processIdentifier, SIGKILL) }
        let r = finish(p, tag)
        if hung {
            XCTFail("habitto \(args.joined(separator: " ")) did not finish within \(seconds) s and was killed; it printed: \(r.stdout) \(r.stderr)",
                    file: file, line: line)
        }
        return r
    }

    /// Runs `habitto sync` `rounds` times, each killed with SIGKILL as fault injection: on an
    /// even round at a random instant (up to `maxPause` microseconds after it started), on an
    /// odd one as soon as `written` (a measure of what the round writes: batch files, the
    /// journal's size) changes, or after `seconds`. Calls `each` with what each run gave
    /// (`killed` when the kill came before its end); returns how many runs were killed.
    public func killedSyncs(_ rounds: Int, maxPause: UInt32, waitingUpTo seconds: Double, written: () -> Int,
                            each: (RunResult) throws -> Void) throws -> Int {
        var rng = SystemRandomNumberGenerator()
        var killed = 0
        for round in 0..<rounds {
            let before = written()
            let (p, tag) = try start(["sync"])
            if round % 2 == 0 {
                usleep(UInt32.random(in: 0...maxPause, using: &rng))
            } else {
                let deadline = Date().addingTimeInterval(seconds)
                while p.isRunning && written() == before && Date() < deadline { usleep(200) }
            }
            kill(p.processIdentifier, SIGKILL)
            let r = finish(p, tag)
            if r.killed { killed += 1 }
            try each(r)
        }
        return killed
    }

    /// A shell script at `path` (mode 0700 unless told).
    public func script(_ path: String, _ body: String, mode: mode_t = 0o700, file: StaticString = #filePath, line: UInt = #line) throws {
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, mode), 0, file: file, line: line)
    }

    /// A WebDAV password in the environment ("secret") and one check-in waiting to be sent:
    /// a habit added and checked.
    public func queueOneCheckIn(file: StaticString = #filePath, line: UInt = #line) {
        extraEnv["HABITTO_WEBDAV_PASSWORD"] = "secret"
        ok("add", "Water", file: file, line: line)
        ok("check", "Water", file: file, line: line)
    }
}

// MARK: A sync test of the command line

/// A test that runs the binary against remotes and servers: each run is under a watchdog and
/// what it printed is kept (`outputs`); the server it starts is stopped when it ends, and no
/// password it was told of (`secrets`) may have been printed.
open class SyncCLITestCase: XCTestCase {
    /// Everything the binary printed in this test (but `remote key`, the one that shows a key).
    public var outputs: [String] = []
    /// Passwords that must never be printed.
    public var secrets: [String] = []
    /// The server this test started, stopped when it ends.
    public var server: (any WebDAVTestServer)?

    /// The environment variable that gives habitto the WebDAV password.
    public static let passwordVariable = "HABITTO_WEBDAV_PASSWORD"

    open override func setUp() {
        super.setUp()
        outputs = []
        secrets = []
    }

    open override func tearDown() {
        server?.stop()
        server = nil
        for secret in secrets {
            for text in outputs where text.contains(secret) {
                XCTFail("a password was printed: \(text)")
            }
        }
        super.tearDown()
    }

    /// A running Apache; a missing Apache is a failure with what to do, never a skip.
    public func startServer(tls: Bool = false, authentication: WebDAVServer.Authentication = .basic,
                            limitRequestBody: Int = 64 << 20) throws -> WebDAVServer {
        if let missing = WebDAVServer.missingTools {
            XCTFail(missing)
            throw HarnessError(missing)
        }
        let s = try WebDAVServer(tls: tls, authentication: authentication, limitRequestBody: limitRequestBody)
        server = s
        secrets.append(s.password)
        return s
    }

    /// A running `rclone serve webdav`; a missing rclone is a failure with what to do.
    public func startRclone() throws -> RcloneServer {
        if let missing = RcloneServer.missingTools {
            XCTFail(missing)
            throw HarnessError(missing)
        }
        let s = try RcloneServer()
        server = s
        secrets.append(s.password)
        return s
    }

    /// `remote set URL --user USER`, with the server's password in the environment unless the
    /// test put one there.
    @discardableResult
    public func connect(_ box: Sandbox, url: URL? = nil, _ server: any WebDAVTestServer,
                        file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        if box.extraEnv[Self.passwordVariable] == nil { box.extraEnv[Self.passwordVariable] = server.password }
        return run(box, ["remote", "set", (url ?? server.baseURL).absoluteString, "--user", server.user], file: file, line: line)
    }

    /// Runs `habitto args` in `box` (see `run(_:_:timeout:)`).
    @discardableResult
    public func run(_ box: Sandbox, _ args: String..., file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        run(box, args, file: file, line: line)
    }

    /// Runs the binary and records its output; a run that hangs is killed after `timeout`
    /// seconds and fails the test, so one stuck process never stops the whole suite.
    @discardableResult
    public func run(_ box: Sandbox, _ args: [String], timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        do {
            let (process, tag) = try box.start(args)
            return finish(box, process, tag, args, timeout: timeout, file: file, line: line)
        } catch {
            XCTFail("could not start \(box.binaryPath): \(error)", file: file, line: line)
            return RunResult(status: -1, stdout: "", stderr: "", killed: false)
        }
    }

    /// Waits for a started run (killing it after `timeout` seconds) and records its output.
    public func finish(_ box: Sandbox, _ process: Process, _ tag: String, _ args: [String], timeout: Double = 120,
                       file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        let r = box.finishWithin(timeout, (process, tag), args, file: file, line: line)
        record(r, of: args)
        return r
    }

    /// Keeps what a run printed, unless it was `remote key`'s (which shows the key).
    public func record(_ r: RunResult, of args: [String]) {
        if args.prefix(2) != ["remote", "key"] { outputs += [r.stdout, r.stderr] }
    }

    /// Runs `habitto args` in `box` and asserts success (see `ok(_:_:)`).
    @discardableResult
    public func ok(_ box: Sandbox, _ args: String..., file: StaticString = #filePath, line: UInt = #line) -> String {
        ok(box, args, file: file, line: line)
    }

    /// Runs and asserts success; returns standard output.
    @discardableResult
    public func ok(_ box: Sandbox, _ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(box, args, file: file, line: line)
        XCTAssertEqual(r.status, 0, "habitto \(args.joined(separator: " ")) failed: \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// `status --json`, which must succeed.
    public func status(_ box: Sandbox, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = run(box, ["status", "--json"], file: file, line: line)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout, file: file, line: line)
    }

    /// Replaces the sandbox's config file.
    public func writeConfig(_ box: Sandbox, _ text: String) throws {
        try text.write(toFile: box.config + "/habitto/config", atomically: true, encoding: .utf8)
    }

    /// The batch files of `device` on the server, in sequence order.
    public func batchFiles(_ server: any WebDAVTestServer, _ device: String) throws -> [String] {
        try sortedBatchFiles(inOps: opsFolder(server.dataDirectory, device))
    }

    /// The range of a batch file name (see `batchRange`).
    public func range(_ name: String) -> (first: UInt64, last: UInt64) { batchRange(name) }

    /// The ranges of `device`'s batches on the server, checked to follow on from each other
    /// (no gap, no overlap) and each file to be at most `limit` bytes.
    @discardableResult
    public func assertBatchesFollowOn(_ server: any WebDAVTestServer, _ device: String, within limit: Int,
                                      file: StaticString = #filePath, line: UInt = #line) throws -> [(first: UInt64, last: UInt64)] {
        let files = try batchFiles(server, device)
        let ranges = files.map(range)
        for (x, y) in zip(ranges, ranges.dropFirst()) {
            XCTAssertEqual(y.first, x.last + 1, "batches \(x) and \(y) overlap or leave a gap", file: file, line: line)
        }
        let ops = opsFolder(server.dataDirectory, device) + "/"
        for name in files {
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: ops + name)[.size] as? Int, file: file, line: line)
            XCTAssertLessThanOrEqual(size, limit, name, file: file, line: line)
        }
        return ranges
    }
}
