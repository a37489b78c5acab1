import HabitCore

/// The account's `keycheck` file beside the `format` of an encrypted remote (made by this
/// version): an age file for the remote's recipient whose plaintext is one line,
/// `habitto keycheck 1 remote ID account NAME`. The recipient is on no remote (each device
/// derives it from the identity with `age-keygen -y`), so only a key holder can make an age
/// file that the identity decrypts: a keycheck that decrypts and names the format's identity
/// and the account shows that this device has the remote's key and that the format is the
/// one a key holder made. One that does not decrypt is another key (or a forgery); one that
/// names another identity or account is a format changed, or a keycheck copied, on the remote.
public enum Keycheck {
    /// Its name in `users/{account}/`.
    public static let fileName = "keycheck"
    /// The largest keycheck read (its age file is about 250 bytes).
    public static let maxBytes = 4096

    /// The plaintext for the remote `id` and `account`.
    public static func plaintext(id: String, account: String) -> [UInt8] {
        Array("habitto keycheck 1 remote \(id) account \(account)\n".utf8)
    }

    /// The identity and account a decrypted keycheck names, or nil when it is not one.
    public static func parse(_ bytes: [UInt8]) -> (id: String, account: String)? {
        guard bytes.count <= 512, let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return nil }
        let w = text.dropLast().split(separator: " ", omittingEmptySubsequences: false)
        guard w.count == 7, w[0] == "habitto", w[1] == "keycheck", w[2] == "1", w[3] == "remote", w[5] == "account",
              w[4].count == 32, w[4].unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }),
              (try? validateAccount(String(w[6]))) != nil else { return nil }
        return (String(w[4]), String(w[6]))
    }
}
