/// The symbols the screens draw, in a Unicode and an ASCII set (for non-UTF-8 locales and
/// `--ascii`). The ASCII set uses no letter or digit, so a glyph never reads as a key.
public struct Glyphs: Hashable, Sendable {
    public let done, partial, notYet, exceeded, skipped, unscheduled: String
    /// A day answered "not done" (the catch-up's `n`): decided, where `notYet` is open.
    public let notDone: String
    /// A paused day (`habitto pause`, `P`): skipped by the rules, with its own mark.
    public let paused: String
    public let selected, barFull, barEmpty, syncLocal, syncPending, syncSyncing, syncSynced, syncFailed: String
    public let streak, separator: String
    /// The today row's mark for a day with a note (one cell).
    public let note: String
    /// Before the first day of a week in a today row's recent days.
    public let weekStart: String
    /// A group heading's mark: shown (unfolded) or folded.
    public let groupOpen, groupFolded: String
    /// "at most" before a limit habit's ceiling, and the "by" of a size (40×10).
    public let atMost, times: String
    /// The heat map's shades, from nothing recorded to the goal met.
    public let heat: [String]
    /// Whether habit icons (user-chosen characters) may be shown.
    public let showsIcons: Bool

    public static let unicode = Glyphs(done: "✓", partial: "◐", notYet: "·", exceeded: "✗", skipped: "~",
                                       unscheduled: " ", notDone: "⊘", paused: "‖", selected: "▶", barFull: "█", barEmpty: "░",
                                       syncLocal: "⌂", syncPending: "↑", syncSyncing: "⟳", syncSynced: "✓",
                                       syncFailed: "!", streak: "🔥", separator: "·", note: "✎", weekStart: "│", groupOpen: "▾",
                                       groupFolded: "▸", atMost: "≤", times: "×",
                                       heat: ["·", "░", "▒", "▓", "█"], showsIcons: true)
    public static let ascii = Glyphs(done: "+", partial: "%", notYet: ".", exceeded: "*", skipped: "~",
                                     unscheduled: " ", notDone: "\\", paused: "&", selected: ">", barFull: "#", barEmpty: "-",
                                     syncLocal: "_", syncPending: "^", syncSyncing: "@", syncSynced: "+",
                                     syncFailed: "!", streak: "*", separator: "|", note: "\"", weekStart: "|", groupOpen: "-",
                                     groupFolded: "+", atMost: "<=", times: "x",
                                     heat: [".", ";", "%", "+", "#"], showsIcons: false)

    /// Every glyph a screen can show alone in a cell, with what it means, in the order the
    /// help screen's legend lists them, and the modes whose screens show it.
    public var legend: [(glyph: String, meaning: String, modes: Set<Mode>)] {
        let rows: Set<Mode> = [.today, .week, .catchUp, .rating, .amount, .note, .pause, .confirm]
        let days: Set<Mode> = rows.union([.detail])
        return [
            (done, "done", days), (partial, "partly done", days), (notYet, "not done (yet)", days),
            (notDone, "answered not done", [.today, .catchUp, .rating, .amount, .note, .pause, .confirm]),
            (exceeded, "over the limit", days), (skipped, "skipped", days.union([.detail])), (paused, "paused", days),
            (selected, "selected", rows.union([.form])),
            (note, "the day has a note", [.today, .rating, .amount, .note, .pause, .confirm]),
            (weekStart, "a week starts", [.today, .rating, .amount, .note, .pause, .confirm]),
            (groupOpen, "a group, shown", [.today, .rating, .amount, .note, .pause, .confirm]),
            (groupFolded, "a group, folded", [.today, .rating, .amount, .note, .pause, .confirm]),
            (barFull + barEmpty, "strength (and XP) bar", [.today, .rating, .amount, .confirm]),
            (heat.joined(), "heat map, low to high", [.detail, .today, .rating, .amount, .note, .confirm]),
            (syncLocal, "local only: no remote", rows.union([.sync])),
            (syncPending, "waiting to sync", rows.union([.sync])),
            (syncSyncing, "syncing", rows.union([.sync])),
            (syncSynced, "synced", rows.union([.sync])),
            (syncFailed, "sync failed", rows.union([.sync])),
        ]
    }
}
