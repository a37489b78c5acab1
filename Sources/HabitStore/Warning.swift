/// Something the user should know about that stopped nothing: a cache rebuilt, a torn
/// journal tail removed, a record started afresh. Each case carries what it is about;
/// `description` ("warning: …") is the one place its text is written.
public enum Warning: Equatable, Sendable, CustomStringConvertible {
    /// The snapshot at `path` is a `kind` (a folder, a symbolic link), not a regular file.
    case snapshotNotAFile(path: String, kind: String)
    case snapshotUnreadable(path: String, error: String)
    /// The snapshot was ignored for `why` ("does not match the journal", …).
    case snapshotIgnored(path: String, why: String)
    /// A habit's days in the snapshot were damaged and rebuilt from the journal.
    case snapshotPartDamaged(path: String)
    /// As `snapshotPartDamaged`, but the journal could not be read to rebuild them.
    case snapshotPartDamagedJournalUnreadable(path: String, error: String)
    /// The journal ends in an incomplete record, kept until the directory is writable.
    case tornTailKept(journal: String, offset: Int)
    /// The journal's incomplete last record was removed; its bytes saved to `savedTo`.
    case tornTailRemoved(journal: String, offset: Int, savedBytes: Int, savedTo: String?)
    /// A record read before no longer passes its checksum.
    case journalDamaged(path: String, offset: Int)
    /// `path` (`what` it is for) was a `kind`, not a regular file, and was moved to `movedTo`.
    case setAside(path: String, what: String, kind: String, movedTo: String)
    /// The record of reminders shown was damaged, unreadable, or set aside (`after`), and
    /// was started afresh.
    case remindersRecordDamaged(path: String)
    case remindersRecordUnreadable(path: String, error: String)
    indirect case remindersRecordSetAside(Warning)
    /// `remote set` with a plain http URL.
    case plainHTTP

    public var description: String { "warning: " + text }

    /// The text after "warning: ".
    public var text: String {
        let again = "it was started afresh (a reminder of today may come again)"
        switch self {
        case .snapshotNotAFile(let path, let kind):
            return "the snapshot \(path) is \(kind), not a regular file, so it was not read; state rebuilt from the journal; run habitto doctor --repair to move it to recovered/"
        case .snapshotUnreadable(let path, let error): return "the snapshot \(path) could not be read (\(error)); state rebuilt from the journal"
        case .snapshotIgnored(let path, let why): return "the snapshot \(path) was ignored (\(why)); state rebuilt from the journal"
        case .snapshotPartDamaged(let path):
            return "part of the snapshot \(path) was damaged; the habit's days were rebuilt from the journal and the snapshot removed (a new one is written later)"
        case .snapshotPartDamagedJournalUnreadable(let path, let error):
            return "part of the snapshot \(path) was damaged and the journal could not be read to rebuild it (\(error)); the snapshot was removed: run the command again"
        case .tornTailKept(let journal, let offset):
            return "the journal \(journal) ends in an incomplete record at byte \(offset); it will be removed once the data directory is writable"
        case .tornTailRemoved(let journal, let offset, let bytes, let savedTo):
            let saved = savedTo.map { " (its \(bytes) bytes were saved to \($0))" } ?? ""
            return "the journal \(journal) ended in an incomplete record at byte \(offset), left by an interrupted write; it was removed\(saved). Nothing acknowledged was lost"
        case .journalDamaged(let path, let offset):
            return "the journal \(path) is damaged at byte \(offset) (a record read before no longer passes its checksum); commands still work from the snapshot: run 'habitto doctor --repair' to rebuild the journal from it"
        case .setAside(let path, let what, let kind, let moved): return "\(path) (\(what)) was \(kind), not a regular file; it was moved to \(moved)"
        case .remindersRecordDamaged(let path): return "\(path) is damaged; \(again)"
        case .remindersRecordUnreadable(let path, let error): return "\(path) could not be read (\(error)); \(again)"
        case .remindersRecordSetAside(let moved): return "\(moved.text); \(again)"
        case .plainHTTP: return "plain http sends data and the password unencrypted; use it only on this machine, for tests"
        }
    }
}
