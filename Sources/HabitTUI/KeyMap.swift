import HabitCore
/// Where the keyboard's input goes: each mode has its own bindings.
public enum Mode: String, CaseIterable, Hashable, Sendable {
    case today, detail, week, help, sync
    /// The overview of every habit (consistency graph, completion, XP per week).
    case overview
    /// The catch-up screen.
    case catchUp = "catch-up"
    /// The inline "how hard was it?" prompt after a check-in completes a habit.
    case rating
    /// The add/edit habit form.
    case form
    /// "Archive this habit?" and "Delete this habit?" questions.
    case confirm
    /// "From today or from the start?" after an edit changed goal, unit, kind or schedule.
    case editFrom = "edit-from"
    /// The typed-amount prompt ("Drink water: add  _ glasses").
    case amount
    /// The note prompt of a habit's day (on the message line).
    case note
    /// The pause prompt of a habit (`P`, on the message line).
    case pause
    /// The timer screen (a countdown for a habit).
    case timer
    /// The timer's duration prompt.
    case timerDuration = "timer-duration"
    /// "Stop the timer?": record what it ran, discard it, or keep going.
    case stopTimer = "stop-timer"
    /// The find prompt (`/`, on the message line): what is typed filters the habits shown, or
    /// the help's keys, as it is typed.
    case filter
    /// The palette (`:`): every action of the screen it was opened on, found by what is typed.
    case palette
}

/// Everything a key can ask for.
public enum Command: String, CaseIterable, Hashable, Sendable {
    case moveDown = "move-down", moveUp = "move-up", first, last
    case checkIn = "check-in", uncheck
    case rate1 = "rate-1", rate2 = "rate-2", rate3 = "rate-3", rate4 = "rate-4", rate5 = "rate-5"
    case undo, skip
    /// Asks for an amount to add, take back (`-2`) or set as the day's total (`=8`).
    case amount
    /// The same prompt, started with `=`: what is typed becomes the day's total.
    case total
    /// Adds or edits the day's note (the note prompt).
    case note
    /// Pauses the habit from the day (the pause prompt), or ends its pause.
    case pause
    case previousDay = "previous-day", nextDay = "next-day", today
    case previousWeek = "previous-week", nextWeek = "next-week"
    case previousMonth = "previous-month", nextMonth = "next-month"
    case add, edit, archive, delete
    /// Moves the selected habit one shown row up or down in the order of habits.
    case moveHabitUp = "move-habit-up", moveHabitDown = "move-habit-down"
    case detail, week, help
    /// Opens the overview of every habit.
    case overview
    /// The detail screen's next or previous page (calendar, score, history, …).
    case nextPage = "next-page", previousPage = "previous-page"
    /// A chart page's next or previous view: the score's span, the history's period, the
    /// weekday chart's bars or grid.
    case nextView = "next-view", previousView = "previous-view"
    case nextTheme = "next-theme", toggleAll = "toggle-all"
    case toggleOffline = "toggle-offline", syncNow = "sync-now", syncScreen = "sync-screen"
    case runAuto = "run-auto"
    case back, quit
    case catchUp = "catch-up", markDone = "done", markNotDone = "not-done", leave
    case nextField = "next-field", previousField = "previous-field", submit, erase
    /// In the form's group field: the next or previous of the existing groups.
    case nextChoice = "next-choice", previousChoice = "previous-choice"
    /// Folds or unfolds the selected habit's group (or the selected heading's).
    case fold
    case confirm, cancel, dismiss
    /// An edit's new goal, unit, kind or schedule counts from today, or from the habit's start.
    case fromToday = "from-today", fromStart = "from-start"
    /// Starts a timer for the selected habit (asks for its duration).
    case timer
    /// Pauses the running timer, or resumes it.
    case pauseTimer = "pause-timer"
    /// Asks whether to stop the running timer.
    case stopTimer = "stop-timer"
    /// Stops the timer and records what it ran; or stops it and records nothing.
    case record, discard
    /// Opens the find prompt (`/`): the habits shown (or the help's keys) are filtered as it is typed.
    case filter
    /// Clears the filter (`esc` on the today screen; `back` does it first on the others).
    case clearFilter = "clear-filter"
    /// Opens the palette of the screen's actions (`:`).
    case palette

