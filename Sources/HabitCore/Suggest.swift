/// "Did you mean …?": the nearest of some candidates to a mistyped word, by edit distance.
public enum Suggest {
    /// The candidate nearest to `query` (case-insensitive), or nil when none is near enough.
    /// A candidate is compared whole and word by word (`watr` is near "Drink water"); the
    /// distance allowed grows with the query's length: 1 up to 4 characters, 2 up to 8, then 3.
    /// Equally near candidates go to the first in the given order.
    public static func nearest(_ query: String, among candidates: [String]) -> String? {
        let q = Array(query.lowercased())
        guard !q.isEmpty, q.count <= 100 else { return nil }
        let allowed = q.count <= 4 ? 1 : q.count <= 8 ? 2 : 3
        var best: (distance: Int, candidate: String)?
        for candidate in candidates {
            let lower = candidate.lowercased()
            var parts = [Array(lower)]
            let words = lower.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" })
            if words.count > 1 { parts += words.map { Array($0) } }
            for part in parts where abs(part.count - q.count) <= allowed {
                let d = distance(q, part)
                if d <= allowed, d < (best?.distance ?? .max) { best = (d, candidate) }
            }
        }
        return best?.candidate
    }

    /// "; did you mean 'X'?" for the candidate nearest to `query`, or "" when none is near:
    /// the tail of a message refusing a value that is not one of `candidates`.
    public static func didYouMean(_ query: String, among candidates: [String]) -> String {
        nearest(query, among: candidates).map { "; did you mean \(Sanitize.quoted($0))?" } ?? ""
    }

    /// The optimal string alignment distance (Levenshtein with adjacent transpositions).
    public static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
