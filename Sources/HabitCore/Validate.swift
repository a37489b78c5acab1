import FoundationEssentials

/// The rules for user-entered text. Each throws a `CoreError` that says what is
/// allowed.
public enum Validate {
    /// 1–64 characters, no control characters, no invisible characters (see
    /// `Sanitize.invisibleScalar(in:)`), no leading or trailing space.
    public static func name(_ s: String) throws {
        if s.isEmpty || s.allSatisfy(\.isWhitespace) { throw CoreError.nameEmpty }
        if s.count > 64 { throw CoreError.nameTooLong(length: s.count) }
        try oneLine(s, what: "habit name", edgeSpaces: false)
    }
    /// Exactly one character (an emoji counts as one).
    public static func icon(_ s: String) throws {
        guard s.count == 1, !s.first!.isWhitespace else { throw CoreError.iconNotOneCharacter }
        try oneLine(s, what: "icon", edgeSpaces: true)
    }
    /// Named colours and `#RRGGBB`.
    public static let colorNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
                                    "orange", "purple", "pink", "gray"]
    public static func color(_ s: String) throws {
        let lower = s.lowercased()
        if colorNames.contains(lower) { return }
        let hexDigits = lower.dropFirst()
        if lower.hasPrefix("#"), hexDigits.count == 6, hexDigits.allSatisfy(\.isHexDigit) { return }
        throw CoreError.colorNotUnderstood(s)
    }
    /// Goals are thousandths (see `Amount`): build habits need a goal above 0 (0.001 at
    /// least), limit habits 0 or more; at most 1,000,000 units.
    public static func goal(_ g: Int, kind: HabitKind) throws {
        let minimum = kind == .build ? 1 : 0
        guard g >= minimum, g <= Limits.maxGoal else {
            throw CoreError.goalOutOfRange(goal: g, kind: kind)
        }
    }
    /// 1–24 characters, no control characters.
    public static func unit(_ s: String) throws {
        guard !s.isEmpty, s.count <= 24 else { throw CoreError.unitLength }
        try oneLine(s, what: "unit", edgeSpaces: true)
    }
    /// An order key: 1 to `OrderKey.maxLength` characters of `OrderKey.digits`, not ending
    /// in the lowest digit (so that a key between any two always exists).
    public static func position(_ s: String) throws {
        guard OrderKey.isValid(s) else {
            throw CoreError.orderKeyInvalid(s)
        }
    }
    /// 1–32 characters, no control characters, no leading or trailing space.
    public static func group(_ s: String) throws {
        guard !s.isEmpty, s.count <= 32 else { throw CoreError.groupLength }
        try oneLine(s, what: "group", edgeSpaces: false)
    }

    /// The rules every one-line field shares: its text fits the encoding, holds no control
    /// or invisible character, and (unless `edgeSpaces`) neither starts nor ends with a space.
    static func oneLine(_ s: String, what: String, edgeSpaces: Bool) throws {
        try fitsEncoding(s, what: what)
        try noControl(s, what: what, allowNewline: false)
        try noInvisible(s, what: what)
        if !edgeSpaces, s.first!.isWhitespace || s.last!.isWhitespace {
            throw CoreError.edgeSpace(field: what)
        }
    }
    /// A day's note: 1–2,000 characters; newlines allowed, other control characters not.
    public static func dayNote(_ s: String) throws {
        guard !s.isEmpty, s.count <= 2000 else { throw CoreError.dayNoteLength }
        try fitsEncoding(s, what: "note")
        try noControl(s, what: "note", allowNewline: true)
    }
    /// A pause's reason: 1–80 characters on one line, no control or invisible characters,
    /// no leading or trailing space.
    public static func pauseReason(_ s: String) throws {
        guard !s.isEmpty, s.count <= 80 else { throw CoreError.pauseReasonLength }
        try oneLine(s, what: "pause reason", edgeSpaces: false)
    }
    /// At most 2,000 characters; newlines allowed, other control characters not.
    public static func notes(_ s: String) throws {
        guard s.count <= 2000 else { throw CoreError.notesTooLong(length: s.count) }
        try fitsEncoding(s, what: "notes")
        try noControl(s, what: "notes", allowNewline: true)
    }

    /// At most the 65,536 UTF-8 bytes `ByteReader.string` reads back: one character can
    /// carry any number of combining marks, so counting characters does not bound the size.
    static func fitsEncoding(_ s: String, what: String) throws {
        guard s.utf8.count <= 65_536 else { throw CoreError.textTooLong(field: what) }
    }

    static func noControl(_ s: String, what: String, allowNewline: Bool) throws {
        for scalar in s.unicodeScalars where Sanitize.isForbidden(scalar) {
            if allowNewline && scalar == "\n" { continue }
            throw CoreError.controlCharacter(field: what, scalar)
        }
    }

    /// Labels (names, icons, units, groups) must show what they hold.
    static func noInvisible(_ s: String, what: String) throws {
        if let scalar = Sanitize.invisibleScalar(in: s) {
            throw CoreError.invisibleCharacter(field: what, scalar)
        }
    }

    static func codePoint(_ u: Unicode.Scalar) -> String {
        let code = String(u.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
    }
}
