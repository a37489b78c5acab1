import Foundation
import XCTest
import HabitCore
@testable import HabitStore
import HabitImport

/// Reminder times in the stored formats: older snapshots and backups (without the register)
/// read as before, the new ones hold it, export and import carry it, and the record of sent
/// reminders is claimed once.
final class ReminderStoreTests: StoreTestCase {
    private let times = try! ReminderTime.parseList("08:00,20:30")
    private static let today = LocalDay("2026-11-21")!

    /// A version 7 snapshot (twelve registers) is used as it is; the next one (version 8)
    /// holds reminder times.
    func testAVersionSevenSnapshotIsUsedAndTheNextHoldsReminders() async throws {
        let history = try await makeHistory(commits: SnapshotTests.commits(Fixture.water, name: "Water")
                                                + [[.create(Fixture.read, Fixture.fields("Read"))]], snapshotEvery: 10)
        let paths = history.paths
        let (current, why) = Snapshot.load(try fileBytes(paths.snapshot), journal: try Journal(path: paths.journal))
        XCTAssertNil(why)
        let old = try XCTUnwrap(current).encoded(fieldCount: FieldValue.countBeforeReminders)
        XCTAssertEqual(Array(old.prefix(Snapshot.magic.count)), Snapshot.beforeRemindersMagic)
        try Data(old).write(to: URL(fileURLWithPath: paths.snapshot))

        let repo = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
        XCTAssertEqual(repo.openingWarnings, [], "the version 7 snapshot is used, not ignored")
        let opened = await repo.state
        XCTAssertEqual(opened.encoded(), try foldJournal(history.journal).encoded())

        let times = self.times
        try await repo.commit { _, _ in [.set(Fixture.read, .reminders(times))] }
        try await repo.writeSnapshot()
        XCTAssertEqual(Array(try fileBytes(paths.snapshot).prefix(Snapshot.magic.count)), Snapshot.magic)
        let reopened = try HabitRepository(directory: paths.directory, now: Fixture.clock, snapshotEvery: 10)
        XCTAssertEqual(reopened.openingWarnings, [])
        let state = await reopened.state
        XCTAssertEqual(state.habit(Fixture.read)?.fields.reminders, times)
        XCTAssertEqual(state.encoded(), try foldJournal(try fileBytes(paths.journal)).encoded())
    }

    /// Backups whose header has eleven or twelve fields (as written before reminder times)
    /// verify, and a new one holds reminder times.
    func testBackupsWrittenBeforeRemindersStillVerify() async throws {
        let history = try await makeHistory()
        let records = Array(history.journal.dropFirst(Journal.headerSize))
        for count in [FieldValue.countBeforePosition, FieldValue.countBeforeReminders, FieldValue.count] {
            let info = try Backups.write(paths: history.paths, records: records, device: history.deviceID,
                                         reason: "test\(count)", note: nil, now: Fixture.clock(), fieldCount: count)
            XCTAssertNoThrow(try Backups.load(path: info.path), "a backup with \(count) fields")
        }
        let times = self.times
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let start = await repo.state
        let habit = try XCTUnwrap(start.habits.first)
        try await repo.commit { _, _ in [.set(habit.id, .reminders(times))] }
        let withReminders = Array(try fileBytes(history.paths.journal).dropFirst(Journal.headerSize))
        let good = try Backups.write(paths: history.paths, records: withReminders, device: history.deviceID,
                                     reason: "good", note: nil, now: Fixture.clock())
        XCTAssertEqual(try Backups.load(path: good.path).state.habit(habit.id)?.fields.reminders, times)
    }

