import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// The prompt segment's cache: the file `segment` in the data directory, one line holding
/// what `habitto status --short` last counted and the key it counted under. The key is
/// everything the count depends on: the day, the first day of the week, and the identity
/// (device, inode, size, modification and change times in nanoseconds) of the three files
/// it reads: the journal, `sync.json` and `remote`. Every change to the data appends to
/// the journal or replaces it, and every sync round rewrites `sync.json`, so a key that
/// still matches means nothing the count read has changed.
///
/// The key is taken before the data is read, so a change made while counting leaves a key
/// that no longer matches: the cache is never newer than its key says. The file is a
/// cache only: it is written without fsync, anything in it that is not exactly what this
/// code writes is a miss, and losing it costs one full count.
public enum SegmentCache {
    /// The counts of one segment.
    public struct Entry: Equatable, Sendable {
        public var done: Int
        public var due: Int
        /// nil without a remote.
        public var queue: Int?
        public var failed: Bool
        public init(done: Int = 0, due: Int = 0, queue: Int? = nil, failed: Bool = false) {
            self.done = done; self.due = due; self.queue = queue; self.failed = failed
        }
    }

    /// What a cached count depends on.
    public struct Key: Equatable, Sendable {
        public var day: LocalDay
        public var weekStart: Weekday
        /// `identity` of the journal, `sync.json` and `remote`.
        public var files: [String]
        public init(day: LocalDay, weekStart: Weekday, files: [String]) {
            self.day = day; self.weekStart = weekStart; self.files = files
        }

        /// The key now. nil when the journal is missing (there is nothing to count or cache).
        public static func current(paths: DataPaths, day: LocalDay, weekStart: Weekday) -> Key? {
            let journal = identity(paths.journal)
            guard journal != "-" else { return nil }
            return Key(day: day, weekStart: weekStart,
                       files: [journal, identity(paths.directory + "/sync.json"), identity(paths.directory + "/remote")])
        }
    }

    static let magic = "habitto-segment-1"
    /// Far more than a line can hold; a longer file is not a cache this code wrote.
    static let sizeLimit = 1024
    /// Counts beyond this are not plausible (habits, queued operations).
    static let countLimit = 1 << 40

    public static func path(_ paths: DataPaths) -> String { paths.directory + "/segment" }

    /// `DEV:INO:SIZE:MTIME:CTIME` of the entry at `path` (a link is not followed), times in
    /// nanoseconds; `-` when there is none.
    public static func identity(_ path: String) -> String {
        guard let st = try? Sys.entryStatus(path) else { return "-" }
        let m = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        let c = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        return "\(st.st_dev):\(st.st_ino):\(st.st_size):\(m):\(c)"
    }

    /// The fields a line begins with: the version, then the key.
    static func keyFields(_ key: Key) -> [String] { [magic, key.day.description, key.weekStart.shortName] + key.files }

    /// The line written for `entry` under `key`.
    public static func encode(_ entry: Entry, key: Key) -> [UInt8] {
        let fields = keyFields(key) + [String(entry.done), String(entry.due), entry.queue.map(String.init) ?? "-", entry.failed ? "1" : "0"]
        return Array((fields.joined(separator: " ") + "\n").utf8)
    }

    /// The entry in `bytes` when they are exactly a line this code writes for `key`; nil
    /// for anything else (another key, another version, damage).
    public static func decode(_ bytes: [UInt8], key: Key) -> Entry? {
        guard bytes.count <= sizeLimit, bytes.last == 0x0A, let text = String(validating: bytes.dropLast(), as: UTF8.self)
        else { return nil }
        let f = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let expected = keyFields(key)
        guard f.count == expected.count + 4, Array(f.prefix(expected.count)) == expected else { return nil }
        func count(_ s: String) -> Int? {
            // Written as this code writes numbers: ASCII digits, no sign, no leading zero.
            guard !s.isEmpty, s.utf8.count <= 13, s.utf8.allSatisfy({ (0x30...0x39).contains($0) }), s == "0" || s.utf8.first != 0x30,
                  let v = Int(s), v <= countLimit else { return nil }
            return v
        }
        let rest = Array(f.suffix(4))
        guard let done = count(rest[0]), let due = count(rest[1]), done <= due, rest[3] == "0" || rest[3] == "1" else { return nil }
        var queue: Int?
        if rest[2] != "-" {
            guard let q = count(rest[2]) else { return nil }
            queue = q
        }
        return Entry(done: done, due: due, queue: queue, failed: rest[3] == "1")
    }

    /// The cached entry for `key`, or nil (no file, a link, not a regular file, another key,
    /// damage). Never throws: a cache that cannot be read is a miss.
    public static func read(_ paths: DataPaths, key: Key) -> Entry? {
        guard let bytes = try? Sys.readFile(path(paths), limit: sizeLimit, followLinks: false) else { return nil }
        return decode(bytes, key: key)
    }

    /// Stores `entry` for `key`, replacing the file at once (never half written). Best
    /// effort: a failure (read-only directory, full disk) leaves the next count uncached.
    /// Something that is not a regular file there (a folder, a FIFO, a link) is left as it
    /// is, for `doctor --repair` to move aside (`Doctor.caches`).
    public static func write(_ paths: DataPaths, key: Key, entry: Entry) {
        guard Doctor.notRegular(path(paths)) == nil else { return }
        try? Sys.writeAtomically(encode(entry, key: key), to: path(paths), durable: false)
    }

    /// Removes the cache (when the journal is started over); only a regular file.
    public static func remove(_ paths: DataPaths) {
        guard Doctor.notRegular(path(paths)) == nil else { return }
        Sys.removeFile(path(paths))
    }
}
