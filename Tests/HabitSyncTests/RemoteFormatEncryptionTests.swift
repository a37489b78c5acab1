import XCTest
import HabitCore
@testable import HabitSync
import SyncTestKit

/// The format line of an encrypted remote: `habitto-sync 2 remote ID age` (made by this
/// version) and `habitto-sync 2 remote ID age RECIPIENT` (made by earlier ones, still read).
final class RemoteFormatEncryptionTests: TemporaryFolderTestCase {
    let id = "0123456789abcdef0123456789abcdef"
    let recipient = "age1m8sefgc8nk87vk46fap24at0s5qaf7t9f6ycnlwx5ntx39qtkp7qr236ch"

    func parse(_ text: String) -> RemoteFormat.Parsed { RemoteFormat.parse(Array(text.utf8)) }

    func testAnEncryptedFormatNamesItsRecipientAndWritesBackTheSame() {
        let line = "habitto-sync 2 remote \(id) age \(recipient)\n"
        XCTAssertEqual(parse(line), .readable(RemoteFormat(version: 2, id: id, recipient: recipient)))
        XCTAssertEqual(RemoteFormat(version: 2, id: id, recipient: recipient).bytes, Array(line.utf8))
        XCTAssertEqual(parse("habitto-sync 2 remote \(id)\n"), .readable(RemoteFormat(version: 2, id: id, recipient: nil)))
        let fresh = RemoteFormat.fresh(encrypted: true)
        XCTAssertNil(fresh.recipient)
        XCTAssertTrue(fresh.keychecked && fresh.isEncrypted)
        XCTAssertEqual(String(decoding: fresh.bytes, as: UTF8.self), "habitto-sync 2 remote \(fresh.id!) age\n")
        XCTAssertEqual(parse(String(decoding: fresh.bytes, as: UTF8.self)), .readable(fresh))
        XCTAssertEqual(parse("habitto-sync 2 remote \(id) age\n"), .readable(RemoteFormat(version: 2, id: id, keychecked: true)))
        XCTAssertNil(RemoteFormat.fresh().recipient)
        XCTAssertFalse(RemoteFormat.fresh().isEncrypted)
    }

    func testAFormatLineThatIsNotExactlyThatIsUnknown() {
        let bad = [
            "habitto-sync 2 remote \(id) gpg\n",                              // another tool
            "habitto-sync 2 remote \(id) age \n",                             // an empty recipient
            "habitto-sync 2 remote \(id) age \(recipient) more\n",            // a seventh word
            "habitto-sync 2 remote \(id) gpg \(recipient)\n",                 // another tool
            "habitto-sync 2 remote \(id) age \(recipient.uppercased())\n",    // upper case
            "habitto-sync 2 remote \(id) age \(recipient.dropLast())q\n",     // checksum broken
            "habitto-sync 2 remote \(id) age \(recipient.dropLast())\n",      // too short
            "habitto-sync 2 remote \(id)  age \(recipient)\n",                // two spaces
            "habitto-sync 2 remote \(id) age \(recipient)",                   // no line end
            "habitto-sync 2 remote \(id) age age1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq\n",
            "habitto-sync 1 age \(recipient)\n",                              // version 1 has none
        ]
        for line in bad { XCTAssertEqual(parse(line), .unknown, line) }
        XCTAssertEqual(parse("habitto-sync 3 remote \(id) age \(recipient) x\n"), .newer(version: 3))
    }

    func testOnlyWellFormedAgeRecipientsAreValid() {
        XCTAssertTrue(AgeRecipient.isValid(recipient))
        XCTAssertTrue(AgeRecipient.isValid("age1nkahvesx5sjv3u0hr6r24xhlmmgnht4lccg80mjhpr5deu5r84lspq4vuf"))
        for bad in ["", "age1", "age", "AGE1M8SEFGC8NK87VK46FAP24AT0S5QAF7T9F6YCNLWX5NTX39QTKP7QR236CH",
                    "agf1m8sefgc8nk87vk46fap24at0s5qaf7t9f6ycnlwx5ntx39qtkp7qr236ch",
                    "age1m8sefgc8nk87vk46fap24at0s5qaf7t9f6ycnlwx5ntx39qtkp7qr236cg",
                    "age1b8sefgc8nk87vk46fap24at0s5qaf7t9f6ycnlwx5ntx39qtkp7qr236ch",
                    "age1m8sefgc8nk87vk46fap24at0s5qaf7t9f6ycnlwx5ntx39qtkp7qr236chq"] {
            XCTAssertFalse(AgeRecipient.isValid(bad), bad)
        }
    }

    func testADirectoryRemoteMakesAnEncryptedFormatOnlyWhenNew() async throws {
        let remote = DirectoryRemote(root: folder)
        let prepared = try await remote.prepare(account: "alice", recipient: recipient)
        let made = try XCTUnwrap(prepared)
        XCTAssertNil(made.recipient)
        XCTAssertTrue(made.keychecked)
        // The recipient is kept off the remote.
        let file = try String(contentsOfFile: folder + "/users/alice/format", encoding: .utf8)
        XCTAssertEqual(file, "habitto-sync 2 remote \(made.id!) age\n")
        // An existing format is read as it is, whatever recipient is asked for.
        let plain = try await remote.prepare(account: "alice")
        XCTAssertEqual(plain, made)
        let bob = try await remote.prepare(account: "bob")
        XCTAssertNotNil(bob)
        XCTAssertNil(bob?.recipient)
        XCTAssertFalse(bob?.isEncrypted ?? true)
        // A version 1 format is never rewritten by a device that encrypts: refused, left alone.
        let bobFormat = folder + "/users/bob/format"
        try Data("habitto-sync 1\n".utf8).write(to: URL(fileURLWithPath: bobFormat))
        do {
            _ = try await remote.prepare(account: "bob", recipient: recipient)
            XCTFail("an encrypting device upgraded an unencrypted format")
        } catch let e as RemoteError {
            XCTAssertEqual(e.kind, .permanent)
            XCTAssertTrue(e.message.contains("says 'habitto-sync 1', an unencrypted format, and this device uses the remote encrypted"), e.message)
        }
        XCTAssertEqual(try String(contentsOfFile: bobFormat, encoding: .utf8), "habitto-sync 1\n")
        // An unencrypted device upgrades it in place to a plain version 2.
        let upgraded = try await remote.prepare(account: "bob")
        XCTAssertEqual(upgraded?.version, 2)
        XCTAssertNil(upgraded?.recipient)
    }
}
