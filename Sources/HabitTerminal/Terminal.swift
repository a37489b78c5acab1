import CNcursesw
import Glibc
import HabitSys
import HabitTUI

/// Something that happened at the terminal.
public enum TerminalEvent: Equatable, Sendable {
    /// A key press (the mouse wheel comes as the keys `wheel-up` and `wheel-down`).
    case key(Key)
    /// A press of the mouse's left button on a cell (0-based column and row).
    case click(x: Int, y: Int)
    /// The terminal now has this many columns and rows.
    case resize(width: Int, height: Int)
}

/// The terminal, driven through ncurses: draws `ScreenBuffer`s, reads keys, reports resizes.
/// One at a time per process; use it from one thread.
public final class Terminal {
    /// True when standard input and output are both terminals.
    public static func isInteractive() -> Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// The terminal's columns, as of the last resize event.
    public private(set) var width: Int
    /// The terminal's rows, as of the last resize event.
    public private(set) var height: Int
    /// The colour depth in use: `.none` with `NO_COLOR` or no colours, else `.ansi8`,
    /// `.ansi16` or `.palette256` from the terminal's colour count. (A direct-colour
    /// terminal counts as `.ansi8`: only its first 8 colours are palette colours.)
    public let colorDepth: ColorDepth
    /// Whether the locale's character set is UTF-8; the app uses ASCII glyphs otherwise.
    public let isUTF8: Bool

    /// The ncurses functions (the library is loaded when the first terminal starts).
    private let nc: habitto_curses
    private var screen: OpaquePointer?
    private var window: UnsafeMutablePointer<WINDOW>?
    /// Whether an unset colour is the terminal's own (`use_default_colors` worked).
    private let hasDefaultColors: Bool
    /// How each role is drawn: attributes and colour pair.
    private var looks: [Role: Look] = [:]
    /// The last frame drawn, and the window size it was drawn at.
    private var lastFrame: ScreenBuffer?
    private var lastSize = (width: -1, height: -1)
    /// Rewrite every cell on the next draw (new theme, resize).
    private var needsRepaint = true
    /// Clear the physical screen on the next draw (after a resize its contents are unknown).
    private var needsClear = false
    /// Standard input hung up: stop polling it.
    private var inputClosed = false
    /// Whether the mouse is reported (`mouse` in `init`).
    private let mouse: Bool
    /// A mouse report being read: what came after its `ESC [ <` so far (nil: none).
    private var mouseReport: String?
    /// The key code ncurses gives the start of an SGR mouse report (`ESC [ <`), which
    /// `define_key` binds; above the codes ncurses hands out itself.
    static let mouseReportCode: Int32 = 0x4D4F

    private struct Look {
        var attributes: attr_t
        var pair: Int16
        /// The role's background palette index (-1 the terminal's own), and whether a
        /// habit's colour replaces its foreground (`Style.habitColor`, with colours on).
        var background: Int16 = -1
        var takesHabitColor = false
    }
    /// Colour pairs made for habit colours (foreground, background → pair), after the
    /// roles' pairs; `nextPair` is the next free one.
    private var habitPairs: [[Int16]: Int16] = [:]
    private var nextPair = Int16(Role.allCases.count + 1)

