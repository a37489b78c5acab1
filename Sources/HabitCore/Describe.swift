extension Change {
    /// A short human description of the change, naming the habit as `state` knows it
    /// ("check 'Water' +1 on 2026-11-21"), used for undo messages.
    public func describe(in state: HabitState) -> String {
        let name: String = {
            if case .create(_, let f) = self { return "'\(Sanitize.display(f.name))'" }
            return state.entries[habit].map { "'\(Sanitize.display($0.fields.name))'" } ?? "a habit"
        }()
        switch self {
        case .create: return "add \(name)"
        case .set(_, .name(let new)): return "rename \(name) to '\(Sanitize.display(new))'"
        case .set(_, .archivedFrom(let d)): return d == nil ? "unarchive \(name)" : "archive \(name)"
        case .set: return "edit \(name)"
        case .delete: return "delete \(name)"
        case .restore: return "restore \(name)"
        case .progress(_, let d, let delta): return delta > 0 ? "check \(name) +\(delta) on \(d)" : "uncheck \(name) \(delta) on \(d)"
        case .skip(_, let d, let on): return "\(on ? "skip" : "unskip") \(name) on \(d)"
        case .rate(_, let d, let r): return r.map { "rate \(name) \($0) on \(d)" } ?? "clear the rating of \(name) on \(d)"
        }
    }

    /// How much a change says about what a command did (higher describes it better).
    var weight: Int {
        switch self {
        case .create, .delete, .restore: return 5
        case .progress: return 4
        case .skip(_, _, true): return 3
        case .set(_, .archivedFrom): return 3
        case .set(_, .name): return 2
        case .rate: return 2
        default: return 1
        }
    }
}

extension Array where Element == Change {
    /// The description of the change that best says what this group of changes did.
    public func describe(in state: HabitState) -> String {
        guard let main = self.enumerated().max(by: { ($0.element.weight, -$0.offset) < ($1.element.weight, -$1.offset) })
        else { return "nothing" }
        return main.element.describe(in: state)
    }
}
