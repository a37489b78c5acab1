import CNcursesw
import Glibc

/// The ncurses library, loaded when the UI starts rather than linked: a linked library is
/// loaded and relocated by every command, `habitto --version` included, which only the UI
/// needs (docs/performance.md). Only `Terminal` uses
/// it, through `api`, the table of the functions it calls.
enum Curses {
    /// The library's file names to try, the versioned one first (Debian's `libncursesw6`).
    static let names = ["libncursesw.so.6", "libncursesw.so"]

    /// The loaded table, or why it could not be loaded (a one-line reason).
    /// (Immutable once loaded; its pointers are the library's, never freed.)
    nonisolated(unsafe) static let loaded: Result<habitto_curses, TerminalError> = load()

    /// The table, or a `TerminalError` saying what to install.
    static func api() throws(TerminalError) -> habitto_curses { try loaded.get() }

    private static func load() -> Result<habitto_curses, TerminalError> {
        var handle: UnsafeMutableRawPointer?
        var reason = ""
        for name in names {
            handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)
            if handle != nil { break }
            if reason.isEmpty { reason = dlerror().map { String(cString: $0) } ?? name }
        }
        guard let handle else {
            return .failure(TerminalError("cannot start the terminal UI: the ncurses library could not be loaded (\(reason)); install it (on Debian: apt install libncursesw6)"))
        }
        var missing: [String] = []
        func symbol<T>(_ name: String, into slot: inout T?) {
            guard let p = dlsym(handle, name) else { missing.append(name); return }
            slot = unsafeBitCast(p, to: T.self)
        }
        var c = habitto_curses()
        symbol("newterm", into: &c.newterm)
        symbol("set_term", into: &c.set_term)
        symbol("delscreen", into: &c.delscreen)
        symbol("endwin", into: &c.endwin)
        symbol("def_prog_mode", into: &c.def_prog_mode)
        symbol("tigetstr", into: &c.tigetstr)
        symbol("cbreak", into: &c.cbreak)
        symbol("noecho", into: &c.noecho)
        symbol("nonl", into: &c.nonl)
        symbol("intrflush", into: &c.intrflush)
        symbol("keypad", into: &c.keypad)
        symbol("nodelay", into: &c.nodelay)
        symbol("leaveok", into: &c.leaveok)
        symbol("clearok", into: &c.clearok)
        symbol("curs_set", into: &c.curs_set)
        symbol("set_escdelay", into: &c.set_escdelay)
        symbol("key_defined", into: &c.key_defined)
        symbol("define_key", into: &c.define_key)
        symbol("has_colors", into: &c.has_colors)
        symbol("start_color", into: &c.start_color)
        symbol("use_default_colors", into: &c.use_default_colors)
        symbol("init_pair", into: &c.init_pair)
        symbol("getmaxx", into: &c.getmaxx)
        symbol("getmaxy", into: &c.getmaxy)
        symbol("werase", into: &c.werase)
        symbol("wrefresh", into: &c.wrefresh)
        symbol("setcchar", into: &c.setcchar)
        symbol("mvwadd_wch", into: &c.mvwadd_wch)
        symbol("wget_wch", into: &c.wget_wch)
        symbol("stdscr", into: &c.stdscr)
        symbol("COLORS", into: &c.colors)
        symbol("COLOR_PAIRS", into: &c.color_pairs)
        guard missing.isEmpty else {
            return .failure(TerminalError("cannot start the terminal UI: the ncurses library lacks \(missing.joined(separator: ", ")); install ncursesw 6 (on Debian: apt install libncursesw6)"))
        }
        return .success(c)
    }
}
