import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
