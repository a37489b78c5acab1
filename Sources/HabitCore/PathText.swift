/// File paths as text, the way Foundation's `NSString` path methods treat them, with the
/// standard library alone (no swift-corelibs-foundation in `habitto`).
/// Slashes at the end are ignored; the root stays the root.
extension String {
    /// The last component: `"/a/b.txt"` → `"b.txt"`, `"/a/b/"` → `"b"`, `"/"` → `"/"`.
    public var pathLastComponent: String {
        let trimmed = droppingTrailingSlashes
        if trimmed == "/" || trimmed.isEmpty { return trimmed }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// Without the last component: `"/a/b"` → `"/a"`, `"/a"` → `"/"`, `"a"` → `""`,
    /// `"a/b/"` → `"a"`, `"/"` → `"/"`.
    public var pathParent: String {
        let trimmed = droppingTrailingSlashes
        if trimmed == "/" || trimmed.isEmpty { return trimmed }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        var parent = trimmed[..<slash]
        while parent.count > 1, parent.last == "/" { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }

    /// Without the last component's extension: `"b.txt"` → `"b"`, `"a.b.c"` → `"a.b"`;
    /// a name that only starts with a dot (`".hidden"`) has none.
    public var pathDroppingExtension: String {
        let trimmed = droppingTrailingSlashes
        let nameStart = trimmed.lastIndex(of: "/").map { trimmed.index(after: $0) } ?? trimmed.startIndex
        guard let dot = trimmed[nameStart...].lastIndex(of: "."), dot > nameStart else { return trimmed }
        return String(trimmed[..<dot])
    }

    private var droppingTrailingSlashes: String {
        var s = Substring(self)
        while s.count > 1, s.last == "/" { s = s.dropLast() }
        return String(s)
    }
}
