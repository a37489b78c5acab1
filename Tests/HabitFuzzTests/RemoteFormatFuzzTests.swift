import XCTest
import HabitCore
@testable import HabitSync

/// Mutated and random `format` files and age recipients: the parser of an encrypted
/// remote's format line is strict, so whatever it accepts writes back to the very same
/// bytes, and a recipient damaged in any one character is never taken for another.
final class RemoteFormatFuzzTests: XCTestCase {
    static let recipients = ["age1m8sefgc8nk87vk46fap24at0s5qaf7t9f6ycnlwx5ntx39qtkp7qr236ch",
                             "age1nkahvesx5sjv3u0hr6r24xhlmmgnht4lccg80mjhpr5deu5r84lspq4vuf"]
    static let formats = [
        "habitto-sync 1\n",
        "habitto-sync 2 remote 0123456789abcdef0123456789abcdef\n",
        "habitto-sync 2 remote 0123456789abcdef0123456789abcdef age \(recipients[0])\n",
        "habitto-sync 2 remote fedcba9876543210fedcba9876543210 age \(recipients[1])\n",
        "habitto-sync 2 remote 0123456789abcdef0123456789abcdef age\n",
    ].map { Array($0.utf8) }
    static let keychecks = [
        "habitto keycheck 1 remote 0123456789abcdef0123456789abcdef account default\n",
        "habitto keycheck 1 remote fedcba9876543210fedcba9876543210 account alice.b_c-9\n",
    ].map { Array($0.utf8) }

    func testMutatedFormatFilesAreRefusedOrWriteBackTheSameBytes() {
        var accepted = 0, encrypted = 0, keychecked = 0
        Fuzzer.run("remote format", iterations: 20_000) { rng, label in
            let input = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng, upTo: 160) : Fuzzer.mutate(Self.formats.randomElement(using: &rng)!, corpus: Self.formats, text: true, rng: &rng)
            guard case .readable(let format) = RemoteFormat.parse(input) else { return }
            accepted += 1
            XCTAssertEqual(format.bytes, input, "\(label): an accepted format file does not write back as it was")
            if format.keychecked {
                keychecked += 1
                XCTAssertNil(format.recipient, label)
                XCTAssertEqual(format.version, 2, label)
            }
            if let recipient = format.recipient {
                encrypted += 1
                XCTAssertTrue(AgeRecipient.isValid(recipient), label)
                XCTAssertEqual(format.version, 2, label)
            }
        }
        // Mutations that change nothing that matters (a digit of the id) are accepted.
        XCTAssertGreaterThan(accepted, 20)
        XCTAssertGreaterThan(encrypted, 5)
        XCTAssertGreaterThan(keychecked, 5)
    }

    /// A decrypted keycheck is read strictly: whatever is accepted is the plaintext made for
    /// the identity and account it names, so two keychecks that read alike are the same bytes.
    func testMutatedKeychecksAreRefusedOrAreThePlaintextOfWhatTheyName() {
        var accepted = 0
        Fuzzer.run("keycheck", iterations: 20_000) { rng, label in
            let input = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng, upTo: 160) : Fuzzer.mutate(Self.keychecks.randomElement(using: &rng)!, corpus: Self.keychecks, text: true, rng: &rng)
            guard let named = Keycheck.parse(input) else { return }
            accepted += 1
            XCTAssertEqual(Keycheck.plaintext(id: named.id, account: named.account), input, label)
            XCTAssertNotNil(try? validateAccount(named.account), label)
        }
        XCTAssertGreaterThan(accepted, 20)
        for k in Self.keychecks { XCTAssertNotNil(Keycheck.parse(k)) }
    }

    func testARecipientWithAnyOneCharacterChangedIsRefused() {
        let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7lQPbio1 -")
        Fuzzer.run("age recipient", iterations: 5_000) { rng, label in
            var chars = Array(Self.recipients.randomElement(using: &rng)!)
            let at = Int.random(in: 0..<chars.count, using: &rng)
            let other = alphabet.filter { $0 != chars[at] }.randomElement(using: &rng)!
            chars[at] = other
            XCTAssertFalse(AgeRecipient.isValid(String(chars)), "\(label): \(String(chars)) was taken for a recipient")
        }
        for r in Self.recipients { XCTAssertTrue(AgeRecipient.isValid(r)) }
    }
}