    /// Sets the locale from the environment, starts ncurses (cbreak, no echo, keypad, no
    /// newline translation, no XON/XOFF flow control, hidden cursor, 25 ms escape delay, non-blocking reads) and
    /// colours (unless `NO_COLOR` is set and non-empty, or the terminal has none), and
    /// installs `theme`. With `mouse`, the terminal reports mouse presses and the wheel (SGR
    /// reports, xterm's 1000 and 1006 modes), off again on `shutdown` and while stopped
    /// (Ctrl-Z). Throws `TerminalError` if the terminal cannot be used (unknown
    /// `TERM`, for instance); the process is not exited and the terminal is left as it was.
    public init(theme: Theme, mouse: Bool = true) throws {
        nc = try Curses.api()
        self.mouse = mouse
        setlocale(LC_ALL, "")
        let codeset = habitto_codeset().map { String(cString: $0).uppercased() } ?? ""
        isUTF8 = codeset == "UTF-8" || codeset == "UTF8"

        guard let screen = nc.newterm!(nil, habitto_stdout(), habitto_stdin()) else {
            let term = getenv("TERM").map { String(cString: $0) } ?? ""
            throw TerminalError(term.isEmpty
                ? "cannot start the terminal UI: TERM is not set"
                : "cannot start the terminal UI: unknown terminal type \"\(term)\" (TERM); try TERM=xterm-256color",
                unsuitableTerminal: true)
        }
        _ = nc.set_term!(screen)
        // A terminal that cannot move the cursor (TERM=dumb) would show garbage.
        let cursorAddress = nc.tigetstr!("cup")
        let canAddress = cursorAddress != nil && Int(bitPattern: cursorAddress) != -1
        guard canAddress, let window = nc.stdscr!.pointee else {
            _ = nc.endwin!()
            nc.delscreen!(screen)
            let term = getenv("TERM").map { String(cString: $0) } ?? ""
            throw TerminalError("cannot start the terminal UI: terminal type \"\(term)\" (TERM) cannot move the cursor",
                                unsuitableTerminal: true)
        }
        self.screen = screen
        self.window = window

        _ = nc.cbreak!()
        _ = nc.noecho!()
        _ = nc.nonl!()
        _ = nc.intrflush!(window, false)
        _ = nc.keypad!(window, true)
        _ = nc.nodelay!(window, true)
        _ = nc.leaveok!(window, true)
        _ = nc.curs_set!(0)
        _ = nc.set_escdelay!(25)
        Self.turnOffFlowControl(nc)
        // Keypad Enter in application mode, which some terminal descriptions (tmux's) omit.
        if nc.key_defined!("\u{1B}OM") == 0 { _ = nc.define_key!("\u{1B}OM", KEY_ENTER) }

        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        if !noColor, nc.has_colors!(), nc.start_color!() == OK {
            hasDefaultColors = nc.use_default_colors!() == OK
            let colors = Int(nc.colors!.pointee)
            switch colors {
            case 257...: colorDepth = .ansi8
            case 256: colorDepth = .palette256
            case 16..<256: colorDepth = .ansi16
            case 8..<16: colorDepth = .ansi8
            default: colorDepth = .none
            }
        } else {
            hasDefaultColors = false
            colorDepth = .none
        }

        width = Int(nc.getmaxx!(window))
        height = Int(nc.getmaxy!(window))
        // Route SIGWINCH through a pipe `wait` polls (chaining to ncurses's handler, which
        // newterm has installed by now).
        _ = SignalRouting.resizeReadFD
        setTheme(theme)
        if mouse {
            // ncurses reads the report's start as one key (a terminal description's own
            // mouse key, ncurses's decoding, is removed first); the rest comes as characters.
            _ = nc.define_key!("\u{1B}[<", 0)
            _ = nc.define_key!("\u{1B}[<", Self.mouseReportCode)
            _ = SignalRouting.stopHandlerInstalled
            fflush(habitto_stdout())
            SignalRouting.writeMouse(SignalRouting.mouseOn)
            SignalRouting.mouseReporting.store(true, ordering: .sequentiallyConsistent)
        }
    }

    deinit { shutdown() }

