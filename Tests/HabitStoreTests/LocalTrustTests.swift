import Foundation
import XCTest
@testable import HabitStore

/// `LocalTrust`: a file Habitto takes commands or a secret from is used only when it is a
/// regular file of the user running the tests that no one else can write (a secret: read);
/// a link is followed only to such a file outside the data directory, and never inside it.
/// Each refusal is one line naming the file and the command that fixes it, and nothing of
/// the file is read. Files owned by another user need root, which CI has (`CI=true`).
final class LocalTrustTests: StoreTestCase {
    private let me = LocalTrust.currentUser

    /// A file at `name` holding `text`, with `mode`.
    private func file(_ name: String, _ text: String = "theme = x\n", mode: mode_t = 0o600) throws -> String {
        let p = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: p))
        XCTAssertEqual(chmod(p, mode), 0)
        return p
    }

    /// Gives `path` (not a link's target) to user `nobody`; needs root.
    private func giveToNobody(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard getuid() == 0 else {
            // Under CI (which runs as root) this must run: fail, never skip.
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                XCTFail("CI runs the tests as root; giving a file to another user needs root", file: file, line: line)
                throw CancellationError()
            }
            throw XCTSkip("giving a file to another user needs root")
        }
        let nobody = try XCTUnwrap(getpwnam("nobody"), "no user nobody", file: file, line: line).pointee.pw_uid
        XCTAssertEqual(lchown(path, nobody, gid_t(bitPattern: -1)), 0, file: file, line: line)
    }

    /// The refusal `read` throws for `path`, or a failure.
    private func refusal(_ path: String, what: String = "the auto file", holds: LocalTrust.Holds = .commands, inDataDirectory: Bool = false,
                         file: StaticString = #filePath, line: UInt = #line) -> LocalTrust.Refusal? {
        do {
            let bytes = try LocalTrust.read(path, what: what, holds: holds, inDataDirectory: inDataDirectory, limit: 1 << 20)
            XCTFail("\(path) was read (\(bytes?.count ?? 0) bytes)", file: file, line: line)
        } catch StoreError.untrusted(let refusal) {
            XCTAssertEqual(LocalTrust.refusal(path, what: what, holds: holds, inDataDirectory: inDataDirectory), refusal,
                           "the doctor sees what the loader refuses", file: file, line: line)
            return refusal
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        return nil
    }

    func testAPrivateFileOfThisUserIsReadAndAMissingOneIsNone() throws {
        let auto = try file("auto", "x\n", mode: 0o644)
        XCTAssertEqual(try LocalTrust.read(auto, what: "the auto file", holds: .commands, limit: 100), Array("x\n".utf8))
        XCTAssertNil(LocalTrust.refusal(auto, what: "the auto file", holds: .commands))
        XCTAssertNil(try LocalTrust.read(path("none"), what: "the auto file", holds: .commands, limit: 100))
        XCTAssertNil(LocalTrust.refusal(path("none"), what: "the auto file", holds: .commands))
    }

    func testAFileOthersCanWriteIsRefusedWithTheChmodThatFixesIt() throws {
        let auto = try file("auto", mode: 0o666)
        XCTAssertEqual(refusal(auto)?.description,
                       "the auto file \(auto) is not used: group and others can write it (mode 666); check what it holds; if you trust it, run chmod go-w '\(auto)'")
        XCTAssertEqual(chmod(auto, 0o620), 0)
        XCTAssertEqual(refusal(auto)?.reason, "its group can write it (mode 620)")
    }

    func testASecretOthersCanReadIsRefused() throws {
        let key = try file("remote-key", mode: 0o644)
        XCTAssertEqual(refusal(key, what: "the key file", holds: .secret, inDataDirectory: true)?.description,
                       "the key file \(key) is not used: group and others can read or write it (mode 644); run chmod 600 '\(key)'")
    }

    func testAFileOfAnotherUserIsRefusedWithTheChownThatFixesIt() throws {
        let config = try file("config", mode: 0o644)
        try giveToNobody(config)
        XCTAssertEqual(refusal(config, what: "the config file")?.description,
                       "the config file \(config) is not used: it belongs to nobody, not to \(me) who runs Habitto; check what it holds; if you trust it, run chown \(me) '\(config)'")
        XCTAssertEqual(chmod(config, 0o666), 0)
        XCTAssertEqual(refusal(config, what: "the config file")?.fix,
                       "check what it holds; if you trust it, run chown \(me) '\(config)' && chmod go-w '\(config)'")
    }

    func testALinkIsFollowedOnlyToATrustedFileAndTheFixNamesItsTarget() throws {
        let target = try file("elsewhere", mode: 0o644)
        let link = path("auto")
        XCTAssertEqual(symlink(target, link), 0)
        XCTAssertEqual(try LocalTrust.read(link, what: "the auto file", holds: .commands, limit: 100), Array("theme = x\n".utf8))
        try giveToNobody(target)
        XCTAssertEqual(chmod(target, 0o666), 0)
        XCTAssertEqual(refusal(link)?.description,
                       "the auto file \(link) (a link to \(target)) is not used: it belongs to nobody, not to \(me) who runs Habitto, and group and others can write it (mode 666); check what it holds; if you trust it, run chown \(me) '\(target)' && chmod go-w '\(target)'")
    }

    func testInsideTheDataDirectoryALinkIsRefusedEvenToATrustedFile() throws {
        let target = try file("key-elsewhere", mode: 0o600)
        let link = path("remote-key")
        XCTAssertEqual(symlink(target, link), 0)
        XCTAssertEqual(refusal(link, what: "the key file", holds: .secret, inDataDirectory: true)?.description,
                       "the key file \(link) is not used: it is a symbolic link, not a regular file; Habitto follows no link inside its data directory: put the file itself in the link's place")
    }

    func testAFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let fifo = path("auto")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(refusal(fifo)?.reason, "it is a FIFO (named pipe), not a regular file")
    }
}
