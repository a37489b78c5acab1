import FoundationEssentials
import HabitCore

/// The screens.
public enum Screen: Hashable, Sendable {
    case today
    case detail(HabitID)
    case week
    case help(from: Mode)
    /// The sync screen: queue, recent attempts, devices.
    case sync
    /// The overview of every habit: the consistency graph, completion and XP per week.
    case overview
    /// Catching up: the habit-days with nothing recorded (`AppState.catchUp`), answered one by one.
    case catchUp
    /// The running timer's countdown (`AppState.timer`).
    case timer

    /// Whether it is the help screen (whose filter finds keys, not habits).
    public var isHelp: Bool { if case .help = self { true } else { false } }
}

/// A question or form shown over the current screen.
public enum Overlay: Hashable, Sendable {
    /// "How hard was it?" for a habit's day, after a check-in completed it.
    case rating(HabitID, LocalDay)
    /// "Archive 'Read'?", or "Unarchive 'Read'?" when it is archived.
    case confirmArchive(HabitID)
    case confirmDelete(HabitID)
    case form(HabitForm)
    /// "Goal, schedule: from today (t) or from the start (s)?", after a saved edit form
    /// changed a rule field of a habit that started before today: the form (kept to go
    /// back to) and the fields to write.
    case editFrom(HabitForm, HabitFields)
    /// "Drink water: add  _ glasses": an amount typed for a habit's day.
    case amount(AmountPrompt)
    /// "Read · Sat 21 Nov note: _": a habit's day's note, edited on the message line.
    case note(NotePrompt)
    /// "Read: timer for  25m_": a timer's duration, typed for a habit's day.
    case timerDuration(TimerPrompt)
    /// "Stop the timer? r records 12 min, d discards, esc keeps going".
    case stopTimer
    /// "find: rea_": the find prompt on the message line; what it holds is the screen's
    /// filter (`AppState.filter`, or `helpFilter` on the help), changed as each key arrives.
    case filter
    /// The palette of the screen's actions (`:`).
    case palette(Palette)
    /// "Read: pause 2026-12-06 _": a habit's pause (first and last day, a reason), or `end`.
    case pause(PausePrompt)
}

extension Overlay {
    /// The habit a question or prompt is about (it goes when the habit does); nil for the
    /// others.
    public var habit: HabitID? {
        switch self {
        case .rating(let h, _), .confirmArchive(let h), .confirmDelete(let h): return h
        case .amount(let p): return p.habit
        case .note(let p): return p.habit
        case .pause(let p): return p.habit
        case .timerDuration(let p): return p.habit
        case .form, .editFrom, .stopTimer, .filter, .palette: return nil
        }
    }
}

/// The palette (`:`): the bindings of the mode it was opened from, found fuzzily by what is
/// typed (`Find.score` on the label and the command's name), best first; enter runs the
/// selected one as its key would.
public struct Palette: Hashable, Sendable {
    /// The mode whose bindings it lists (and whose key it presses).
    public let from: Mode
    /// What is typed so far.
    public var query = ""
    /// The selected entry, an index into `entries`.
    public var index = 0

    public init(from: Mode) { self.from = from }

    /// The most the query holds.
    public static let maxLength = 40

    /// The bindings it lists for `query`: every binding of `from` but the palette's own, best
    /// match first (table order among equals, and for an empty query); `archived` picks the
    /// labels of an archived habit.
    public func entries(_ map: KeyMap, archived: Bool = false) -> [Binding] {
        let all = map.bindings(in: from).filter { $0.command != .palette && !$0.keys.isEmpty }
        let scored = all.enumerated().compactMap { i, b -> (Int, Int, Binding)? in
            let best = [Find.score(query, in: b.label(archived: archived)), Find.score(query, in: b.command.rawValue)]
                .compactMap { $0 }.max()
            return best.map { ($0, i, b) }
        }
        return scored.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }.map(\.2)
    }

    /// Types a character (printable, up to `maxLength`); the selection goes to the best match.
    public mutating func type(_ c: Character) {
        guard query.count < Self.maxLength, !c.isNewline, !(c.asciiValue.map { $0 < 32 || $0 == 127 } ?? false) else { return }
        query.append(c)
        index = 0
    }

    /// Erases the last character; the selection goes to the best match.
    public mutating func erase() {
        if !query.isEmpty { query.removeLast() }
        index = 0
    }
}

