import Foundation
import XCTest

/// Plain http only to this machine: the host must be a loopback address as parsed
/// (127.0.0.0/8, ::1) or localhost; a name that starts with "127." is refused before anything
/// is looked up or sent.
final class LoopbackCommandTests: XCTestCase {
    private var box: Sandbox!

    override func setUp() {
        box = Sandbox()
        box.ok("add", "Water")
        box.ok("offline", "on")
    }

    override func tearDown() { box = nil }

    func testAPlainHTTPRemoteMustBeALoopbackAddressNotANameThatStartsWith127() {
        let warning = "habitto: warning: plain http sends data and the password unencrypted; use it only on this machine, for tests\n"
        for host in ["127.0.0.1.attacker.example", "127.attacker.example", "0x7f.0.0.1", "[::ffff:127.0.0.1]"] {
            let r = box.run("remote", "set", "http://\(host):8080/dav/", "--user", "anna")
            XCTAssertEqual(r.status, 1, host)
            let shown = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            XCTAssertEqual(r.stderr, warning + "habitto: plain http is only allowed for this machine (a loopback address: 127.0.0.0/8, ::1 or localhost); use https for \(shown)\n", host)
            XCTAssertEqual(box.run("remote", "show").stdout.contains(host), false, "\(host) was not set")
        }
        for host in ["127.0.0.1", "127.3.2.1", "localhost", "[::1]"] {
            let r = box.run("remote", "set", "http://\(host):9/dav/", "--user", "anna")
            XCTAssertEqual(r.status, 0, "\(host): \(r.stderr)")
            XCTAssertEqual(r.stderr, warning, host)
        }
    }
}
