import Foundation
import HabitSys
#if canImport(Glibc)
import Glibc
#endif

/// The few socket calls the harness needs: loopback TCP only, each through `sysCall`.
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
        let fd: Int32
        do { fd = try sysCall("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) } } catch {
            throw HarnessError("socket: \(error.reason)")
        }
        var one: Int32 = 1
        _ = try? sysCall("setsockopt") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var a = address(port)
        do {
            _ = try withUnsafePointer(to: &a) { p throws(SysError) in
                try sysCall("bind") { p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            }
            try sysCall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            close(fd)
            throw HarnessError("cannot listen on 127.0.0.1:\(port): \(error.reason)")
        }
        return fd
    }

    static func boundPort(_ fd: Int32) throws -> UInt16 {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        do {
            _ = try withUnsafeMutablePointer(to: &a) { p throws(SysError) in
                try sysCall("getsockname") { p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            }
        } catch {
            throw HarnessError("getsockname: \(error.reason)")
        }
        return UInt16(bigEndian: a.sin_port)
    }

    /// A connected socket to 127.0.0.1:`port`, or nil when nothing accepts there.
    static func connect(port: UInt16, timeout: Double = 30) -> Int32? {
        guard let fd = try? sysCall("socket", { socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }) else { return nil }
        var a = address(port)
        // A connect cut short by a signal goes on in the background and its retry fails
        // (EALREADY): that counts as refused, which a caller that polls tries again.
        let r = withUnsafePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in try? sysCall("connect") { Glibc.connect(fd, sa, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard r != nil else { close(fd); return nil }
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
        _ = try? sysCall("setsockopt") { setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) }
        _ = try? sysCall("setsockopt") { setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) }
    }

    /// Closes `fd` (once: see `sysClose`); errors are ignored.
    static func close(_ fd: Int32) { try? sysClose(fd) }

    /// Shuts `fd` down for `how` (`SHUT_WR`, `SHUT_RDWR`); errors are ignored.
    static func shutdown(_ fd: Int32, _ how: Int32) { _ = try? sysCall("shutdown") { Glibc.shutdown(fd, how) } }

    /// Writes everything (never raising SIGPIPE); false when the peer went away.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = try? bytes[sent...].withUnsafeBytes { raw in try sysCall("send") { send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) } }
            guard let n, n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Up to `max` bytes; nil at the end of the stream, on an error or a timeout.
    static func receive(_ fd: Int32, max: Int = 65536) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: max)
        let n = try? buffer.withUnsafeMutableBytes { raw in try sysCall("recv") { recv(fd, raw.baseAddress, max, 0) } }
        guard let n, n > 0 else { return nil }
        return Array(buffer[0..<n])
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
        _ = try? sysCall("setsockopt") { setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size)) }
        close(fd)
    }
}
