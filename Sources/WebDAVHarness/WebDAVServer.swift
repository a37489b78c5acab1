import Foundation
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// Something the WebDAV test harness could not do (start Apache, make a certificate, open a
/// socket), with the details needed to fix it.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}

/// A real Apache httpd serving WebDAV (mod_dav, mod_dav_fs) with basic authentication, run
/// from `/usr/sbin/apache2` as a child process on a free loopback port, from a configuration
/// generated in a fresh temporary folder (never the system service). With `tls`, it serves
/// HTTPS with a server certificate for 127.0.0.1 and localhost signed by a throwaway CA
/// (`caFile`).
///
/// When the tests run as root, the server's workers run as `nobody`, which owns the data
/// and lock folders. `stop()` and `start()` simulate the server going away and coming back
/// on the same port; the process group is killed and the folder removed when the server
/// goes away.
/// Apache httpd with mod_dav and basic auth on a free loopback port, in its own temporary
/// folder; stopped (and the folder removed) when it goes away.
public final class WebDAVServer: @unchecked Sendable {
    static let apache = "/usr/sbin/apache2"
    static let moduleDirectory = "/usr/lib/apache2/modules"
    static let htpasswd = "/usr/bin/htpasswd"

    /// Why the harness cannot run on this machine, or nil when it can.
    public static var missingTools: String? {
        var missing: [String] = []
        if !FileManager.default.isExecutableFile(atPath: apache) { missing.append("apache2 (\(apache))") }
        if !FileManager.default.fileExists(atPath: moduleDirectory + "/mod_dav_fs.so") { missing.append("mod_dav_fs (\(moduleDirectory))") }
        if !FileManager.default.isExecutableFile(atPath: htpasswd) { missing.append("htpasswd (apache2-utils)") }
        if openssl == nil { missing.append("openssl") }
        guard !missing.isEmpty else { return nil }
        return "the WebDAV tests need a real Apache httpd, but \(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") missing: run 'bash .ci/test.sh' (it installs apache2, apache2-utils and openssl), or 'apt-get install apache2 apache2-utils openssl'"
    }

    static var openssl: String? {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/openssl") {
            return dir + "/openssl"
        }
        return nil
    }

    let tls: Bool
    /// The temporary folder holding the configuration, logs, data and certificates.
    let root: String
    public let port: UInt16
    public let user: String
    public let password: String
    /// The folder served at `/dav`.
    public var dataDirectory: String { root + "/data" }
    /// The CA that signed the server certificate (HTTPS only).
    var caFile: String? { tls ? root + "/tls/ca.crt" : nil }
    var scheme: String { tls ? "https" : "http" }
    /// The WebDAV root: `http(s)://127.0.0.1:PORT/dav`.
    public var baseURL: URL { URL(string: "\(scheme)://127.0.0.1:\(port)/dav")! }
    var accessLogPath: String { root + "/logs/access.log" }
    var errorLogPath: String { root + "/logs/error.log" }
    var configPath: String { root + "/conf/httpd.conf" }

    private let lock = NSLock()
    private var pid: pid_t = 0

    /// How the server asks for the password.
    public enum Authentication: Sendable {
        /// Basic (what Habitto speaks).
        case basic
        /// Digest only (mod_auth_digest), which Habitto does not speak.
        case digest
    }
    let authentication: Authentication
    /// The largest request body Apache accepts (`LimitRequestBody`), in bytes.
    public let limitRequestBody: Int

    /// `limitRequestBody` is Apache's `LimitRequestBody` (larger bodies are answered 413).
    public init(tls: Bool = false, user: String = "habitto-tester", authentication: Authentication = .basic,
                limitRequestBody: Int = 64 << 20) throws {
        if let missing = WebDAVServer.missingTools { throw HarnessError(missing) }
        // The harness writes to tools' pipes and to sockets of clients that may be killed
        // on purpose: such a write must fail with EPIPE, not end the process with SIGPIPE.
        _ = signal(SIGPIPE, SIG_IGN)
        self.tls = tls
        self.user = user
        self.authentication = authentication
        self.limitRequestBody = limitRequestBody
        password = "pw-" + String((0..<24).map { _ in "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789".randomElement()! })
        root = NSTemporaryDirectory() + "habitto-webdav-" + UUID().uuidString
        port = try LoopbackSocket.freePort()
        do {
            try prepareFolder()
            try start()
        } catch {
            removeFolder()
            throw error
        }
    }

    deinit {
        stop()
        removeFolder()
    }

    private func removeFolder() {
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: Setup

    private func prepareFolder() throws {
        let fm = FileManager.default
        for dir in ["", "/conf", "/logs", "/run", "/data", "/lock", "/htdocs"] {
            try fm.createDirectory(atPath: root + dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        try Data().write(to: URL(fileURLWithPath: root + "/conf/mime.types"))
        switch authentication {
        case .basic:
            let result = WebDAVServer.tool(WebDAVServer.htpasswd, ["-cbB", "-C", "5", root + "/conf/htpasswd", user, password])
            guard result.status == 0 else { throw HarnessError("htpasswd failed (\(result.status)): \(result.output)") }
        case .digest:
            // htdigest only prompts: write its line (user:realm:MD5(user:realm:password)) here.
            guard let openssl = WebDAVServer.openssl else { throw HarnessError("openssl is missing") }
            let md5 = WebDAVServer.tool(openssl, ["md5", "-r"], input: "\(user):\(WebDAVServer.realm):\(password)")
            guard md5.status == 0, let hash = md5.output.split(separator: " ").first else {
                throw HarnessError("openssl md5 failed (\(md5.status)): \(md5.output)")
            }
            try "\(user):\(WebDAVServer.realm):\(hash)\n".write(toFile: root + "/conf/htpasswd", atomically: true, encoding: .utf8)
        }
        _ = try? sysCall("chmod") { chmod(root + "/conf/htpasswd", 0o644) }
        if tls { try makeCertificates() }
        try config().write(toFile: configPath, atomically: true, encoding: .utf8)
        // Workers run as nobody when we are root: they write the data and the lock database.
        if getuid() == 0, let (uid, gid) = WebDAVServer.unprivileged {
            for dir in [dataDirectory, root + "/lock"] { _ = try? sysCall("chown") { chown(dir, uid, gid) } }
        }
    }

    /// The user and group the workers run as when started by root.
    static var unprivileged: (uid_t, gid_t)? {
        guard let pw = getpwnam("nobody") else { return nil }
        return (pw.pointee.pw_uid, pw.pointee.pw_gid)
    }

    static var unprivilegedGroupName: String {
        if let pw = getpwnam("nobody"), let gr = getgrgid(pw.pointee.pw_gid) { return String(cString: gr.pointee.gr_name) }
        return "nogroup"
    }

    /// The realm of the server's challenge.
    static let realm = "habitto WebDAV test"

    private func config() -> String {
        let r = root
        var modules = ["mpm_event", "unixd", "authz_core", "authn_core", "authn_file", "auth_basic", "auth_digest", "authz_user",
                       "dav", "dav_fs", "alias", "mime", "dir"]
        if tls { modules += ["socache_shmcb", "ssl"] }
        var lines = [
            "# Generated by the habitto WebDAV tests; removed with this folder.",
            "ServerRoot \"\(r)\"",
            "PidFile \"\(r)/run/httpd.pid\"",
            "DefaultRuntimeDir \"\(r)/run\"",
            "ErrorLog \"\(r)/logs/error.log\"",
            "LogLevel warn",
            "Listen 127.0.0.1:\(port)",
            "ServerName 127.0.0.1",
            "UseCanonicalName Off",
        ]
        // Modules compiled into the binary (unixd on Debian) have no file to load.
        for m in modules where FileManager.default.fileExists(atPath: "\(WebDAVServer.moduleDirectory)/mod_\(m).so") {
            lines.append("LoadModule \(m)_module \(WebDAVServer.moduleDirectory)/mod_\(m).so")
        }
        if getuid() == 0 {
            lines += ["User nobody", "Group \(WebDAVServer.unprivilegedGroupName)"]
        }
        lines += [
            "StartServers 1",
            "ServerLimit 2",
            "ThreadsPerChild 16",
            "MaxRequestWorkers 32",
            "MinSpareThreads 1",
            "MaxSpareThreads 32",
            "Timeout 30",
            "KeepAlive On",
            "KeepAliveTimeout 5",
            "TypesConfig \"\(r)/conf/mime.types\"",
            // Method, path, status, user, body bytes, bytes received and sent with headers
            // (mod_logio): one request a line, tab-separated.
            "LogFormat \"%m\\t%U\\t%>s\\t%u\\t%B\\t%I\\t%O\" habitto",
            "CustomLog \"\(r)/logs/access.log\" habitto",
            "LimitRequestBody \(limitRequestBody)",
            "DocumentRoot \"\(r)/htdocs\"",
            "<Directory />",
            "    Options None",
            "    AllowOverride None",
            "    Require all denied",
            "</Directory>",
            "DavLockDB \"\(r)/lock/DavLock\"",
            "Alias /dav \"\(r)/data\"",
            "<Directory \"\(r)/data\">",
            "    Options None",
            "    AllowOverride None",
            "    DirectoryIndex disabled",
            "    Dav On",
            "    AuthType \(authentication == .basic ? "Basic" : "Digest")",
            "    AuthName \"\(WebDAVServer.realm)\"",
            "    \(authentication == .basic ? "AuthBasicProvider" : "AuthDigestProvider") file",
            "    AuthUserFile \"\(r)/conf/htpasswd\"",
            "    Require valid-user",
            "</Directory>",
        ]
        if tls {
            lines += [
                "SSLEngine on",
                "SSLCertificateFile \"\(r)/tls/server.crt\"",
                "SSLCertificateKeyFile \"\(r)/tls/server.key\"",
                "SSLSessionCache \"shmcb:\(r)/run/ssl_scache(512000)\"",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A CA key and certificate, and a server certificate for 127.0.0.1 and localhost signed
    /// by it, all in `tls/` (EC keys: quick to make).
    private func makeCertificates() throws {
        guard let openssl = WebDAVServer.openssl else { throw HarnessError("openssl is missing") }
        let dir = root + "/tls"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature, keyEncipherment
        extendedKeyUsage = serverAuth
        subjectAltName = IP:127.0.0.1, DNS:localhost
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        """.write(toFile: dir + "/server.ext", atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", dir + "/ca.key", "-out", dir + "/ca.crt", "-days", "3", "-subj", "/CN=habitto test CA \(UUID().uuidString.prefix(8))",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", dir + "/server.key", "-out", dir + "/server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", dir + "/server.csr", "-CA", dir + "/ca.crt", "-CAkey", dir + "/ca.key",
             "-set_serial", "0x\(String(UInt32.random(in: 1 ... .max), radix: 16))", "-days", "2",
             "-extfile", dir + "/server.ext", "-out", dir + "/server.crt"],
        ]
        for args in steps {
            let result = WebDAVServer.tool(openssl, args)
            guard result.status == 0 else { throw HarnessError("openssl \(args[0]) failed (\(result.status)): \(result.output)") }
        }
        _ = try? sysCall("chmod") { chmod(dir + "/ca.crt", 0o644) }
    }

    /// Runs a tool to the end; its status and both streams.
    static func tool(_ path: String, _ args: [String], input: String? = nil) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        let inPipe = Pipe()
        p.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        do { try p.run() } catch { return (-1, "\(error)") }
        if let input {
            // The tool may exit without reading (openssl refusing a certificate): the write
            // then fails with EPIPE, which is fine (SIGPIPE is ignored, see init).
            try? inPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? inPipe.fileHandleForWriting.close()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    // MARK: Running

    var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        return pid > 0
    }

    /// Starts httpd in the foreground, in its own process group, and waits until the port
    /// accepts connections. Throws with the error log when it does not come up.
    public func start() throws {
        lock.lock(); defer { lock.unlock() }
        guard pid == 0 else { return }
        pid = try ServerProcess.start(WebDAVServer.apache, ["-f", configPath, "-DFOREGROUND"], name: "apache2", port: port,
                                      console: root + "/logs/console.log", logs: logs)
    }

    /// Stops the server: SIGTERM to its process group, SIGKILL after a few seconds, and waits
    /// until the port refuses connections. Safe to call twice.
    public func stop() {
        lock.lock(); defer { lock.unlock() }
        guard pid > 0 else { return }
        ServerProcess.stop(pid, port: port)
        pid = 0
    }

    /// The error log and anything httpd printed, for failure messages.
    func logs() -> String {
        let console = (try? String(contentsOfFile: root + "/logs/console.log", encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorLogPath, encoding: .utf8)) ?? ""
        return console + errors
    }

    // MARK: Access log

    /// One line of the access log.
    public struct LoggedRequest: Equatable, CustomStringConvertible, Sendable {
        public let method: String
        public let path: String
        public let status: Int
        let user: String
        /// Bytes that crossed the wire, headers included: received by the server, and sent.
        public var received = 0
        public var sent = 0
        public var description: String { "\(method) \(path) \(status)" }
    }

    /// The requests served so far, oldest first. httpd writes a line just after answering, so
    /// this waits until the log has not grown for a moment.
    public func requests() -> [LoggedRequest] {
        var size = -1
        for _ in 0..<40 {
            let now = (try? FileManager.default.attributesOfItem(atPath: accessLogPath)[.size] as? Int) ?? 0
            if now == size { break }
            size = now
            usleep(60_000)
        }
        let text = (try? String(contentsOfFile: accessLogPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4, let status = Int(f[2]) else { return nil }
            var r = LoggedRequest(method: f[0], path: f[1], status: status, user: f[3])
            if f.count >= 7 { r.received = Int(f[5]) ?? 0; r.sent = Int(f[6]) ?? 0 }
            return r
        }
    }

    /// Sends one raw HTTP request straight to the server (plain HTTP only) and returns the
    /// whole answer as text; for checking the harness itself.
    func rawRequest(_ method: String, _ path: String, password: String? = nil, headers: [String] = [], body: String = "") -> String {
        guard !tls else { return "" }
        return WebDAVServer.rawRequest(port: port, method, path, user: user, password: password, headers: headers, body: body)
    }

    /// One raw HTTP/1.1 request to 127.0.0.1:`port` (basic authentication when a password is
    /// given); the whole answer until the connection closes.
    static func rawRequest(port: UInt16, _ method: String, _ path: String, user: String, password: String?,
                           headers: [String] = [], body: String = "") -> String {
        guard let fd = LoopbackSocket.connect(port: port, timeout: 10) else { return "" }
        defer { LoopbackSocket.close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let password {
            head += "Authorization: Basic \(Data("\(user):\(password)".utf8).base64EncodedString())\r\n"
        }
        for h in headers { head += h + "\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        LoopbackSocket.sendAll(fd, Array(head.utf8))
        // With Expect: 100-continue, send the body only after the interim answer.
        var answer: [UInt8] = []
        if headers.contains(where: { $0.lowercased().hasPrefix("expect:") }) {
            answer = LoopbackSocket.receive(fd) ?? []
        }
        LoopbackSocket.sendAll(fd, Array(body.utf8))
        answer += LoopbackSocket.receiveAll(fd)
        return String(decoding: answer, as: UTF8.self)
    }
}