    /// Export writes `reminders` only for habits that have some, and import reads them back.
    func testExportAndImportCarryReminderTimes() async throws {
        let history = try await makeHistory()
        let repo = try HabitRepository(directory: history.directory, now: Fixture.clock)
        let habits = await repo.state.habits
        let before = Export.document(await repo.state, today: Self.today).serialized()
        XCTAssertFalse(before.contains("reminders"), "an export without reminders reads as before")
        let times = self.times
        try await repo.commit { _, _ in [.set(habits[0].id, .reminders(times))] }
        let document = Export.document(await repo.state, today: Self.today).serialized()
        XCTAssertTrue(document.contains("\"reminders\""))
        let file = path("export.json")
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let fresh = try HabitRepository(directory: path("fresh"), now: Fixture.clock)
        _ = try await Importer.run(try JSONExportReader.read(path: file), repo: fresh, today: Self.today, dryRun: false)
        let imported = await fresh.state
        XCTAssertEqual(imported.habit(habits[0].id)?.fields.reminders, times)
        XCTAssertEqual(Export.document(imported, today: Self.today).serialized(), document)
    }

    func testAnImportRefusesBadReminderTimesAtTheirKey() throws {
        for bad in ["[\"25:00\"]", "\"08:00\"", "[8]", "[\"08:00,09:00\"]"] {
            let doc = """
            {"format": "habitto-export", "version": 1, "habits": [{"id": "00000000000000a1", "name": "Read", "kind": "build",
             "goal": 1, "schedule": "daily", "startDate": "2026-11-01", "reminders": \(bad), "days": []}]}
            """
            let file = path("bad.json")
            try doc.write(toFile: file, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try JSONExportReader.read(path: file), bad) { error in
                XCTAssertTrue("\(error)".contains("habits[0].reminders"), "\(bad): \(error)")
            }
        }
    }

    /// Only what was recorded as shown counts as sent; a damaged record of sent reminders is
    /// reported and started afresh; old days are pruned.
    func testOnlyRecordedRemindersCountAsShownAndOldOnesArePruned() async throws {
        let repo = try HabitRepository(directory: path("sent"), now: Fixture.clock)
        let day = LocalDay("2026-11-21")!
        let a = SentReminder(habit: Fixture.read, day: day, time: times[0])
        let b = SentReminder(habit: Fixture.water, day: day, time: times[1])
        let taken = try await repo.lockReminderSending().lock
        let lock = try XCTUnwrap(taken)
        let first = try await repo.unshownReminders([a, b], holding: lock)
        XCTAssertEqual(first.unshown, [a, b])
        XCTAssertNil(first.warning)
        let asked = try await repo.unshownReminders([a, b], holding: lock).unshown
        XCTAssertEqual(asked, [a, b], "asking records nothing")
        try await repo.recordRemindersShown([a], keepFrom: day, holding: lock)
        let afterA = try await repo.unshownReminders([a, b], holding: lock).unshown
        XCTAssertEqual(afterA, [b])
        try await repo.recordRemindersShown([b], keepFrom: day, holding: lock)
        let afterB = try await repo.unshownReminders([a, b], holding: lock).unshown
        XCTAssertEqual(afterB, [])
        XCTAssertEqual(String(decoding: try fileBytes(repo.paths.remindersSent), as: UTF8.self),
                       "2026-11-21 08:00 \(Fixture.read)\n2026-11-21 20:30 \(Fixture.water)\n")
        // The next day: yesterday's entries are pruned.
        let c = SentReminder(habit: Fixture.read, day: day.adding(1), time: times[0])
        try await repo.recordRemindersShown([c], keepFrom: day.adding(1), holding: lock)
        XCTAssertEqual(String(decoding: try fileBytes(repo.paths.remindersSent), as: UTF8.self), "2026-11-22 08:00 \(Fixture.read)\n")

        try Data("2026-11-22 8h \u{1B}[31m\n".utf8).write(to: URL(fileURLWithPath: repo.paths.remindersSent))
        let afresh = try await repo.unshownReminders([c], holding: lock)
        XCTAssertEqual(afresh.unshown, [c])
        XCTAssertTrue(afresh.warning?.description.contains("is damaged") == true, afresh.warning?.description ?? "no warning")
        XCTAssertEqual(try fileBytes(repo.paths.remindersSent), [], "started afresh")
        let next = try await repo.unshownReminders([c], holding: lock)
        XCTAssertNil(next.warning, "reported once")
    }

