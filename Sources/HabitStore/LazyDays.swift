import HabitCore

// The day cache: where a habit's days come from before they are decoded (a snapshot
// block), and the lazily decoded days `HabitEntry` reads through `LoadableDays`. Here, not
// in HabitCore, because sharing a cache between copies of a state takes a lock.

/// Where a habit's days come from before they are decoded (a snapshot block). Loading
/// cannot fail: a source that finds its bytes damaged rebuilds the days another way.
public protocol DaySource: AnyObject, Sendable {
    func loadDays() -> [LocalDay: DayRecord]
    /// The days as the rules read them; a source may decode these without building records.
    func loadColumns() -> DayColumns
    /// The records of a few days (those later changes touch), without keeping the rest.
    func loadRecords(_ days: Set<LocalDay>) -> [LocalDay: DayRecord]
    /// The records of a few days as quickly as the source can read them, for a display that
    /// must not cost more with a longer history (a snapshot skips its block checksum).
    func peekRecords(_ days: Set<LocalDay>) -> [LocalDay: DayRecord]
    /// The columns of at least every day from `from` on (earlier days may be there too), as
    /// quickly as the source can read them, for a display that must not cost more with a
    /// longer history (a snapshot reads the block's index and its records from the mark
    /// before `from`, without its checksum).
    func peekColumns(from: LocalDay) -> DayColumns
    /// False when decoded day records should not be kept: only their columns are (a
    /// process then holds every habit's columns and one habit's records at a time).
    var keepsDecodedDays: Bool { get }
}

extension DaySource {
    public var keepsDecodedDays: Bool { true }
    public func loadColumns() -> DayColumns { DayColumns(loadDays()) }
    public func loadRecords(_ days: Set<LocalDay>) -> [LocalDay: DayRecord] { loadDays().filter { days.contains($0.key) } }
    public func peekRecords(_ days: Set<LocalDay>) -> [LocalDay: DayRecord] { loadRecords(days) }
    public func peekColumns(from: LocalDay) -> DayColumns { loadColumns() }
}

/// Days from a source plus later changes, decoded once on first use: the day cache behind
/// `HabitEntry`'s `LoadableDays`. Immutable apart from its cache, which its lock guards, so
/// copies of a state can share it.
final class LazyDays: LoadableDays, @unchecked Sendable {
    let source: DaySource
    private(set) var pending: [PendingDay]
    private let lock = Lock()
    private var cache: [LocalDay: DayRecord]?
    private var columnsCache: DayColumns?

    /// Columns computed before the newest pending changes (patched, not recomputed).
    private var base: DayColumns?

    init(source: DaySource, pending: [PendingDay], base: DayColumns? = nil) {
        self.source = source; self.pending = pending; self.base = base
    }

    var hasChanges: Bool { !pending.isEmpty }

    var days: [LocalDay: DayRecord] {
        lock.lock()
        defer { lock.unlock() }
        return daysLocked()
    }

    /// The rules' view of the days, always kept once computed (it is small): the source's
    /// columns with the days that later changes touched recomputed from their records.
    var columns: DayColumns {
        lock.lock()
        defer { lock.unlock() }
        if let columnsCache { return columnsCache }
        let c = patched(base ?? source.loadColumns(), from: nil, read: source.loadRecords)
        columnsCache = c
        return c
    }

    /// `columns` with the days (from `from` on, when given) that pending changes touched
    /// recomputed from their records (`read` gives the source's; the decoded days when
    /// kept). Lock held.
    private func patched(_ columns: DayColumns, from: LocalDay?,
                         read: (Set<LocalDay>) -> [LocalDay: DayRecord]) -> DayColumns {
        let wanted = { (day: LocalDay) in from.map { day >= $0 } ?? true }
        let touched = Set(pending.lazy.map(\.day).filter(wanted))
        guard !touched.isEmpty else { return columns }
        var records: [LocalDay: DayRecord]
        if let cache {
            records = cache
        } else {
            records = read(touched)
            for p in pending where wanted(p.day) { records[p.day, default: DayRecord()].apply(p.change, stamp: p.stamp) }
        }
        var c = columns
        for day in touched {
            let r = records[day] ?? DayRecord()
            c.set(day, progress: r.progress, skipped: r.isSkipped, rating: r.rating, notDone: r.isAnsweredNotDone,
                  paused: r.isPaused)
        }
        return c
    }

    /// The columns, when they were computed already.
    var cachedColumns: DayColumns? {
        lock.lock()
        defer { lock.unlock() }
        return columnsCache
    }

    /// The columns of at least the days from `from` on, without decoding the older ones
    /// when nothing is decoded yet (through `DaySource.peekColumns`). Not kept: a later
    /// `columns` reads every day.
    func recentColumns(from: LocalDay) -> DayColumns {
        lock.lock()
        defer { lock.unlock() }
        if let columnsCache { return columnsCache }
        if let cache { return DayColumns(cache.filter { $0.key >= from }) }
        return patched(base ?? source.peekColumns(from: from), from: from, read: source.peekRecords)
    }

    /// One day's record, without decoding the others when they are not decoded yet
    /// (`peek`: through the source's quickest read, see `DaySource.peekRecords`).
    func record(_ day: LocalDay, peek: Bool = false) -> DayRecord? {
        lock.lock()
        defer { lock.unlock() }
        if let cache { return cache[day] }
        var rec = (peek ? source.peekRecords([day]) : source.loadRecords([day]))[day]
        for p in pending where p.day == day { rec = rec ?? DayRecord(); rec!.apply(p.change, stamp: p.stamp) }
        return rec
    }

    private func daysLocked() -> [LocalDay: DayRecord] {
        if let cache { return cache }
        var d = source.loadDays()
        for p in pending { d[p.day, default: DayRecord()].apply(p.change, stamp: p.stamp) }
        if source.keepsDecodedDays { cache = d }
        return d
    }

    /// Adds a change in place, for an owner that holds the only reference (see
    /// `HabitEntry.applyDay`): what `adding` gives, without copying every pending change
    /// (applying a journal's tail one change at a time was quadratic in its length).
    func append(_ p: PendingDay) {
        lock.lock()
        defer { lock.unlock() }
        base = columnsCache ?? base
        columnsCache = nil
        pending.append(p)
        cache?[p.day, default: DayRecord()].apply(p.change, stamp: p.stamp)
    }

    func adding(_ p: PendingDay) -> any LoadableDays {
        lock.lock()
        let computed = columnsCache
        lock.unlock()
        return LazyDays(source: source, pending: pending + [p], base: computed)
    }
}

extension HabitEntry {
    /// An entry whose days come from `source` when first needed.
    public init(meta m: EntryMeta, source: DaySource) {
        self.init(created: m.created, fields: m.fields, fieldStamps: m.fieldStamps, deletes: m.deletes,
                  restores: m.restores, days: LazyDays(source: source, pending: []))
    }

    /// The untouched source of the days, when they were neither decoded into this entry
    /// nor changed since loading (a snapshot can then copy its bytes as they are).
    public var unchangedDaySource: DaySource? { (unchangedDays as? LazyDays)?.source }
}