/// A one-line message: a confirmation, a warning or an error.
public struct Message: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case info, warning, error }
    public let text: String
    public let kind: Kind
    public init(_ text: String, _ kind: Kind = .info) { self.text = text; self.kind = kind }
}

/// What the reducer asks the outside world to do.
public enum Effect: Hashable, Sendable {
    /// Carry out a user's request (its changes by `Intent.changes`, under the repository's lock).
    case write(Intent)
    case undo
    case loadTheme(String)
    /// Turn the offline switch on or off (persisted).
    case setOffline(Bool)
    /// Sync now (clears a failure, cuts a backoff short).
    case syncNow
    /// Run an auto habit's command now and record its result (`habitto auto`).
    case runAuto(HabitID)
    /// Show a desktop notification (`notify-send`, where it is), e.g. when a timer ends.
    case notify(title: String, body: String)
    case quit
}

/// What can happen to the app.
public enum Action: Equatable, Sendable {
    case key(Key)
    /// A click of the mouse's left button on a cell (0-based column and row): what the
    /// screen drew there decides (`ScreenBuffer.regions`).
    case click(x: Int, y: Int)
    case resized(width: Int, height: Int)
    /// The repository's state changed (a write here, or another process's).
    case stateChanged(HabitState)
    /// The clock moved to another habit day (midnight, or the day-start hour).
    case dayChanged(LocalDay)
    /// A write finished: what it did (the reducer words it).
    case written(Outcome)
    /// The rules refused a write (checked again under the repository's lock); nothing changed.
    case refused(CoreError)
    /// An undo finished: the label of what it undid, nil when there was nothing to undo.
    case undone(String?)
    /// An auto habit's command ran (`Effect.runAuto`): what it came to, nil when the habit is gone.
    case autoRan(AutoRunReport?)
    /// A write, an undo, an auto run or a sync switch failed outside the rules (storage):
    /// the storage's own one-line description of it; nothing changed.
    case failed(String)
    case warning(String)
    /// A theme was loaded (with its problems, if any).
    case themeLoaded(String, problems: [String])
    /// The sync engine's state changed.
    case syncChanged(SyncInfo)
    /// Time passed (for countdowns while idle).
    case tick(Date)
    /// This machine's auto habits and each one's last result.
    case autoChanged([HabitID: AutoLast])
    /// The timer clock read (seconds, monotonic: neither the wall clock nor `HABITTO_NOW`
    /// moves it), before the keys of a round of the loop: a running timer counts down by it.
    case timerClock(Double)
}

