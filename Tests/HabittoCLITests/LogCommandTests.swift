import Foundation
import XCTest
import HabitCore

/// Issue 42, point 3: `habitto log` lists the journal's changes newest first, in words, with
/// the device that made each, merged from every device.
final class LogCommandTests: XCTestCase {
    /// Each change one line, newest first, worded as undo words it; a field's value before and
    /// after; an undone change says when it was undone, and the undo says it is one.
    func testTheJournalInWordsNewestFirst() throws {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-21T09:02:00"
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses")
        box.ok("check", "Water", "--amount", "2")
        box.now = "2026-11-21T09:03:00"
        box.ok("edit", "Water", "--goal", "10")
        box.ok("add", "Gym", "--start", "2026-11-01")
        box.ok("skip", "Gym", "--date", "2026-11-20")
        box.now = "2026-11-21T09:05:00"
        box.ok("undo")
        box.now = "2026-11-22T07:30:00"
        box.ok("edit", "Water", "--name", "Drink")
        let all = box.ok("log")
        XCTAssertEqual(all, """
            2026-11-22 07:30 · this device · rename 'Water' to 'Drink'
            2026-11-21 09:05 · this device · unskip 'Gym' on 2026-11-20 (an undo)
            2026-11-21 09:03 · this device · skip 'Gym' on 2026-11-20 (undone at 09:05)
            2026-11-21 09:03 · this device · add 'Gym'
            2026-11-21 09:03 · this device · edit 'Drink': goal 8 → 10
            2026-11-21 09:02 · this device · check 'Drink' +2 on 2026-11-21
            2026-11-21 09:02 · this device · add 'Water'

            """)
        XCTAssertEqual(box.ok("log", "Gym"), """
            2026-11-21 09:05 · this device · unskip 'Gym' on 2026-11-20 (an undo)
            2026-11-21 09:03 · this device · skip 'Gym' on 2026-11-20 (undone at 09:05)
            2026-11-21 09:03 · this device · add 'Gym'

            """)
        XCTAssertEqual(box.ok("log", "--since", "2026-11-22"), "2026-11-22 07:30 · this device · rename 'Water' to 'Drink'\n")
        XCTAssertEqual(box.ok("log", "--until", "2026-11-21", "--since", "2026-11-21").split(separator: "\n").count, 6)
        XCTAssertEqual(box.ok("log", "Drink", "--until", "2026-11-20"), "No changes match\n")

        let objects = try XCTUnwrap(box.json("log", "--json") as? [[String: Any]])
        XCTAssertEqual(objects.count, 7, "one object per operation")
        let device = try XCTUnwrap((box.json("status", "--json") as? [String: Any])?["device"] as? String)
        let skip = objects[2]
        XCTAssertEqual(skip["id"] as? String, device + "#5")
        XCTAssertEqual(skip["device"] as? String, device)
        XCTAssertEqual(skip["seq"] as? Int, 5)
        XCTAssertEqual(skip["time"] as? String, "2026-11-21T09:03:00Z")
        XCTAssertEqual(skip["undoneAt"] as? String, "2026-11-21T09:05:00Z")
        XCTAssertEqual(skip["undo"] as? Bool, false)
        XCTAssertEqual(skip["text"] as? String, "skip 'Gym' on 2026-11-20")
        let change = try XCTUnwrap(skip["change"] as? [String: Any])
        XCTAssertEqual(change["type"] as? String, "skip")
        XCTAssertEqual(change["day"] as? String, "2026-11-20")
        XCTAssertEqual(change["skipped"] as? Bool, true)
        let goal = try XCTUnwrap(objects[4]["change"] as? [String: Any])
        XCTAssertEqual(goal["field"] as? String, "goal")
        XCTAssertEqual(goal["value"] as? Int, 10)
        XCTAssertEqual((objects[0]["clock"] as? String)?.hasPrefix("1795332600000."), true, "\(objects[0])")
        XCTAssertEqual(box.ok("log", "--device", String(device.prefix(4)).uppercased()), all)
    }

