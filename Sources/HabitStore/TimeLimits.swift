import HabitCore

/// How long Habitto waits for each outside program and for a lock another process holds, in
/// seconds. The defaults are the product's; `HABITTO_TIME_LIMITS` (`NAME=SECONDS,…`) can
/// only shorten them, so that a test proves a limit in a fraction of a second instead of
/// waiting it out, and a user cannot make a command hang longer than it would anyway.
public struct TimeLimits: Sendable, Equatable {
    /// One limit, named as in `HABITTO_TIME_LIMITS`.
    public enum Name: String, CaseIterable, Sendable {
        case passwordCommand = "password_command"
        case systemctl
        case notifySend = "notify-send"
        case auto
        case unzip
        case age
        case lock
        /// A command's background round (`habitto sync --background`) from start to end, the
        /// wait for another process's round included.
        case backgroundRound = "background_round"
    }

    /// The product's limits.
    public static let defaults = TimeLimits(values: [
        .passwordCommand: 30, .systemctl: 15, .notifySend: 5, .auto: 10, .unzip: 60, .age: 30, .lock: 10, .backgroundRound: 120,
    ])
    /// The shortest limit the variable may set: still long enough for a program that answers at once.
    public static let shortest = 0.05
    /// The environment variable that shortens limits.
    public static let variable = "HABITTO_TIME_LIMITS"

    private var values: [Name: Double]
    private init(values: [Name: Double]) { self.values = values }

    public subscript(_ name: Name) -> Double { values[name] ?? Self.defaults.values[name]! }

    /// Why a `HABITTO_TIME_LIMITS` value was refused.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notASetting(String)
        case outOfRange(Name, String)

        public var description: String {
            let fix = "unset it to run with the default limits"
            switch self {
            case .notASetting(let part):
                let names = Name.allCases.map(\.rawValue).joined(separator: ", ")
                return "\(TimeLimits.variable): '\(Sanitize.display(part))' is not NAME=SECONDS with a NAME of \(names); \(fix)"
            case .outOfRange(let name, let text):
                let most = OutsideProgram.seconds(TimeLimits.defaults[name])
                return "\(TimeLimits.variable): \(name.rawValue)=\(Sanitize.display(text)) must be from \(TimeLimits.shortest) to \(most) (its default); \(fix)"
            }
        }
    }

    /// The limits `text` (the variable's value) sets over the defaults; nil or empty is the defaults.
    public static func parse(_ text: String?) throws(Problem) -> TimeLimits {
        var limits = defaults
        guard let text, !text.isEmpty else { return limits }
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, let name = Name(rawValue: String(pair[0]).trimmingBlanks) else {
                throw .notASetting(String(part))
            }
            let valueText = String(pair[1]).trimmingBlanks
            guard let seconds = Double(valueText), seconds.isFinite,
                  seconds >= shortest, seconds <= defaults[name] else {
                throw .outOfRange(name, valueText)
            }
            limits.values[name] = seconds
        }
        return limits
    }

    /// The limits of this process: the defaults until `start` sets them.
    public static var current: TimeLimits { setting.withLock { value } }

    /// Sets this process's limits from the variable's value (once, at startup).
    public static func start(_ text: String?) throws(Problem) {
        let limits = try parse(text)
        setting.withLock { value = limits }
    }

    private static let setting = Lock()
    nonisolated(unsafe) private static var value = defaults
}