/// Everything the screen shows, and nothing else: `render` is a function of this.
public struct AppState: Hashable, Sendable {
    public var habits: HabitState { didSet { recompute() } }
    public var today: LocalDay { didSet { recompute() } }
    /// The day shown (today unless the user went back to backfill).
    public var date: LocalDay { didSet { recompute() } }
    public var settings: RuleSettings { didSet { recompute() } }
    /// Show every habit, not only those due on the date.
    public var showAll = false { didSet { recompute() } }
    /// The groups whose habits the today screen hides under their heading (kept in memory
    /// only: every group is unfolded when the app starts).
    public var foldedGroups: Set<String> = [] { didSet { recompute() } }
    /// What `/` typed on the today, week and overview screens: only the habits whose name,
    /// group or notes hold it (`Find.contains`) are shown there; empty: every habit.
    public var filter = "" { didSet { if filter != oldValue { recompute(figures: false) } } }
    /// What `/` typed on the help: only the keys whose label or command holds it are listed.
    public var helpFilter = ""
    /// The folded group whose heading the today screen's selection is on (then no habit is
    /// selected).
    public var selectedGroup: String?
    public var screen: Screen = .today
    public var overlay: Overlay?
    public var message: Message?
    /// Messages waiting for the message line (the problems of a key or theme file beyond the
    /// first): the next one shows after a key that leaves the line empty.
    public var queuedMessages: [Message] = []
    /// The habit the selection is on (kept when rows move).
    public var selectedID: HabitID?
    public var width: Int
    public var height: Int
    public var glyphs: Glyphs
    public var keyMap: KeyMap
    public var themeName: String
    public var themeNames: [String]
    /// The directories themes are looked for in (the user's first), for the message that
    /// says where to put one when `T` finds no other theme.
    public var themeDirectories: [String] = []
    /// Where the data lives, for the status bar.
    public var location: String
    /// The sync state, for the status bar, the row icons and the sync screen.
    public var sync = SyncInfo()
    /// `S` or going online asked for a round whose result is not shown yet.
    public var awaitingRound = false
    /// The time now, for "last sync 2 min ago" and retry countdowns.
    public var now = Date(timeIntervalSince1970: 0)
    /// First row shown in the habit list (scrolling).
    public var scroll = 0
    /// Days the week overview is moved back from the date (negative: forward, up to today).
    public var weekOffset = 0
    /// The day the week overview's and the detail calendar's cursor is on.
    public var cursorDay: LocalDay
    /// The habit the week overview's cursor is on.
    public var cursorHabit: HabitID?
    /// The detail screen's page (kept when the habit changes, as are the views below).
    public var detailPage: DetailPage = .calendar
    /// The score page's span.
    public var scoreSpan: ChartSpan = .year
    /// The history page's period per bar.
    public var historyBucket: ChartBucket = .week
    /// The weekday page shows the weekday × month grid instead of bars per weekday.
    public var weekdayGrid = false
    /// First habit row the overview shows (scrolling).
    public var overviewScroll = 0
    /// The help screen's page.
    public var helpPage = 0
    /// The catch-up screen's habit-days, fixed when it opens (answered ones stay, showing
    /// what was recorded), and the one selected.
    public var catchUp: [CatchUpItem] = []
    public var catchUpIndex = 0
    /// The timer counting down (shown on the timer screen), nil when none runs.
    public var timer: HabitTimer?
    /// The timer clock's last reading (`Action.timerClock`): a timer starts from it.
    public var timerNow = 0.0

    /// Derived from the above: the rows of the today screen, in the listing order
    /// (`HabitState.listed`: ungrouped habits first, then each group's) and the account figures.
    public private(set) var rows: [HabitSummary] = []
    /// The lines of the today screen: the rows, with a heading before each group's (none
    /// when no row has a group), and without the rows of folded groups.
    public private(set) var lines: [TodayLine] = []
    public private(set) var stats: Stats
    /// How many of the day's due habits are done, and how many are due (every habit, the
    /// filter aside), for the status bar.
    public private(set) var dayDone = 0, dayDue = 0
    /// The habit-days before today to catch up on, for the today screen's hint.
    public private(set) var missed: [CatchUpItem] = []
    /// The habits that share their name with another (a merge can leave two), each with the
    /// id prefix that tells it apart (see `Edits.namesakeTags`): every screen shows it after the name.
    public private(set) var namesakeTags: [HabitID: String] = [:]
    /// A habit's name as every row and title shows it: "Walk #1a2b" when it shares its name
    /// (see `Edits.label`), else its name.
    public func label(_ habit: Habit) -> String { Edits.label(habit, tags: namesakeTags) }

    /// The label (sanitized, not padded) in at most `width` columns: the name gives way (cut
    /// with `…`) before the tag that tells namesakes apart does.
    public func label(_ habit: Habit, width: Int) -> String {
        func cut(_ s: String, _ w: Int) -> String { TextWidth.of(s) <= w ? s : TextWidth.fit(s, w) }
        let name = Sanitize.display(habit.name), tag = Edits.namesakeSuffix(habit.id, namesakeTags)
        let room = width - TextWidth.of(tag)
        guard !tag.isEmpty, TextWidth.of(name) > room, room >= 2 else { return cut(name + tag, max(0, width)) }
        return cut(name, room) + tag
    }
    /// This machine's auto habits (`habitto auto`) and each one's last result: the today
    /// screen marks them, and `r` runs one's command.
    public var autoResults: [HabitID: AutoLast] = [:]

    public init(habits: HabitState, today: LocalDay, settings: RuleSettings = .init(), width: Int = 80,
                height: Int = 24, glyphs: Glyphs = .unicode, keyMap: KeyMap = .defaults,
                themeName: String = "default", themeNames: [String] = ["default"], location: String = "") {
        self.habits = habits; self.today = today; self.date = today; self.settings = settings
        cursorDay = today
        self.width = width; self.height = height; self.glyphs = glyphs; self.keyMap = keyMap
        self.themeName = themeName; self.themeNames = themeNames; self.location = location
        stats = habits.stats(today: today, settings: settings)
        recompute()
    }