    /// Installs a theme: one colour pair per role, plus each role's attributes. Forces a
    /// full redraw on the next draw.
    public func setTheme(_ theme: Theme) {
        guard screen != nil else { return }
        let pairs = colorDepth == .none ? 0 : Int(nc.color_pairs!.pointee)
        var looks: [Role: Look] = [:]
        for (i, role) in Role.allCases.enumerated() {
            let style = theme.style(role)
            var attributes = habitto_a_normal()
            if style.bold { attributes |= habitto_a_bold() }
            if style.underline { attributes |= habitto_a_underline() }
            if style.reverse { attributes |= habitto_a_reverse() }
            if style.dim { attributes |= habitto_a_dim() }
            var pair: Int16 = 0
            let bg = style.background.index(for: colorDepth) ?? (hasDefaultColors ? -1 : 0)
            if i + 1 < pairs {
                let fg = style.foreground.index(for: colorDepth) ?? (hasDefaultColors ? -1 : 7)
                if nc.init_pair!(Int16(i + 1), Int16(fg), Int16(bg)) == OK { pair = Int16(i + 1) }
            }
            looks[role] = Look(attributes: attributes, pair: pair, background: Int16(bg),
                               takesHabitColor: style.habitColor && pair != 0)
        }
        self.looks = looks
        habitPairs = [:]
        nextPair = Int16(Role.allCases.count + 1)
        needsRepaint = true
    }

    /// Draws `buffer`, changing only cells that differ from the last drawn frame, then
    /// refreshes the screen. A cell with text "" is the right half of the wide character
    /// before it. If the buffer's size differs from the terminal's (after a resize), what
    /// fits is drawn and the rest cleared.
    public func draw(_ buffer: ScreenBuffer) {
        guard let window else { return }
        let size = (width: Int(nc.getmaxx!(window)), height: Int(nc.getmaxy!(window)))
        let previous = lastFrame.flatMap { last in
            !needsRepaint && last.width == buffer.width && last.height == buffer.height
                && lastSize == size ? last : nil
        }
        if previous == nil { _ = nc.werase!(window) }
        let columns = min(buffer.width, size.width)
        let rows = min(buffer.height, size.height)
        for y in 0..<max(0, rows) {
            let start = y * buffer.width
            let row = buffer.cells[start..<start + columns]
            let plan = CellPlan.row(isUTF8 ? Array(row) : CellPlan.folded(row))
            if let previous {
                let oldRow = previous.cells[start..<start + columns]
                if row == oldRow { continue }
                let oldPlan = CellPlan.row(isUTF8 ? Array(oldRow) : CellPlan.folded(oldRow))
                for x in 0..<columns where plan[x] != oldPlan[x] { put(plan[x], x: x, y: y, in: window) }
            } else {
                for x in 0..<columns { put(plan[x], x: x, y: y, in: window) }
            }
        }
        if needsClear { _ = nc.clearok!(window, true) }
        _ = nc.wrefresh!(window)
        lastFrame = buffer
        lastSize = size
        needsRepaint = false
        needsClear = false
    }

    private func put(_ glyph: CellPlan.Glyph, x: Int, y: Int, in window: UnsafeMutablePointer<WINDOW>) {
        let chars: [wchar_t], ink: CellPlan.Ink
        switch glyph {
        case .covered: return
        case .narrow(let c, let i), .wide(let c, let i): chars = c; ink = i
        }
        var look = looks[ink.role] ?? Look(attributes: habitto_a_normal(), pair: 0)
        if look.takesHabitColor, let fg = ink.color?.index(for: colorDepth) { look.pair = habitPair(Int16(fg), look.background) ?? look.pair }
        var cell = cchar_t()
        guard nc.setcchar!(&cell, [chars[0], 0], look.attributes, look.pair, nil) == OK else { return }
        // The rest of a grapheme cluster (combining marks, and the joiners and emoji of a
        // ZWJ sequence, which setcchar would drop as spacing characters): ncurses keeps and
        // writes every character of a cell, and advances by the first one's width.
        withUnsafeMutableBytes(of: &cell.chars) { raw in
            let slots = raw.bindMemory(to: wchar_t.self)
            for i in 0..<slots.count { slots[i] = i < chars.count ? chars[i] : 0 }
        }
        // At the bottom-right corner ncurses stores the character and reports ERR
        // (it cannot move the cursor past it); the character is drawn all the same.
        _ = nc.mvwadd_wch!(window, Int32(y), Int32(x), &cell)
    }

