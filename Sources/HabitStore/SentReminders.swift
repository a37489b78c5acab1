import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// One notification `habitto remind` sent: a habit, a habit day and a reminder time.
public struct SentReminder: Hashable, Sendable, Comparable {
    public let habit: HabitID
    public let day: LocalDay
    public let time: ReminderTime
    public init(habit: HabitID, day: LocalDay, time: ReminderTime) { self.habit = habit; self.day = day; self.time = time }
    public static func < (a: SentReminder, b: SentReminder) -> Bool {
        (a.day, a.time.minutes, a.habit.rawValue) < (b.day, b.time.minutes, b.habit.rawValue)
    }
}

/// The right to send reminders, held by one process at a time: an exclusive lock on
/// `reminders-sent.lock` in the data directory, taken without waiting (`HabitRepository.
/// lockReminderSending`) and released when this is released.
public final class ReminderSendingLock: Sendable {
    private let fd: Int32
    fileprivate init(fd: Int32) { self.fd = fd }
    deinit { Sys.close(fd) }
}

/// The file `reminders-sent` in the data directory: one line per reminder shown,
/// `YYYY-MM-DD HH:MM HABITID`, sorted. A reminder is written there only after it was shown,
/// one at a time, durably and atomically with the data directory's lock held; and one
/// process at a time sends reminders (`ReminderSendingLock`), so two `habitto remind`
/// running at once never show the same reminder. Entries for days before the one kept
/// from are dropped. It is a cache of what was shown: a damaged file is started afresh, and
/// anything but a regular file in its place (a folder, a link, a FIFO) is moved to
/// `recovered/` first, with a one-line warning either way.
public enum SentReminders {
    /// The file's lines, or nil when a line is not one this file holds.
    static func parse(_ bytes: [UInt8]) -> Set<SentReminder>? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var out = Set<SentReminder>()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, let day = LocalDay(String(parts[0])),
                  let times = try? ReminderTime.parseList(String(parts[1])), times.count == 1,
                  let id = HabitID(String(parts[2])) else { return nil }
            out.insert(SentReminder(habit: id, day: day, time: times[0]))
        }
        return out
    }

    static func encode(_ sent: Set<SentReminder>) -> [UInt8] {
        Array(sent.sorted().map { "\($0.day) \($0.time) \($0.habit)\n" }.joined().utf8)
    }

    /// The lock file beside the record.
    static func lockPath(_ paths: DataPaths) -> String { paths.remindersSent + ".lock" }

    /// Takes the sending lock without waiting; nil when another process holds it.
    static func lockSending(_ paths: DataPaths, now: Date) throws -> (lock: ReminderSendingLock?, warning: Warning?) {
        let path = lockPath(paths)
        let warning = try setAsideIfNotAFile(path, paths: paths, now: now, what: "the lock of sending reminders")
        let fd = try Sys.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK)
        do {
            guard try Sys.tryLock(fd, path: path) else { Sys.close(fd); return (nil, warning) }
        } catch {
            Sys.close(fd)
            throw error
        }
        return (ReminderSendingLock(fd: fd), warning)
    }

    /// What was shown before, with the data directory's lock held: a damaged or unreadable
    /// record counts as empty and is started afresh (anything but a regular file is moved to
    /// `recovered/` first), with a one-line warning.
    static func read(_ paths: DataPaths, now: Date) throws -> (sent: Set<SentReminder>, warning: Warning?) {
        let path = paths.remindersSent
        if let moved = try setAsideIfNotAFile(path, paths: paths, now: now, what: "the record of reminders shown") {
            return ([], .remindersRecordSetAside(moved))
        }
        let warning: Warning
        do {
            guard let bytes = try Sys.readFile(path, limit: 1 << 20, followLinks: false) else { return ([], nil) }
            if let parsed = parse(bytes) { return (parsed, nil) }
            warning = .remindersRecordDamaged(path: path)
        } catch {
            warning = .remindersRecordUnreadable(path: path, error: "\(error)")
        }
        try Sys.writeAtomically([], to: path)
        return ([], warning)
    }

    /// Records `shown` as shown, with the data directory's lock held, and drops the entries
    /// of days before `keepFrom`.
    static func record(_ shown: [SentReminder], paths: DataPaths, keepFrom: LocalDay, now: Date) throws -> Warning? {
        let (sent, warning) = try read(paths, now: now)
        let kept = sent.filter { $0.day >= keepFrom }.union(shown)
        if kept != sent { try Sys.writeAtomically(encode(kept), to: paths.remindersSent) }
        return warning
    }

    /// Moves anything but a regular file at `path` (a folder, a symbolic link, a FIFO) to
    /// `recovered/`, and says so; nil when `path` is a regular file or missing.
    static func setAsideIfNotAFile(_ path: String, paths: DataPaths, now: Date, what: String) throws -> Warning? {
        guard let st = try Sys.entryStatus(path), st.st_mode & S_IFMT != S_IFREG else { return nil }
        let moved = try Sys.setAside(path, into: paths.recovered, now: now)
        return .setAside(path: path, what: what, kind: Sys.kind(st.st_mode), movedTo: moved)
    }
}

extension HabitRepository {
    /// The right to send reminders, taken without waiting: nil (and nothing sent) when
    /// another process is sending them. A warning when something in the lock file's place
    /// was moved to `recovered/`.
    public func lockReminderSending() throws -> (lock: ReminderSendingLock?, warning: Warning?) {
        try withStore { store, now, _ in try SentReminders.lockSending(store.paths, now: now) }
    }

    /// The `wanted` reminders not shown before (see `SentReminders`), and a warning when the
    /// record was damaged and started afresh. Needs the sending lock.
    public func unshownReminders(_ wanted: [SentReminder], holding: ReminderSendingLock) throws -> (unshown: [SentReminder], warning: Warning?) {
        try withStore { store, now, _ in
            let (sent, warning) = try SentReminders.read(store.paths, now: now)
            return (wanted.filter { !sent.contains($0) }, warning)
        }
    }

    /// Records reminders as shown (durably, under the data directory's lock), and drops the
    /// entries of days before `keepFrom`. Needs the sending lock.
    @discardableResult
    public func recordRemindersShown(_ shown: [SentReminder], keepFrom: LocalDay, holding: ReminderSendingLock) throws -> Warning? {
        try withStore { store, now, _ in try SentReminders.record(shown, paths: store.paths, keepFrom: keepFrom, now: now) }
    }
}