    /// One process at a time holds the right to send reminders; it is free again once
    /// released.
    func testOneProcessAtATimeSendsReminders() async throws {
        let repo = try HabitRepository(directory: path("sent"), now: Fixture.clock)
        var held = try await repo.lockReminderSending().lock
        XCTAssertNotNil(held)
        // Another open file description stands for another process (flock locks belong to those).
        let other = try HabitRepository(directory: path("sent"), now: Fixture.clock)
        let meanwhile = try await other.lockReminderSending().lock
        XCTAssertNil(meanwhile, "taken while the first holds it")
        held = nil
        let later = try await other.lockReminderSending().lock
        XCTAssertNotNil(later, "free once released")
    }

    /// A folder, a link or a FIFO where the record of sent reminders (or its lock) belongs is
    /// moved to recovered/, with its content, and the record starts afresh.
    func testSomethingOtherThanAFileInPlaceOfTheRecordIsMovedToRecovered() async throws {
        let repo = try HabitRepository(directory: path("sent"), now: Fixture.clock)
        let paths = repo.paths
        let day = LocalDay("2026-11-21")!
        let a = SentReminder(habit: Fixture.read, day: day, time: times[0])
        try FileManager.default.createDirectory(atPath: paths.remindersSent + ".lock", withIntermediateDirectories: false)
        let (held, lockWarning) = try await repo.lockReminderSending()
        let lock = try XCTUnwrap(held)
        XCTAssertTrue(lockWarning?.description.contains("reminders-sent.lock (the lock of sending reminders) was a folder, not a regular file; it was moved to \(paths.recovered)/reminders-sent.lock-") == true,
                      lockWarning?.description ?? "no warning")
        let kinds: [(String, () throws -> Void)] = [
            ("a folder", { try FileManager.default.createDirectory(atPath: paths.remindersSent + "/inside", withIntermediateDirectories: true) }),
            ("a symbolic link", { try FileManager.default.createSymbolicLink(atPath: paths.remindersSent, withDestinationPath: "/etc/hostname") }),
            ("a FIFO (named pipe)", { XCTAssertEqual(mkfifo(paths.remindersSent, 0o600), 0) }),
        ]
        for (kind, make) in kinds {
            try make()
            let before = try FileManager.default.contentsOfDirectory(atPath: paths.recovered).count
            let (unshown, warning) = try await repo.unshownReminders([a], holding: lock)
            XCTAssertEqual(unshown, [a], kind)
            XCTAssertTrue(warning?.description.contains("reminders-sent (the record of reminders shown) was \(kind), not a regular file; it was moved to \(paths.recovered)/reminders-sent-") == true,
                          warning?.description ?? "no warning")
            XCTAssertTrue(warning?.description.hasSuffix("; it was started afresh (a reminder of today may come again)") == true, warning?.description ?? "")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: paths.recovered).count, before + 1, "kept, not removed")
            try await repo.recordRemindersShown([a], keepFrom: day, holding: lock)
            XCTAssertEqual(String(decoding: try fileBytes(paths.remindersSent), as: UTF8.self), "2026-11-21 08:00 \(Fixture.read)\n")
            let again = try await repo.unshownReminders([a], holding: lock).unshown
            XCTAssertEqual(again, [])
            try FileManager.default.removeItem(atPath: paths.remindersSent)
        }
        let moved = try FileManager.default.contentsOfDirectory(atPath: paths.recovered)
        XCTAssertTrue(moved.contains { $0.hasPrefix("reminders-sent-") && FileManager.default.fileExists(atPath: paths.recovered + "/" + $0 + "/inside") },
                      "the folder is there with what it held: \(moved)")
    }
}
