import FoundationEssentials
import HabitCore
import HabitStore

/// `habitto check HABIT`: adds progress to a day.
struct CheckCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "check", arguments: ["HABIT"], summary: "Check in: add progress to a day.",
                    options: [Specs.date, OptionSpec(name: "--amount", value: "N", help: "how much, up to 3 decimals (default 1)"),
                              OptionSpec(name: "--difficulty", value: "1-5", help: "how hard it was: 1 very easy … 5 very hard",
                                         completes: .words(Limits.difficulty.map(String.init))),
                              OptionSpec(name: "--note", value: "TEXT", help: "a note on the day")])
    }

    @MainActor func run() async throws {
        try await change(sign: 1)
    }

    @MainActor func change(sign: Int) async throws {
        let date = try day(invocation.value(.date))
        let amount = try amount(invocation.value(.amount) ?? "1", .amount, minimum: 1, maximum: Limits.maxChange)
        let difficulty = try invocation.value(.difficulty).map(rating)
        let note = invocation.value(.note)
        let outcome = try await commitIntent { id in
            sign > 0 ? .checkIn(id, date, amount: amount, difficulty: difficulty, note: note) : .takeBack(id, date, amount: amount)
        }.outcome
        Output.line(Output.says(outcome))
    }
}
/// `habitto uncheck HABIT`: takes progress back from a day.
struct UncheckCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "uncheck", arguments: ["HABIT"], summary: "Take progress back from a day.",
                    options: [Specs.date, OptionSpec(name: "--amount", value: "N", help: "how much, up to 3 decimals (default 1)")])
    }

    @MainActor func run() async throws {
        try await CheckCommand(context: context).change(sign: -1)
    }
}
/// `habitto skip HABIT`: skips a day.
struct SkipCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "skip", arguments: ["HABIT"], summary: "Skip a day (sick, travelling): it neither counts nor breaks a streak.",
                    options: [Specs.date])
    }

    @MainActor func run() async throws {
        try await change(skipped: true)
    }

    @MainActor func change(skipped on: Bool) async throws {
        let date = try day(invocation.value(.date))
        Output.line(Output.says(try await commitIntent { .skip($0, date, on) }.outcome))
    }
}
/// `habitto unskip HABIT`: undoes a skip.
struct UnskipCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "unskip", arguments: ["HABIT"], summary: "Undo a skip.", options: [Specs.date])
    }

    @MainActor func run() async throws {
        try await SkipCommand(context: context).change(skipped: false)
    }
}
/// `habitto rate HABIT 1-5|clear`: a day's difficulty.
struct RateCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "rate", arguments: ["HABIT", "1-5|clear"], summary: "Rate how hard a day was (1 very easy … 5 very hard), or clear it.",
                    options: [Specs.date])
    }

    @MainActor func run() async throws {
        let text = invocation.arguments[1]
        let value: Int? = text.lowercased() == "clear" ? nil : try rating(text)
        let date = try day(invocation.value(.date))
        Output.line(Output.says(try await commitIntent { .rate($0, date, value) }.outcome))
    }
}
/// `habitto note HABIT TEXT` or `habitto note HABIT --clear`: a day's note. The text is
/// stored as given, so a note may be the word "clear".
struct NoteCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "note", arguments: ["HABIT"], summary: "Write a note on a habit's day, or clear it (--clear).",
                    options: [Specs.date, OptionSpec(name: "--clear", value: nil, help: "remove the day's note (instead of TEXT)")],
                    optionalArguments: ["TEXT"])
    }

    @MainActor func run() async throws {
        let text = invocation.arguments.count > 1 ? invocation.arguments[1] : nil
        let clear = invocation.flag(.clear)
        if clear == (text != nil) {
            throw CLIError.usage(clear ? .noteTextAndClear : .noteNeedsText)
        }
        let value: String? = clear ? nil : text
        let date = try day(invocation.value(.date))
        Output.line(Output.says(try await commitIntent { .note($0, date, value) }.outcome))
    }
}
/// `habitto undo`: reverts the last change made on this device.
struct UndoCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "undo", arguments: [], summary: "Revert the last change made on this device (repeatable).", options: [])
    }

    @MainActor func run() async throws {
        let repo = try openRepository()
        if let item = try await repo.undo() {
            Output.line("Undid: \(item.label)")
        } else {
            Output.line("Nothing to undo on this device")
        }
    }
}
