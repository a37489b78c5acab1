/// A habit's recorded days as what the rules read of them (progress, skip, rating), in
/// parallel arrays sorted by day. It is derived from the day records (which keep each
/// device's share and every register's stamp for merging) and costs 13 bytes a day
/// instead of a dictionary slot of about a hundred, so a long-running process can keep
/// every habit's columns while decoding a habit's full records only when it writes.
public struct DayColumns: Hashable, Sendable {
    /// Days since 1970-01-01, strictly ascending.
    private(set) var ordinals: [Int32] = []
    /// Shown progress (never below 0).
    private(set) var progresses: [Int] = []
    /// Bit 0: skipped (also set on a paused day, which every rule reads as skipped); bits
    /// 1–3: the difficulty rating (0 when none); bit 4: answered as not done (see
    /// `DayRecord.isAnsweredNotDone`); bit 5: paused.
    private(set) var flags: [UInt8] = []

    public init() {}

    /// The columns of a set of day records.
    public init(_ days: [LocalDay: DayRecord]) {
        reserveCapacity(days.count)
        for (day, rec) in days.sorted(by: { $0.key < $1.key }) {
            append(day, progress: rec.progress, skipped: rec.isSkipped, rating: rec.rating, notDone: rec.isAnsweredNotDone,
                   paused: rec.isPaused)
        }
    }

    mutating func reserveCapacity(_ n: Int) {
        ordinals.reserveCapacity(n); progresses.reserveCapacity(n); flags.reserveCapacity(n)
    }

    /// Adds a day later than every day already here; false (and nothing added) otherwise.
    @discardableResult
    public mutating func append(_ day: LocalDay, progress: Int, skipped: Bool, rating: Int?, notDone: Bool = false,
                                paused: Bool = false) -> Bool {
        guard let o = Int32(exactly: day.ordinal), ordinals.last.map({ $0 < o }) ?? true else { return false }
        ordinals.append(o)
        progresses.append(max(0, progress))
        flags.append(DayColumns.flag(skipped: skipped, rating: rating, notDone: notDone, paused: paused))
        return true
    }

    /// Sets one day's values, inserting the day where it belongs when it is not recorded.
    public mutating func set(_ day: LocalDay, progress: Int, skipped: Bool, rating: Int?, notDone: Bool = false,
                             paused: Bool = false) {
        let flag = DayColumns.flag(skipped: skipped, rating: rating, notDone: notDone, paused: paused)
        let i = lowerBound(day)
        if i < ordinals.count && Int(ordinals[i]) == day.ordinal {
            progresses[i] = max(0, progress); flags[i] = flag
        } else if let o = Int32(exactly: day.ordinal) {
            ordinals.insert(o, at: i); progresses.insert(max(0, progress), at: i); flags.insert(flag, at: i)
        }
    }

    private static func flag(skipped: Bool, rating: Int?, notDone: Bool, paused: Bool) -> UInt8 {
        (skipped || paused ? 1 : 0) | UInt8(truncatingIfNeeded: min(7, max(0, rating ?? 0)) << 1) | (notDone ? 16 : 0)
            | (paused ? 32 : 0)
    }

    /// The same days with every progress above `cap` read as `cap` (no copy when none is).
    func capped(at cap: Int) -> DayColumns {
        guard progresses.contains(where: { $0 > cap }) else { return self }
        var c = self
        c.progresses = progresses.map { min($0, cap) }
        return c
    }

    /// The same days with each day's progress read as at most `cap(day)` (nil: as it is).
    func capped(by cap: (LocalDay) -> Int?) -> DayColumns {
        var c = self
        for i in 0..<progresses.count {
            if let limit = cap(day(at: i)), progresses[i] > limit { c.progresses[i] = limit }
        }
        return c
    }

    /// Days recorded.
    public var count: Int { ordinals.count }
    /// The sum of every day's progress.
    public var totalProgress: Int { progresses.reduce(0, +) }

    /// How many days have progress.
    public var daysWithProgress: Int { progresses.reduce(0) { $1 > 0 ? $0 + 1 : $0 } }

    /// The index of the first recorded day on or after `day`.
    func lowerBound(_ day: LocalDay) -> Int {
        let o = day.ordinal
        var lo = 0, hi = ordinals.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(ordinals[mid]) < o { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The index of `day`, when it is recorded.
    func index(of day: LocalDay) -> Int? {
        let i = lowerBound(day)
        return i < ordinals.count && Int(ordinals[i]) == day.ordinal ? i : nil
    }

    func day(at i: Int) -> LocalDay { LocalDay(ordinal: Int(ordinals[i])) }
    func progress(at i: Int) -> Int { progresses[i] }
    func isSkipped(at i: Int) -> Bool { flags[i] & 1 != 0 }
    func rating(at i: Int) -> Int? { let r = Int((flags[i] >> 1) & 7); return r == 0 ? nil : r }
    func isAnsweredNotDone(at i: Int) -> Bool { flags[i] & 16 != 0 }
    func isPaused(at i: Int) -> Bool { flags[i] & 32 != 0 }

    /// Progress on a day (0 when nothing is recorded).
    public func progress(on day: LocalDay) -> Int { index(of: day).map { progresses[$0] } ?? 0 }
    public func isSkipped(on day: LocalDay) -> Bool { index(of: day).map { isSkipped(at: $0) } ?? false }
    public func rating(on day: LocalDay) -> Int? { index(of: day).flatMap { rating(at: $0) } }
    public func isAnsweredNotDone(on day: LocalDay) -> Bool { index(of: day).map { isAnsweredNotDone(at: $0) } ?? false }
    public func isPaused(on day: LocalDay) -> Bool { index(of: day).map { isPaused(at: $0) } ?? false }
}
