import FoundationEssentials
import HabitCore
import HabitStore

/// `habitto pause HABIT|--group G|--all --from DATE --to DATE [--reason TEXT]`, and
/// `habitto pause … --end`: pauses a range of days, or ends the current or next pause.
/// The rules are `Pauses`'s; one command is one undo.
struct PauseCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "pause", arguments: [], summary: "Pause habits over a range of days (a holiday, an illness): the days neither count nor break a streak.",
                    options: [OptionSpec(name: "--group", value: "NAME", help: "every habit in the group"),
                              OptionSpec(name: "--all", value: nil, help: "every habit"),
                              OptionSpec(name: "--from", value: "DATE", help: "the first paused day: \(Specs.dateForms) (default today)",
                                         completes: Specs.dayWords),
                              OptionSpec(name: "--to", value: "DATE", help: "the last paused day (at most \(Limits.maxPauseDays) days in all)",
                                         completes: Specs.dayWords),
                              OptionSpec(name: "--reason", value: "TEXT", help: "why, shown with the pause (1 to 80 characters)"),
                              OptionSpec(name: "--end", value: nil, help: "end the current pause at yesterday, or call off the next one")],
                    notes: "A paused day is a skipped day for every rule: it neither counts nor breaks a streak, strength and XP stand still, an N-per-week or N-per-month goal asks only for the days not paused, reminders are silent and ask does not ask about it.\nPast and future days may be paused; 'habitto undo' takes a pause (or its end) back.",
                    optionalArguments: ["HABIT"])
    }

    @MainActor func run() async throws {
        let inv = invocation
        let given = (inv.arguments.isEmpty ? 0 : 1) + (inv.given(.group) ? 1 : 0) + (inv.flag(.all) ? 1 : 0)
        guard given == 1 else { throw CLIError.usage(.pauseWhich(given: given)) }
        let ending = inv.flag(.end)
        if ending, inv.given(.from) || inv.given(.to) || inv.given(.reason) { throw CLIError.usage(.pauseEndTakesNoRange) }
        if !ending, !inv.given(.to) { throw CLIError.usage(.pauseNeedsTo) }
        let from = ending ? nil : Optional(try day(inv.value(.from)))
        let to = ending ? nil : Optional(try day(inv.value(.to)))
        if let from, let to { try Pauses.checkRange(from: from, to: to) }
        let reason = inv.value(.reason)
        if let reason { try Validate.pauseReason(reason) }
        let query = inv.arguments.first, group = inv.value(.group), today = self.today
        let chosen = try chosenHabits(query: query, group: group, in: try await openRepository().state)
        let ids = chosen.map(\.id)
        // Undo names every habit a group's or every habit's pause is for (one change would name one).
        let span = from.flatMap { f in to.map { t in f == t ? " on \(f)" : " from \(f) to \(t)" } } ?? ""
        let label = chosen.count == 1 ? nil
            : ending ? "end the pauses of \(Plural.count(chosen.count, "habit"))" : "pause \(Plural.count(chosen.count, "habit"))\(span)"
        let result = try await openRepository().commit(label: label) { state, _ in
            let habits = ids.compactMap(state.habit)
            guard !habits.isEmpty else { throw CoreError.habitGone }
            if let from, let to { return try Pauses.pause(habits, from: from, to: to, reason: reason, in: state) }
            return try Pauses.end(habits, today: today, in: state)
        }
        let written = result.operations.map(\.change)
        if let from, let to { Output.line(Pauses.paused(written.count, of: chosen, from: from, to: to)) }
        else { Output.line(Pauses.ended(written, of: chosen)) }
    }

    /// The habits a pause is for: the one named, a group's unarchived habits, or every
    /// unarchived habit.
    private func chosenHabits(query: String?, group: String?, in state: HabitState) throws -> [Habit] {
        if let query { return [try Edits.find(query, in: state)] }
        let live = state.listed.filter { $0.fields.archivedFrom.map { $0 > today } ?? true }
        if let group {
            let members = live.filter { $0.fields.group?.lowercased() == group.lowercased() }
            guard !members.isEmpty else { throw CLIError.invalid(.noHabitInGroup(group)) }
            return members
        }
        guard !live.isEmpty else { throw CoreError.noHabitGiven }
        return live
    }
}
