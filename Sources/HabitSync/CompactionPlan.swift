/// Which of this device's batches a compaction merges, decided from the set of their names
/// and the acknowledged cursor alone, with no remote, clock or file.
///
/// A device merges its own batches into aligned ranges of 4, 8, 16 … `largest` operations,
/// largest level first, like a binary counter: a full range is merged when it holds two or
/// more of the batches left whole (or one and a batch of exactly that range, what a stopped
/// compaction left). Then every batch that holds another one whole replaces it (overlaps a
/// stopped compaction left). Then, when more than `mostFiles` are left, the newest are
/// merged into one. The engine carries each step out (written create-only, read back and
/// checked, and only then the batches it replaces removed) and reports it, so a device keeps
/// at most one file a level, up to three recent ones and the few that straddle a range's end.
public struct CompactionPlan: Equatable, Sendable {
    /// The smallest range a compaction writes; each level doubles it.
    public static let smallest: UInt64 = 4
    /// The most operations a compacted batch holds (the largest level).
    public static let largest: UInt64 = 65_536
    /// The most batch files a device keeps after a compaction (as long as its newest ones
    /// together hold at most the largest compaction): a new device's join then reads at most
    /// this many files of it, however long its history.
    public static let mostFiles = 12

    /// One merge: the batch `range` written in place of `replaces`.
    public struct Step: Equatable, Sendable {
        public let range: BatchName
        public let replaces: [BatchName]
    }

    /// The batches left, as the steps reported so far leave them.
    public private(set) var files: Set<BatchName>
    let acked: UInt64
    let largestRange: UInt64
    private var ranges: [BatchName]
    private var cappingTried = false

    /// A plan for this device's batches `listed` on the remote (those beyond `acked` are
    /// never touched), with ranges of at most `largest` operations.
    public init(listed: [BatchName], acked: UInt64, largest: UInt64) {
        files = Set(listed).filter { $0.last <= acked }
        self.acked = acked
        largestRange = largest
        ranges = CompactionPlan.ranges(files: files, acked: acked, largest: largest)
    }

    /// The next merge to make, nil when there is none.
    public mutating func next() -> Step? {
        while !ranges.isEmpty {
            let range = ranges.removeFirst()
            if let replaced = replaced(by: range) { return Step(range: range, replaces: replaced) }
        }
        guard !cappingTried else { return nil }
        cappingTried = true
        guard let range = CompactionPlan.capping(files: files, acked: acked, largest: largestRange),
              let replaced = replaced(by: range) else { return nil }
        return Step(range: range, replaces: replaced)
    }

    /// `step` was carried out: its batch is there, and those it replaces are gone.
    public mutating func merged(_ step: Step) {
        files.subtract(step.replaces)
        files.insert(step.range)
    }

    /// The batches of `files` that `range` would replace: those it holds whole, when they
    /// are two or more (or one, when a batch of that very range is already there); nil when
    /// merging them is not worth a write.
    func replaced(by range: BatchName) -> [BatchName]? {
        let covered = files.filter { $0 != range && $0.first >= range.first && $0.last <= range.last }
        return covered.count >= (files.contains(range) ? 1 : 2) ? covered.sorted() : nil
    }

    /// The ranges a compaction may write, in the order it tries them: the full aligned ranges
    /// of each level that hold a file whole, largest level first, where level k's ranges are
    /// `j·L+1 … (j+1)·L` with L = 4·2^k, up to `largest` operations, each holding two files
    /// or more; then every file that holds another one whole, widest first.
    static func ranges(files: Set<BatchName>, acked: UInt64, largest: UInt64) -> [BatchName] {
        // No level larger than `largest` (a remote learnt to take only smaller batches).
        var levels = smallest <= largest ? [smallest] : []
        while let top = levels.last, top <= largest / 2 { levels.append(top * 2) }
        var out: [BatchName] = []
        for level in levels.reversed() where level <= acked {
            // The files inside each full range of this level, by the range's index.
            var inside: [UInt64: Int] = [:]
            for f in files where (f.first - 1) / level == (f.last - 1) / level && f.last <= acked / level * level {
                inside[(f.first - 1) / level, default: 0] += 1
            }
            for (index, count) in inside.sorted(by: { $0.key < $1.key }) {
                guard let r = BatchName(first: index * level + 1, last: (index + 1) * level) else { continue }
                if count >= 2 { out.append(r) }
            }
        }
        out += files.filter { f in files.contains { $0 != f && f.first <= $0.first && f.last >= $0.last } }
            .sorted { ($0.count, $1.first) > ($1.count, $0.first) }
        return out
    }

    /// When `files` are more than `mostFiles`, the range that merges the newest of them into
    /// one so that `mostFiles` are left: from the first operation of the newest
    /// `count - mostFiles + 1` files to `acked`; nil when there are not too many, or when that
    /// range would be larger than `largest`.
    static func capping(files: Set<BatchName>, acked: UInt64, largest: UInt64) -> BatchName? {
        guard files.count > mostFiles, let first = files.sorted().suffix(files.count - mostFiles + 1).first?.first,
              let range = BatchName(first: first, last: acked), range.count <= largest else { return nil }
        return range
    }
}
