import XCTest
import HabitCore
@testable import HabitTUI

/// What an intent means (`Intent.changes`) and says once written (`Outcome.sentence`, as the
/// UI's confirmation shows it): the changes, the "nothing changed" texts and every
/// confirmation, on the little world.
final class OutcomeTests: XCTestCase {
    let today = World.today
    let yesterday = World.today.adding(-1)
    let settings = RuleSettings()

    /// The world after the intent's own changes (what the runner confirms against).
    func after(_ intent: Intent, newID: HabitID? = nil, from changes: [Change] = World.changes) throws -> HabitState {
        let before = World.state(changes)
        return World.state(changes + (try intent.changes(newID: newID, today: today, in: before)))
    }

    /// The UI's confirmation of the intent once written.
    func confirmation(_ intent: Intent, newID: HabitID? = nil, from changes: [Change] = World.changes) throws -> String {
        let before = World.state(changes)
        let changed = !(try intent.changes(newID: newID, today: today, in: before)).isEmpty
        let outcome = intent.outcome(newID: newID, changed: changed, state: try after(intent, newID: newID, from: changes),
                                     today: today, settings: settings)
        return HabitTUI.confirmation(outcome, World.app(changes: changes))
    }

    /// The streak of `habit` on `day` once the intent is written.
    func streak(_ intent: Intent, _ habit: HabitID, _ day: LocalDay) throws -> String {
        let state = try after(intent)
        return state.summary(state.habit(habit)!, on: day, today: today, settings: settings).line.streakText
    }

    func testProgressConfirmationsSayTheDaysAmountAfterIt() throws {
        // Water has 3 of 8 glasses today.
        let s = try streak(.checkIn(World.water, today), World.water, today)
        XCTAssertEqual(try confirmation(.checkIn(World.water, today)), "◐ 'Drink water' today: 4/8 glasses · streak \(s)")
        XCTAssertEqual(try confirmation(.checkIn(World.water, today, amount: 2 * Amount.scale)), "◐ 'Drink water' today: 5/8 glasses · streak \(s)")
        XCTAssertEqual(try confirmation(.takeBack(World.water, today)), "◐ 'Drink water' today: 2/8 glasses · streak \(s)")
        XCTAssertEqual(try confirmation(.takeBack(World.water, today, amount: 20 * Amount.scale)), "· 'Drink water' today: 0/8 glasses · streak \(s)")
        XCTAssertEqual(try confirmation(.setTotal(World.water, today, 6 * Amount.scale)), "◐ 'Drink water' today: 6/8 glasses · streak \(s)")
        let y = try streak(.setTotal(World.water, yesterday, 7 * Amount.scale), World.water, yesterday)
        XCTAssertEqual(try confirmation(.setTotal(World.water, yesterday, 7 * Amount.scale)),
                       "◐ 'Drink water' on 2026-11-20: 7/8 glasses · streak \(y)")
    }

    func testCompletingABuildHabitSaysDoneAndTheStreak() throws {
        // Read is done every day but every fifth; 2026-11-19 was skipped, so the streak runs
        // from the day after the last miss.
        let s = try streak(.toggle(World.read, today), World.read, today)
        XCTAssertNotEqual(s, "0 days")
        XCTAssertEqual(try confirmation(.toggle(World.read, today)), "✓ 'Read' today: 1/1, done · streak \(s)")
        let y = try streak(.takeBack(World.read, yesterday), World.read, yesterday)
        XCTAssertEqual(try confirmation(.takeBack(World.read, yesterday)), "· 'Read' on 2026-11-20: 0/1 · streak \(y)")
    }

    func testALimitHabitSaysItsLimitAndWhenItIsOver() throws {
        let s = try streak(.checkIn(World.sugar, today), World.sugar, today)
        XCTAssertEqual(try confirmation(.checkIn(World.sugar, today)), "✗ 'No sugar' today: 1 (≤0), over the limit · streak \(s)")
    }

    func testSkipAndUnskipSayWhatASkippedDayMeans() throws {
        XCTAssertEqual(try confirmation(.skip(World.read, today, true)),
                       "Skipped 'Read' on 2026-11-21: the day neither counts nor breaks the streak")
        XCTAssertEqual(try confirmation(.skip(World.read, today.adding(-2), false)), "Unskipped 'Read' on 2026-11-19")
        XCTAssertEqual(try confirmation(.skip(World.read, today.adding(-2), true)), "'Read' is already skipped on 2026-11-19; nothing changed")
    }

    func testRatingsArchivesAndMovesConfirmations() throws {
        XCTAssertEqual(try confirmation(.rate(World.read, yesterday, 3)), "Rated 'Read' on 2026-11-20: 3 (medium)")
        XCTAssertEqual(try confirmation(.rate(World.read, today.adding(-3), nil)), "Cleared the difficulty of 'Read' on 2026-11-18")
        XCTAssertEqual(try confirmation(.archive(World.gym)), "Archived 'Gym'; its history stays (u undoes)")
        let archived = World.changes + [.set(World.gym, .archivedFrom(today))]
        XCTAssertEqual(try confirmation(.unarchive(World.gym), from: archived), "Unarchived 'Gym' (u undoes)")
        XCTAssertEqual(try confirmation(.move(World.gym, .before(World.water))), "Moved 'Gym' up")
        XCTAssertEqual(try confirmation(.move(World.water, .after(World.gym))), "Moved 'Drink water' down")
        XCTAssertEqual(try confirmation(.move(World.gym, .top)), "Moved 'Gym' to the top")
        XCTAssertEqual(try confirmation(.move(World.water, .bottom)), "Moved 'Drink water' to the bottom")
    }

