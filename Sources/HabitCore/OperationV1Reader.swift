/// The reader of changes written before amounts had decimals (`LegacyOperationTag`): their
/// goals and progress are whole units, read as thousandths. Nothing writes these tags any more;
/// journals, undo histories, backups and batches written then still hold them.
extension ByteReader {
    mutating func legacyChange(_ tag: LegacyOperationTag) throws -> Change {
        switch tag {
        case .createTenFields: return try create(fieldCount: 10, amountScale: Amount.scale)
        case .createWholeUnits: return try create(fieldCount: nil, amountScale: Amount.scale)
        case .progressWholeUnits:
            let h = try habit(), d = try day()
            return .progress(h, d, delta: try progressDelta(amountScale: Amount.scale))
        }
    }
}