    /// Recomputes the derived rows and figures (the reducer changes inputs; this follows);
    /// `figures: false` (a new filter) leaves the account figures and the missed days, which
    /// do not depend on what is shown.
    mutating func recompute(figures: Bool = true) {
        let all = showAll
        let everyHabit = habits.listed
        namesakeTags = Edits.namesakeTags(everyHabit)
        let unfiltered = everyHabit.compactMap { habit -> HabitSummary? in
            let s = habits.summary(habit, on: date, today: today, settings: settings)
            if all { return s }
            guard habit.isActive(on: date), s.scheduled || s.progress > 0 || s.skipped else { return nil }
            return s
        }
        dayDone = unfiltered.filter { $0.scheduled && !$0.skipped && $0.completed && ($0.progress > 0 || $0.habit.kind == .limit) }.count
        dayDue = unfiltered.filter { $0.scheduled && !$0.skipped }.count
        let query = filter
        let due = query.isEmpty ? unfiltered : unfiltered.filter { habitMatches($0.habit, query) }
        let groups = orderedGroups(due.map(\.habit))
        rows = due.filter { $0.habit.fields.group == nil }
        lines = rows.indices.map(TodayLine.habit)
        for group in groups {
            let members = due.filter { $0.habit.fields.group == group }
            let folded = foldedGroups.contains(group)
            let done = members.filter { dayGlyph($0, glyphs).1 == .done }.count
            lines.append(.heading(group: group, count: members.count, done: done, folded: folded))
            if !folded { lines += (rows.count..<rows.count + members.count).map(TodayLine.habit) }
            rows += members
        }
        if figures {
            stats = habits.stats(today: today, settings: settings)
            missed = CatchUp.missed(habits, today: today, settings: settings)
        }
        // The selection stays on its habit, or on its folded group's heading; else the first line.
        if let g = selectedGroup, !(foldedGroups.contains(g) && groups.contains(g)) { selectedGroup = nil }
        if let id = selectedID {
            if let row = rows.first(where: { $0.habit.id == id }) {
                if let g = row.habit.fields.group, foldedGroups.contains(g) { selectedGroup = g; selectedID = nil }
            } else {
                selectedID = nil
            }
        }
        if selectedID == nil && selectedGroup == nil, let line = lines.first(where: \.isSelectable) { select(line) }
    }

    /// Shows `messages` one after another, numbered (`[1/3] …`) when there is more than one:
    /// the first now, each next one after a key that leaves the message line empty.
    public mutating func show(_ messages: [Message]) {
        let numbered = messages.count < 2 ? messages : messages.enumerated().map { i, m in
            Message("[\(i + 1)/\(messages.count)] " + m.text, m.kind)
        }
        message = numbered.first
        queuedMessages = Array(numbered.dropFirst())
    }

    /// Puts the selection on a line (a habit's, or a folded group's heading).
    mutating func select(_ line: TodayLine) {
        switch line {
        case .habit(let i): selectedID = rows[i].habit.id; selectedGroup = nil
        case .heading(let group, _, _, _): selectedGroup = group; selectedID = nil
        }
    }

    /// Selects a habit's row, or its group's heading when the group is folded.
    mutating func selectHabit(_ id: HabitID) {
        guard let i = rows.firstIndex(where: { $0.habit.id == id }) else { return }
        if let g = rows[i].habit.fields.group, foldedGroups.contains(g) { selectedGroup = g; selectedID = nil } else { select(.habit(i)) }
    }

    /// The index of the selected line in `lines`.
    public var selectedLine: Int? {
        if let g = selectedGroup { return lines.firstIndex { $0.group == g } }
        guard let i = selectedIndex else { return nil }
        return lines.firstIndex(of: .habit(i))
    }

    /// The index of the selected row (nil when a folded group's heading is selected).
    public var selectedIndex: Int? {
        guard selectedGroup == nil, let id = selectedID else { return nil }
        return rows.firstIndex { $0.habit.id == id }
    }

    /// The selected row's summary.
    public var selected: HabitSummary? { selectedIndex.map { rows[$0] } }