    /// The commands that record a habit's day (check in, take back, amount, total, note,
    /// rate, skip), said once: the same on today's row, a week-grid cell and the detail
    /// calendar's day (`dayCommand` carries them out, `KeyMap.recording` binds their keys).
    public static let dayCommands: Set<Command> = [.checkIn, .uncheck, .amount, .total, .note, .rate1, .rate2, .rate3, .rate4, .rate5, .skip,
                                                   .pause]

    /// Whether the command records a habit's day (one of `dayCommands`).
    public var isDayCommand: Bool { Self.dayCommands.contains(self) }

    /// The rating a `rate-N` command sets.
    public var rating: Int? {
        switch self {
        case .rate1: 1
        case .rate2: 2
        case .rate3: 3
        case .rate4: 4
        case .rate5: 5
        default: nil
        }
    }
}

/// One binding: keys that run a command in a mode, with the words the footer and the help
/// screen show.
public struct Binding: Hashable, Sendable {
    public let mode: Mode
    public var keys: [Key]
    public let command: Command
    /// A short label for the footer ("check in").
    public let label: String
    /// Shown in the footer (the most useful keys only).
    public let inFooter: Bool
    /// The label instead when the selected habit is archived ("unarchive"); nil: the same.
    public let archivedLabel: String?

    public init(_ mode: Mode, _ keys: [Key], _ command: Command, _ label: String, footer: Bool = false,
                archivedLabel: String? = nil) {
        self.mode = mode; self.keys = keys; self.command = command; self.label = label; inFooter = footer
        self.archivedLabel = archivedLabel
    }

    /// The label the footer and help show, for a selected habit that is archived or not.
    public func label(archived: Bool) -> String { archived ? archivedLabel ?? label : label }
}

/// The key bindings, as data: the reducer asks it what a key means, and the footer and the
/// help screen are generated from it.
public struct KeyMap: Hashable, Sendable {
    public private(set) var bindings: [Binding]

    public init(bindings: [Binding]) { self.bindings = bindings }

    /// The command a key runs in a mode.
    public func command(for key: Key, in mode: Mode) -> Command? {
        bindings.first { $0.mode == mode && $0.keys.contains(key) }?.command
    }

    /// The bindings of a mode, in table order.
    public func bindings(in mode: Mode) -> [Binding] { bindings.filter { $0.mode == mode } }

    /// The name of the first key that runs `command` in `mode` ("esc"), for hints that name
    /// a key; nil when nothing runs it there.
    public func keyName(_ command: Command, in mode: Mode) -> String? {
        bindings(in: mode).first { $0.command == command }?.keys.first?.description
    }

    /// The footer's entries for a mode: the first key's name and the label (`archived`: the
    /// selected habit is archived), for the commands that `applies` keeps.
    public func footer(for mode: Mode, archived: Bool = false,
                       applies: (Command) -> Bool = { _ in true }) -> [(key: String, label: String)] {
        bindings(in: mode).filter { $0.inFooter && applies($0.command) }
            .compactMap { b in b.keys.first.map { ($0.description, b.label(archived: archived)) } }
    }

    /// Keys bound to two commands in one mode, described ("today: 'j' is move-down and first").
    public var collisions: [String] {
        var out: [String] = []
        for mode in Mode.allCases {
            var seen: [Key: Command] = [:]
            for b in bindings(in: mode) {
                for k in b.keys {
                    if let other = seen[k], other != b.command {
                        out.append("\(mode.rawValue): '\(k)' is both \(other.rawValue) and \(b.command.rawValue)")
                    }
                    seen[k] = b.command
                }
            }
        }
        return out
    }

    private static func k(_ names: String...) -> [Key] { names.map { Key(name: $0)! } }

    /// The keys that record a habit's day, the same on today's row, a week-grid cell and
    /// the detail calendar's day; `footer` names the commands the mode's footer shows.
    private static func recording(_ mode: Mode, footer: Set<Command>) -> [Binding] {
        [
            Binding(mode, k("space"), .checkIn, "check in", footer: footer.contains(.checkIn)),
            Binding(mode, k("x", "backspace"), .uncheck, "take back", footer: footer.contains(.uncheck)),
            Binding(mode, k("n"), .amount, "amount", footer: footer.contains(.amount)),
            Binding(mode, k("="), .total, "set the day's total"),
            Binding(mode, k("N"), .note, "note on the day"),
            Binding(mode, k("1"), .rate1, "rate very easy"),
            Binding(mode, k("2"), .rate2, "rate easy"),
            Binding(mode, k("3"), .rate3, "rate medium"),
            Binding(mode, k("4"), .rate4, "rate hard"),
            Binding(mode, k("5"), .rate5, "rate very hard"),
            Binding(mode, k("u"), .undo, "undo", footer: footer.contains(.undo)),
            Binding(mode, k("s"), .skip, "skip", footer: footer.contains(.skip)),
            Binding(mode, k("P"), .pause, "pause, or end a pause"),
        ]
    }

