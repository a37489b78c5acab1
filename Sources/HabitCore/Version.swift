/// This release's version. A release that changes any format (journal, snapshot, batch,
/// backup, remote, export or an operation kind) is a new minor version at least.
public enum HabittoVersion {
    /// This release.
    public static let current = "0.3.0"
    /// The oldest release that reads everything this one writes: a device on an older one
    /// cannot read this device's changes.
    public static let oldestReader = "0.3.0"

    /// The numbers of a `MAJOR.MINOR.PATCH` version (each 0–99999, no leading zeros); nil
    /// for anything else.
    public static func parse(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var out: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 5, p.allSatisfy({ $0.isASCII && $0.isNumber }), p == "0" || p.first != "0",
                  let n = Int(p) else { return nil }
            out.append(n)
        }
        return out
    }

    /// Whether `version` is older than `other` (false when either is not a version).
    public static func isOlder(_ version: String, than other: String) -> Bool {
        guard let a = parse(version), let b = parse(other) else { return false }
        return a.lexicographicallyPrecedes(b)
    }
}
