import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The system's clocks, read in this file and nowhere else in Sources (a scan,
/// `ClockReadingTests`, fails on a direct reading elsewhere).
///
/// The program's "now" is its one clock, `AppEnvironment.clock`: the fixed instant of
/// `HABITTO_NOW`, else `SystemClock.now`. Every reading of the time of day goes through it
/// (it is handed to the repository, the sync engine, the importer and the UI as a closure).
/// `now` is called directly only to compare with a time that the system's real clock
/// stamped (a file's modification time, a server's HTTP date). Timeouts and intervals use
/// `monotonicSeconds`, which neither `HABITTO_NOW` nor a change of the wall clock moves.
public enum SystemClock {
    /// The system's wall-clock time now.
    @Sendable public static func now() -> Date { Date() }

    /// Seconds on the monotonic clock, from an arbitrary origin: for deadlines and the
    /// time between two events of this process.
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
