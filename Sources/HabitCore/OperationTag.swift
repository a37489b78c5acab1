/// The byte that starts a change in every encoding of operations (the journal, the undo
/// history, backups and sync batches): one case per kind of change this version writes,
/// its wire value said here once. `ByteWriter.change` writes `OperationTag(of:)` and
/// `ByteReader.change` reads through `OperationTag(rawValue:)`; the tags older versions
/// wrote, read but never written, are `LegacyOperationTag`'s.
public enum OperationTag: UInt8, CaseIterable, Sendable {
    /// A new habit: a count of fields, then the fields, the goal in thousandths.
    case create = 11
    /// One field set, any field but the goal (a goal under this tag is in whole units, as
    /// versions before amounts had decimals wrote it; `setGoal` is written instead).
    case set = 2
    /// The goal set, in thousandths.
    case setGoal = 12
    /// A rule field set from a day on, a goal in thousandths.
    case setFrom = 20
    /// A rule field's dated register cleared: the habit, the day, the field's index.
    case clearFrom = 21
    case delete = 3
    case restore = 4
    /// A progress change in thousandths.
    case progress = 10
    /// A day's total set ("set" step), in thousandths.
    case setProgress = 13
    case skip = 6
    case rate = 7
    case note = 8
    case notDone = 17
    /// A range of days paused (a reason, "" for none) or given back (no reason).
    case pause = 22

    /// The tag `change` is written with.
    public init(of change: Change) {
        switch change {
        case .create: self = .create
        case .set(_, .goal): self = .setGoal
        case .set: self = .set
        case .setFrom: self = .setFrom
        case .clearFrom: self = .clearFrom
        case .delete: self = .delete
        case .restore: self = .restore
        case .progress: self = .progress
        case .setProgress: self = .setProgress
        case .skip: self = .skip
        case .rate: self = .rate
        case .note: self = .note
        case .notDone: self = .notDone
        case .pause: self = .pause
        }
    }
}

/// Tags written by versions before amounts had decimals, whose amounts are whole units:
/// read by `ByteReader.legacyChange` (OperationV1Reader.swift), never written.
public enum LegacyOperationTag: UInt8, CaseIterable, Sendable {
    /// A create with exactly ten fields (before habits had groups), goal in whole units.
    case createTenFields = 1
    /// A create with a count of fields, goal in whole units.
    case createWholeUnits = 9
    /// A progress change in whole units.
    case progressWholeUnits = 5
}

extension DecodeError {
    /// A change whose tag this version does not know: a newer version wrote it.
    static func unknownOperation(_ tag: UInt8) -> DecodeError {
        DecodeError("unknown operation kind \(tag) (written by a newer version of Habitto: update this one)")
    }

    /// A dated setting or clearing of a field that is not a rule field.
    static var notARuleField: DecodeError { DecodeError("only kind, goal, unit and schedule are set from a day") }
}