    /// Whether the selected habit is archived (its archive key then unarchives it).
    public var selectedIsArchived: Bool { selected?.habit.fields.archivedFrom != nil }

    /// The `count` recent days a today row shows, oldest first: the days to today, or, when
    /// the day shown is before the first of them, the days from it (it is then the first).
    public func recentDays(_ count: Int) -> [LocalDay] {
        guard count > 0 else { return [] }
        let end = date > today.adding(-count) ? today : date.adding(count - 1)
        return (0..<count).map { end.adding($0 - count + 1) }
    }

    /// The last of the days the week overview shows.
    public var weekEnd: LocalDay { date.adding(-weekOffset) }

    /// The week overview's first grid column (the names are left of it).
    public var weekGridX: Int { max(14, min(30, width - 14 * 3 - 2)) }

    /// How many days the week overview shows: 14, or as many as fit a narrow screen.
    public var weekDayCount: Int { max(1, min(14, (width - weekGridX) / 3)) }

    /// The days the week overview shows, oldest first.
    public var weekDays: [LocalDay] { (0..<weekDayCount).map { weekEnd.adding($0 - weekDayCount + 1) } }

    /// The habits the week overview lists, in the listing order: those not archived before its first day.
    public var weekHabits: [Habit] {
        let first = weekEnd.adding(1 - weekDayCount)
        return habits.listed.filter { ($0.fields.archivedFrom ?? .latest) > first && habitMatches($0, filter) }
    }

    /// The mode keys go to: the overlay's, else the screen's.
    public var mode: Mode {
        switch overlay {
        case .rating: return .rating
        case .confirmArchive, .confirmDelete: return .confirm
        case .form(let form): return form.asksDiscard ? .confirm : .form
        case .editFrom: return .editFrom
        case .amount: return .amount
        case .note: return .note
        case .pause: return .pause
        case .timerDuration: return .timerDuration
        case .stopTimer: return .stopTimer
        case .filter: return .filter
        case .palette: return .palette
        case nil: break
        }
        switch screen {
        case .today: return .today
        case .detail: return .detail
        case .week: return .week
        case .help: return .help
        case .sync: return .sync
        case .catchUp: return .catchUp
        case .overview: return .overview
        case .timer: return .timer
        }
    }
}

/// Whether a habit is shown under the filter `query`: its name, group or notes hold it
/// (folded, see `Find.contains`); every habit is under an empty one.
func habitMatches(_ habit: Habit, _ query: String) -> Bool {
    query.isEmpty || [habit.name, habit.fields.group ?? "", habit.fields.notes ?? ""].contains { Find.contains($0, query) }
}

/// The detail screen's pages, in the order `tab` goes through them.
public enum DetailPage: String, CaseIterable, Hashable, Sendable {
    case calendar, score, history, weekday, streaks, difficulty

    /// The page's name in the screen's title.
    public var title: String {
        switch self {
        case .calendar: "Calendar"
        case .score: "Score"
        case .history: "History"
        case .weekday: "Weekdays"
        case .streaks: "Best streaks"
        case .difficulty: "Difficulty"
        }
    }

    /// The page `steps` pages on (wrapping round).
    public func moved(_ steps: Int) -> DetailPage {
        let all = Self.allCases
        return all[((all.firstIndex(of: self)! + steps) % all.count + all.count) % all.count]
    }
}

/// A line of the today screen.
public enum TodayLine: Hashable, Sendable {
    /// A habit's row: an index into `AppState.rows`.
    case habit(Int)
    /// A group's heading, with how many of its rows there are and how many are done.
    case heading(group: String, count: Int, done: Int, folded: Bool)

    /// The group a heading names.
    public var group: String? { if case .heading(let g, _, _, _) = self { g } else { nil } }

    /// Whether the selection may stand on it: a habit's row, or a folded group's heading.
    public var isSelectable: Bool {
        switch self {
        case .habit: true
        case .heading(_, _, _, let folded): folded
        }
    }
}

/// The distinct groups of `habits`, each where its first habit is.
func orderedGroups(_ habits: [Habit]) -> [String] {
    var seen = Set<String>()
    return habits.compactMap(\.fields.group).filter { seen.insert($0).inserted }
}

extension HabitState {
    /// Every group a habit has, in the order of each group's first habit.
    var groups: [String] { orderedGroups(habits) }
}
