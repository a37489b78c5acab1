/// Matching what is typed after `/` (the filter) and `:` (the palette) against names and
/// labels: case-insensitive, accents folded as `ASCIIFold.withoutAccents` folds them
/// (`cafe` finds `Café`). Pure.
public enum Find {
    /// `text` as matching sees it: accents and width folded, lower case.
    public static func folded(_ text: String) -> String { ASCIIFold.withoutAccents(text).lowercased() }

    /// Whether `text` holds `query` (folded both; an empty query is in every text).
    public static func contains(_ text: String, _ query: String) -> Bool {
        let q = folded(query)
        return q.isEmpty || folded(text).contains(q)
    }

    /// How well `query`'s characters stand in `text` in order (a subsequence, spaces in the
    /// query ignored, folded both): nil when they do not; else higher for a better match: each
    /// character counts, more when it follows the one before it in `text` or starts a word,
    /// less for the characters skipped. The best of every way the query fits is taken, so
    /// `nd` scores `next day` on the word starts. An empty query scores 0 on every text.
    public static func score(_ query: String, in text: String) -> Int? {
        let q = Array(folded(query).filter { $0 != " " }), t = Array(folded(text))
        guard !q.isEmpty else { return 0 }
        guard q.count <= t.count else { return nil }
        let hit = 16, consecutive = 12, wordStart = 10, textStart = 6, gap = 1
        func startsWord(_ j: Int) -> Bool { j == 0 || !(t[j - 1].isLetter || t[j - 1].isNumber) }
        // best[j]: the best score of the query so far with its last character at t[j].
        var best = [Int?](repeating: nil, count: t.count)
        for (i, qc) in q.enumerated() {
            var next = [Int?](repeating: nil, count: t.count)
            // The best of `best[k] + gap penalty` for k < j - 1, as j goes right.
            var before: Int?
            for j in t.indices {
                if j >= 2, let b = best[j - 2] { before = max(before.map { $0 - gap } ?? .min, b - gap) }
                else if before != nil { before! -= gap }
                guard t[j] == qc else { continue }
                let own = hit + (startsWord(j) ? wordStart : 0)
                if i == 0 {
                    next[j] = own + (j == 0 ? textStart : 0) - j * gap
                    continue
                }
                let joined = j >= 1 ? best[j - 1].map { $0 + own + consecutive } : nil
                let skipped = before.map { $0 + own }
                if let s = [joined, skipped].compactMap({ $0 }).max() { next[j] = s }
            }
            best = next
        }
        return best.compactMap { $0 }.max()
    }
}
