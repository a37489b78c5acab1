import FoundationEssentials
import HabitCore

/// What `{root}/users/{account}/format` says: one line, `habitto-sync 2 remote ID`, where ID
/// (32 lower-case hex digits) is made at random by the device that makes the layout, so a
/// layout made again (an emptied or replaced remote) has another identity, followed by
/// ` age` on an encrypted remote: every batch is an age file for a recipient that only key
/// holders know (each derives it from the identity), and the account's `keycheck` file
/// (`Keycheck`) vouches for the identity and the account. Remotes made encrypted by earlier
/// versions say ` age RECIPIENT`, the recipient in the clear (anyone who kept it can make age
/// files for it: such a remote is read and written as before, and reported). Or
/// `habitto-sync 1`, as earlier versions wrote it, which this version replaces with version 2
/// (earlier versions then refuse the remote in one line, before changing anything).
public struct RemoteFormat: Equatable, Sendable {
    /// The version this Habitto writes.
    public static let current = 2
    public let version: Int
    /// The remote's identity (nil for version 1, which had none).
    public let id: String?
    /// The age recipient (`age1…`) in the clear, as earlier versions wrote an encrypted
    /// remote's format; nil: not encrypted, or encrypted with a keycheck (`keychecked`).
    public let recipient: String?
    /// Encrypted, the recipient kept off the remote, and a keycheck file vouching for the format.
    public let keychecked: Bool

    init(version: Int, id: String?, recipient: String? = nil, keychecked: Bool = false) {
        self.version = version; self.id = id; self.recipient = recipient; self.keychecked = keychecked
    }

    /// Whether the remote's batches are age files.
    public var isEncrypted: Bool { recipient != nil || keychecked }

    /// A new version 2 format with a random identity; `encrypted`: it says ` age`, naming no
    /// recipient (a keycheck file is written beside it).
    public static func fresh(encrypted: Bool = false) -> RemoteFormat {
        let id = (0..<2).map { _ in
            let s = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }.joined()
        return RemoteFormat(version: 2, id: id, keychecked: encrypted)
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        var line = "habitto-sync \(version)"
        if let id { line += " remote \(id)" }
        if let recipient { line += " age \(recipient)" } else if keychecked { line += " age" }
        return Array(line.utf8) + [10]
    }

    /// What a format file holds, read strictly.
    public enum Parsed: Equatable, Sendable {
        /// A format this version reads.
        case readable(RemoteFormat)
        /// A later version's format: this Habitto is too old for the remote.
        case newer(version: Int)
        /// Not a Habitto format file.
        case unknown
    }

    /// Parses a format file: `habitto-sync 1`, `habitto-sync 2 remote ID`, `habitto-sync 2
    /// remote ID age`, `habitto-sync 2 remote ID age RECIPIENT`, or `habitto-sync N …` with N above 2 (a newer version's);
    /// anything else is `unknown`.
    public static func parse(_ bytes: [UInt8]) -> Parsed {
        guard bytes.count <= 4096, let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return .unknown }
        let words = text.dropLast().split(separator: " ", omittingEmptySubsequences: false)
        guard words.count >= 2, words[0] == "habitto-sync", let n = Int(words[1]), n >= 1, words[1].first != "0",
              words[1].allSatisfy(\.isASCII) else { return .unknown }
        if n > current { return .newer(version: n) }
        if n == 1 { return words.count == 2 ? .readable(RemoteFormat(version: 1, id: nil)) : .unknown }
        guard (4...6).contains(words.count), words[2] == "remote", words[3].count == 32,
              words[3].unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else { return .unknown }
        if words.count == 5 {
            guard words[4] == "age" else { return .unknown }
            return .readable(RemoteFormat(version: 2, id: String(words[3]), keychecked: true))
        }
        var recipient: String?
        if words.count == 6 {
            guard words[4] == "age", AgeRecipient.isValid(String(words[5])) else { return .unknown }
            recipient = String(words[5])
        }
        return .readable(RemoteFormat(version: 2, id: String(words[3]), recipient: recipient))
    }

    /// The refusal of an unencrypted format (`habitto-sync 1`) found by a device that uses the
    /// remote encrypted: the file is left alone and nothing is written.
    static func downgrade(at place: String) -> RemoteError {
        .damaged("\(place) says 'habitto-sync 1', an unencrypted format, and this device uses the remote encrypted: someone without the key may have changed it. Nothing was written and the file was left alone; check the remote")
    }

    /// The error for a format file that this version cannot use (`where` names it).
    static func refusal(_ parsed: Parsed, found: [UInt8], at place: String) -> RemoteError {
        if case .newer(let n) = parsed {
            return .damaged("\(place) says format \(n): this remote needs a newer habitto (this one reads formats 1 and 2); update habitto on this device. Nothing was changed on the remote")
        }
        let text = Sanitize.display(String(decoding: found.prefix(64), as: UTF8.self).trimmingWhitespace)
        return .damaged("\(place) says '\(text)', which is not a habitto remote format; choose another remote. The file was left alone")
    }
}

/// Age X25519 recipients (public keys), as `age-keygen` prints them: `age1` followed by the
/// key in lower-case bech32 (52 characters) and its 6-character checksum.
public enum AgeRecipient {
    static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    /// Whether `text` is an age X25519 recipient: the form above, and a checksum that holds
    /// (so a recipient damaged on the remote is not taken for another one).
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 62, bytes.starts(with: Array("age1".utf8)) else { return false }
        var values: [UInt8] = []
        for b in bytes.dropFirst(4) {
            guard let v = charset.firstIndex(of: b) else { return false }
            values.append(UInt8(v))
        }
        // BIP 173: the checksum over the expanded prefix ("age") and the data is 1.
        let prefix = Array("age".utf8)
        let expanded = prefix.map { $0 >> 5 } + [0] + prefix.map { $0 & 31 } + values
        var check: UInt32 = 1
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        for v in expanded {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> i) & 1 == 1 { check ^= generator[i] }
        }
        guard check == 1 else { return false }
        // 52 characters of 5 bits carry the 32-byte key and 4 bits of padding, which are 0.
        return values[51] & 0xf == 0
    }
}
