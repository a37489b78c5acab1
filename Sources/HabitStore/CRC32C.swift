/// CRC-32C (Castagnoli), the checksum of journal records and snapshots.
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

    /// The checksum of `bytes[range]`.
    public static func checksum(_ bytes: [UInt8], _ range: Range<Int>? = nil) -> UInt32 {
        let r = range ?? 0..<bytes.count
        return bytes.withUnsafeBufferPointer { buf in
            table.withUnsafeBufferPointer { _ in update(~0, UnsafeBufferPointer(rebasing: buf[r])) }
        } ^ ~0
    }

    static func update(_ crc: UInt32, _ p: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var c = crc
        var i = 0
        let t0 = table[0], t1 = table[1], t2 = table[2], t3 = table[3]
        let t4 = table[4], t5 = table[5], t6 = table[6], t7 = table[7]
        while i + 8 <= p.count {
            let lo = c ^ (UInt32(p[i]) | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) << 16 | UInt32(p[i + 3]) << 24)
            c = t7[Int(lo & 0xFF)] ^ t6[Int((lo >> 8) & 0xFF)] ^ t5[Int((lo >> 16) & 0xFF)] ^ t4[Int(lo >> 24)]
                ^ t3[Int(p[i + 4])] ^ t2[Int(p[i + 5])] ^ t1[Int(p[i + 6])] ^ t0[Int(p[i + 7])]
            i += 8
        }
        while i < p.count { c = t0[Int((c ^ UInt32(p[i])) & 0xFF)] ^ (c >> 8); i += 1 }
        return c
    }
}