    /// Bad options: one line saying what to do, exit 1, and an empty journal says so.
    func testBadOptionsAreOneLineAndAnEmptyJournalSaysSo() {
        let box = Sandbox(inProcess: true)
        XCTAssertEqual(box.ok("log"), "No changes yet\n")
        XCTAssertEqual(box.ok("log", "--json"), "[]\n")
        for (args, said) in [
            (["log", "--since", "2026-11-21", "--until", "2026-11-20"], "habitto: --since 2026-11-21 is after --until 2026-11-20; give the earlier day to --since\n"),
            (["log", "--device", "ffff"], "habitto: no device's id starts with 'ffff'; 'habitto status' lists the devices (this one and those synced with)\n"),
            (["log", "--since", "someday"], nil),
            (["log", "Nothing"], nil),
        ] {
            let r = box.run(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            if let said { XCTAssertEqual(r.stderr, said) }
            XCTAssertEqual(r.stdout, "")
        }
    }

    /// Two devices on one folder edit Water's goal, one after the other, before they sync:
    /// each lists both edits, with the device that made each, and the one that lost says so,
    /// naming the device and the value that replaced it. A prefix of both devices' ids is
    /// refused, naming them; a longer one lists one device's changes.
    func testAMergedLogNamesTheDeviceAndTheWriteThatReplacedAChange() throws {
        let a = Sandbox(inProcess: true), b = Sandbox(inProcess: true)
        let idA = "3f2a" + String(repeating: "0", count: 28), idB = "3f2b" + String(repeating: "1", count: 28)
        for (box, id) in [(a, idA), (b, idB)] {
            try FileManager.default.createDirectory(atPath: box.home, withIntermediateDirectories: true)
            try (id + "\n").write(toFile: box.home + "/device", atomically: true, encoding: .utf8)
        }
        let folder = a.root + "/remote"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        a.now = "2026-11-21T09:00:00"
        a.ok("add", "Water", "--goal", "8")
        a.ok("remote", "set", "dir:" + folder)
        b.now = "2026-11-21T09:01:00"
        b.ok("remote", "set", "dir:" + folder)
        a.now = "2026-11-21T09:02:00"
        a.ok("edit", "Water", "--goal", "10")
        b.now = "2026-11-21T09:04:00"
        b.ok("edit", "Water", "--goal", "12")
        b.ok("check", "Water")
        a.ok("sync"); b.ok("sync"); a.ok("sync")
        XCTAssertEqual(a.ok("log"), """
            2026-11-21 09:04 · device 3f2b1111 · check 'Water' +1 on 2026-11-21
            2026-11-21 09:04 · device 3f2b1111 · edit 'Water': goal → 12
            2026-11-21 09:02 · this device · edit 'Water': goal 8 → 10, replaced by device 3f2b1111's 12
            2026-11-21 09:00 · this device · add 'Water'

            """)
        XCTAssertEqual(b.ok("log"), """
            2026-11-21 09:02 · device 3f2a0000 · edit 'Water': goal → 10, replaced by this device's 12
            2026-11-21 09:04 · this device · check 'Water' +1 on 2026-11-21
            2026-11-21 09:04 · this device · edit 'Water': goal 8 → 12
            2026-11-21 09:00 · device 3f2a0000 · add 'Water'

            """)
        XCTAssertEqual(a.ok("log", "--device", "3f2b", "--since", "2026-11-21"), """
            2026-11-21 09:04 · device 3f2b1111 · check 'Water' +1 on 2026-11-21
            2026-11-21 09:04 · device 3f2b1111 · edit 'Water': goal → 12

            """)
        let r = a.run("log", "--device", "3f2")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "habitto: '3f2' starts the ids of 2 devices (3f2a0000, 3f2b1111); give more of the id\n")
    }
}
