import XCTest
import HabitCore

/// How a habit is found by what the user typed when a merge left two habits with one name.
final class NamesakeTests: XCTestCase {
    /// Two habits named Walk (as two devices that each added one merge into), and Walking.
    private func world() -> (World, walk1: Habit, walk2: Habit, walking: Habit) {
        var w = World()
        let walk1 = w.create(HabitFields(name: "Walk", startDate: day("2026-11-01")))
        let walk2 = w.create(HabitFields(name: "walk", startDate: day("2026-11-05"), group: "Health"))
        let walking = w.create(HabitFields(name: "Walking", startDate: day("2026-11-01")))
        return (w, walk1, walk2, walking)
    }

    private func refusal(_ query: String, _ state: HabitState, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let h = try Edits.find(query, in: state)
            XCTFail("'\(query)' found \(h.name) (\(h.id)) instead of being refused", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testAWholeNameThatTwoHabitsShareIsRefusedListingEachIdGroupAndStart() {
        let (w, walk1, walk2, _) = world()
        for query in ["Walk", "WALK"] {
            let message = refusal(query, w.state)
            XCTAssertEqual(message, "'\(query)' matches 2 habits: 'Walk' id \(walk1.id) (no group, from 2026-11-01); "
                           + "'walk' id \(walk2.id) (group Health, from 2026-11-05); give the id (or a 4+ character prefix of it) to pick one")
            XCTAssertFalse(message.contains("\n"), "one line")
        }
    }

    func testAnIdAlwaysSelectsExactlyItsHabit() throws {
        let (w, walk1, walk2, walking) = world()
        XCTAssertEqual(try Edits.find(walk1.id.rawValue, in: w.state).id, walk1.id)
        XCTAssertEqual(try Edits.find(walk2.id.rawValue, in: w.state).id, walk2.id)
        XCTAssertEqual(try Edits.find(walking.id.rawValue, in: w.state).id, walking.id)
    }

    func testAPrefixThatFitsSeveralHabitsIsRefusedAndAUniquePrefixSelects() throws {
        let (w, _, _, walking) = world()
        XCTAssertTrue(refusal("wal", w.state).hasPrefix("'wal' matches 3 habits: "))
        XCTAssertTrue(refusal("wal", w.state).hasSuffix("; type more of the name, or give the id"))
        XCTAssertEqual(try Edits.find("walki", in: w.state).id, walking.id)
    }

    func testAWholeNameOneHabitHasWinsOverLongerNamesItStarts() throws {
        var w = World()
        let walk = w.create(HabitFields(name: "Walk", startDate: day("2026-11-01")))
        w.create(HabitFields(name: "Walking", startDate: day("2026-11-01")))
        w.create(HabitFields(name: "Walk the dog", startDate: day("2026-11-01")))
        XCTAssertEqual(try Edits.find("walk", in: w.state).id, walk.id)
    }

    func testNamesakeTagsAreTheShortestIdPrefixesThatTellTheHabitsApart() {
        var w = World()
        let a = w.create(HabitFields(name: "Walk", startDate: day("2026-11-01")))
        let b = w.create(HabitFields(name: "WALK", startDate: day("2026-11-01")))
        let other = w.create(HabitFields(name: "Read", startDate: day("2026-11-01")))
        let tags = Edits.namesakeTags(w.state.habits)
        // The test ids differ only in their last digit: the whole id tells them apart.
        XCTAssertEqual(tags[a.id], a.id.rawValue)
        XCTAssertEqual(tags[b.id], b.id.rawValue)
        XCTAssertNil(tags[other.id])
        XCTAssertEqual(Edits.namesakes(w.state.habits).map { $0.map(\.id) }, [[a.id, b.id]])
        // Ids that part early get four characters.
        let x = Habit(id: HabitID("1a2b000000000000")!, fields: HabitFields(name: "Run", startDate: day("2026-11-01")))
        let y = Habit(id: HabitID("9c8d000000000000")!, fields: HabitFields(name: "run", startDate: day("2026-11-01")))
        XCTAssertEqual(Edits.namesakeTags([x, y]), [x.id: "1a2b", y.id: "9c8d"])
    }
}
