import FoundationEssentials

/// A habit's stable identity: 64 random bits, written as 16 lower-case hex characters.
public struct HabitID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public init(value: UInt64) { self.value = value }
    /// Accepts only 16 lower-case hex characters.
    public init?(_ raw: String) {
        guard raw.utf8.count == 16, isLowerHex(raw), let v = UInt64(raw, radix: 16) else { return nil }
        value = v
    }
    /// The 16-character hex form.
    public var rawValue: String { hex(value, width: 16) }
    /// A new random id from the given generator.
    public static func random<G: RandomNumberGenerator>(using g: inout G) -> HabitID {
        HabitID(value: UInt64.random(in: .min ... .max, using: &g))
    }
    public var description: String { rawValue }
    public static func < (a: HabitID, b: HabitID) -> Bool { a.value < b.value }
}

func isLowerHex(_ s: String) -> Bool {
    s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
}

func hex(_ v: UInt64, width: Int) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: max(0, width - s.count)) + s
}
