/// Why the terminal could not be used, in one line a user can act on.
public struct TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message, without a trailing newline.
    public let message: String
    /// True when the terminal the UI was started on cannot run it (TERM unset, unknown, or
    /// a terminal that cannot move the cursor): the user's setting to change, not a broken
    /// installation.
    public let isUnsuitableTerminal: Bool

    /// An error with `message`; `unsuitableTerminal` as `isUnsuitableTerminal`.
    public init(_ message: String, unsuitableTerminal: Bool = false) {
        self.message = message
        isUnsuitableTerminal = unsuitableTerminal
    }

    public var description: String { message }
}
