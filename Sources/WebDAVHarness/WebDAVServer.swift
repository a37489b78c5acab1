import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Something the WebDAV test harness could not do (start Apache, make a certificate, open a
/// socket), with the details needed to fix it.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}

// MARK: - Sockets

/// The few socket calls the harness needs: loopback TCP only, Glibc directly.
enum LoopbackSocket {
    private static func address(_ port: UInt16) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(port).bigEndian
        a.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        return a
    }

    /// A port that was free a moment ago: bind port 0 on 127.0.0.1 and read what the kernel chose.
    static func freePort() throws -> UInt16 {
        let fd = try listen(port: 0)
        defer { close(fd) }
        return try boundPort(fd)
    }

    /// A listening socket on 127.0.0.1:`port` (0: any free port).
    static func listen(port: UInt16, backlog: Int32 = 64) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = address(port)
        let bound = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let e = errno
            close(fd)
            throw HarnessError("cannot listen on 127.0.0.1:\(port): \(String(cString: strerror(e)))")
        }
        return fd
    }

    static func boundPort(_ fd: Int32) throws -> UInt16 {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let r = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard r == 0 else { throw HarnessError("getsockname: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: a.sin_port)
    }

    /// A connected socket to 127.0.0.1:`port`, or nil when nothing accepts there.
    static func connect(port: UInt16, timeout: Double = 30) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var a = address(port)
        let r = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { close(fd); return nil }
        setTimeout(fd, timeout)
        return fd
    }

    static func canConnect(port: UInt16) -> Bool {
        guard let fd = connect(port: port) else { return false }
        close(fd)
        return true
    }

    /// Send and receive time limits, so a stuck peer never hangs a test.
    static func setTimeout(_ fd: Int32, _ seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes everything (never raising SIGPIPE); false when the peer went away.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Up to `max` bytes; nil at the end of the stream, on an error or a timeout.
    static func receive(_ fd: Int32, max: Int = 65536) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: max)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, max, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            return Array(buffer[0..<n])
        }
    }

    /// Everything until the peer closes.
    static func receiveAll(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        while let chunk = receive(fd) { out += chunk }
        return out
    }

    /// Closes so the peer sees a reset rather than an orderly end.
    static func abort(_ fd: Int32) {
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }
}

// MARK: - Server processes

/// A server program run for the tests: in its own process group (so its workers go with
/// it), its output in a file, up once its loopback port accepts connections.
enum ServerProcess {
    /// Spawns `path args…` and waits until `port` accepts connections; throws with `logs()`
    /// when it exits or does not come up within 20 s.
    static func start(_ path: String, _ args: [String], name: String, port: UInt16, console: String,
                      logs: () -> String) throws -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attr, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, console, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var child: pid_t = 0
        let r = posix_spawn(&child, path, &actions, &attr, argv, environ)
        guard r == 0 else { throw HarnessError("cannot start \(path): \(String(cString: strerror(r)))") }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                throw HarnessError("\(name) exited (status \(status)) instead of serving on port \(port):\n\(logs())")
            }
            if LoopbackSocket.canConnect(port: port) { return child }
            usleep(20_000)
        }
        killGroup(child)
        throw HarnessError("\(name) did not accept connections on port \(port) within 20 s:\n\(logs())")
    }

    /// Stops the process group led by `leader` and waits until `port` refuses connections.
    static func stop(_ leader: pid_t, port: UInt16) {
        killGroup(leader)
        let deadline = Date().addingTimeInterval(5)
        while LoopbackSocket.canConnect(port: port) && Date() < deadline { usleep(20_000) }
    }

    /// SIGTERM to the group, SIGKILL after a few seconds; waits for the leader.
    static func killGroup(_ leader: pid_t) {
        kill(-leader, SIGTERM)
        var status: Int32 = 0
        var deadline = Date().addingTimeInterval(8)
        var exited = false
        while Date() < deadline {
            if waitpid(leader, &status, WNOHANG) == leader { exited = true; break }
            usleep(20_000)
        }
        if !exited {
            kill(-leader, SIGKILL)
            waitpid(leader, &status, 0)
        }
        // Workers left behind by a killed parent.
        deadline = Date().addingTimeInterval(3)
        while kill(-leader, 0) == 0 && Date() < deadline { usleep(20_000) }
        if kill(-leader, 0) == 0 { kill(-leader, SIGKILL) }
    }
}


