import FoundationEssentials
import HabitCore

/// The engine's status subscribers (the UI), and the order statuses reach them in.
/// Statuses are made and sent one after another: a request made while one is being made
/// (making one awaits the journal) is followed by one more, so a subscriber never gets an
/// older status after a newer one, and the last one sent was made after the last request.
/// The engine makes each status from its state (`SyncStatus(state:…)`); nothing here reads
/// or changes that state.
struct StatusPublisher {
    private var subscribers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    private var busy = false
    private var again = false

    mutating func add(_ continuation: AsyncStream<SyncStatus>.Continuation) -> UUID {
        let id = UUID()
        subscribers[id] = continuation
        return id
    }

    mutating func remove(_ id: UUID) { subscribers[id] = nil }

    /// A status is wanted. True: the caller makes one and hands it to `send`. False: nobody
    /// listens, or the one being made now will be followed by another.
    mutating func request() -> Bool {
        guard !subscribers.isEmpty else { return false }
        if busy { again = true; return false }
        busy = true
        return true
    }

    /// Sends `status` to every subscriber; true when another was requested meanwhile (make
    /// it and send it too).
    mutating func send(_ status: SyncStatus) -> Bool {
        for c in subscribers.values { c.yield(status) }
        if again { again = false; return true }
        busy = false
        return false
    }
}
