import FoundationEssentials
import HabitCore
import HabitStore
import HabitSys

/// The formats `habitto import` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case habittoLegacy = "habitto-legacy"
    case loopCSV = "loop-csv"
    case harsh
    case json
}

/// One day of a habit as read from another tracker, before it is written: what the day
/// should hold, the same value a restore works with.
public typealias ImportedDay = TargetDay

/// One habit as read from another tracker's files.
public struct ImportedHabit: Hashable, Sendable {
    /// The habit's stable key in its source (the legacy app's UUID, Loop's position and
    /// name, harsh's name); the habit id is derived from it, so a second import finds the
    /// habit the first one wrote.
    public var sourceKey: String
    /// An explicit id (only Habitto's own JSON export has one).
    public var id: HabitID?
    public var fields: HabitFields
    /// A group name (harsh's `!` headings), or nil.
    public var group: String?
    public var days: [LocalDay: ImportedDay]
    /// Earlier definitions with the newest, oldest first (only Habitto's own JSON export
    /// has them; see `TargetHabit.definitions`); empty for one definition.
    public var definitions: [DatedRule] = []
    /// Where the habit was read (`Habits.csv:3`, `SavedHabits[1]`), for the report.
    public var location: String
    /// The source gives no day for the habit (no log lines or checkmarks, no start date):
    /// it starts on the day of the import rather than on an invented day, and the report
    /// says so. `fields.startDate` is then only a placeholder.
    public var startsOnImportDay = false
    public init(sourceKey: String, id: HabitID? = nil, fields: HabitFields, group: String? = nil,
                days: [LocalDay: ImportedDay] = [:], location: String) {
        self.sourceKey = sourceKey; self.id = id; self.fields = fields; self.group = group
        self.days = days; self.location = location
    }
}

/// Something the report lists: a row skipped with its reason, or a disagreement between
/// sources, each with where it was found.
public struct ImportNote: Hashable, Sendable {
    /// `file:line` or `file: key path`.
    public var location: String
    public var message: String
    public init(location: String, message: String) { self.location = location; self.message = message }
    public var text: String { "\(location): \(message)" }
}

/// Everything read from a source, validated, before anything is written.
public struct ImportPlan: Sendable {
    public var format: ImportFormat
    /// The files read (for the report and the source digest).
    public var files: [String]
    /// A digest of the source bytes: the same files give the same digest.
    public var digest: String
    public var habits: [ImportedHabit]
    /// Rows or values not imported, each with why.
    public var skipped: [ImportNote] = []
    /// Places where the source contradicts itself, and what was chosen.
    public var disagreements: [ImportNote] = []
    /// Things the source claims that Habitto derives instead (stored XP, level, streaks):
    /// the report compares them with what the imported data gives.
    public var storedXP: Int?
    public var storedLevel: Int?
    /// Stored streaks by source key.
    public var storedStreaks: [String: Int] = [:]
    public init(format: ImportFormat, files: [String], digest: String, habits: [ImportedHabit]) {
        self.format = format; self.files = files; self.digest = digest; self.habits = habits
    }
}

/// A source that cannot be imported at all. The message names the file and the line or key
/// and says what to do; nothing was written.
public struct ImportError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    /// The message, made safe to print (`Sanitize.display`): it may quote a path or a value
    /// from the file.
    public init(_ message: String) { self.message = Sanitize.display(message) }
    public var description: String { message }
}

/// Shared helpers for the readers.
public enum ImportSupport {
    /// The largest file an import reads.
    public static let maxFileBytes = 16 << 20

    /// Reads a whole regular file, refusing anything larger than `maxFileBytes`, and
    /// anything that is not a regular file (a FIFO, a device, a socket) without reading it:
    /// nothing an import is given can make it wait.
    public static func read(_ path: String) throws -> [UInt8] {
        var st = stat()
        do { try sysCall("stat") { stat(path, &st) } } catch {
            throw ImportError("\(path): cannot be read (\(error.reason)); check the path")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw ImportError("\(path): is a folder; give the file")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ImportError("\(path): is \(Sys.kind(st.st_mode)), not a regular file; it was not read. Give the exported file itself")
        }
        guard Int(st.st_size) <= maxFileBytes else {
            throw ImportError("\(path): is \(Int(st.st_size) >> 20) MB; imports read files of at most \(maxFileBytes >> 20) MB, so this is not an export of that format")
        }
        do {
            // Opened without blocking and checked again: it may have changed since.
            guard let bytes = try Sys.readFile(path, limit: maxFileBytes) else {
                throw ImportError("\(path): vanished while it was read; check the path")
            }
            return bytes
        } catch let e as StoreError {
            if case .unreadable(_, let detail) = e { throw ImportError("\(path): \(detail)") }
            throw ImportError("\(path): cannot be read (\(e)); check the path and its permissions")
        }
    }

    /// A 64-bit FNV-1a digest of byte strings, as 16 hex characters.
    public static func digest(_ parts: [[UInt8]]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for b in part { h ^= UInt64(b); h = h &* 0x0000_0100_0000_01b3 }
            h ^= 0xff; h = h &* 0x0000_0100_0000_01b3
        }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The stable habit id for a source key of a format.
    public static func habitID(format: ImportFormat, sourceKey: String) -> HabitID {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in Array(format.rawValue.utf8) + [0] + Array(sourceKey.utf8) { h ^= UInt64(b); h = h &* 0x0000_0100_0000_01b3 }
        // SplitMix64's finaliser spreads the bits.
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        return HabitID(value: h ^ (h >> 31))
    }

    /// `yyyy-MM-dd`, or an ISO-8601 timestamp whose date part is taken as written.
    public static func day(_ text: String) -> LocalDay? {
        let t = text.trimmingBlanks
        guard t.utf8.count >= 10 else { return nil }
        if t.utf8.count > 10 {
            let rest = t.dropFirst(10)
            guard rest.first == "T" || rest.first == " " else { return nil }
        }
        return LocalDay(String(t.prefix(10)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
