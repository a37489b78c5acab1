import CRC32CInstruction

/// CRC-32C (Castagnoli), the checksum of journal records and snapshots: with the
/// processor's instruction where there is one (x86-64 with SSE 4.2), else eight table reads
/// for every eight bytes. A check-in checksums the snapshot's meta and the habit's block,
/// a few hundred kilobytes on a long history, where the instruction is several times faster.
public enum CRC32C {
    static let table: [[UInt32]] = {
        var t = Array(repeating: Array(repeating: UInt32(0), count: 256), count: 8)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            t[0][i] = c
        }
        for i in 0..<256 {
            for k in 1..<8 { t[k][i] = (t[k - 1][i] >> 8) ^ t[0][Int(t[k - 1][i] & 0xFF)] }
        }
        return t
    }()

    /// Whether `update` uses the instruction (read once; the tables are then never built).
    static let usesInstruction = habitto_crc32c_instruction_available() == 1

    /// The checksum of `bytes[range]`.
    public static func checksum(_ bytes: [UInt8], _ range: Range<Int>? = nil) -> UInt32 {
        let r = range ?? 0..<bytes.count
        return bytes.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[r])) }
    }

    /// The checksum of bytes in place.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(~0, bytes.assumingMemoryBound(to: UInt8.self)) ^ ~0
    }

    /// The eight tables in one array, read through a pointer (no bounds checks per byte).
    static let flat: [UInt32] = table.flatMap { $0 }

    static func update(_ crc: UInt32, _ p: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let b = p.baseAddress else { return crc }
        if usesInstruction { return habitto_crc32c_instruction_update(crc, b, p.count) }
        return tableUpdate(crc, p)
    }

    /// `update` without the instruction.
    static func tableUpdate(_ crc: UInt32, _ p: UnsafeBufferPointer<UInt8>) -> UInt32 {
        flat.withUnsafeBufferPointer { t in
            var c = crc
            var i = 0
            let n = p.count
            guard let b = p.baseAddress else { return c }
            while i + 8 <= n {
                let lo = c ^ (UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)
                c = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)] ^ t[5 * 256 + Int((lo >> 16) & 0xFF)]
                    ^ t[4 * 256 + Int(lo >> 24)] ^ t[3 * 256 + Int(b[i + 4])] ^ t[2 * 256 + Int(b[i + 5])]
                    ^ t[256 + Int(b[i + 6])] ^ t[Int(b[i + 7])]
                i += 8
            }
            while i < n { c = t[Int((c ^ UInt32(b[i])) & 0xFF)] ^ (c >> 8); i += 1 }
            return c
        }
    }
}
