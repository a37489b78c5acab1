import XCTest
import HabitCore
@testable import HabitTUI

/// Day notes (the note prompt, the today row's mark, the detail screen's list), groups on
/// the today screen (headings, folding) and the form's group and notes fields.
final class NotesAndGroupsTests: XCTestCase {
    let today = World.today

    /// The world with a note on Read today and on Drink water two and five days ago.
    static func withNotes() -> AppState {
        World.app(changes: World.changes + [
            .note(World.read, World.today, "Felt good"),
            .note(World.water, World.today.adding(-2), "Two glasses at lunch\nthe rest after the run"),
            .note(World.water, World.today.adding(-5), String(repeating: "long note ", count: 20)),
        ])
    }

    /// The world with Drink water and No sugar in "Health", Gym in "Fitness", Read in none.
    static func withGroups(width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode) -> AppState {
        var app = World.app(width: width, height: height, glyphs: glyphs, changes: World.changes + [
            .set(World.water, .group("Health")), .set(World.sugar, .group("Health")), .set(World.gym, .group("Fitness")),
        ])
        app.showAll = true
        return app
    }

    func prompt(_ app: AppState, file: StaticString = #filePath, line: UInt = #line) -> NotePrompt? {
        guard case .note(let p) = app.overlay else { XCTFail("no note prompt", file: file, line: line); return nil }
        return p
    }

    // MARK: The note prompt

    func testTheNoteKeyStartsWithTheDaysNoteAndEnterSavesTheEditAsOneWrite() {
        var app = Self.withNotes()
        press(&app, .char("j"))
        XCTAssertEqual(press(&app, .char("N")), [])
        XCTAssertEqual(app.overlay, .note(NotePrompt(habit: World.read, day: today, text: "Felt good")))
        XCTAssertEqual(app.mode, .note)
        press(&app, .backspace, .backspace, .backspace, .backspace)
        type(&app, "great, 20 pages")
        XCTAssertEqual(press(&app, .enter), [.write(.note(World.read, today, "Felt great, 20 pages"))])
        XCTAssertNil(app.overlay)
        // Keys that mean something elsewhere are typed into the note.
        press(&app, .char("N"))
        type(&app, " q?jz")
        XCTAssertEqual(prompt(app)?.text, "Felt good q?jz")
        XCTAssertEqual(press(&app, .char("u")), [])
        XCTAssertEqual(prompt(app)?.text, "Felt good q?jzu")
        // u undoes the note once the prompt is closed.
        press(&app, .escape)
        XCTAssertEqual(press(&app, .char("u")), [.undo])
    }

    func testAnEmptyNoteClearsTheDaysNote() {
        var app = Self.withNotes()
        press(&app, .char("j"), .char("N"))
        for _ in "Felt good" { press(&app, .backspace) }
        XCTAssertEqual(prompt(app)?.text, "")
        XCTAssertEqual(press(&app, .enter), [.write(.note(World.read, today, nil))])
        // Blank is empty too.
        press(&app, .char("N"))
        for _ in "Felt good" { press(&app, .backspace) }
        type(&app, "   ")
        XCTAssertEqual(press(&app, .enter), [.write(.note(World.read, today, nil))])
    }