    /// The colour pair for a habit's colour on a role's background, made on first use; nil
    /// when the terminal has no pair left (the role's own colour is drawn then).
    private func habitPair(_ foreground: Int16, _ background: Int16) -> Int16? {
        if let pair = habitPairs[[foreground, background]] { return pair }
        guard Int(nextPair) < Int(nc.color_pairs!.pointee), nextPair < Int16.max,
              nc.init_pair!(nextPair, foreground, background) == OK else { return nil }
        habitPairs[[foreground, background]] = nextPair
        nextPair += 1
        return nextPair - 1
    }

    /// Everything the user typed since the last call, without blocking. A resize updates
    /// `width` and `height` and forces a full redraw on the next draw.
    public func readEvents() -> [TerminalEvent] {
        guard let window else { return [] }
        var events: [TerminalEvent] = []
        var ch: wint_t = 0
        for _ in 0..<4096 {
            let result = nc.wget_wch!(window, &ch)
            if result == ERR { break }
            if let body = mouseReport {
                // The rest of a mouse report: digits and `;` up to its `M` or `m`. Anything
                // else ends it unread and is read as itself.
                let c = result == OK ? Unicode.Scalar(ch).map(Character.init) : nil
                if let c, c.isASCII, c.isNumber || c == ";" , body.utf8.count < 24 {
                    mouseReport = body + String(c)
                    continue
                }
                mouseReport = nil
                if let c, c == "M" || c == "m" {
                    switch MouseReport.sgr(body + String(c)) {
                    case .click(let x, let y)?: events.append(.click(x: x, y: y))
                    case .wheel(let key)?: events.append(.key(key))
                    case nil: break
                    }
                    continue
                }
            }
            if result == KEY_CODE_YES {
                if Int32(bitPattern: ch) == Self.mouseReportCode, mouse {
                    mouseReport = ""
                } else if Int32(bitPattern: ch) == KEY_RESIZE {
                    width = Int(nc.getmaxx!(window))
                    height = Int(nc.getmaxy!(window))
                    needsRepaint = true
                    needsClear = true
                    let event = TerminalEvent.resize(width: width, height: height)
                    if case .resize = events.last { events[events.count - 1] = event } else { events.append(event) }
                } else if let key = Self.key(keyCode: Int32(bitPattern: ch)) {
                    events.append(.key(key))
                }
            } else if let key = Self.key(character: ch) {
                events.append(.key(key))
            }
        }
        return events
    }

    /// The key for a character code from `get_wch`, or nil for codes with no key.
    static func key(character code: wint_t) -> Key? {
        switch code {
        case 9: return .tab
        case 10, 13: return .enter
        case 8, 127: return .backspace
        case 27: return .escape
        case 1...26: return .ctrl(Character(Unicode.Scalar(UInt8(code) + 96)))
        case 0..<32, 128..<160: return nil
        default: return Unicode.Scalar(code).map { .char(Character($0)) }
        }
    }

