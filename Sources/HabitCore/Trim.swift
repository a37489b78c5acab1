/// Trimming with the standard library alone. Foundation's `trimmingCharacters(in:)` goes
/// through `CharacterSet` and string bridging, and its first use made every command pay the
/// runtime's scan of all protocol conformances of the binary.
extension StringProtocol {
    /// Without the blanks at either end: spaces and tabs, not line breaks (Foundation's
    /// `.whitespaces`: Unicode space separators and the tab).
    @inlinable public var trimmingBlanks: String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// Without white space or line breaks at either end (`.whitespacesAndNewlines`).
    @inlinable public var trimmingWhitespace: String { trimming(\.isWhitespace) }

    /// Without white space or line breaks at the end.
    @inlinable public var trimmingTrailingWhitespace: String {
        guard let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[...last])
    }

    /// Without the characters `drop` picks at either end.
    @inlinable public func trimming(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}
