import HabitCore
import XCTest

final class SuggestTests: XCTestCase {
    func testDistanceCountsEditsAndAdjacentSwapsAsOne() {
        func d(_ a: String, _ b: String) -> Int { Suggest.distance(Array(a), Array(b)) }
        XCTAssertEqual(d("check", "check"), 0)
        XCTAssertEqual(d("chek", "check"), 1)      // a deletion
        XCTAssertEqual(d("lsit", "list"), 1)       // a swap
        XCTAssertEqual(d("kitten", "sitting"), 3)
        XCTAssertEqual(d("", "abc"), 3)
        XCTAssertEqual(d("abc", ""), 3)
    }

    func testNearestComparesWholeNamesAndWordsCaseInsensitively() {
        let names = ["Drink water", "Read", "No sugar"]
        XCTAssertEqual(Suggest.nearest("watr", among: names), "Drink water")
        XCTAssertEqual(Suggest.nearest("REDA", among: names), "Read")
        XCTAssertEqual(Suggest.nearest("drink watre", among: names), "Drink water")
        XCTAssertEqual(Suggest.nearest("sugr", among: names), "No sugar")
    }

    func testNothingIsSuggestedWhenNothingIsNear() {
        XCTAssertNil(Suggest.nearest("xyz", among: ["Drink water", "Read"]))
        XCTAssertNil(Suggest.nearest("", among: ["Read"]))
        XCTAssertNil(Suggest.nearest("meditate", among: []))
        // Up to 4 characters one edit is allowed, not two.
        XCTAssertNil(Suggest.nearest("rxxd", among: ["Read"]))
        XCTAssertEqual(Suggest.nearest("rxad", among: ["Read"]), "Read")
    }

    func testTheNearestWinsAndTiesGoToTheFirstInOrder() {
        XCTAssertEqual(Suggest.nearest("lst", among: ["last", "list"]), "last")
        XCTAssertEqual(Suggest.nearest("lisst", among: ["last", "list"]), "list")
    }

    func testFindSuggestsTheNearestHabitOnlyWhenNothingMatches() throws {
        var w = World()
        w.build("Drink water", start: day("2026-11-01"))
        w.build("Read", start: day("2026-11-01"))
        let s = w.state
        XCTAssertThrowsError(try Edits.find("watr", in: s)) { e in
            XCTAssertEqual("\(e)", "no habit matches 'watr'; did you mean 'Drink water'?")
        }
        XCTAssertThrowsError(try Edits.find("zzzz", in: s)) { e in
            XCTAssertEqual("\(e)", "no habit matches 'zzzz'; 'habitto list --all' shows them all")
        }
        XCTAssertEqual(try Edits.find("wat", in: s).name, "Drink water")
    }
}
