#if canImport(Glibc)
import Glibc
#endif

/// Which hosts are this machine, for the rule "plain http only to this machine": a host is
/// loopback when it is the name `localhost` (any case), an IPv4 address in `127.0.0.0/8`
/// written as four decimal numbers (`127.0.0.1`, `127.1.2.3`), or the IPv6 address `::1` in
/// any of its spellings (`::1`, `0:0:0:0:0:0:0:1`, with or without brackets). The text is
/// parsed as an address (`inet_pton`), never compared by its start: `127.0.0.1.example.org`
/// is a name that the DNS answers, so it is not loopback, and neither is any other name, a
/// short or octal form (`127.1`, `0177.0.0.1`), an IPv6 zone (`::1%lo`) or an IPv4 address
/// inside IPv6 (`::ffff:127.0.0.1`).
public enum LoopbackHost {
    /// Whether `host` (as a URL gives it: a name, an IPv4 address, an IPv6 address with or
    /// without its brackets) is this machine, as above.
    public static func contains(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        let address = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            // s_addr is in network byte order: its first byte in memory is the first number.
            return withUnsafeBytes(of: &v4) { $0[0] } == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        return false
    }
}
