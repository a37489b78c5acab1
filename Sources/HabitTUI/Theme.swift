/// How many colours the terminal can show.
public enum ColorDepth: Int, Hashable, Sendable, Comparable {
    /// No colour (`NO_COLOR`, or a terminal without colours): attributes only.
    case none = 0
    case ansi8 = 8
    case ansi16 = 16
    case palette256 = 256
    case trueColor = 16_777_216
    public static func < (a: ColorDepth, b: ColorDepth) -> Bool { a.rawValue < b.rawValue }
}

/// A set of styles, one per role. Theme files are partial patches over `builtInDefault`.
public struct Theme: Hashable, Sendable {
    /// The name a theme is chosen by: the file's base name (`gruvbox` for `gruvbox.theme`).
    public var name: String
    /// The name to show people (a theme file's `name = …` line); `name` when it has none.
    public var displayName: String
    public var styles: [Role: Style]

    public init(name: String, styles: [Role: Style], displayName: String? = nil) {
        self.name = name; self.styles = styles; self.displayName = displayName ?? name
    }

    /// The style of a role (the normal style for roles the theme does not name).
    public func style(_ role: Role) -> Style { styles[role] ?? styles[.normal] ?? Style() }

    /// The built-in default: a dark theme on the terminal's own background, using only the
    /// 16 ANSI colours so it looks right everywhere.
    /// Written out in full as `Themes/default.theme`.
    public static let builtInDefault = Theme(name: "default", styles: [
        .normal: Style(habitColor: true),
        .header: Style(.ansi(15), bold: true),
        .title: Style(.ansi(14), bold: true),
        .selection: Style(reverse: true),
        .done: Style(.ansi(2), habitColor: true),
        .partial: Style(.ansi(3), habitColor: true),
        .missed: Style(.ansi(8)),
        .skipped: Style(.ansi(4)),
        .exceeded: Style(.ansi(1), bold: true),
        .streak: Style(.ansi(11)),
        .strength: Style(.ansi(6)),
        .xpBar: Style(.ansi(13)),
        .xpBarEmpty: Style(.ansi(8)),
        .syncLocal: Style(.ansi(8)),
        .syncPending: Style(.ansi(3)),
        .syncSynced: Style(.ansi(2)),
        .syncFailed: Style(.ansi(1), bold: true),
        .statusOk: Style(.ansi(2)),
        .statusWarn: Style(.ansi(3)),
        .statusError: Style(.ansi(1), bold: true),
        .footer: Style(.ansi(8)),
        .key: Style(.ansi(14), bold: true),
        .dim: Style(.ansi(8)),
        .accent: Style(.ansi(12)),
        .heat0: Style(.ansi(8)),
        .heat1: Style(.ansi(2), dim: true, habitColor: true),
        .heat2: Style(.ansi(2), habitColor: true),
        .heat3: Style(.ansi(10), habitColor: true),
        .heat4: Style(.ansi(10), bold: true, habitColor: true),
    ], displayName: "Default (dark)")
}