    func testHabitConfirmationsNameTheHabitAsItIsNow() throws {
        let id = HabitID("00000000000000e5")!
        let fields = HabitFields(name: "Stretch", startDate: today)
        XCTAssertEqual(try confirmation(.add(fields), newID: id), "Added 'Stretch'")
        var renamed = World.state(World.changes).habit(World.gym)!.fields
        renamed.name = "Gym class"
        XCTAssertEqual(try confirmation(.edit(World.gym, renamed, from: nil)), "Saved 'Gym class'")
        XCTAssertEqual(try confirmation(.delete(World.gym)), "Deleted the habit and its history (u undoes)")
    }

    func testNoteConfirmationsSayTheDayAndHowToUndo() throws {
        XCTAssertEqual(try confirmation(.note(World.read, yesterday, "long chapter")), "Noted on 'Read' on 2026-11-20 (u undoes)")
        let noted = World.changes + [.note(World.read, yesterday, "long chapter")]
        XCTAssertEqual(try confirmation(.note(World.read, yesterday, nil), from: noted), "Cleared the note of 'Read' on 2026-11-20 (u undoes)")
    }

    func testCatchUpAnswerSaysWhatWasRecordedInTheCheckInsAndSkipsWords() throws {
        let s = try streak(.answer(World.water, yesterday, .done(difficulty: 2)), World.water, yesterday)
        XCTAssertEqual(try confirmation(.answer(World.water, yesterday, .done(difficulty: 2))),
                       "✓ 'Drink water' on 2026-11-20: 8/8 glasses, done · streak \(s) · difficulty 2")
        XCTAssertEqual(try confirmation(.answer(World.gym, yesterday, .skip)),
                       "Skipped 'Gym' on 2026-11-20: the day neither counts nor breaks the streak")
    }

    func testTheSentenceIsTheConfirmationWithoutTheUndoKeyOrTheUIsGlyphs() throws {
        let note = Intent.note(World.read, yesterday, "long chapter")
        XCTAssertEqual(note.outcome(changed: true, state: try after(note), today: today).sentence(), "Noted on 'Read' on 2026-11-20")
        let skip = Intent.skip(World.read, today, true)
        XCTAssertEqual(skip.outcome(changed: true, state: try after(skip), today: today).sentence(), try confirmation(skip))
        let check = Intent.checkIn(World.water, today)
        XCTAssertEqual("◐ " + check.outcome(changed: true, state: try after(check), today: today).sentence(), try confirmation(check))
    }

    func testAWriteOnAHabitDeletedElsewhereSaysSoAndIsConfirmedWithoutItsName() throws {
        let gone = World.changes + [.delete(World.gym)]
        XCTAssertThrowsError(try Intent.skip(World.gym, today, true).changes(today: today, in: World.state(gone))) { error in
            XCTAssertEqual((error as? CoreError)?.description, "that habit no longer exists (deleted elsewhere?)")
        }
        XCTAssertEqual(Intent.rate(World.gym, today, 2).outcome(changed: true, state: World.state(gone), today: today).sentence(),
                       "Rated the habit on 2026-11-21: 2 (easy)")
    }

    func testANewHabitNeedsItsID() {
        XCTAssertThrowsError(try Intent.add(HabitFields(name: "Stretch", startDate: today)).changes(today: today, in: World.state(World.changes)))
    }

    func testNothingChangedTexts() {
        let state = World.state(World.changes)
        func said(_ intent: Intent) -> String { intent.outcome(changed: false, state: state, today: today).sentence() }
        XCTAssertEqual(said(.setTotal(World.water, today, 3 * Amount.scale)), "Drink water already has 3 on 2026-11-21: nothing changed")
        XCTAssertEqual(said(.move(World.water, .top)), "'Drink water' is already there: nothing changed")
        XCTAssertEqual(said(.note(World.read, today, nil)), "'Read' has no note on 2026-11-21; nothing changed")
        XCTAssertEqual(said(.note(World.read, today, "x")), "'Read' already has that note on 2026-11-21; nothing changed")
        // A rating that is already so still says what it is.
        XCTAssertEqual(said(.rate(World.read, today, 2)), "Rated 'Read' on 2026-11-21: 2 (easy)")
    }

    func testTheReducerShowsTheRulesRefusalBeforeAskingForTheWrite() {
        var app = World.app()
        // Drink water has no progress on its start date's eve: nothing to take back before the start.
        let effects = write(.takeBack(World.water, World.start.adding(-1)), &app)
        XCTAssertEqual(effects, [])
        XCTAssertEqual(app.message?.kind, .error)
        XCTAssertEqual(write(.skip(World.read, today, true), &app), [.write(.skip(World.read, today, true))])
    }

    /// Space, `habitto check` and `habitto uncheck` are one decision on every day of a yes/no
    /// habit: on a day shown done, space takes back as uncheck does, and a check records the
    /// answer again (a set step to done); on a day not done, space checks in as check does.
    func testSpaceCheckAndUncheckAgreeOnAYesNoDay() throws {
        let done = World.state(World.changes + [.progress(World.read, today, delta: Amount.scale)])
        XCTAssertEqual(try Intent.toggle(World.read, today).changes(today: today, in: done),
                       try Intent.takeBack(World.read, today).changes(today: today, in: done))
        XCTAssertEqual(try Intent.checkIn(World.read, today).changes(today: today, in: done),
                       [.setProgress(World.read, today, total: Amount.scale)])
        let open = World.state(World.changes)
        XCTAssertEqual(try Intent.toggle(World.read, today).changes(today: today, in: open),
                       try Intent.checkIn(World.read, today).changes(today: today, in: open))
        XCTAssertEqual(try Intent.toggle(World.read, today).changes(today: today, in: open), [.progress(World.read, today, delta: Amount.scale)])
    }
}