    func testSavingTheSameNoteOrClearingNoNoteChangesNothingAndSaysSo() {
        var app = Self.withNotes()
        press(&app, .char("N"))
        XCTAssertEqual(prompt(app)?.text, "")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.text, "'Drink water' has no note on 2026-11-21; nothing changed")
        press(&app, .char("j"), .char("N"))
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(app.message?.text, "'Read' already has that note on 2026-11-21; nothing changed")
    }

    func testAnInvalidNoteStaysInThePromptWithTheReason() {
        var app = Self.withNotes()
        press(&app, .char("N"))
        type(&app, "a\u{202E}b")
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(prompt(app)?.text, "a\u{202E}b")
        XCTAssertEqual(prompt(app)?.error, "note contains a control character (U+202E): remove it")
        XCTAssertTrue(render(app).line(21).contains("control character (U+202E)"), render(app).line(21))
        // Typing clears the reason; the text stays to be fixed.
        press(&app, .backspace, .backspace)
        XCTAssertNil(prompt(app)?.error)
        type(&app, String(repeating: "x", count: 2000))
        XCTAssertEqual(press(&app, .enter), [])
        XCTAssertEqual(prompt(app)?.error, "a day's note must be 1 to 2000 characters")
        press(&app, .backspace)
        XCTAssertEqual(press(&app, .enter), [.write(.note(World.water, today, "a" + String(repeating: "x", count: 1999)))])
    }

    func testEscapeCancelsTheNotePrompt() {
        var app = Self.withNotes()
        press(&app, .char("j"), .char("N"))
        type(&app, "!!!")
        XCTAssertEqual(press(&app, .escape), [])
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.text, "Cancelled: the note is as it was")
    }

    func testTheNoteKeyWorksOnTheWeekCellAndTheCalendarDayAndTheShownDay() {
        var app = Self.withNotes()
        press(&app, .char("w"), .char("h"), .char("h"), .char("N"))
        XCTAssertEqual(prompt(app)?.habit, World.water)
        XCTAssertEqual(prompt(app)?.day, today.adding(-2))
        XCTAssertEqual(prompt(app)?.text, "Two glasses at lunch\nthe rest after the run")
        type(&app, ".")
        XCTAssertEqual(press(&app, .enter), [.write(.note(World.water, today.adding(-2), "Two glasses at lunch\nthe rest after the run."))])
        press(&app, .escape, .char("j"), .enter, .char("h"), .char("N"))
        XCTAssertEqual(app.screen, .detail(World.read))
        XCTAssertEqual(prompt(app)?.day, today.adding(-1))
        type(&app, "Slept badly")
        XCTAssertEqual(press(&app, .enter), [.write(.note(World.read, today.adding(-1), "Slept badly"))])
        press(&app, .escape, .char("h"), .char("N"))
        XCTAssertEqual(prompt(app)?.day, today.adding(-1), "the today screen's shown day")
    }

    func testANoteBeforeTheHabitStartsIsRefusedWithTheReason() {
        var app = Self.withNotes()
        app.date = World.start.adding(-1)
        app.showAll = true
        press(&app, .char("N"))
        XCTAssertNil(app.overlay)
        XCTAssertEqual(app.message?.kind, .error)
        XCTAssertTrue(app.message?.text.contains("before") == true, app.message?.text ?? "")
    }

    func testTheNotePromptRendersOnTheMessageLineShowingTheEndOfALongNote() {
        var app = Self.withNotes()
        press(&app, .char("j"), .char("N"))
        assertSnapshot(render(app), named: "note-prompt-80x24")
        type(&app, String(repeating: " and then some more", count: 5) + " END")
        let line = render(app).line(21)
        XCTAssertTrue(line.contains("…"), line)
        XCTAssertTrue(line.contains(" END_"), line)
        var narrow = Self.withNotes()
        narrow.width = 40
        narrow.height = 10
        press(&narrow, .char("w"), .char("h"), .char("h"), .char("N"))
        assertSnapshot(render(narrow), named: "note-prompt-40x10")
    }

    // MARK: Where notes show

    func testATodayRowShowsAMarkWhenItsDayHasANote() {
        let app = Self.withNotes()
        let screen = render(app)
        assertSnapshot(screen, named: "today-note-mark-80x24")
        XCTAssertEqual(screen[3, 3].text, "✎")
        XCTAssertEqual(screen[3, 2].text, " ", "Drink water has no note today")
        var ascii = Self.withNotes()
        ascii.glyphs = .ascii
        XCTAssertEqual(render(ascii)[3, 3].text, "\"")
        // The ASCII mark is no key of the today screen.
        XCTAssertNil(KeyMap.defaults.command(for: .char("\""), in: .today))
    }

    func testTheDetailScreenListsTheDayNotesNewestFirstCutToTheWidth() {
        var app = Self.withNotes()
        press(&app, .enter)
        let screen = render(app)
        assertSnapshot(screen, named: "detail-notes-80x24")
        let text = screen.text
        XCTAssertTrue(text.contains("2026-11-19  Two glasses at lunch / the rest after the run"), text)
        XCTAssertTrue(text.contains("2026-11-16  long note long note"), text)
        let first = text.range(of: "2026-11-19")!.lowerBound, second = text.range(of: "2026-11-16")!.lowerBound
        XCTAssertLessThan(first, second, "newest first")
        XCTAssertTrue(screen.line(screen.text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("2026-11-16  long") }!).hasSuffix("…"))
        var tall = Self.withNotes()
        tall.width = 120
        tall.height = 35
        press(&tall, .enter)
        assertSnapshot(render(tall), named: "detail-notes-120x35")
    }

    func testTheDetailScreenShowsTheHabitsOwnNotes() {
        var app = World.app(changes: World.changes + [.set(World.water, .notes("From the tap\nnot bottled"))])
        press(&app, .enter)
        XCTAssertTrue(render(app).text.contains("Notes: From the tap / not bottled"), render(app).text)
    }

    func testTheDetailScreenShowsTheHabitsReminderTimes() {
        let times = [ReminderTime(hour: 8, minute: 0), ReminderTime(hour: 20, minute: 30)]
        var app = World.app(changes: World.changes + [.set(World.water, .reminders(times))])
        press(&app, .enter)
        XCTAssertTrue(render(app).text.contains("Reminders: 08:00, 20:30 (habitto remind)"), render(app).text)
        var plain = World.app()
        press(&plain, .enter)
        XCTAssertFalse(render(plain).text.contains("Reminders"), "a habit without reminders shows none")
    }

    // MARK: Groups on the today screen

    func testWithoutGroupsTheTodayScreenHasNoHeadings() {
        let app = World.app()
        XCTAssertEqual(app.lines, app.rows.indices.map(TodayLine.habit))
    }

    func testHabitsShowUnderTheirGroupsUngroupedFirstGroupsInTheHabitOrder() {
        let app = Self.withGroups()
        XCTAssertEqual(app.rows.map(\.habit.id), [World.read, World.water, World.sugar, World.gym])
        XCTAssertEqual(app.lines, [
            .habit(0),
            .heading(group: "Health", count: 2, done: 1, folded: false), .habit(1), .habit(2),
            .heading(group: "Fitness", count: 1, done: 0, folded: false), .habit(3),
        ])
        XCTAssertEqual(app.selectedID, World.read)
        assertSnapshot(render(app), named: "today-groups-80x24")
    }

    func testZFoldsTheSelectedHabitsGroupAndTheSelectionGoesToItsHeading() {
        var app = Self.withGroups()
        press(&app, .char("j"), .char("j"))
        XCTAssertEqual(app.selectedID, World.sugar)
        XCTAssertEqual(press(&app, .char("z")), [])
        XCTAssertEqual(app.foldedGroups, ["Health"])
        XCTAssertEqual(app.selectedGroup, "Health")
        XCTAssertNil(app.selected)
        XCTAssertEqual(app.lines, [
            .habit(0), .heading(group: "Health", count: 2, done: 1, folded: true),
            .heading(group: "Fitness", count: 1, done: 0, folded: false), .habit(3),
        ])
        assertSnapshot(render(app), named: "today-groups-folded-80x24")
        // Moving skips the hidden habits: the heading, then Gym; back up to the heading and Read.
        press(&app, .char("j"))
        XCTAssertEqual(app.selectedID, World.gym)
        press(&app, .char("k"))
        XCTAssertEqual(app.selectedGroup, "Health")
        press(&app, .char("k"))
        XCTAssertEqual(app.selectedID, World.read)
        press(&app, .char("G"), .char("k"))
        XCTAssertEqual(app.selectedGroup, "Health")
        // Keys for a habit say how to get at one.
        XCTAssertEqual(press(&app, .char(" ")), [])
        XCTAssertEqual(app.message?.text, "'Health' is folded: z unfolds it")
        XCTAssertEqual(press(&app, .char("N")), [])
        XCTAssertNil(app.overlay)
        // z on the heading unfolds it, onto the group's first habit.
        press(&app, .char("z"))
        XCTAssertEqual(app.foldedGroups, [])
        XCTAssertNil(app.selectedGroup)
        XCTAssertEqual(app.selectedID, World.water)
    }

    func testTheSelectionNeverLandsOnAHiddenHabit() {
        var app = Self.withGroups()
        press(&app, .char("j"), .char("z"), .char("G"))
        XCTAssertEqual(app.selectedID, World.gym)
        // The detail screen's j/k move over every habit in the listing order (Read; Water, Sugar;
        // Gym): k from Gym is Sugar, hidden; back on today the hidden one's heading is selected.
        press(&app, .enter, .char("k"))
        XCTAssertEqual(app.screen, .detail(World.sugar))
        press(&app, .escape)
        XCTAssertEqual(app.selectedGroup, "Health")
        XCTAssertNil(app.selectedIndex)
        // A state change from elsewhere keeps it there, and folding the group of the habit selected moves it there.
        _ = reduce(&app, .stateChanged(app.habits))
        XCTAssertEqual(app.selectedGroup, "Health")
        press(&app, .char("G"))
        app.foldedGroups.insert("Fitness")
        XCTAssertEqual(app.selectedGroup, "Fitness")
        XCTAssertNil(app.selectedID)
    }

    func testZOnAHabitWithoutAGroupSaysHowToGiveItOne() {
        var app = Self.withGroups()
        XCTAssertEqual(press(&app, .char("z")), [])
        XCTAssertEqual(app.message?.text, "'Read' is in no group: e edits it, its Group field puts it in one")
        XCTAssertEqual(app.foldedGroups, [])
    }

    func testFoldedHeadingsFitANarrowScreen() {
        var app = Self.withGroups(width: 40, height: 10, glyphs: .ascii)
        press(&app, .char("j"), .char("z"))
        assertSnapshot(render(app), named: "today-groups-folded-ascii-40x10")
    }

    // MARK: The form's group and notes fields

    func testTheFormPicksAnExistingGroupAndSavesGroupAndNotes() {
        var app = Self.withGroups()
        press(&app, .char("a"))
        type(&app, "Stretch")
        guard case .form(var form)? = app.overlay else { return XCTFail("no form") }
        form.focus = .group
        app.overlay = .form(form)
        // right cycles through the groups in their order; what is typed picks the first match.
        press(&app, .right)
        guard case .form(let a)? = app.overlay else { return XCTFail() }
        XCTAssertEqual(a.text(.group), "Health")
        press(&app, .right)
        guard case .form(let b)? = app.overlay else { return XCTFail() }
        XCTAssertEqual(b.text(.group), "Fitness")
        press(&app, .right, .left)
        guard case .form(let c)? = app.overlay else { return XCTFail() }
        XCTAssertEqual(c.text(.group), "Fitness")
        for _ in "Fitness" { press(&app, .backspace) }
        type(&app, "he")
        press(&app, .right)
        guard case .form(let d)? = app.overlay else { return XCTFail() }
        XCTAssertEqual(d.text(.group), "Health")
        press(&app, .tab, .tab) // past the reminders
        type(&app, "Ten minutes after waking up")
        var expected = HabitFields(name: "Stretch", startDate: today)
        expected.group = "Health"
        expected.notes = "Ten minutes after waking up"
        XCTAssertEqual(press(&app, .enter), [.write(.add(expected))])
    }

    func testTheEditFormShowsTheGroupAndNotesAndChecksThem() {
        let habit = Habit(id: World.water, fields: HabitFields(name: "Run", startDate: today, notes: "Easy pace", group: "Health"))
        var form = HabitForm.edit(habit)
        XCTAssertEqual(form.text(.group), "Health")
        XCTAssertEqual(form.text(.notes), "Easy pace")
        form.values[.group] = " Health"
        XCTAssertEqual(form.problem(.group, in: HabitState()), "group must not start or end with a space")
        form.values[.group] = ""
        form.values[.notes] = ""
        let fields = try? form.fields(base: habit.fields, in: HabitState()).get()
        XCTAssertNil(fields?.group)
        XCTAssertNil(fields?.notes)
    }

    func testTheFormShowsItsGroupAndNotesFields() {
        var app = Self.withGroups()
        press(&app, .char("e"))
        guard case .form(var form)? = app.overlay else { return XCTFail("no form") }
        form.focus = .group
        app.overlay = .form(form)
        assertSnapshot(render(app), named: "form-group-80x24")
        var small = Self.withGroups(width: 40, height: 10)
        press(&small, .char("j"), .char("e"))
        guard case .form(var f)? = small.overlay else { return XCTFail("no form") }
        f.focus = .notes
        small.overlay = .form(f)
        let text = render(small).text
        XCTAssertTrue(text.contains("Notes"), "the focused field scrolls into the box:\n\(text)")
        assertSnapshot(render(small), named: "form-notes-40x10")
    }
}
