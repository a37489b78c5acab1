/// One stamp per field register of a habit (see `FieldValue.index`), nil where the register
/// was never set.
///
/// Most registers hold the same stamp (a create sets every field at once), so each distinct
/// stamp is kept once and each register says which one it holds: about 80 bytes a habit
/// where an array of optional stamps took 560. Every command decodes every habit's stamps
/// from the snapshot, so this is memory written at each start.
public struct FieldStamps: Sendable {
    /// The stamps in use, in no order; a register's slot in `which` is its index here plus
    /// one, or 0 for no stamp.
    private var distinct: [Stamp] = []
    private var which = SIMD16<UInt8>()

    /// No register stamped.
    public init() {}

    /// Room for every register (`FieldValue.count` of them).
    public static let capacity = SIMD16<UInt8>.scalarCount

    public subscript(index: Int) -> Stamp? {
        get {
            let slot = Int(which[index])
            return slot == 0 ? nil : distinct[slot - 1]
        }
        set {
            guard let stamp = newValue else { which[index] = 0; return }
            if let i = distinct.firstIndex(of: stamp) {
                which[index] = UInt8(i + 1)
                return
            }
            // Stamps no register holds any more are dropped before the list could outgrow
            // the registers.
            if distinct.count >= Self.capacity { compact() }
            distinct.append(stamp)
            which[index] = UInt8(distinct.count)
        }
    }

    private mutating func compact() {
        let old = self
        self = FieldStamps()
        for i in 0..<Self.capacity { self[i] = old[i] }
    }
}

extension FieldStamps: Hashable {
    /// Equal when every register holds the same stamp, however they are kept.
    public static func == (a: FieldStamps, b: FieldStamps) -> Bool {
        (0..<capacity).allSatisfy { a[$0] == b[$0] }
    }

    public func hash(into h: inout Hasher) {
        for i in 0..<Self.capacity { h.combine(self[i]) }
    }
}
