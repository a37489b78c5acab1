/// A key press, as the terminal driver reports it.
public enum Key: Hashable, Sendable, CustomStringConvertible {
    /// A printable character (including space).
    case char(Character)
    /// Control plus a letter (`ctrl("c")`).
    case ctrl(Character)
    case up, down, left, right
    case enter, escape, backspace, tab, backTab, delete
    case home, end, pageUp, pageDown
    /// The mouse wheel turned up or down (bound like keys: `wheel-up`, `wheel-down`).
    case wheelUp, wheelDown

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
        case .wheelUp: return "wheel-up"
        case .wheelDown: return "wheel-down"
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
        case "wheel-up": self = .wheelUp; return
        case "wheel-down": self = .wheelDown; return
        default: break
        }
        if name.count == 1 { self = .char(name.first!); return }
        let lower = name.lowercased()
        if lower.hasPrefix("ctrl-"), lower.count == 6, let c = lower.last, c.isLetter { self = .ctrl(c); return }
        return nil
    }
}

/// What the terminal reports of the mouse: a press of its left button on a cell (0-based
/// column and row), or the wheel (as the keys `wheel-up` and `wheel-down`). Other buttons,
/// releases and motion report nothing.
public enum MouseReport: Hashable, Sendable {
    case click(x: Int, y: Int)
    case wheel(Key)

    /// Parses the body of an SGR (1006) mouse report, what follows `ESC [ <`: `B;X;YM` for a
    /// press, `B;X;Ym` for a release, X and Y from 1. Nil for anything else: a malformed or
    /// oversized report, another button, a release, motion (untrusted bytes are checked here).
    public static func sgr(_ body: String) -> MouseReport? {
        guard body.utf8.count <= 32, let last = body.last, last == "M" || last == "m" else { return nil }
        let fields = body.dropLast().split(separator: ";", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ !$0.isEmpty && $0.count <= 5 && $0.allSatisfy(\.isASCII) }),
              let b = Int(fields[0]), let x = Int(fields[1]), let y = Int(fields[2]), x >= 1, y >= 1 else { return nil }
        // Bits 2-4 are shift, meta and control; 32 is motion; 64 the wheel (+1: down).
        let button = b & ~(4 | 8 | 16)
        switch button {
        case 0 where last == "M": return .click(x: x - 1, y: y - 1)
        case 64: return .wheel(.wheelUp)
        case 65: return .wheel(.wheelDown)
        default: return nil
        }
    }
}
