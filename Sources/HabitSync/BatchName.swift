import FoundationEssentials
import HabitCore

/// A batch file's name: `{firstSeq}-{lastSeq}.batch`, the operations of one device it holds.
public struct BatchName: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let first: UInt64
    public let last: UInt64

    public init?(first: UInt64, last: UInt64) {
        guard first >= 1, last >= first else { return nil }
        self.first = first; self.last = last
    }

    /// Parses a file name strictly (digits, no leading zeros, first ≤ last); nil otherwise,
    /// so names with path tricks or anything unexpected are never read.
    public init?(fileName: String) {
        guard fileName.hasSuffix(".batch") else { return nil }
        let parts = fileName.dropLast(6).split(separator: "-", omittingEmptySubsequences: false)
        func number(_ s: Substring) -> UInt64? {
            guard !s.isEmpty, s.count <= 20, s.allSatisfy({ $0.isASCII && $0.isNumber }), s == "0" || s.first != "0"
            else { return nil }
            return UInt64(s)
        }
        guard parts.count == 2, let f = number(parts[0]), let l = number(parts[1]) else { return nil }
        self.init(first: f, last: l)
    }

    public var fileName: String { "\(first)-\(last).batch" }
    public var description: String { fileName }
    public var count: UInt64 { last - first + 1 }
    public static func < (a: BatchName, b: BatchName) -> Bool { (a.first, a.last) < (b.first, b.last) }
}

extension Array where Element == BatchName {
    /// The last operation of a run of these batches with no gap from `start` + 1 on (`start`
    /// itself when none begins there); overlaps are allowed.
    public func contiguousEnd(from start: UInt64 = 0) -> UInt64 {
        var end = start
        for b in sorted() where b.first <= end + 1 { end = Swift.max(end, b.last) }
        return end
    }
}
