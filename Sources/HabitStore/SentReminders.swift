import FoundationEssentials
import HabitCore

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

/// The file `reminders-sent` in the data directory: one line per reminder sent,
/// `YYYY-MM-DD HH:MM HABITID`, sorted. It is read and rewritten (durably and atomically)
/// with the data directory's lock held, so two `habitto remind` running at once never
/// claim the same reminder. Entries for days before the one kept from are dropped.
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

    /// With the lock held: reads what was sent (a damaged or unreadable file counts as
    /// empty, with a one-line warning), keeps the `wanted` reminders not sent yet, records
    /// them as sent together with the earlier ones from `keepFrom` on, and returns them.
    static func claim(_ wanted: [SentReminder], path: String, keepFrom: LocalDay) throws -> (claimed: [SentReminder], warning: String?) {
        var warning: String?
        var sent = Set<SentReminder>()
        do {
            if let bytes = try Sys.readFile(path, limit: 1 << 20, followLinks: false) {
                if let parsed = parse(bytes) { sent = parsed } else {
                    warning = "warning: \(path) is damaged; it was started afresh (a reminder of today may come again)"
                }
            }
        } catch {
            warning = "warning: \(path) could not be read (\(error)); it was started afresh (a reminder of today may come again)"
        }
        let claimed = wanted.filter { !sent.contains($0) }
        let kept = sent.filter { $0.day >= keepFrom }.union(claimed)
        if kept != sent || warning != nil { try Sys.writeAtomically(encode(kept), to: path) }
        return (claimed, warning)
    }
}

extension HabitRepository {
    /// Claims the `wanted` reminders that were not sent before (see `SentReminders`), with
    /// the data directory's lock held; those returned are recorded as sent. Entries for
    /// days before `keepFrom` are pruned.
    public func claimReminders(_ wanted: [SentReminder], keepFrom: LocalDay) throws -> (claimed: [SentReminder], warning: String?) {
        try withStore { store, _, _ in try SentReminders.claim(wanted, path: store.paths.remindersSent, keepFrom: keepFrom) }
    }
}
