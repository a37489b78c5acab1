/// The symbols the screens draw, in a Unicode and an ASCII set (for non-UTF-8 locales and
/// `--ascii`).
public struct Glyphs: Hashable, Sendable {
    public let done, partial, notYet, exceeded, skipped, unscheduled: String
    public let selected, barFull, barEmpty, syncLocal, syncPending, syncSyncing, syncSynced, syncFailed: String
    public let streak, separator: String
    /// The today row's mark for a day with a note (one cell).
    public let note: String
    /// A group heading's mark: shown (unfolded) or folded.
    public let groupOpen, groupFolded: String
    /// "at most" before a limit habit's ceiling, and the "by" of a size (40×10).
    public let atMost, times: String
    /// Whether habit icons (user-chosen characters) may be shown.
    public let showsIcons: Bool

    public static let unicode = Glyphs(done: "✓", partial: "◐", notYet: "·", exceeded: "✗", skipped: "~",
                                       unscheduled: " ", selected: "▶", barFull: "█", barEmpty: "░",
                                       syncLocal: "⌂", syncPending: "↑", syncSyncing: "⟳", syncSynced: "✓",
                                       syncFailed: "!", streak: "🔥", separator: "·", note: "✎", groupOpen: "▾",
                                       groupFolded: "▸", atMost: "≤", times: "×",
                                       showsIcons: true)
    public static let ascii = Glyphs(done: "x", partial: "o", notYet: ".", exceeded: "X", skipped: "~",
                                     unscheduled: " ", selected: ">", barFull: "#", barEmpty: "-",
                                     syncLocal: "L", syncPending: "^", syncSyncing: "*", syncSynced: "=",
                                     syncFailed: "!", streak: "*", separator: "|", note: "\"", groupOpen: "-",
                                     groupFolded: "+", atMost: "<=", times: "x",
                                     showsIcons: false)
}
