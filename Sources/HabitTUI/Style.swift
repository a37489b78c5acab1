/// What a piece of the screen is, so a theme can colour it.
public enum Role: String, CaseIterable, Hashable, Sendable {
    case normal, header, title, selection, done, partial, missed, skipped, exceeded
    case streak, strength, xpBar, xpBarEmpty
    case syncLocal, syncPending, syncSynced, syncFailed
    case statusOk, statusWarn, statusError
    case footer, key, dim, accent, heat0, heat1, heat2, heat3, heat4
}

/// A colour as a theme names it.
public enum ThemeColor: Hashable, Sendable {
    /// The terminal's own foreground or background.
    case terminalDefault
    /// One of the 16 ANSI colours: 0 black, 1 red, 2 green, 3 yellow, 4 blue, 5 magenta,
    /// 6 cyan, 7 white, 8–15 their bright versions.
    case ansi(Int)
    /// A 24-bit colour, mapped to the nearest one the terminal has.
    case rgb(UInt8, UInt8, UInt8)
}

/// How one role is drawn.
public struct Style: Hashable, Sendable {
    public var foreground: ThemeColor
    public var background: ThemeColor
    public var bold: Bool
    public var underline: Bool
    public var reverse: Bool
    public var dim: Bool
    /// Where a cell of this role carries a habit's colour (`Cell.color`), that colour is
    /// the foreground (theme files: the `habit-color` word). Without it, the role keeps its
    /// own colour in every habit's cells.
    public var habitColor: Bool
    public init(_ foreground: ThemeColor = .terminalDefault, on background: ThemeColor = .terminalDefault,
                bold: Bool = false, underline: Bool = false, reverse: Bool = false, dim: Bool = false,
                habitColor: Bool = false) {
        self.foreground = foreground; self.background = background
        self.bold = bold; self.underline = underline; self.reverse = reverse; self.dim = dim
        self.habitColor = habitColor
    }

    /// The foreground a cell of this role is drawn with: the cell's habit colour when the
    /// style takes habit colours and the cell has one, else the style's own.
    public func foreground(for cell: Cell) -> ThemeColor {
        habitColor ? cell.color ?? foreground : foreground
    }
}
