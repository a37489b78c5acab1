/// The words of every `CoreError`: the one place a refusal of HabitCore is worded.
extension CoreError {
    /// The message before `description` makes it safe to print.
    var text: String {
        switch self {
        case .formField(let label, let problem): return "\(label): \(problem)"
        case .inDefinition(let error, let day): return "\(error.text) (the definition from \(day))"
        case .notAGroupName(let shown, let error): return "group \(shown) is not a group name: \(error.description)"
        default:
            if let text = finding ?? day ?? amount ?? field ?? answer ?? ui { return text }
            assertionFailure("CoreError.\(self) has no words")
            return "\(self)"
        }
    }

    private static func title(_ name: String) -> String { "'\(Sanitize.display(name))'" }

    /// Finding and ordering habits.
    private var finding: String? {
        switch self {
        case .noHabitGiven: return "no habit given: name one by its name, a prefix of it, or its id"
        case .habitNotFound(let query, let near?): return "no habit matches '\(Sanitize.display(query))'; did you mean '\(Sanitize.display(near))'?"
        case .habitNotFound(let query, nil): return "no habit matches '\(Sanitize.display(query))'; 'habitto list --all' shows them all"
        case .ambiguous(let query, let matches):
            let listed = matches.prefix(8).map { "\(Edits.title($0)) id \($0.id) \(Edits.whereAndWhen($0))" }.joined(separator: "; ")
            let more = matches.count > 8 ? "; and \(matches.count - 8) more" : ""
            let hint = Set(matches.map { $0.name.lowercased() }).count == 1
                ? "give the id (or a 4+ character prefix of it) to pick one" : "type more of the name, or give the id"
            return "'\(Sanitize.display(query))' matches \(matches.count) habits: \(listed)\(more); \(hint)"
        case .duplicateName(let name): return "a habit named '\(Sanitize.display(name))' already exists; choose another name"
        case .habitGone: return "that habit no longer exists (deleted elsewhere?)"
        case .noSuchHabit: return "that habit does not exist"
        case .movedRelativeToItself(let name): return "\(Self.title(name)) cannot be moved before or after itself: name another habit"
        case .tooManyToOrder: return "too many habits to order"
        default: return nil
        }
    }

    /// The day a value is recorded on, and archiving.
    private var day: String? {
        switch self {
        case .beforeStart(let name, let day, let start):
            return "\(day) is before \(Self.title(name)) starts (\(start)); pick a later day or move its start date"
        case .inFuture(let day, let today, let what): return "\(day) is in the future (today is \(today)); \(what) are for today or earlier"
        case .pauseBackwards(let from, let to): return "a pause cannot end (\(to)) before it starts (\(from))"
        case .pauseTooLong(let days): return "a pause of \(days) days is too long: one pause covers at most \(Limits.maxPauseDays) days"
        case .noPauseToEnd(let habit?, let today): return "\(Self.title(habit)) has no pause on or after \(today) to end"
        case .noPauseToEnd(nil, let today): return "no habit has a pause on or after \(today) to end"
        case .archivedFrom(let name, let from): return "\(Self.title(name)) is archived from \(from); unarchive it first"
        case .notDue(let name, let day, let schedule):
            return "\(Self.title(name)) is not due on \(day.weekday.shortName.capitalized) \(day) (\(schedule)); nothing to skip"
        case .alreadyArchived(let name, let from): return "\(Self.title(name)) is already archived (from \(from)); 'habitto unarchive' tracks it again"
        case .notArchived(let name): return "\(Self.title(name)) is not archived; 'habitto archive' stops tracking it"
        case .archivedBeforeStart(let archived, let start): return "archive date \(archived) is before the start date \(start)"
        default: return nil
        }
    }

    /// Amounts and difficulties.
    private var amount: String? {
        switch self {
        case .dayFull(let name, let progress, let adding, let day):
            let most = Amount.format(Limits.maxDayProgress)
            guard progress > 0 else { return "adding \(Amount.format(adding)) is too much: a day holds at most \(most)" }
            return "\(Self.title(name)) has \(Amount.format(progress)) on \(day): adding \(Amount.format(adding)) is too much, "
                + "a day holds at most \(most) (\(Amount.format(Limits.maxDayProgress - progress)) more fit)"
        case .nothingToTakeBack(let name, let day): return "nothing to take back: \(Self.title(name)) has no progress on \(day)"
        case .negativeTotal: return "a day's total cannot be negative"
        case .totalTooLarge(let total):
            return "a day's total of \(Amount.format(total)) is too large: a day holds at most \(Amount.format(Limits.maxDayProgress))"
        case .changeOutOfRange: return "a progress change must be from 0.001 to \(Amount.format(Limits.maxChange)) (or its negative)"
        case .totalOutOfRange: return "a day's total must be from 0 to \(Amount.format(Limits.maxDayProgress))"
        case .difficultyOutOfRange(let given):
            let range = "\(Limits.difficulty.lowerBound) (very easy) to \(Limits.difficulty.upperBound) (very hard)"
            return given.map { "difficulty '\(Sanitize.display($0))' must be \(range)" } ?? "difficulty must be \(range)"
        case .amountNotANumber(let shown, let decimals):
            return "amount '\(Sanitize.display(shown))' is not a number: use digits with at most \(decimals) decimals, like 8, 2.5 or 0.125"
        case .amountTooPrecise(let shown, let decimals):
            return "amount '\(Sanitize.display(shown))' has more than \(decimals) decimals: round it to at most \(decimals), like 2.125"
        case .amountTooLarge(let shown): return "amount '\(Sanitize.display(shown))' is too large: use at most \(Amount.format(Limits.maxGoal))"
        case .goalOutOfRange(let goal, let kind):
            return "goal \(Amount.format(goal)) is out of range: a \(kind.rawValue) habit needs \(kind == .build ? "more than 0" : "0 or more") and at most \(Amount.format(Limits.maxGoal))"
        default: return nil
        }
    }

