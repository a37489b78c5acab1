/// The files of a data directory.
public struct DataPaths: Sendable {
    public let directory: String
    public init(directory: String) { self.directory = directory }
    public var journal: String { directory + "/journal.hbj" }
    public var snapshot: String { directory + "/snapshot.bin" }
    public var lock: String { directory + "/lock" }
    /// How messages name `lock` (one waited for too long: `Sys.lock`).
    public static let lockName = "the data lock"
    public var device: String { directory + "/device" }
    public var recovered: String { directory + "/recovered" }
    /// What `habitto remind` has notified of (see `SentReminders`).
    public var remindersSent: String { directory + "/reminders-sent" }
}
