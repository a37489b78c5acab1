import XCTest
@testable import HabitStore

/// Loopback means an address of this machine, parsed as an address: a name that starts with
/// `127.` is a name like any other, which the DNS answers.
final class LoopbackHostTests: XCTestCase {
    func testOnlyLoopbackAddressesAndLocalhostAreThisMachine() {
        for host in ["localhost", "LocalHost", "127.0.0.1", "127.255.255.254", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "[0::1]"] {
            XCTAssertTrue(LoopbackHost.contains(host), host)
        }
        for host in ["127.0.0.1.attacker.example", "127.attacker.example", "127.0.0.1.", "127.1", "0177.0.0.1", "0x7f.0.0.1",
                     "128.0.0.1", "126.255.255.255", "10.0.0.1", "::2", "::", "::ffff:127.0.0.1", "::1%lo", "[::1", "localhost.",
                     "localhost.attacker.example", "", "example.org"] {
            XCTAssertFalse(LoopbackHost.contains(host), host)
        }
    }
}