    /// The default bindings.
    public static let defaults = KeyMap(bindings: [
        Binding(.today, k("j", "down", "wheel-down"), .moveDown, "down"),
        Binding(.today, k("k", "up", "wheel-up"), .moveUp, "up"),
        Binding(.today, k("g", "home"), .first, "first"),
        Binding(.today, k("G", "end"), .last, "last"),
    ] + recording(.today, footer: [.checkIn, .uncheck, .amount, .undo, .skip]) + [
        Binding(.today, k("h", "left"), .previousDay, "previous day", footer: true),
        Binding(.today, k("l", "right"), .nextDay, "next day"),
        Binding(.today, k("0"), .today, "today"),
        Binding(.today, k("t"), .timer, "timer"),
        Binding(.today, k("a"), .add, "add", footer: true),
        Binding(.today, k("e"), .edit, "edit"),
        Binding(.today, k("A"), .archive, "archive", archivedLabel: "unarchive"),
        Binding(.today, k("K"), .moveHabitUp, "move habit up"),
        Binding(.today, k("J"), .moveHabitDown, "move habit down"),
        Binding(.today, k("D"), .delete, "delete"),
        Binding(.today, k("enter"), .detail, "details"),
        Binding(.today, k("w"), .week, "week"),
        Binding(.today, k("O"), .overview, "overview of all habits"),
        Binding(.today, k("v"), .toggleAll, "show all"),
        Binding(.today, k("z"), .fold, "fold/unfold group"),
        Binding(.today, k("T"), .nextTheme, "next theme"),
        Binding(.today, k("o"), .toggleOffline, "offline/online"),
        Binding(.today, k("S"), .syncNow, "sync now"),
        Binding(.today, k("y"), .syncScreen, "sync details"),
        Binding(.today, k("c"), .catchUp, "catch up"),
        Binding(.today, k("r"), .runAuto, "run auto habit"),
        Binding(.today, k("/"), .filter, "find habits"),
        Binding(.today, k("esc"), .clearFilter, "clear filter"),
        Binding(.today, k(":"), .palette, "all actions"),
        Binding(.today, k("?"), .help, "help", footer: true),
        Binding(.today, k("q"), .quit, "quit", footer: true),

        Binding(.detail, k("tab"), .nextPage, "next page", footer: true),
        Binding(.detail, k("shift-tab"), .previousPage, "previous page"),
        Binding(.detail, k("]"), .nextView, "next view"),
        Binding(.detail, k("["), .previousView, "previous view"),
    ] + recording(.detail, footer: [.checkIn, .uncheck, .amount]) + [
        Binding(.detail, k("h", "left"), .previousDay, "day before", footer: true),
        Binding(.detail, k("l", "right"), .nextDay, "day after"),
        Binding(.detail, k("H", "pageup", "wheel-up"), .previousMonth, "month before", footer: true),
        Binding(.detail, k("L", "pagedown", "wheel-down"), .nextMonth, "month after"),
        Binding(.detail, k("t"), .today, "today"),
        Binding(.detail, k("j", "down"), .moveDown, "next habit"),
        Binding(.detail, k("k", "up"), .moveUp, "previous habit"),
        Binding(.detail, k("T"), .nextTheme, "next theme"),
        Binding(.detail, k(":"), .palette, "all actions"),
        Binding(.detail, k("?"), .help, "help", footer: true),
        Binding(.detail, k("esc", "q", "enter"), .back, "back", footer: true),

    ] + recording(.week, footer: [.checkIn, .uncheck, .amount, .skip]) + [
        Binding(.week, k("j", "down", "wheel-down"), .moveDown, "next habit"),
        Binding(.week, k("k", "up", "wheel-up"), .moveUp, "previous habit"),
        Binding(.week, k("h", "left"), .previousDay, "day before"),
        Binding(.week, k("l", "right"), .nextDay, "day after"),
        Binding(.week, k("H", "pageup"), .previousWeek, "week before"),
        Binding(.week, k("L", "pagedown"), .nextWeek, "week after"),
        Binding(.week, k("t"), .today, "today"),
        Binding(.week, k("enter"), .detail, "details"),
        Binding(.week, k("T"), .nextTheme, "next theme"),
        Binding(.week, k("/"), .filter, "find habits"),
        Binding(.week, k(":"), .palette, "all actions"),
        Binding(.week, k("?"), .help, "help", footer: true),
        Binding(.week, k("esc", "q", "w"), .back, "back", footer: true),

        Binding(.overview, k("j", "down", "wheel-down"), .moveDown, "scroll down", footer: true),
        Binding(.overview, k("k", "up", "wheel-up"), .moveUp, "scroll up", footer: true),
        Binding(.overview, k("T"), .nextTheme, "next theme"),
        Binding(.overview, k("/"), .filter, "find habits"),
        Binding(.overview, k(":"), .palette, "all actions"),
        Binding(.overview, k("?"), .help, "help", footer: true),
        Binding(.overview, k("esc", "q", "O"), .back, "back", footer: true),

        Binding(.sync, k("o"), .toggleOffline, "offline/online", footer: true),
        Binding(.sync, k("S"), .syncNow, "sync now", footer: true),
        Binding(.sync, k(":"), .palette, "all actions"),
        Binding(.sync, k("?"), .help, "help", footer: true),
        Binding(.sync, k("esc", "q", "y"), .back, "back", footer: true),

        Binding(.catchUp, k("y"), .markDone, "done", footer: true),
        Binding(.catchUp, k("n"), .markNotDone, "not done", footer: true),
        Binding(.catchUp, k("s"), .skip, "skip", footer: true),
        Binding(.catchUp, k("a"), .amount, "amount", footer: true),
        Binding(.catchUp, k("1"), .rate1, "done, very easy"),
        Binding(.catchUp, k("2"), .rate2, "done, easy"),
        Binding(.catchUp, k("3"), .rate3, "done, medium"),
        Binding(.catchUp, k("4"), .rate4, "done, hard"),
        Binding(.catchUp, k("5"), .rate5, "done, very hard"),
        Binding(.catchUp, k("enter"), .leave, "leave it", footer: true),
        Binding(.catchUp, k("j", "down", "wheel-down"), .moveDown, "next"),
        Binding(.catchUp, k("k", "up", "wheel-up"), .moveUp, "previous"),
        Binding(.catchUp, k("u"), .undo, "undo"),
        Binding(.catchUp, k(":"), .palette, "all actions"),
        Binding(.catchUp, k("?"), .help, "help", footer: true),
        Binding(.catchUp, k("esc", "q", "c"), .back, "back", footer: true),

        // Previous page first: on a narrow footer it gives way before next page does.
        Binding(.help, k("k", "up", "pageup", "wheel-up"), .moveUp, "previous page", footer: true),
        Binding(.help, k("j", "down", "pagedown", "space", "wheel-down"), .moveDown, "next page", footer: true),
        Binding(.help, k("/"), .filter, "find keys"),
        Binding(.help, k(":"), .palette, "all actions"),
        Binding(.help, k("esc", "q", "?"), .back, "back", footer: true),

        Binding(.rating, k("1"), .rate1, "very easy", footer: true),
        Binding(.rating, k("2"), .rate2, "easy", footer: true),
        Binding(.rating, k("3"), .rate3, "medium", footer: true),
        Binding(.rating, k("4"), .rate4, "hard", footer: true),
        Binding(.rating, k("5"), .rate5, "very hard", footer: true),
        Binding(.rating, k("esc"), .dismiss, "not now", footer: true),

        Binding(.form, k("tab", "down"), .nextField, "next field", footer: true),
        Binding(.form, k("shift-tab", "up"), .previousField, "previous field", footer: true),
        Binding(.form, k("enter"), .submit, "save", footer: true),
        Binding(.form, k("backspace"), .erase, "erase"),
        Binding(.form, k("right"), .nextChoice, "next group name"),
        Binding(.form, k("left"), .previousChoice, "previous group name"),
        Binding(.form, k("esc"), .cancel, "cancel", footer: true),

        Binding(.amount, k("enter"), .submit, "record", footer: true),
        Binding(.amount, k("backspace"), .erase, "erase"),
        Binding(.amount, k("esc"), .cancel, "cancel", footer: true),

        Binding(.note, k("enter"), .submit, "save", footer: true),
        Binding(.note, k("backspace"), .erase, "erase"),
        Binding(.note, k("esc"), .cancel, "cancel", footer: true),

        Binding(.pause, k("enter"), .submit, "pause", footer: true),
        Binding(.pause, k("backspace"), .erase, "erase"),
        Binding(.pause, k("esc"), .cancel, "cancel", footer: true),

        Binding(.filter, k("enter"), .submit, "keep filter", footer: true),
        Binding(.filter, k("backspace"), .erase, "erase"),
        Binding(.filter, k("esc"), .cancel, "clear filter", footer: true),

        Binding(.palette, k("down", "ctrl-n"), .moveDown, "next action", footer: true),
        Binding(.palette, k("up", "ctrl-p"), .moveUp, "previous action", footer: true),
        Binding(.palette, k("enter"), .submit, "run it", footer: true),
        Binding(.palette, k("backspace"), .erase, "erase"),
        Binding(.palette, k("esc"), .cancel, "close", footer: true),

        Binding(.editFrom, k("t"), .fromToday, "from today", footer: true),
        Binding(.editFrom, k("s"), .fromStart, "from the start", footer: true),
        Binding(.editFrom, k("esc"), .cancel, "back to the form", footer: true),

        Binding(.timer, k("p", "space"), .pauseTimer, "pause/resume", footer: true),
        Binding(.timer, k("?"), .help, "help", footer: true),
        Binding(.timer, k("esc", "q"), .stopTimer, "stop", footer: true),

        Binding(.timerDuration, k("enter"), .submit, "start", footer: true),
        Binding(.timerDuration, k("backspace"), .erase, "erase"),
        Binding(.timerDuration, k("esc"), .cancel, "cancel", footer: true),

        Binding(.stopTimer, k("r"), .record, "record what it ran", footer: true),
        Binding(.stopTimer, k("d"), .discard, "discard", footer: true),
        Binding(.stopTimer, k("esc"), .cancel, "keep going", footer: true),

        Binding(.confirm, k("y"), .confirm, "yes", footer: true),
        Binding(.confirm, k("n", "esc"), .cancel, "no", footer: true),
    ])

