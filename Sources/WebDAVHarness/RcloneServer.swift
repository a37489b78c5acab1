import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A WebDAV server the tests start and stop: where it is, its one user, and where its files
/// are on disk.
public protocol WebDAVTestServer: AnyObject, Sendable {
    /// The WebDAV root: `http://127.0.0.1:PORT/dav`.
    var baseURL: URL { get }
    var port: UInt16 { get }
    var user: String { get }
    var password: String { get }
    /// The folder served at `/dav`.
    var dataDirectory: String { get }
    /// Starts it again on the same port (after `stop`).
    func start() throws
    /// Stops it; the port refuses connections afterwards. Safe to call twice.
    func stop()
}

extension WebDAVServer: WebDAVTestServer {}

/// `rclone serve webdav` (Go's WebDAV server, not Apache's: MKCOL of an existing folder
/// answers 201, `If-None-Match` is ignored, a PUT into a missing folder answers 404) on
/// 127.0.0.1 and a free port, with Basic authentication, serving a temporary folder at
/// `/dav`. Stopped and removed when released.
public final class RcloneServer: WebDAVTestServer, @unchecked Sendable {
    static let rclone = "/usr/bin/rclone"

    /// Why it cannot run on this machine, or nil when it can.
    public static var missingTools: String? {
        FileManager.default.isExecutableFile(atPath: rclone) ? nil
            : "the WebDAV tests need rclone (\(rclone)) as a second WebDAV server: run 'bash .ci/test.sh' (it installs it), or 'apt-get install rclone'"
    }

    let root: String
    public let port: UInt16
    public let user: String
    public let password: String
    public var dataDirectory: String { root + "/data" }
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/dav")! }
    var console: String { root + "/console.log" }

    private let lock = NSLock()
    private var pid: pid_t = 0

    public init(user: String = "habitto-tester") throws {
        if let missing = RcloneServer.missingTools { throw HarnessError(missing) }
        _ = signal(SIGPIPE, SIG_IGN)
        self.user = user
        password = "pw-" + String((0..<24).map { _ in "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789".randomElement()! })
        root = NSTemporaryDirectory() + "habitto-rclone-" + UUID().uuidString
        port = try LoopbackSocket.freePort()
        do {
            try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
            try start()
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    public func start() throws {
        lock.lock(); defer { lock.unlock() }
        guard pid == 0 else { return }
        // No config file (--config /dev/null), nothing cached: every request reaches the disk.
        let args = ["serve", "webdav", dataDirectory, "--addr", "127.0.0.1:\(port)", "--baseurl", "/dav",
                    "--user", user, "--pass", password, "--config", "/dev/null", "--vfs-cache-mode", "off",
                    "--dir-cache-time", "0s", "--poll-interval", "0"]
        pid = try ServerProcess.start(RcloneServer.rclone, args, name: "rclone", port: port, console: console) { [console] in
            (try? String(contentsOfFile: console, encoding: .utf8)) ?? ""
        }
    }

    public func stop() {
        lock.lock(); defer { lock.unlock() }
        guard pid > 0 else { return }
        ServerProcess.stop(pid, port: port)
        pid = 0
    }
}