    /// The key for a function-key code from `get_wch`, or nil for keys the app has no use for.
    static func key(keyCode code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case KEY_BACKSPACE: return .backspace
        case KEY_ENTER: return .enter
        default: return nil
        }
    }

    /// Blocks until input is available on standard input, or `wakeFD` is readable, or
    /// `timeoutMilliseconds` pass (-1: no timeout), or the terminal is resized. Returns true
    /// when woken by `wakeFD`, which is then drained. If standard input hangs up, the
    /// process is sent SIGHUP once (see `WakePipe.routeTerminationSignals`) and input is no
    /// longer polled.
    public func wait(timeoutMilliseconds: Int32, wakeFD: Int32) -> Bool {
        let resizeFD = SignalRouting.resizeReadFD
        var fds = [
            pollfd(fd: inputClosed ? -1 : STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: resizeFD, events: Int16(POLLIN), revents: 0),
        ]
        // A signal that interrupts the wait has woken one of the pipes: the retried poll
        // returns at once.
        guard let ready = try? sysCall("poll", { poll(&fds, nfds_t(fds.count), timeoutMilliseconds) }), ready > 0 else { return false }
        if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
            inputClosed = true
            _ = try? sysCall("kill") { kill(getpid(), SIGHUP) }
        }
        if fds[2].revents & Int16(POLLIN) != 0 { Self.drain(resizeFD) }
        guard fds[1].revents & Int16(POLLIN) != 0 else { return false }
        Self.drain(wakeFD)
        return true
    }

    /// Turns XON/XOFF flow control off, so that Ctrl-S reaches the UI as a key instead of
    /// freezing its output until Ctrl-Q. ncurses records the result as the program's mode
    /// (`def_prog_mode`), so a resume after Ctrl-Z puts it back, while `endwin` (quit, an
    /// error, a signal, Ctrl-Z) restores the shell's mode saved by `newterm`, flow control
    /// included.
    private static func turnOffFlowControl(_ nc: habitto_curses) {
        var mode = termios()
        guard (try? sysCall("tcgetattr") { tcgetattr(STDIN_FILENO, &mode) }) != nil else { return }
        mode.c_iflag &= ~tcflag_t(IXON | IXOFF)
        guard (try? sysCall("tcsetattr") { tcsetattr(STDIN_FILENO, TCSANOW, &mode) }) != nil else { return }
        _ = nc.def_prog_mode!()
    }

    /// Reads whatever is waiting on `fd` without ever blocking (even if `fd` blocks).
    private static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 256)
        for _ in 0..<64 {
            var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard let ready = try? sysCall("poll", { poll(&probe, 1, 0) }), ready > 0, probe.revents & Int16(POLLIN) != 0,
                  let n = try? sysCall("read", { read(fd, &buffer, buffer.count) }), n > 0 else { return }
        }
    }

    /// Restores the terminal (ends ncurses and frees its screen). Idempotent; also done on
    /// deinit.
    public func shutdown() {
        guard let screen else { return }
        if mouse {
            SignalRouting.mouseReporting.store(false, ordering: .sequentiallyConsistent)
            fflush(habitto_stdout())
            SignalRouting.writeMouse(SignalRouting.mouseOff)
        }
        _ = nc.endwin!()
        nc.delscreen!(screen)
        self.screen = nil
        window = nil
        lastFrame = nil
    }
}

/// What each column of a row shows, as ncurses will draw it: buffer cells reconciled with
/// the C library's idea of character widths, so a wide character never half-overlaps its
/// neighbour and columns stay aligned.
enum CellPlan {
    /// How a glyph is coloured: its cell's role and habit colour.
    struct Ink: Equatable {
        let role: Role
        let color: ThemeColor?
        init(_ cell: Cell) { role = cell.role; color = cell.color }
    }

    enum Glyph: Equatable {
        /// One column: a spacing character and the marks that combine with it.
        case narrow([wchar_t], Ink)
        /// Two columns: this one and the next (which is `.covered`).
        case wide([wchar_t], Ink)
        /// The right half of the wide glyph before it.
        case covered
    }

    static let space: [wchar_t] = [0x20]
    static let unknown: [wchar_t] = [0x3F]

