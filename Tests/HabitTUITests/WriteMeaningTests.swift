import XCTest
import HabitCore
@testable import HabitTUI

/// What a write means (`Write.changes`, `nothingChanged`, `confirmation`, `statement`): the
/// changes, the "nothing changed" texts and every confirmation, on the little world.
final class WriteMeaningTests: XCTestCase {
    let today = World.today
    let yesterday = World.today.adding(-1)
    let settings = RuleSettings()

    /// The world after the write's own changes (what the runner confirms against).
    func after(_ w: Write, newID: HabitID? = nil, from changes: [Change] = World.changes) throws -> HabitState {
        let before = World.state(changes)
        return World.state(changes + (try w.changes(newID: newID, today: today, in: before)))
    }

    func confirmation(_ w: Write, newID: HabitID? = nil, from changes: [Change] = World.changes) throws -> String {
        w.confirmation(newID: newID, state: try after(w, newID: newID, from: changes), today: today, settings: settings)
    }

    func testProgressConfirmationsSayTheDaysAmountAfterIt() throws {
        // Water has 3 of 8 glasses today.
        XCTAssertEqual(try confirmation(.progress(World.water, today, Amount.scale)), "Checked in 'Drink water': 4/8 glasses")
        XCTAssertEqual(try confirmation(.progress(World.water, today, 2 * Amount.scale)), "Added 2 to 'Drink water': 5/8 glasses")
        XCTAssertEqual(try confirmation(.progress(World.water, today, -Amount.scale)), "Took back one from 'Drink water': 2/8 glasses")
        XCTAssertEqual(try confirmation(.progress(World.water, today, -2 * Amount.scale)), "Took back 2 from 'Drink water': 1/8 glasses")
        XCTAssertEqual(try confirmation(.setTotal(World.water, today, 6 * Amount.scale)), "Set 'Drink water': 6/8 glasses")
        XCTAssertEqual(try confirmation(.setTotal(World.water, yesterday, 7 * Amount.scale)), "Set 'Drink water': 7/8 glasses on 2026-11-20")
    }

    func testCompletingABuildHabitSaysDoneAndTheStreak() throws {
        // Read is done every day but every fifth; 2026-11-19 was skipped, so the streak runs
        // from the day after the last miss.
        let state = try after(.progress(World.read, today, Amount.scale))
        let streak = state.summary(state.habit(World.read)!, on: today, today: today, settings: settings).streak
        XCTAssertGreaterThan(streak, 0)
        XCTAssertEqual(try confirmation(.progress(World.read, today, Amount.scale)), "Checked in 'Read': 1/1 — done! streak \(streak) days")
        XCTAssertEqual(try confirmation(.progress(World.read, yesterday, -Amount.scale)), "Marked 'Read' not done on 2026-11-20")
    }

    func testALimitHabitSaysItsLimitAndWhenItIsOver() throws {
        XCTAssertEqual(try confirmation(.progress(World.sugar, today, Amount.scale)), "Checked in 'No sugar': 1 (at most 0) — over the limit")
    }

    func testSkipAndUnskipSayWhatASkippedDayMeans() throws {
        XCTAssertEqual(try confirmation(.skip(World.read, today, true)),
                       "Skipped 'Read' on 2026-11-21: the day neither counts nor breaks the streak")
        XCTAssertEqual(try confirmation(.skip(World.read, today.adding(-2), false)), "Unskipped 'Read' on 2026-11-19")
    }

    func testRatingsArchivesAndMovesConfirmations() throws {
        XCTAssertEqual(try confirmation(.rate(World.read, yesterday, 3)), "Rated 'Read' 3 of 5")
        XCTAssertEqual(try confirmation(.rate(World.read, today.adding(-3), nil)), "Cleared the rating of 'Read'")
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

    func testCatchUpAnswerSaysWhatWasRecorded() throws {
        XCTAssertEqual(try confirmation(.answer(World.water, yesterday, .done(difficulty: 2))),
                       "Recorded 'Drink water' on 2026-11-20: 8/8 glasses, done, difficulty 2")
        XCTAssertEqual(try confirmation(.answer(World.gym, yesterday, .skip)), "Recorded 'Gym' on 2026-11-20: skipped")
    }

    func testTheStatementIsTheConfirmationWithoutTheUndoKey() throws {
        let note = Write.note(World.read, yesterday, "long chapter")
        let state = try after(note)
        XCTAssertEqual(note.statement(state: state, today: today, settings: settings), "Noted on 'Read' on 2026-11-20")
        let skip = Write.skip(World.read, today, true)
        XCTAssertEqual(skip.statement(state: try after(skip), today: today, settings: settings),
                       try confirmation(skip))
    }

    func testAWriteOnAHabitDeletedElsewhereSaysSoAndIsConfirmedWithoutItsName() throws {
        let gone = World.changes + [.delete(World.gym)]
        XCTAssertThrowsError(try Write.skip(World.gym, today, true).changes(today: today, in: World.state(gone))) { error in
            XCTAssertEqual((error as? CoreError)?.description, "that habit no longer exists (deleted elsewhere?)")
        }
        XCTAssertEqual(Write.rate(World.gym, today, 2).confirmation(state: World.state(gone), today: today, settings: settings),
                       "Rated the habit 2 of 5")
    }

    func testANewHabitNeedsItsID() {
        XCTAssertThrowsError(try Write.add(HabitFields(name: "Stretch", startDate: today)).changes(today: today, in: World.state(World.changes)))
    }

    func testNothingChangedTexts() {
        let state = World.state(World.changes)
        XCTAssertEqual(Write.setTotal(World.water, today, 3 * Amount.scale).nothingChanged(in: state),
                       "Drink water already has 3 on 2026-11-21: nothing changed")
        XCTAssertEqual(Write.move(World.water, .top).nothingChanged(in: state), "'Drink water' is already there: nothing changed")
        XCTAssertEqual(Write.note(World.read, today, nil).nothingChanged(in: state), "There is no note on 2026-11-21 to clear: nothing changed")
        XCTAssertEqual(Write.note(World.read, today, "x").nothingChanged(in: state), "The note is unchanged")
        // A rating that is already so still goes ahead (its confirmation stands).
        XCTAssertNil(Write.rate(World.read, today, 2).nothingChanged(in: state))
    }

    func testTheReducerShowsTheRulesRefusalBeforeAskingForTheWrite() {
        var app = World.app()
        // Drink water has no progress on its start date's eve: nothing to take back before the start.
        let effects = write(.progress(World.water, World.start.adding(-1), -Amount.scale), &app)
        XCTAssertEqual(effects, [])
        XCTAssertEqual(app.message?.kind, .error)
        XCTAssertEqual(write(.skip(World.read, today, true), &app), [.write(.skip(World.read, today, true))])
    }
}
