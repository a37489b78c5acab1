/// A key press, as the terminal driver reports it.
public enum Key: Hashable, Sendable, CustomStringConvertible {
    /// A printable character (including space).
    case char(Character)
    /// Control plus a letter (`ctrl("c")`).
    case ctrl(Character)
    case up, down, left, right
    case enter, escape, backspace, tab, backTab, delete
    case home, end, pageUp, pageDown

    /// The name used in key-map files and the help screen: `j`, `G`, `space`, `enter`,
    /// `esc`, `backspace`, `up`, `ctrl-l`, `?`.
    public var description: String {
        switch self {
        case .char(" "): return "space"
        case .char(let c): return String(c)
        case .ctrl(let c): return "ctrl-\(c)"
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        case .enter: return "enter"
        case .escape: return "esc"
        case .backspace: return "backspace"
        case .tab: return "tab"
        case .backTab: return "shift-tab"
        case .delete: return "delete"
        case .home: return "home"
        case .end: return "end"
        case .pageUp: return "pageup"
        case .pageDown: return "pagedown"
        }
    }

    /// Parses a name written by `description` (and a few aliases: `return`, `escape`, `←`).
    public init?(name: String) {
        switch name.lowercased() {
        case "space": self = .char(" "); return
        case "enter", "return": self = .enter; return
        case "esc", "escape": self = .escape; return
        case "backspace", "bs": self = .backspace; return
        case "tab": self = .tab; return
        case "shift-tab", "backtab": self = .backTab; return
        case "delete", "del": self = .delete; return
        case "up", "↑": self = .up; return
        case "down", "↓": self = .down; return
        case "left", "←": self = .left; return
        case "right", "→": self = .right; return
        case "home": self = .home; return
        case "end": self = .end; return
        case "pageup", "pgup": self = .pageUp; return
        case "pagedown", "pgdn": self = .pageDown; return
        default: break
        }
        if name.count == 1 { self = .char(name.first!); return }
        let lower = name.lowercased()
        if lower.hasPrefix("ctrl-"), lower.count == 6, let c = lower.last, c.isLetter { self = .ctrl(c); return }
        return nil
    }
}