    /// The glyphs of `cells`, one per cell. A "" cell after a wide character is covered by
    /// it; anywhere else it is a space. A wide character without a "" cell after it (cut
    /// by the edge, or overdrawn) is a space. A cluster the buffer gives two columns and the
    /// C library two one-column pieces (a flag: two regional indicators) is drawn a piece
    /// per column, so the terminal joins them where it can and the columns stay aligned
    /// where it cannot; another the C library gives one column is padded with a space.
    /// Characters the locale cannot show are "?".
    static func row(_ cells: [Cell]) -> [Glyph] {
        var out: [Glyph] = []
        out.reserveCapacity(cells.count)
        var x = cells.startIndex
        while x < cells.endIndex {
            let cell = cells[x]
            if cell.text.isEmpty {
                out.append(.narrow(space, Ink(cell)))
                x += 1
                continue
            }
            let (chars, width) = characters(cell.text)
            let next = x + 1
            if next < cells.endIndex, cells[next].text.isEmpty {
                if width == 2 {
                    out.append(.wide(chars, Ink(cell)))
                    out.append(.covered)
                } else if let pair = narrowPair(cell.text) {
                    out.append(.narrow(pair.0, Ink(cell)))
                    out.append(.narrow(pair.1, Ink(cell)))
                } else {
                    out.append(.narrow(chars, Ink(cell)))
                    out.append(.narrow(space, Ink(cells[next])))
                }
                x += 2
            } else {
                out.append(.narrow(width == 2 || narrowPair(cell.text) != nil ? space : chars, Ink(cell)))
                x += 1
            }
        }
        return out
    }

    /// The wide characters ncurses should draw for the grapheme cluster `text`, and the
    /// columns the C library gives it (its first character's). The whole cluster when it
    /// fits one cell (`CCHARW_MAX` characters: a flag, a family 👨‍👩‍👧 joined by zero-width
    /// joiners, a letter with its marks), so the terminal draws it as one glyph; else its
    /// first character with the marks that follow it (a joiner ends it then, so that it
    /// cannot join with the next cell).
    static func characters(_ text: String) -> ([wchar_t], Int) {
        let all = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        guard let base = all.first else { return (space, 1) }
        let width = Int(habitto_wcwidth(base))
        if width < 0 { return (unknown, 1) }
        if width == 0 { return (space, 1) }
        let limit = Int(habitto_ccharw_max())
        if all.count <= limit, all.dropFirst().allSatisfy({ habitto_wcwidth($0) >= 0 }) { return (all, min(width, 2)) }
        var chars = [base]
        for c in all.dropFirst() {
            guard chars.count < limit, c != 0x200D, habitto_wcwidth(c) == 0 else { break }
            chars.append(c)
        }
        return (chars, min(width, 2))
    }

    /// `cells` with each character a locale that is not UTF-8 cannot show spelt in ASCII as
    /// the command line spells it (`é` is `e`, `·` is `.`, an emoji `?`), one ASCII character
    /// per column (`…` is `.`), so every column stays where the buffer put it.
    static func folded(_ cells: ArraySlice<Cell>) -> [Cell] {
        var out = Array(cells)
        for i in out.indices where !out[i].text.utf8.allSatisfy({ $0 < 0x80 }) {
            let columns = i + 1 < out.count && out[i + 1].text.isEmpty ? 2 : 1
            var ascii = ASCIIFold.fold(out[i].text).prefix(columns).map(String.init)
            if ascii.isEmpty { ascii = ["?"] }
            while ascii.count < columns { ascii.append(" ") }
            out[i].text = ascii[0]
            if columns == 2 { out[i + 1].text = ascii[1] }
        }
        return out
    }

    /// A cluster of two one-column characters each with its marks (a flag's two regional
    /// indicators, which the C library counts one column each), as two cells' characters;
    /// nil for any other cluster.
    static func narrowPair(_ text: String) -> ([wchar_t], [wchar_t])? {
        var pieces: [[wchar_t]] = []
        for s in text.unicodeScalars {
            let c = wchar_t(bitPattern: s.value), w = habitto_wcwidth(c)
            if w == 1 { pieces.append([c]) } else if w == 0, !pieces.isEmpty, c != 0x200D { pieces[pieces.count - 1].append(c) } else { return nil }
        }
        guard pieces.count == 2, pieces.allSatisfy({ $0.count <= Int(habitto_ccharw_max()) }) else { return nil }
        return (pieces[0], pieces[1])
    }
}
