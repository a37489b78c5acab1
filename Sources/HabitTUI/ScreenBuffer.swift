import HabitCore

/// One terminal cell: the text drawn there (one character, or "" where the right half of
/// a wide character stands), the role that colours it, and the colour of the habit it
/// shows, if the habit has one (drawn instead of the role's foreground where the theme's
/// style for the role takes habit colours, `Style.habitColor`).
public struct Cell: Hashable, Sendable {
    public var text: String
    public var role: Role
    /// The colour of the habit the cell shows (`ThemeColor(habitColor:)`), or nil.
    public var color: ThemeColor?
    public init(_ text: String = " ", _ role: Role = .normal, color: ThemeColor? = nil) {
        self.text = text; self.role = role; self.color = color
    }
}

/// What a click on a part of the screen stands for (`ScreenBuffer.regions`): the renderer
/// records them where it draws, and the reducer maps a click through them (`Action.click`).
public enum HitTarget: Hashable, Sendable {
    /// A today screen's line (an index into `AppState.lines`): a click selects it.
    case line(Int)
    /// The day's state mark on a today row (`AppState.lines` index): a click checks in.
    case mark(Int)
    /// One of a today row's recent days: a click selects the habit and the day.
    case day(line: Int, LocalDay)
    /// A cell of the week grid (or a habit's name there, with the cursor's day): a click puts
    /// the cursor on it.
    case weekCell(HabitID, LocalDay)
    /// A day of the detail calendar: a click puts its cursor there.
    case calendarDay(LocalDay)
    /// A habit-day of the catch-up screen (an index into `AppState.catchUp`): a click selects it.
    case catchUpItem(Int)
    /// A footer entry: a click presses its key.
    case key(Key)
}

/// A rectangle of one row that a click on stands for `target`.
public struct HitRegion: Hashable, Sendable {
    public let x, y, width: Int
    public let target: HitTarget
}

/// A screen's worth of cells: what `render` produces and the terminal driver draws. Text
/// is sanitised as it is put, so nothing written here can move the cursor or change colours.
public struct ScreenBuffer: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// The clickable parts, in the order they were recorded (a later one lies over an earlier one).
    public private(set) var regions: [HitRegion] = []

    /// Records that a click on `width` cells from column `x` of row `y` stands for `target`.
    public mutating func region(_ target: HitTarget, x: Int, y: Int, width: Int) {
        guard y >= 0, y < height, width > 0 else { return }
        regions.append(HitRegion(x: x, y: y, width: width, target: target))
    }

    /// What a click on column `x` of row `y` stands for: the last region recorded there, or nil.
    public func target(x: Int, y: Int) -> HitTarget? {
        regions.last { $0.y == y && x >= $0.x && x < $0.x + $0.width }?.target
    }

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Writes `text` from column `x` of row `y`, clipped to the screen and to `limit`
    /// columns; returns the columns used. A wide character that does not fit becomes a space.
    /// `color` is a habit's colour for the cells written (see `Cell`).
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: Role = .normal, limit: Int? = nil,
                             color: ThemeColor? = nil) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        let end = min(width, limit.map { x + max(0, $0) } ?? width)
        var col = x
        for ch in Sanitize.display(text) {
            let w = TextWidth.of(ch)
            if w == 0 {
                if col > 0, col - 1 < end, col - 1 >= 0 { self[col - 1, y].text.append(ch) }
                continue
            }
            if col + w > end {
                if col < end { self[col, y] = Cell(" ", role, color: color); col += 1 }
                break
            }
            if col >= 0 {
                self[col, y] = Cell(String(ch), role, color: color)
                if w == 2 { self[col + 1, y] = Cell("", role, color: color) }
            }
            col += w
        }
        return max(0, col - x)
    }

    /// Sets the role of `count` cells from column `x` (for highlighting a whole row).
    public mutating func paint(x: Int, y: Int, count: Int, role: Role) {
        guard y >= 0, y < height else { return }
        for c in max(0, x)..<min(width, x + count) { self[c, y].role = role }
    }

    /// Row `y` as plain text, trailing spaces removed.
    public func line(_ y: Int) -> String {
        var s = ""
        for x in 0..<width { s += self[x, y].text }
        while s.last == " " { s.removeLast() }
        return s
    }

    /// The whole screen as text, one line per row (for snapshot tests and captures).
    public var text: String { (0..<height).map(line).joined(separator: "\n") }
}
