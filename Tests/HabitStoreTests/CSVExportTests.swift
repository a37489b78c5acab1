import Foundation
import XCTest
import HabitCore
@testable import HabitStore

/// The CSV export keeps a spreadsheet from running text a person wrote as a formula, and
/// leaves numbers, dates and ids as they are.
final class CSVExportTests: StoreTestCase {
    func testTextCellsThatASpreadsheetWouldRunAsFormulasGetAQuoteInFront() {
        XCTAssertEqual(Export.csvField("=SUM(A1:A9)", text: true), "'=SUM(A1:A9)")
        XCTAssertEqual(Export.csvField("+1 push-ups", text: true), "'+1 push-ups")
        XCTAssertEqual(Export.csvField("-5 kg", text: true), "'-5 kg")
        XCTAssertEqual(Export.csvField("@home", text: true), "'@home")
        XCTAssertEqual(Export.csvField("\tindented", text: true), "'\tindented")
        // Quoted as RFC 4180 asks, after the quote mark is put in front.
        XCTAssertEqual(Export.csvField("\rcell", text: true), "\"'\rcell\"")
        XCTAssertEqual(Export.csvField("=HYPERLINK(\"http://x\",\"a, b\")", text: true), "\"'=HYPERLINK(\"\"http://x\"\",\"\"a, b\"\")\"")
        // Anything else as it is; a formula character later in the text is harmless.
        XCTAssertEqual(Export.csvField("Read 20 pages", text: true), "Read 20 pages")
        XCTAssertEqual(Export.csvField("a = b", text: true), "a = b")
        XCTAssertEqual(Export.csvField("", text: true), "")
        XCTAssertEqual(Export.csvField("'quoted already", text: true), "'quoted already")
        // A line break written as CRLF is quoted too.
        XCTAssertEqual(Export.csvField("one\r\ntwo", text: true), "\"one\r\ntwo\"")
        // Not text (numbers, dates, schedules): never changed.
        XCTAssertEqual(Export.csvField("-1"), "-1")
        XCTAssertEqual(Export.csvField("2.5"), "2.5")
    }

    func testTheExportPrefixesNamesUnitsGroupsAndNotesButNotNumbers() async throws {
        let repo = try HabitRepository(directory: path("data"), now: Fixture.clock)
        let id = Fixture.water
        var fields = Fixture.fields("=1+2")
        fields.unit = "-ml"
        fields.group = "@work"
        fields.notes = "+plan"
        fields.icon = "-"
        fields.goal = 2500
        let created = fields
        try await repo.commit { _, _ in
            [.create(id, created), .progress(id, Fixture.day0, delta: 1500), .note(id, Fixture.day0, "=cmd|' /C calc'!A0")]
        }
        let state = await repo.state
        let (habits, checkins) = Export.csv(state)
        XCTAssertEqual(habits, "id,name,kind,goal,unit,schedule,start_date,archived_from,icon,color,group,notes,reminders\r\n"
                       + "\(id.rawValue),'=1+2,build,2.5,'-ml,daily,2026-11-01,,'-,,'@work,'+plan,\r\n")
        XCTAssertEqual(checkins, "habit_id,habit,date,progress,skipped,difficulty,note\r\n"
                       + "\(id.rawValue),'=1+2,2026-11-01,1.5,false,,'=cmd|' /C calc'!A0\r\n")
        // The JSON export, the one Habitto imports again, keeps the text exactly.
        let json = Export.document(state, today: Fixture.day0.adding(1)).serialized()
        let habit = ((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["habits"] as? [[String: Any]])?.first
        XCTAssertEqual(habit?["name"] as? String, "=1+2", json)
        XCTAssertEqual((habit?["days"] as? [[String: Any]])?.first?["note"] as? String, "=cmd|' /C calc'!A0", json)
    }
}
