/// Why the terminal could not be used, in one line a user can act on.
public struct TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message, without a trailing newline.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