    /// A habit's fields and text, schedules and reminder times.
    private var field: String? {
        switch self {
        case .nameEmpty: return "habit name is empty: give 1 to 64 characters"
        case .nameTooLong(let n): return "habit name is \(n) characters long: use at most 64"
        case .iconNotOneCharacter: return "icon must be exactly one character or emoji"
        case .colorNotUnderstood(let s):
            return "color '\(Sanitize.display(s))' not understood\(Suggest.didYouMean(s, among: Validate.colorNames)): "
                + "use #RRGGBB or one of \(Validate.colorNames.joined(separator: ", "))"
        case .unitLength: return "unit must be 1 to 24 characters"
        case .orderKeyInvalid(let s):
            return "order key '\(Sanitize.display(String(s.prefix(OrderKey.maxLength + 1))))' is not valid: use 1 to \(OrderKey.maxLength) of 0-9, A-Z, a-z, not ending in 0"
        case .groupLength: return "group must be 1 to 32 characters"
        case .edgeSpace(let what): return "\(what) must not start or end with a space"
        case .dayNoteLength: return "a day's note must be 1 to 2000 characters"
        case .pauseReasonLength: return "a pause's reason must be 1 to 80 characters"
        case .notesTooLong(let n): return "notes are \(n) characters long: use at most 2000"
        case .textTooLong(let what): return "\(what) is too long: use at most 65536 bytes of text"
        case .controlCharacter(let what, let u): return "\(what) contains a control character (\(Validate.codePoint(u))): remove it"
        case .invisibleCharacter(let what, let u): return "\(what) contains an invisible character (\(Validate.codePoint(u))): remove it"
        case .scheduleNumber(let text, let form, let range):
            return "schedule \(Sanitize.quoted(text)): \(form) needs a whole number N from \(range.lowerBound) to \(range.upperBound)"
        case .scheduleNotUnderstood(let text, let suggestion):
            return "schedule \(Sanitize.quoted(text)) not understood\(suggestion): use daily, weekdays, weekends, mon,wed,fri, every:3, 3/week or 10/month"
        case .scheduleOutOfRange(let schedule): return "schedule \(schedule) is out of range"
        case .limitWithQuota(let period):
            return "a limit habit cannot use an N/\(period == .week ? "week" : "month") schedule: use daily, weekdays or chosen days"
        case .reminderTimeNotUnderstood(let part):
            return "reminder time '\(Sanitize.display(String(part.prefix(20))))' not understood: use HH:MM from 00:00 to 23:59, e.g. 08:00,20:30"
        case .tooManyReminders(let n): return "\(n) reminder times: a habit can have at most \(ReminderTime.maxCount)"
        case .reminderOutOfRange(let minutes): return "reminder time \(minutes) minutes is out of range: use 00:00 to 23:59"
        case .remindersUnsorted: return "reminder times must be sorted without duplicates"
        case .notARuleField: return "only kind, goal, unit and schedule can change from a day on"
        default: return nil
        }
    }

    /// Catch-up answers and auto habits.
    private var answer: String? {
        switch self {
        case .oneAnswer(let choices): return "one answer, please: \(choices) (a difficulty may follow y or an amount)"
        case .difficultyWithoutDone: return "a difficulty only goes with y or an amount"
        case .notAnAnswer(let line, true):
            return "'\(Sanitize.display(line))' is not an answer: y (done), n (not done), s (skip), 1-5 (done, that hard) or enter (leave it)"
        case .notAnAnswer(let line, false):
            return "'\(Sanitize.display(line))' is not an answer: y (done), n (not done), s (skip), an amount such as 3, or enter (leave it)"
        case .limitNeedsAmount(let name): return "\(Self.title(name)) is a limit habit: type how many (or y if it was kept)"
        case .doneAlready(let name, let progress, let goal, let day):
            return "\(Self.title(name)) holds \(Amount.format(progress))/\(Amount.format(goal)) on \(day), done; to make it less, take some back ('habitto uncheck' with --amount)"
        case .printedNoNumber: return "printed no number on its first line"
        case .printedNotANumber(let shown): return "printed '\(Sanitize.display(shown))' on its first line, not a number such as 3 or 1.5"
        case .printedTooMuch(let amount): return "printed \(Amount.format(amount)), more than a day holds (\(Amount.format(Limits.maxDayProgress)))"
        case .countsAnAmount(let name): return "\(Self.title(name)) counts an amount: its command must print a number"
        case .isYesNo(let name): return "\(Self.title(name)) is a yes/no habit: its command's exit status says done"
        case .emptyCommand: return "the command is empty; give one such as 'test -f ~/done-today'"
        case .multilineCommand: return "the command must be one line; put a longer script in a file and run that"
        case .commandTooLong(let most): return "the command is longer than \(most) bytes; put it in a script and run that"
        default: return nil
        }
    }

    /// The UI's prompts.
    private var ui: String? {
        switch self {
        case .amountPromptUnreadable: return "type an amount: 3 adds, -2 takes back, =8 sets the day's total (esc cancels)"
        case .zeroChangesNothing: return "0 changes nothing: type an amount such as 3, or =0 to clear the day"
        case .newHabitNeedsID: return "a new habit needs an id"
        case .timerDurationUnreadable(let text):
            return "'\(text)' is not a duration: use minutes (25), or h, m and s such as 25m, 1h30m, 90s"
        case .timerDurationOutOfRange(let text):
            return "'\(text)' is out of range: a timer runs from 1 second to \(HabitTimer.longest / 3600) hours"
        default: return nil
        }
    }
}
