import Foundation
import XCTest
import WebDAVWire
#if canImport(Glibc)
import Glibc
#endif

/// A hostile HTTP server (Tests/Fixtures/servers/hostile_http.py) on a loopback address,
/// ended when the test ends (its standard input closes; it exits on that too).
public final class HostileServer {
    public let process = Process()
    public let input = Pipe()
    public let host: String
    public let log: String
    public private(set) var port = 0

    /// Starts the server in `mode` (see the script) on `host`, logging what it receives to
    /// `log`; a server that does not start fails the test and throws.
    public init(_ mode: String, host: String = "127.0.0.1", extra: [String] = [], log: String,
         file: StaticString = #filePath, line: UInt = #line) throws {
        self.host = host
        self.log = log
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/servers/hostile_http.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, mode, "--host", host, "--log", log] + extra
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The first line is the port; nothing more is written.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let p = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            stop()
            XCTFail("the \(mode) server did not start on \(host): '\(text)'", file: file, line: line)
            throw CocoaError(.fileReadUnknown)
        }
        port = p
    }

    /// The server's base URL.
    public var url: String { "http://\(host):\(port)" }

    /// The request lines (and headers) the server received, one a line.
    public var requests: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Ends the server (closing its input) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// `habitto-webdav` run directly: one request frame in, one reply frame out, and what the
/// process used meanwhile.
public final class HelperUnderTest {
    public let process = Process()
    public let toHelper = Pipe(), fromHelper = Pipe()

    /// Starts the `habitto-webdav` built beside the binary, with a time limit of `timeout`
    /// seconds a request.
    public init(timeout: Double) throws {
        process.executableURL = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().appendingPathComponent("habitto-webdav")
        process.arguments = ["--timeout", String(timeout)]
        process.standardInput = toHelper
        process.standardOutput = fromHelper
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Sends one request frame and reads the reply frame.
    public func exchange(_ request: WireRequest) throws -> WireReply {
        try toHelper.fileHandleForWriting.write(contentsOf: Wire.frame(request.encoded()))
        let head = try read(4)
        let n = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        return try WireReply(decoding: try read(n))
    }

    private func read(_ n: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        while out.count < n {
            guard let chunk = try fromHelper.fileHandleForReading.read(upToCount: n - out.count), !chunk.isEmpty else {
                throw WireError("the helper closed its output")
            }
            out += chunk
        }
        return out
    }

    /// The most memory the helper held at once (VmHWM), in KiB.
    public var peakKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// The processor time the helper used so far, in seconds.
    public var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return -1 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Closes the helper's input and waits for it to end.
    public func close() {
        try? toHelper.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate(); process.waitUntilExit() } }
}
