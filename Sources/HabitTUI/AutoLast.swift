import HabitCore

/// An auto habit's last result on this machine (`habitto auto`), as the today screen marks
/// it after the habit's name.
public enum AutoLast: Hashable, Sendable {
    /// Its command has not run yet.
    case notRun
    /// What the command measured on that day.
    case measured(AutoMeasure, on: LocalDay)
    /// Why the command gave no result on that day (shown as it is: made safe to print).
    case failed(String, on: LocalDay)

    /// Whether the command gave no result.
    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }

    /// What the mark says after ⚙ on a row (`s`): a measure only on its own day (another
    /// day's would read as this one's); a yes/no habit's "not done" (exit 1) only where the
    /// row is not done and its "done" (exit 0) only where it is, since the mark must not
    /// contradict the row's glyph (else: what the command did, "command exited 1" beside a
    /// day checked in by hand, "command exited 0" beside one taken back); a failure whatever
    /// the day, as `status` reports it until the next run.
    func text(on s: HabitSummary) -> String {
        switch self {
        case .notRun: return ""
        case .measured(_, let day) where day != s.day: return ""
        case .measured(.done, _): return s.completed ? "done" : "command exited 0"
        case .measured(.notDone, _): return s.completed ? "command exited 1" : "not done"
        case .measured(.total(let t), _): return Amount.format(t)
        case .failed(let why, _): return "error: " + why
        }
    }
}
