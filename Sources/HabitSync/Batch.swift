import FoundationEssentials
import HabitCore
import HabitStore

/// A batch file: one device's operations `first...last`, checksummed, with what the writing
/// device had seen of every other device when it wrote it.
/// Layout: magic, device (16 bytes), first, last (u64 little-endian), the seen vector (a count,
/// then each device's id and last sequence number, u64 little-endian, in id order), count,
/// operations, CRC-32C. Versions 1 and 2 have no seen vector.
public enum BatchFile {
    /// Version 3: the seen vector. Version 2 (amounts in thousandths, see `Amount`) and
    /// version 1 batches, written before amounts had decimals, are read as well (with no seen
    /// vector): each operation's tag says how its amounts are stored, so their whole units
    /// are read as whole units.
    static let magic = Array("HABITTO-BATCH\u{3}".utf8)
    static let unseenMagic = Array("HABITTO-BATCH\u{2}".utf8)
    static let wholeUnitMagic = Array("HABITTO-BATCH\u{1}".utf8)
    /// The version of the batch format written (its magic's last byte); versions 1 and 2 are read too.
    public static var formatVersion: Int { Int(magic[magic.count - 1]) }
    /// The largest batch read from a remote.
    public static let maxBytes = 16 << 20
    /// Operations per batch written.
    public static let maxOperations = 1000
    /// The most devices a seen vector names (as many as a status keeps, `SyncRound.maxDevices`):
    /// a batch naming more is refused, and a device that has seen more names those first in
    /// id order.
    public static let maxSeenDevices = 200

    /// What a batch holds: its operations, and the last operation of each other device its
    /// writer had seen when it wrote it (empty for versions 1 and 2, and for a batch a device
    /// wrote again for another, which cannot know what that device had seen).
    public struct Contents: Equatable, Sendable {
        public var operations: [HabitOperation]
        public var seen: [DeviceID: UInt64]
        public init(operations: [HabitOperation], seen: [DeviceID: UInt64]) { self.operations = operations; self.seen = seen }
    }

    /// The bytes of a batch of `ops` (one device, consecutive sequence numbers) whose writer
    /// had seen `seen` (its own device and zeros are left out; at most `maxSeenDevices`, the
    /// first in id order). The same arguments always give the same bytes.
    public static func encode(_ ops: [HabitOperation], seen: [DeviceID: UInt64] = [:]) -> [UInt8] {
        precondition(!ops.isEmpty)
        let device = ops[0].id.device
        let vector = seen.filter { $0.key != device && $0.value > 0 }.sorted { $0.key < $1.key }.prefix(maxSeenDevices)
        var w = ByteWriter(capacity: 64 * ops.count + 24 * vector.count + 64)
        w.raw(magic)
        w.device(device)
        w.u64le(ops[0].id.seq)
        w.u64le(ops[ops.count - 1].id.seq)
        w.varint(UInt64(vector.count))
        for (d, s) in vector { w.device(d); w.u64le(s) }
        w.varint(UInt64(ops.count))
        for op in ops { w.operation(op) }
        w.u32le(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// The operations of a batch read from `device`'s folder under `name` (see `read`).
    public static func decode(_ bytes: [UInt8], device: DeviceID, name: BatchName) throws -> [HabitOperation] {
        try read(bytes, device: device, name: name).operations
    }

    /// Decodes and checks a batch read from `device`'s folder under `name`. Nothing in it is
    /// trusted: the checksum, the device, the sequence numbers against the name, the seen
    /// vector (at most `maxSeenDevices`, in id order, none of `device`, no zero), and every
    /// change against the rules (names with control characters and the like are refused).
    public static func read(_ bytes: [UInt8], device: DeviceID, name: BatchName) throws -> Contents {
        func bad(_ why: String) -> RemoteError {
            .damaged("batch \(name) of device \(device.rawValue.prefix(8)) is invalid (\(why)); it was not applied")
        }
        guard bytes.count > magic.count + 4, bytes.count <= maxBytes,
              bytes.starts(with: magic) || bytes.starts(with: unseenMagic) || bytes.starts(with: wholeUnitMagic) else {
            throw bad("not a batch file")
        }
        var tail = ByteReader(bytes, from: bytes.count - 4)
        guard (try? tail.u32le()) == CRC32C.checksum(bytes, 0..<(bytes.count - 4)) else { throw bad("checksum mismatch") }
        var r = ByteReader(bytes, from: magic.count, to: bytes.count - 4)
        do {
            guard try r.device() == device else { throw bad("it belongs to another device") }
            let first = try r.u64le(), last = try r.u64le()
            guard first == name.first, last == name.last else { throw bad("its contents do not match its name") }
            var seen: [DeviceID: UInt64] = [:]
            if bytes.starts(with: magic) {
                let devices = try r.count(max: maxSeenDevices)
                var previous: DeviceID?
                for _ in 0..<devices {
                    let d = try r.device(), s = try r.u64le()
                    guard d != device else { throw bad("its seen vector names its own device") }
                    guard previous.map({ $0 < d }) ?? true else { throw bad("its seen vector is not in device order") }
                    guard s > 0 else { throw bad("its seen vector holds a zero") }
                    seen[d] = s
                    previous = d
                }
            }
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
            return Contents(operations: ops, seen: seen)
        } catch let e as RemoteError {
            throw e
        } catch {
            throw bad("\(error)")
        }
    }
}
