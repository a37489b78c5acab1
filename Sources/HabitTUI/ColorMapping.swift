/// Mapping theme colours to the palette a terminal has. Pure: the driver asks for an index
/// once it knows the terminal's `ColorDepth`, and draws with the result.
///
/// At `ColorDepth.none` (`NO_COLOR`, or a terminal without colours) every colour maps to
/// nil and the driver draws each role with its attributes alone (bold, underline,
/// reverse, dim). That is why every theme gives `selection` at least one attribute: the
/// selected row must still stand out without colour.
public extension ThemeColor {
    /// The palette index to draw this colour with at `depth`, or nil for the terminal's own
    /// colour. nil for `terminalDefault`, and for every colour at `.none`.
    ///
    /// - `.ansi(n)`: n at 16 colours and up; n % 8 at 8 colours (a bright colour becomes its
    ///   base colour). Indexes 16–255 are mapped like the xterm colour they stand for;
    ///   anything outside 0–255 is nil.
    /// - `.rgb`: the nearest xterm-256 colour at 256 colours (the 6×6×6 cube 16–231 or the
    ///   grey ramp 232–255, by smallest squared distance); the nearest of the 16 ANSI colours
    ///   at 16; the nearest of the first 8 at 8. A grey (channels within 0x20 of each other)
    ///   stays grey at 16 and 8 colours: it maps to the nearest of black, bright black, white
    ///   and bright white (black or white at 8), so #808080 never turns yellow. True-colour
    ///   terminals are treated as 256.
    func index(for depth: ColorDepth) -> Int? {
        switch self {
        case .terminalDefault:
            return nil
        case .ansi(let n):
            guard depth != .none, (0...255).contains(n) else { return nil }
            switch depth {
            case .ansi8 where n < 16: return n % 8
            case .ansi16 where n < 16: return n
            case .ansi8, .ansi16:
                let c = XTerm.rgb(n)
                return ThemeColor.rgb(UInt8(c.0), UInt8(c.1), UInt8(c.2)).index(for: depth)
            default: return n
            }
        case .rgb(let r, let g, let b):
            switch depth {
            case .none: return nil
            case .ansi8:
                return XTerm.nearest(Int(r), Int(g), Int(b), among: XTerm.isGrey(r, g, b) ? XTerm.greys8 : XTerm.first8)
            case .ansi16:
                return XTerm.nearest(Int(r), Int(g), Int(b), among: XTerm.isGrey(r, g, b) ? XTerm.greys16 : XTerm.first16)
            case .palette256, .trueColor:
                return XTerm.nearest(Int(r), Int(g), Int(b), among: XTerm.extended)
            }
        }
    }
}

public extension ThemeColor {
    /// A habit's colour (`HabitFields.color`: a name of `Validate.colorNames`, or `#RRGGBB`)
    /// as a theme colour: the eight ANSI names are the ANSI colours 0–7 (so they follow the
    /// terminal's palette), gray is 8, orange, purple and pink are the xterm colours 208, 93
    /// and 211. nil for no colour, or one that is not understood.
    init?(habitColor: String?) {
        guard let text = habitColor?.lowercased() else { return nil }
        switch text {
        case "gray", "grey": self = .ansi(8)
        case "orange": self = .rgb(0xff, 0x87, 0x00)
        case "purple": self = .rgb(0x87, 0x00, 0xff)
        case "pink": self = .rgb(0xff, 0x87, 0xaf)
        default:
            if let n = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"].firstIndex(of: text) {
                self = .ansi(n)
                return
            }
            let hex = text.dropFirst()
            guard text.hasPrefix("#"), hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = Int(hex, radix: 16) else { return nil }
            self = .rgb(UInt8(v >> 16), UInt8(v >> 8 & 0xff), UInt8(v & 0xff))
        }
    }
}

/// The standard xterm palette.
enum XTerm {
    /// The 16 ANSI colours as xterm draws them by default.
    static let ansi: [(Int, Int, Int)] = [
        (0x00, 0x00, 0x00), (0xcd, 0x00, 0x00), (0x00, 0xcd, 0x00), (0xcd, 0xcd, 0x00),
        (0x00, 0x00, 0xee), (0xcd, 0x00, 0xcd), (0x00, 0xcd, 0xcd), (0xe5, 0xe5, 0xe5),
        (0x7f, 0x7f, 0x7f), (0xff, 0x00, 0x00), (0x00, 0xff, 0x00), (0xff, 0xff, 0x00),
        (0x5c, 0x5c, 0xff), (0xff, 0x00, 0xff), (0x00, 0xff, 0xff), (0xff, 0xff, 0xff),
    ]
    static let first8 = Array(0...7)
    static let first16 = Array(0...15)
    static let greys8 = [0, 7]
    static let greys16 = [0, 8, 7, 15]
    /// The colour cube and the grey ramp: what an rgb colour maps to at 256 colours.
    static let extended = Array(16...255)
    /// The six levels of each channel in the colour cube 16–231.
    static let cubeLevels = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff]

    /// The colour xterm shows for palette index `i` (0–255).
    static func rgb(_ i: Int) -> (Int, Int, Int) {
        switch i {
        case 0..<16:
            return ansi[i]
        case 16..<232:
            let c = i - 16
            return (cubeLevels[c / 36], cubeLevels[c / 6 % 6], cubeLevels[c % 6])
        default:
            let v = 8 + 10 * (i - 232)
            return (v, v, v)
        }
    }

    /// Whether a colour has (almost) no hue: its channels are within 0x20 of each other.
    static func isGrey(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool {
        max(r, g, b) - min(r, g, b) <= 0x20
    }

    /// The index in `candidates` whose colour is nearest (smallest squared distance) to
    /// the given one; the earliest candidate wins a tie.
    static func nearest(_ r: Int, _ g: Int, _ b: Int, among candidates: [Int]) -> Int {
        var best = candidates[0]
        var bestDistance = Int.max
        for i in candidates {
            let c = rgb(i)
            let d = (c.0 - r) * (c.0 - r) + (c.1 - g) * (c.1 - g) + (c.2 - b) * (c.2 - b)
            if d < bestDistance { best = i; bestDistance = d }
        }
        return best
    }
}
