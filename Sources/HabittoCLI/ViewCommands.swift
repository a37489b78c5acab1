import FoundationEssentials
import HabitCore
import HabitStore

/// `habitto list`: a day's habits with progress, streak and strength.
struct ListCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "list", arguments: [], summary: "Show the habits due on a day with progress, streak and strength.",
                    options: [Specs.date, OptionSpec(name: "--all", value: nil, help: "every habit, archived and unscheduled ones too"), Specs.json])
    }

    @MainActor func run() async throws {
        let date = try day(invocation.value(.date))
        let repo = try openRepository()
        let state = await repo.state
        let sync = invocation.flag(.json) ? try await syncStatus(repo) : nil
        let all = invocation.flag(.all)
        // The listing order (`HabitState.listed`), as the UI's today screen shows them.
        let summaries = state.listed.compactMap { habit -> HabitSummary? in
            let s = state.summary(habit, on: date, today: today, settings: settings)
            if all { return s }
            guard habit.isActive(on: date), s.scheduled || s.progress > 0 || s.skipped else { return nil }
            return s
        }
        if invocation.flag(.json) {
            Output.raw(JSON.array(summaries.map { s in
                guard case .object(var o) = Output.json(s) else { return Output.json(s) }
                o["syncStatus"] = .string((sync?.habitStatus(s.habit.id) ?? .local).rawValue)
                return .object(o)
            }).serialized())
            return
        }
        // A past day's level and XP are that day's; a later day's are today's (not earned yet).
        let stats = state.stats(today: min(date, today), settings: settings)
        Output.line(Output.header(date: date, today: today, stats: stats))
        if summaries.isEmpty {
            if state.habits.isEmpty {
                Output.line("No habits yet. Add one:  habitto add \"Drink water\" --goal 8 --unit glasses")
            } else {
                Output.line("Nothing due on \(date). 'habitto list --all' shows every habit.")
            }
            return
        }
        for line in Output.table(summaries, tags: Edits.namesakeTags(state.habits)) { Output.line(line) }
    }
}
/// `habitto show HABIT`: one habit in full, or a chart (`--chart`).
struct ShowCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "show", arguments: ["HABIT"], summary: "Show a habit: fields, streaks, strength, difficulty and history, or a chart (--chart).",
                    options: [Specs.json] + Specs.chartOptions)
    }

    /// "  earlier: at least 8 glasses a day, daily until 2026-11-09": the definitions before
    /// the current one, each with the last day it was in force.
    static func definitionsLine(_ habit: Habit) -> String {
        let defs = habit.definitions
        let parts = defs.indices.dropLast().map { k -> String in
            let h = habit.on(defs[k].from == .earliest ? habit.startDate : defs[k].from)
            let from = defs[k].from == .earliest ? "" : " from \(defs[k].from)"
            return "\(h.kind.rawValue), \(Output.describeGoal(h)), \(h.schedule)\(from) until \(defs[k + 1].from.adding(-1))"
        }
        return "  earlier: " + parts.joined(separator: "; ")
    }

    @MainActor func run() async throws {
        if try await showChart() { return }
        let repo = try openRepository()
        let state = await repo.state
        let habit = try Edits.find(invocation.arguments[0], in: state)
        let s = state.summary(habit, on: today, today: today, settings: settings)
        let avg7 = state.difficultyAverage(habit, asOf: today, count: 7)
        let avg30 = state.difficultyAverage(habit, asOf: today, count: 30)
        let history = state.history(habit, through: today, settings: settings)
        if invocation.flag(.json) {
            guard case .object(var o) = Output.json(s) else { return }
            o["history"] = .array(history.map { h in
                .object(["date": .string(h.day.description), "scheduled": .bool(h.scheduled), "progress": .amount(h.progress),
                         "completed": .bool(h.completed), "skipped": .bool(h.skipped), "notDone": .bool(h.notDone), "paused": .bool(h.paused),
                         "difficulty": .optional(h.difficulty),
                         "note": .optional(state.note(habit.id, h.day))])
            })
            // Every pause, past and to come, with its reason.
            o["pauses"] = .array(Pauses.runs(habit, in: state).map { r in
                .object(["from": .string(r.from.description), "to": .string(r.to.description), "reason": .optional(r.reason)])
            })
            let checkIns = state.checkIns(habit)
            o["checkIns"] = .int(checkIns.days)
            o["totalAmount"] = .amount(checkIns.amount)
            o["difficultyAverage7"] = .optional(avg7, places: 2)
            o["difficultyAverage30"] = .optional(avg30, places: 2)
            o["notes"] = .optional(habit.fields.notes)
            o["color"] = .optional(habit.fields.color)
            if let definitions = Export.fields(habit)["definitions"] { o["definitions"] = definitions }
            Output.raw(JSON.object(o).serialized())
            return
        }
        var lines = Output.showText(s, history: history, checkIns: state.checkIns(habit), beforeStart: state.checkInsBeforeStart(habit),
                                    avg7: avg7, avg30: avg30, today: today)
        if habit.hasHistory { lines.insert(Self.definitionsLine(habit), at: min(2, lines.count)) }
        // The current or next pause (`habitto pause`), after the line of today.
        if let run = Pauses.next(habit, from: today, in: state) {
            let reason = run.reason.map { " (\(Sanitize.display($0)))" } ?? ""
            let when = run.contains(today) ? "paused" : "pause ahead"
            lines.insert("  \(when): \(run.from) to \(run.to)\(reason)", at: min(3, lines.count))
        }
        for line in lines { Output.line(line) }
        let notes = (state.entries[habit.id]?.days ?? [:]).compactMap { day, rec in rec.note.map { (day, $0) } }
            .sorted { $0.0 > $1.0 }.prefix(5)
        if !notes.isEmpty {
            Output.line("  day notes (newest first):")
            for (day, note) in notes { Output.line("    \(day)  " + Sanitize.display(note.replacingAll("\n", with: " / "))) }
        }
    }
}
/// `habitto stats`: XP, level, perfect days and totals.
struct StatsCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "stats", arguments: [], summary: "Show XP, level, perfect days and totals.", options: [Specs.json])
    }

    @MainActor func run() async throws {
        let repo = try openRepository()
        let state = await repo.state
        let st = state.stats(today: today, settings: settings)
        if invocation.flag(.json) {
            Output.raw(JSON.object([
                "date": .string(today.description), "xp": .int(st.xp), "level": .int(st.level.level),
                "xpIntoLevel": .int(st.level.xpIntoLevel), "xpForNextLevel": .int(st.level.xpForNextLevel),
                "xpToNextLevel": .int(st.level.xpToNextLevel), "xpToday": .int(st.xpToday),
                "xpProvisional": .int(st.xpProvisional),
                "perfectDays": .int(st.perfectDays), "habits": .int(st.habits), "archivedHabits": .int(st.archivedHabits),
                "checkIns": .int(st.checkIns), "operations": .int(Int(state.operationCount)),
            ]).serialized())
            return
        }
        Output.line("Level \(st.level.level) · \(st.xp) XP (\(st.level.xpIntoLevel)/\(st.level.xpForNextLevel) into the level, \(st.level.xpToNextLevel) to level \(st.level.level + 1))")
        Output.line("Today: +\(st.xpToday) XP"
                    + (st.xpProvisional > 0 ? " (+\(st.xpProvisional) provisional: today's limit habits, settled when the day ends)" : "")
                    + " · perfect days: \(st.perfectDays)")
        Output.line("Habits: \(st.habits) tracked, \(st.archivedHabits) archived · check-ins: \(Plural.count(st.checkIns, "habit-day"))")
    }
}