    /// Applies a user's key file: `mode.command = key, key` lines (`today.check-in = i, space`)
    /// replace that command's keys in that mode; `#` starts a comment. Returns the map and
    /// one-line problems naming the file and line; a bad line, or one that would make two
    /// bindings collide, is ignored.
    public func applying(_ text: String, file: String) -> (KeyMap, [String]) {
        var map = self
        var problems: [String] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let at = "\(file) line \(n + 1)"
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingBlanks } ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks }
            guard parts.count == 2 else { problems.append("\(at): expected 'mode.command = key, key'"); continue }
            let target = parts[0].split(separator: ".", maxSplits: 1).map(String.init)
            guard target.count == 2, let mode = Mode(rawValue: target[0]) else {
                problems.append("\(at): unknown mode in '\(parts[0])' (modes: \(Mode.allCases.map(\.rawValue).joined(separator: ", ")))")
                continue
            }
            guard let command = Command(rawValue: target[1]),
                  let index = map.bindings.firstIndex(where: { $0.mode == mode && $0.command == command }) else {
                let names = map.bindings(in: mode).map(\.command.rawValue)
                let hint = Suggest.nearest(target[1], among: names).map { "did you mean '\($0)'? " } ?? ""
                problems.append("\(at): '\(target[1])' is not a command of \(mode.rawValue) (\(hint)commands: \(names.joined(separator: ", ")))")
                continue
            }
            var keys: [Key] = []
            var bad: [String] = []
            for name in parts[1].split(separator: ",").map({ $0.trimmingBlanks }) where !name.isEmpty {
                if let key = Key(name: name) { keys.append(key) } else { bad.append("'\(name)'") }
            }
            if !bad.isEmpty {
                problems.append("\(at): unknown key\(bad.count > 1 ? "s" : "") \(bad.joined(separator: ", ")) (e.g. j, G, space, enter, esc, up, ctrl-l)")
                continue
            }
            guard !keys.isEmpty else { problems.append("\(at): no keys given"); continue }
            var candidate = map
            candidate.bindings[index].keys = keys
            if let clash = candidate.collisions.first {
                problems.append("\(at): ignored, it would make \(clash)")
                continue
            }
            map = candidate
        }
        return (map, problems)
    }
}
