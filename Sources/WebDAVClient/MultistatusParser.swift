import WebDAVWire

/// Reads a WebDAV multistatus answer piece by piece as it arrives, keeping only the
/// `href` of each `response` and whether it holds a `collection`: memory grows with the
/// entries, not with the answer. Elements are matched by local name (any namespace prefix),
/// as servers spell the `DAV:` prefix differently. It refuses what a listing never holds: a
/// document type (entity definitions), an unknown entity, tags that do not nest, nesting
/// deeper than 64, a tag longer than 64 KiB; and it stops at `Wire.maxEntries` entries.
struct MultistatusParser {
    private enum Mode { case text, markup, comment, cdata, instruction }

    private(set) var entries: [WireEntry] = []
    /// More than `Wire.maxEntries` entries: the rest was not read.
    private(set) var tooMany = false
    /// Not a well-formed listing: the rest was not read.
    private(set) var failed = false

    private var mode = Mode.text
    private var markup: [UInt8] = []
    private var quote: UInt8 = 0
    private var tail: [UInt8] = []
    private var stack: [[UInt8]] = []
    private var sawRoot = false
    private var current: WireEntry?
    private var inHref = false
    private var href: [UInt8] = []

    static let maxDepth = 64
    static let maxMarkup = 64 << 10

    /// Whether it wants more (false once it failed or has too many entries).
    var wantsMore: Bool { !failed && !tooMany }

