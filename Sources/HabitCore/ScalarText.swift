/// Searching and replacing text scalar by scalar, with the standard library alone. The
/// standard library's own `replacing(_:with:)` and `firstRange(of:)` compare whole
/// characters, so a target that starts or ends inside a character (`"\n"` in `"\r\n"`, a
/// quote followed by a combining accent) would not be found, where Foundation's
/// `replacingOccurrences(of:with:)` finds it: a shell quote left unescaped that way would be
/// an injection. These find every occurrence of the target's scalars, as Foundation does,
/// without linking it.
extension StringProtocol {
    /// Every non-overlapping occurrence of `target`, from the start, replaced by
    /// `replacement`. An empty target changes nothing.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let text = Array(unicodeScalars), find = Array(target.unicodeScalars)
        guard !find.isEmpty, text.count >= find.count else { return String(self) }
        var out = String.UnicodeScalarView(), i = 0, changed = false
        while i < text.count {
            if i + find.count <= text.count, text[i] == find[0], text[i..<(i + find.count)].elementsEqual(find) {
                out.append(contentsOf: replacement.unicodeScalars)
                i += find.count
                changed = true
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return changed ? String(out) : String(self)
    }
}

extension String {
    /// The scalars of the first (or, with `last`, the last) occurrence of `target`, as
    /// indices into `unicodeScalars`; nil when it does not occur or is empty.
    public func scalarRange(of target: String, last: Bool = false) -> Range<String.UnicodeScalarView.Index>? {
        let view = unicodeScalars
        let find = Array(target.unicodeScalars)
        guard !find.isEmpty else { return nil }
        var starts = Array(view.indices)
        if last { starts.reverse() }
        for start in starts {
            var i = start, matched = true
            for scalar in find {
                guard i < view.endIndex, view[i] == scalar else { matched = false; break }
                i = view.index(after: i)
            }
            if matched { return start..<i }
        }
        return nil
    }
}

extension StringProtocol {
    /// The text with every `%XX` (two hexadecimal digits) decoded as a UTF-8 byte, as
    /// Foundation's `removingPercentEncoding` does: nil when a `%` is not followed by two
    /// hexadecimal digits or the bytes are not UTF-8. (Foundation turns a stray
    /// continuation byte into U+FFFD instead, but other invalid bytes into nil; here every
    /// invalid sequence is nil.) A byte order mark at the start is dropped, as Foundation drops it.
    public var percentDecoded: String? {
        var bytes: [UInt8] = [], i = utf8.startIndex
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x39: b - 0x30
            case 0x41...0x46: b - 0x41 + 10
            case 0x61...0x66: b - 0x61 + 10
            default: nil
            }
        }
        while i < utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: "%") {
                let h = utf8.index(after: i)
                guard h < utf8.endIndex, let high = hex(utf8[h]) else { return nil }
                let l = utf8.index(after: h)
                guard l < utf8.endIndex, let low = hex(utf8[l]) else { return nil }
                bytes.append(high << 4 | low)
                i = utf8.index(after: l)
            } else {
                bytes.append(b)
                i = utf8.index(after: i)
            }
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return String(validating: bytes, as: UTF8.self)
    }
}
