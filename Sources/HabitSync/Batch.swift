import FoundationEssentials
import HabitCore
import HabitStore

/// A batch file: one device's operations `first...last`, checksummed.
/// Layout: magic, device (16 bytes), first, last (u64 little-endian), count, operations, CRC-32C.
public enum BatchFile {
    /// Version 2: amounts in thousandths (see `Amount`). Version 1 batches, written before
    /// amounts had decimals, are read as well: each operation's tag says how its amounts
    /// are stored, so their whole units are read as whole units.
    static let magic = Array("HABITTO-BATCH\u{2}".utf8)
    static let wholeUnitMagic = Array("HABITTO-BATCH\u{1}".utf8)
    /// The version of the batch format written (its magic's last byte); version 1 is read too.
    public static var formatVersion: Int { Int(magic[magic.count - 1]) }
    /// The largest batch read from a remote.
    public static let maxBytes = 16 << 20
    /// Operations per batch written.
    public static let maxOperations = 1000

    /// The bytes of a batch of `ops` (one device, consecutive sequence numbers).
    public static func encode(_ ops: [HabitOperation]) -> [UInt8] {
        precondition(!ops.isEmpty)
        var w = ByteWriter(capacity: 64 * ops.count + 64)
        w.raw(magic)
        w.device(ops[0].id.device)
        w.u64le(ops[0].id.seq)
        w.u64le(ops[ops.count - 1].id.seq)
        w.varint(UInt64(ops.count))
        for op in ops { w.operation(op) }
        w.u32le(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Decodes and checks a batch read from `device`'s folder under `name`. Nothing in it is
    /// trusted: the checksum, the device, the sequence numbers against the name, and every
    /// change against the rules (names with control characters and the like are refused).
    public static func decode(_ bytes: [UInt8], device: DeviceID, name: BatchName) throws -> [HabitOperation] {
        func bad(_ why: String) -> RemoteError {
            .damaged("batch \(name) of device \(device.rawValue.prefix(8)) is invalid (\(why)); it was not applied")
        }
        guard bytes.count > magic.count + 4, bytes.count <= maxBytes,
              bytes.starts(with: magic) || bytes.starts(with: wholeUnitMagic) else { throw bad("not a batch file") }
        var tail = ByteReader(bytes, from: bytes.count - 4)
        guard (try? tail.u32le()) == CRC32C.checksum(bytes, 0..<(bytes.count - 4)) else { throw bad("checksum mismatch") }
        var r = ByteReader(bytes, from: magic.count, to: bytes.count - 4)
        do {
            guard try r.device() == device else { throw bad("it belongs to another device") }
            let first = try r.u64le(), last = try r.u64le()
            guard first == name.first, last == name.last else { throw bad("its contents do not match its name") }
            let count = try r.count(max: Int(min(name.count, 1 << 22)))
            guard UInt64(count) == name.count else { throw bad("wrong number of operations") }
            var ops: [HabitOperation] = []
            ops.reserveCapacity(count)
            for i in 0..<count {
                let op = try r.operation()
                guard op.id.device == device, op.id.seq == first + UInt64(i) else { throw bad("operations out of sequence") }
                do { try op.change.validate() } catch let e as CoreError { throw bad("operation \(op.id.seq): \(e.description)") }
                ops.append(op)
            }
            guard r.isAtEnd else { throw bad("trailing bytes") }
            return ops
        } catch let e as RemoteError {
            throw e
        } catch {
            throw bad("\(error)")
        }
    }
}
