/// How a state's registers and days are encoded (see `HabitState.encoded()`): this
/// version's format, or one an older version wrote, which readers still read. The file
/// that holds a state says which (a snapshot's magic, a backup's header), and its reader
/// sets `ByteReader.format` from it; `ByteWriter` writes only `current`.
public struct StateFormat: Equatable, Sendable {
    /// What one stored unit of a goal or of a day's progress is worth in thousandths (see
    /// `Amount`): `Amount.scale` in states written before amounts had decimals, else 1.
    /// Operations carry their own format in their tag, whatever this says.
    public var amountScale: Int
    /// How many field registers each entry holds (one of `FieldValue.storedCounts`): fewer
    /// in states written before the order key or reminder times existed.
    public var fieldCount: Int
    /// Whether the encoding ends with the dated registers (`ByteWriter.datedRegisters`),
    /// which states written before those existed lack.
    public var datedRegisters: Bool
    /// Whether a dated register may be cleared (`Change.clearFrom`): states written before
    /// cleared registers existed hold none, and one found there is refused.
    public var clearedRegisters: Bool

    public init(amountScale: Int = 1, fieldCount: Int = FieldValue.count, datedRegisters: Bool = true,
                clearedRegisters: Bool = true) {
        self.amountScale = amountScale; self.fieldCount = fieldCount; self.datedRegisters = datedRegisters
        self.clearedRegisters = clearedRegisters
    }

    /// This version's format, the only one written to disk.
    public static let current = StateFormat()
}

// MARK: Writing an older format
//
// Nothing is stored in an older format. These two entry points write one anyway, for the
// two uses that need its exact bytes: checking a state digest an older version took (a
// backup's `stateDigest`, see `Backups.load`) and tests that make the files an older
// version wrote (`Snapshot.encoded(fieldCount:)`, `Backups.write(fieldCount:)`).

extension HabitState {
    /// The encoding an older version gave this state (see `encoded()` for this version's).
    public func encoded(as format: StateFormat) -> [UInt8] {
        var w = ByteWriter(capacity: 1024)
        w.state(self, format)
        return w.bytes
    }
}

extension ByteWriter {
    /// An entry's registers and tombstones as an older version wrote them (see
    /// `entryMeta(_:)` for this version's).
    public mutating func entryMeta(_ e: HabitEntry, as format: StateFormat) { entryMeta(e, format) }
}