/// One HTTP/1.1 request as read from a client: the head as text and the body's bytes.
struct RawHTTPRequest {
    var method: String
    var path: String
    /// Header lines after the request line, as sent.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The request to send on: the body (de-chunked) with a Content-Length, `Connection:
    /// close`, and without `Expect` (the proxy already answered it).
    func forwarded() -> [UInt8] {
        let dropped: Set<String> = ["connection", "keep-alive", "proxy-connection", "expect", "content-length", "transfer-encoding"]
        var head = "\(method) \(path) HTTP/1.1\r\n"
        for h in headers where !dropped.contains(h.name.lowercased()) { head += "\(h.name): \(h.value)\r\n" }
        if !body.isEmpty || ["PUT", "POST", "PROPFIND", "PROPPATCH", "LOCK"].contains(method) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Reads one request from `fd`; answers `Expect: 100-continue` so the client sends its
    /// body at once. Nil when the client closed or sent something unreadable.
    static func read(from fd: Int32) -> RawHTTPRequest? {
        var buffer: [UInt8] = []
        let end: Int
        while true {
            if let i = find([13, 10, 13, 10], in: buffer) { end = i; break }
            guard buffer.count < 1 << 20, let chunk = LoopbackSocket.receive(fd) else { return nil }
            buffer += chunk
        }
        let lines = String(decoding: buffer[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var request = RawHTTPRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: [], body: [])
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            request.headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var rest = Array(buffer[(end + 4)...])
        if request.header("Expect")?.lowercased() == "100-continue" {
            LoopbackSocket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        func fill(_ count: Int) -> Bool {
            while rest.count < count {
                guard let chunk = LoopbackSocket.receive(fd) else { return false }
                rest += chunk
            }
            return true
        }
        if request.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            while true {
                var lineEnd: Int? = find([13, 10], in: rest)
                while lineEnd == nil {
                    guard let chunk = LoopbackSocket.receive(fd) else { return nil }
                    rest += chunk
                    lineEnd = find([13, 10], in: rest)
                }
                let sizeText = String(decoding: rest[0..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                rest.removeFirst(lineEnd! + 2)
                if size == 0 { break }
                guard fill(size + 2) else { return nil }
                request.body += rest[0..<size]
                rest.removeFirst(size + 2)
            }
        } else if let length = request.header("Content-Length").flatMap({ Int($0) }), length > 0 {
            guard fill(length) else { return nil }
            request.body = Array(rest[0..<length])
        }
        return request
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}

// MARK: - Apache httpd with mod_dav

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
        chmod(root + "/conf/htpasswd", 0o644)
        if tls { try makeCertificates() }
        try config().write(toFile: configPath, atomically: true, encoding: .utf8)
        // Workers run as nobody when we are root: they write the data and the lock database.
        if getuid() == 0, let (uid, gid) = WebDAVServer.unprivileged {
            for dir in [dataDirectory, root + "/lock"] { chown(dir, uid, gid) }
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
        chmod(dir + "/ca.crt", 0o644)
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
        defer { close(fd) }
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

// MARK: - Fault-injecting proxy

/// A small HTTP proxy between a client and `WebDAVServer` that can spoil chosen requests:
/// answer 500, answer 429 with `Retry-After`, or forward the request and then drop the
/// connection without the answer (the upload happened, the answer is lost).
///
/// One request per connection: each answer says `Connection: close`. Requests without a
/// fault pass through unchanged (Host included, so WebDAV `Destination` headers still match).
final class FaultProxy: @unchecked Sendable {
    enum Fault: Equatable, Sendable, CustomStringConvertible {
        /// Answer with this status (and an empty body) without asking the server.
        case status(Int)
        /// Answer 429 Too Many Requests with `Retry-After: seconds`.
        case tooManyRequests(retryAfter: Int)
        /// Forward the request, let the server answer, then drop the connection.
        case dropResponse
        /// Close the connection without forwarding or answering.
        case closeConnection

        var description: String {
            switch self {
            case .status(let s): return "answer \(s)"
            case .tooManyRequests(let s): return "answer 429, Retry-After \(s)"
            case .dropResponse: return "drop the answer"
            case .closeConnection: return "close the connection"
            }
        }
    }

    /// A request the proxy saw, and the fault it got (nil: passed through).
    struct Seen: Equatable, CustomStringConvertible, Sendable {
        let method: String
        let path: String
        let fault: Fault?
        var description: String { "\(method) \(path)" + (fault.map { " (\($0))" } ?? "") }
    }

    let port: UInt16
    let targetPort: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var planned: [(method: String?, path: String?, fault: Fault)] = []
    private var seenRequests: [Seen] = []
    private var stopped = false
    private var active = 0
    private var bodyLimit: Int?

    /// From now on, a request whose body is larger than `bytes` gets no answer: the
    /// connection is closed, as some servers do above their size limit (nil: none).
    func closeConnections(onBodiesLargerThan bytes: Int?) { lock.withLock { bodyLimit = bytes } }

    /// A proxy on a free loopback port in front of the plain-HTTP server on `targetPort`.
    init(targetPort: UInt16) throws {
        self.targetPort = targetPort
        listener = try LoopbackSocket.listen(port: 0)
        port = try LoopbackSocket.boundPort(listener)
        // The loop holds the proxy weakly, so dropping the proxy stops it (deinit shuts the
        // listener down, which ends the blocked accept).
        let fd = listener
        let thread = Thread { [weak self] in
            // Only this thread closes the listener, so its number is never reused under it.
            defer { close(fd) }
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                guard let proxy = self else { close(client); return }
                proxy.dispatch(client)
            }
        }
        thread.name = "FaultProxy accept"
        thread.start()
    }

    deinit { stop() }

    /// The WebDAV root as seen through the proxy.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/dav")! }

    /// Spoils the next request that arrives (with this method, and a path containing this
    /// text, when given); faults apply in the order they were added, each once.
    func inject(_ fault: Fault, on method: String? = nil, pathContaining path: String? = nil) {
        lock.lock(); defer { lock.unlock() }
        planned.append((method, path, fault))
    }

    /// Faults planned but not applied yet.
    var pendingFaults: Int {
        lock.lock(); defer { lock.unlock() }
        return planned.count
    }

    /// Every request seen so far, oldest first.
    var requests: [Seen] {
        lock.lock(); defer { lock.unlock() }
        return seenRequests
    }

    /// Stops accepting; connections in progress finish on their own.
    func stop() {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        guard !already else { return }
        // Ends the blocked accept; the accept thread closes the socket.
        shutdown(listener, Int32(SHUT_RDWR))
        // Let handlers still relaying an answer finish (they hold their own sockets only).
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            lock.lock(); let n = active; lock.unlock()
            if n == 0 { break }
            usleep(10_000)
        }
    }

    /// Handles one accepted connection on its own thread.
    private func dispatch(_ client: Int32) {
        lock.lock()
        if stopped { lock.unlock(); close(client); return }
        active += 1
        lock.unlock()
        let handler = Thread { [self] in
            handle(client)
            lock.lock(); active -= 1; lock.unlock()
        }
        handler.name = "FaultProxy connection"
        handler.start()
    }

    private func takeFault(for request: RawHTTPRequest) -> Fault? {
        guard let i = planned.firstIndex(where: { p in
            (p.method == nil || p.method == request.method) && (p.path.map { request.path.contains($0) } ?? true)
        }) else { return nil }
        return planned.remove(at: i).fault
    }

    private func handle(_ client: Int32) {
        LoopbackSocket.setTimeout(client, 30)
        guard let request = RawHTTPRequest.read(from: client) else { close(client); return }
        lock.lock()
        var fault = takeFault(for: request)
        if fault == nil, let limit = bodyLimit, request.body.count > limit { fault = .closeConnection }
        seenRequests.append(Seen(method: request.method, path: request.path, fault: fault))
        lock.unlock()
        switch fault {
        case .status(let code)?:
            reply(client, "HTTP/1.1 \(code) Injected Fault\r\nContent-Type: text/plain\r\nContent-Length: 15\r\nConnection: close\r\n\r\ninjected fault\n")
            close(client)
        case .tooManyRequests(let seconds)?:
            reply(client, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: \(seconds)\r\nContent-Type: text/plain\r\nContent-Length: 18\r\nConnection: close\r\n\r\ntoo many requests\n")
            close(client)
        case .closeConnection?:
            LoopbackSocket.abort(client)
        case .dropResponse?, nil:
            guard let server = LoopbackSocket.connect(port: targetPort, timeout: 30) else {
                // The server is down: the client sees a refused-like reset.
                LoopbackSocket.abort(client)
                return
            }
            LoopbackSocket.sendAll(server, request.forwarded())
            let answer = LoopbackSocket.receiveAll(server)
            close(server)
            if fault == .dropResponse || answer.isEmpty {
                LoopbackSocket.abort(client)
            } else {
                LoopbackSocket.sendAll(client, answer)
                shutdown(client, Int32(SHUT_WR))
                // Drain what the client may still send, so closing does not reset the answer.
                LoopbackSocket.setTimeout(client, 1)
                _ = LoopbackSocket.receive(client)
                close(client)
            }
        }
    }

    private func reply(_ fd: Int32, _ text: String) {
        LoopbackSocket.sendAll(fd, Array(text.utf8))
        shutdown(fd, Int32(SHUT_WR))
        LoopbackSocket.setTimeout(fd, 1)
        _ = LoopbackSocket.receive(fd)
    }
}