    /// Reads the next piece of the answer.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        var i = 0
        while i < bytes.count && wantsMore {
            if mode == .text && !inHref && !stack.isEmpty {
                // Text between elements is not kept: skip to the next tag.
                guard let next = bytes[i...].firstIndex(of: UInt8(ascii: "<")) else { return }
                i = next
            }
            let b = bytes[i]
            switch mode {
            case .text:
                if b == UInt8(ascii: "<") {
                    mode = .markup
                    markup.removeAll(keepingCapacity: true)
                    quote = 0
                } else if inHref {
                    // Kept up to one byte past the limit: a longer href drops its entry.
                    if href.count <= Wire.maxText { href.append(b) }
                } else if stack.isEmpty && !isBlank(b) {
                    failed = true
                }
            case .markup:
                markup(b)
            case .comment, .cdata, .instruction:
                ending(b)
            }
            i += 1
        }
    }

    /// The listing, once the whole answer was read.
    func finish() -> WireListing {
        if tooMany { return .tooLarge }
        guard !failed, mode == .text, stack.isEmpty, sawRoot else { return .malformed }
        return .entries(entries)
    }

    private func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0a || b == 0x0d }

    private mutating func markup(_ b: UInt8) {
        if quote != 0 {
            if b == quote { quote = 0 }
        } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
            if !markup.isEmpty && markup[0] != UInt8(ascii: "!") && markup[0] != UInt8(ascii: "?") { quote = b }
        } else if b == UInt8(ascii: ">") {
            mode = .text
            tag()
            return
        }
        markup.append(b)
        guard markup.count <= MultistatusParser.maxMarkup else { failed = true; return }
        if markup.count == 3 && markup.elementsEqual("!--".utf8) {
            enter(.comment)
        } else if markup.count == 8 && markup.elementsEqual("![CDATA[".utf8) {
            enter(.cdata)
        } else if markup.count == 1 && b == UInt8(ascii: "?") {
            enter(.instruction)
        } else if markup.count == 2 && markup[0] == UInt8(ascii: "!") && b != UInt8(ascii: "-") && b != UInt8(ascii: "[") {
            // <!DOCTYPE, <!ENTITY: a listing has no document type.
            failed = true
        }
    }

    private mutating func enter(_ m: Mode) {
        mode = m
        tail.removeAll(keepingCapacity: true)
    }

    /// Inside a comment, a CDATA section or a processing instruction: waits for its end.
    private static let commentEnd = Array("-->".utf8), cdataEnd = Array("]]>".utf8), instructionEnd = Array("?>".utf8)

    private mutating func ending(_ b: UInt8) {
        let end: [UInt8]
        switch mode {
        case .comment: end = MultistatusParser.commentEnd
        case .cdata: end = MultistatusParser.cdataEnd
        default: end = MultistatusParser.instructionEnd
        }
        tail.append(b)
        if tail.count > end.count { tail.removeFirst() }
        if tail == end {
            if mode == .cdata && inHref { href.removeLast(min(href.count, end.count - 1)) }
            mode = .text
            return
        }
        if mode == .cdata && inHref {
            if href.count <= Wire.maxText { href.append(b) }
            if stack.isEmpty { failed = true }
        } else if mode == .cdata && stack.isEmpty {
            failed = true
        }
    }

    /// A complete tag, `markup` holding what stood between `<` and `>`.
    private mutating func tag() {
        var bytes = markup[...]
        let closing = bytes.first == UInt8(ascii: "/")
        if closing { bytes = bytes.dropFirst() }
        let selfClosing = !closing && bytes.last == UInt8(ascii: "/")
        if selfClosing { bytes = bytes.dropLast() }
        let name = Array(bytes.prefix { !isBlank($0) })
        guard let first = name.first, first != UInt8(ascii: "!"), first != UInt8(ascii: "?"), first != UInt8(ascii: "/"),
              !name.contains(UInt8(ascii: "<")) else { failed = true; return }
        if closing {
            guard bytes.count == name.count || bytes.dropFirst(name.count).allSatisfy(isBlank), stack.last == name else {
                failed = true
                return
            }
            stack.removeLast()
            close(local(name))
        } else {
            guard !(stack.isEmpty && sawRoot) else { failed = true; return }
            sawRoot = true
            open(local(name))
            if selfClosing { close(local(name)) } else {
                guard stack.count < MultistatusParser.maxDepth else { failed = true; return }
                stack.append(name)
            }
        }
    }

    private func local(_ name: [UInt8]) -> ArraySlice<UInt8> {
        guard let colon = name.lastIndex(of: UInt8(ascii: ":")) else { return name[...] }
        return name[(colon + 1)...]
    }

    private mutating func open(_ name: ArraySlice<UInt8>) {
        if name.elementsEqual("response".utf8) {
            current = WireEntry(href: "", isCollection: false)
        } else if name.elementsEqual("href".utf8) {
            inHref = current != nil
            href.removeAll(keepingCapacity: true)
        } else if name.elementsEqual("collection".utf8) {
            current?.isCollection = true
        }
    }

    private mutating func close(_ name: ArraySlice<UInt8>) {
        if name.elementsEqual("href".utf8) {
            if inHref {
                guard let text = MultistatusParser.decodeEntities(href) else { failed = true; return }
                current?.href = text
            }
            inHref = false
        } else if name.elementsEqual("response".utf8) {
            if let c = current, !c.href.isEmpty, c.href.utf8.count <= Wire.maxText {
                guard entries.count < Wire.maxEntries else { tooMany = true; return }
                entries.append(c)
            }
            current = nil
        }
    }

    /// The text with XML's five named entities and numeric references replaced; nil when it
    /// holds another entity or is not UTF-8.
    static func decodeEntities(_ raw: [UInt8]) -> String? {
        guard raw.contains(UInt8(ascii: "&")) else { return String(validating: raw, as: UTF8.self) }
        var out: [UInt8] = []
        var i = 0
        while i < raw.count {
            guard raw[i] == UInt8(ascii: "&") else { out.append(raw[i]); i += 1; continue }
            guard let semi = raw[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { return nil }
            let name = String(decoding: raw[(i + 1)..<semi], as: UTF8.self)
            switch name {
            case "amp": out.append(UInt8(ascii: "&"))
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let hex = name.hasPrefix("#x") || name.hasPrefix("#X")
                guard name.hasPrefix("#"), let v = UInt32(name.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
                      v != 0, let scalar = Unicode.Scalar(v) else { return nil }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            i = semi + 1
        }
        return String(validating: out, as: UTF8.self)
    }
}
