import Foundation
import XCTest
import HabitCore
@testable import HabitStore
@testable import HabitImport

/// Seeded mutation of valid inputs. Every run with the same seed feeds the same bytes, so a
/// failure names its seed and iteration and replays exactly:
/// `HABITTO_FUZZ_SEED=N` picks another seed (decimal or 0x-hex), `HABITTO_FUZZ_FACTOR=K`
/// runs K times each decoder's iterations (the default, 1, keeps the target well under a
/// minute in a debug build).
struct Fuzzer {
    static let environment = ProcessInfo.processInfo.environment
    static let seed: UInt64 = {
        guard let text = environment["HABITTO_FUZZ_SEED"] else { return 0x4841_4249_5454_4F21 }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let parsed else { fatalError("HABITTO_FUZZ_SEED='\(text)' is not a whole number (decimal or 0x-hex)") }
        return parsed
    }()
    static let factor: Int = {
        guard let text = environment["HABITTO_FUZZ_FACTOR"] else { return 1 }
        guard let k = Int(text), k >= 1 else { fatalError("HABITTO_FUZZ_FACTOR='\(text)' is not a whole number of at least 1") }
        return k
    }()

    /// `iterations` × the factor cases, each with its own generator derived from the seed,
    /// the decoder's name and the iteration, and a label for messages.
    static func cases(_ decoder: String, iterations: Int) -> [(rng: SplitMix64, label: String)] {
        var nameHash: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in decoder.utf8 { nameHash = (nameHash ^ UInt64(b)) &* 0x100_0000_01B3 }
        return (0..<(iterations * factor)).map { i in
            (SplitMix64(seed: seed ^ nameHash &+ UInt64(i) &* 0x9E37_79B9_7F4A_7C15),
             "\(decoder): seed \(seed) iteration \(i) (HABITTO_FUZZ_SEED=\(seed))")
        }
    }

    /// Runs `body` for every case of `cases`.
    static func run(_ decoder: String, iterations: Int,
                    _ body: (_ rng: inout SplitMix64, _ label: String) throws -> Void) rethrows {
        for var c in cases(decoder, iterations: iterations) { try body(&c.rng, c.label) }
    }

    static let interestingBytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0xFE, 0x0A, 0x22, 0x2C, 0x1B]
    static let interestingWords: [[UInt8]] = [
        [0xFF, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0x7F], [0x00, 0x00, 0x00, 0x80], [0, 0, 0, 0],
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
    ]
    /// Tokens that text formats (CSV, JSON, harsh) give meaning to, and values at the edges.
    static let textTokens: [String] = [
        "\"", ",", "\n", "\r\n", ":", "[", "]", "{", "}", "[]", "{}", "null", "true", "-1", "0", "1.5",
        "99999999999999999999", "1e308", "-1e308", "NaN", "2026-02-30", "0000-00-00", "9999-12-31", "1899-12-31",
        "2026-11-21T09:00:00Z", "\u{1B}[31m", "\u{200B}", "\u{0}", "\u{FEFF}", "🏳️‍🌈", "YES_MANUAL", "YES_AUTO", "SKIP",
        "AT_MOST", "NUMERICAL", " y ", " s ", " n ", "0/7", "1/0", "7w", "0w", "every:0", "8/week", "! Group",
        String(repeating: "x", count: 300), "\"name\": ", "\"schedule\": \"3/week\"", "\"goal\": 0", "\"kind\": \"limit\"",
    ]

    /// `input` with one to six random mutations: bit flips, bytes, interesting integers,
    /// insertions, deletions, duplicated ranges, a cut, a splice from `corpus`, and (for
    /// text formats) tokens the format gives meaning to.
    static func mutate(_ input: [UInt8], corpus: [[UInt8]] = [], text: Bool = false, rng: inout SplitMix64) -> [UInt8] {
        var b = input
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            let at = b.isEmpty ? 0 : Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<(text ? 11 : 9), using: &rng) {
            case 0 where !b.isEmpty: b[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 1 where !b.isEmpty: b[at] = UInt8.random(in: 0 ... .max, using: &rng)
            case 2 where !b.isEmpty: b[at] = interestingBytes.randomElement(using: &rng)!
            case 3: b.insert(contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0 ... .max, using: &rng) }, at: at)
            case 4 where !b.isEmpty: b.removeSubrange(at..<min(b.count, at + Int.random(in: 1...16, using: &rng)))
            case 5 where !b.isEmpty:
                let end = min(b.count, at + Int.random(in: 1...64, using: &rng))
                b.insert(contentsOf: Array(b[at..<end]), at: Int.random(in: 0...b.count, using: &rng))
            case 6 where !b.isEmpty: b.removeSubrange(at...)
            case 7 where !b.isEmpty:
                let word = interestingWords.randomElement(using: &rng)!
                b.replaceSubrange(at..<min(b.count, at + word.count), with: word)
            case 8 where !corpus.isEmpty:
                let other = corpus.randomElement(using: &rng)!
                guard !other.isEmpty else { continue }
                let from = Int.random(in: 0..<other.count, using: &rng)
                let piece = other[from..<min(other.count, from + Int.random(in: 1...128, using: &rng))]
                b.replaceSubrange(at..<min(b.count, at + Int.random(in: 0...piece.count, using: &rng)), with: piece)
            case 9, 10:
                b.insert(contentsOf: Array(textTokens.randomElement(using: &rng)!.utf8), at: at)
            default: continue
            }
        }
        return b
    }

    /// Bytes of random length and content (some inputs are not even close to valid).
    static func noise(_ rng: inout SplitMix64, upTo n: Int = 256) -> [UInt8] {
        (0..<Int.random(in: 0...n, using: &rng)).map { _ in UInt8.random(in: 0 ... .max, using: &rng) }
    }
}

/// The fixed inputs the fuzzer starts from.
enum Seeds {
    static let device = DeviceID(hi: 0x1111_2222_3333_4444, lo: 0x5555_6666_7777_8888)
    static let water = HabitID(value: 0xA1), read = HabitID(value: 0xB2), sweets = HabitID(value: 0xC3)
    static let stretch = HabitID(value: 0xD4)
    static let day0 = LocalDay(year: 2026, month: 11, day: 1)!
    static let today = LocalDay(year: 2026, month: 11, day: 21)!
    static let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }

    /// One command's changes each, touching every kind of change and field.
    static let commits: [[Change]] = [
        [.create(water, HabitFields(name: "Drink water", icon: "💧", kind: .build, goal: 8, unit: "glasses", startDate: day0,
                                    notes: "eight a day", group: "Health"))],
        [.create(read, HabitFields(name: "Read", schedule: .weekdays([.monday, .wednesday]), startDate: day0))],
        [.create(sweets, HabitFields(name: "Sweets", color: "#ff0000", kind: .limit, goal: 1, schedule: .everyNDays(2), startDate: day0))],
        [.progress(water, day0, delta: 3), .rate(water, day0, 2)],
        [.progress(water, day0.adding(1), delta: 8), .note(water, day0.adding(1), "felt good")],
        [.skip(read, day0.adding(2), true)],
        [.set(read, .schedule(.perWeek(3))), .set(read, .name("Read a book"))],
        [.progress(sweets, day0.adding(3), delta: 2), .progress(sweets, day0.adding(3), delta: -1)],
        [.set(water, .archivedFrom(day0.adding(10)))],
        [.delete(sweets)],
        [.restore(sweets, deleteOp: OpID(device: device, seq: 14))],
        [.set(water, .goal(6)), .set(water, .unit(nil)), .set(water, .color("blue"))],
        // A move (order keys for the habits before the moved one too) and a habit created with a key.
        [.set(sweets, .position("V")), .set(water, .position("F")), .set(read, .position("l"))],
        [.create(stretch, HabitFields(name: "Stretch", startDate: day0, position: "VV"))],
        [.set(read, .position(nil))],
        // Reminder times: on a create, set, cleared.
        [.create(HabitID(value: 0xD5), HabitFields(name: "Floss", startDate: day0, reminders: [ReminderTime(minutes: 1290)]))],
        [.set(water, .reminders([ReminderTime(minutes: 480), ReminderTime(minutes: 1200)]))],
        [.set(stretch, .reminders([ReminderTime(minutes: 420)])), .set(stretch, .reminders([]))],
        // "Not done" answers: given, withdrawn, and overridden by a check-in on the day.
        [.notDone(read, day0.adding(2), true), .notDone(water, day0.adding(3), true), .notDone(water, day0.adding(3), false)],
        [.notDone(read, day0.adding(4), true), .progress(read, day0.adding(4), delta: 1000)],
        // Rule fields from a day on (dated registers), and an N-per-month schedule.
        [.setFrom(water, day0.adding(5), .goal(10)), .setFrom(water, day0.adding(5), .unit("cups"))],
        [.setFrom(read, day0.adding(7), .schedule(.perMonth(4))), .setFrom(read, day0.adding(9), .kind(.build))],
        // Dated registers cleared: one that was set, one that never was.
        [.clearFrom(water, day0.adding(5), index: 4), .clearFrom(read, day0.adding(8), index: 3)],
        // Pauses: with and without a reason, one ended early (its days given back).
        [.pause(read, from: day0.adding(10), to: day0.adding(16), reason: "holiday"), .pause(water, from: day0.adding(1), to: day0.adding(2), reason: "")],
        [.pause(read, from: day0.adding(14), to: day0.adding(16), reason: nil)],
    ]

    /// The changes as this device's operations, in order.
    static var operations: [HabitOperation] {
        commits.joined().enumerated().map { i, change in
            HabitOperation(id: OpID(device: device, seq: UInt64(i + 1)),
                           hlc: HLC(wallMillis: 1_800_000_000_000, counter: UInt32(i)), change: change)
        }
    }

    /// The state after every operation.
    static var state: HabitState {
        var s = HabitState()
        for op in operations { _ = s.apply(op) }
        return s
    }

    /// The shared fixtures, copied unchanged into `Tests/Fixtures`.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path
}

/// Checks shared by the fuzz tests.
enum Check {
    /// The state encodes, decodes back to the same bytes, and nothing is left over.
    static func stateRoundTrips(_ state: HabitState, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = state.encoded()
        var r = ByteReader(bytes)
        do {
            let again = try HabitState(decoding: &r)
            XCTAssertTrue(r.isAtEnd, "\(label): trailing bytes after a state", file: file, line: line)
            XCTAssertEqual(again.encoded(), bytes, "\(label): the state does not re-encode to the same bytes", file: file, line: line)
        } catch {
            XCTFail("\(label): an encoded state does not decode: \(error)", file: file, line: line)
        }
    }

    /// Applies `changes` to `state` as operations of one device, in order.
    static func apply(_ changes: [Change], to state: inout HabitState) {
        let base = (state.seen[Seeds.device] ?? 0)
        for (i, change) in changes.enumerated() {
            _ = state.apply(HabitOperation(id: OpID(device: Seeds.device, seq: base + UInt64(i + 1)),
                                           hlc: HLC(wallMillis: 1_800_000_000_000, counter: UInt32(base) + UInt32(i)), change: change))
        }
    }

    /// The state an import plan makes in an empty data directory (as `Importer.run` plans it);
    /// nil when the import refuses the plan with an `ImportError` (a clean refusal).
    static func imported(_ plan: ImportPlan, _ label: String, file: StaticString = #filePath, line: UInt = #line) -> HabitState? {
        let targets: [TargetHabit]
        do { (targets, _) = try Importer.targets(plan, today: Seeds.today) } catch is ImportError { return nil } catch {
            XCTFail("\(label): the import failed without an ImportError: \(error)", file: file, line: line)
            return nil
        }
        let changes = Reconcile.plan(current: HabitState(), targets: targets, mode: .importing).changes
        for change in changes {
            do { try change.validate() } catch {
                XCTFail("\(label): the plan holds a change the repository refuses: \(error)", file: file, line: line)
            }
        }
        var state = HabitState()
        apply(changes, to: &state)
        return state
    }

    /// A plan a reader accepted: what it makes exports as Habitto JSON, which the JSON reader
    /// reads back to the same habits and days.
    static func planReimports(_ plan: ImportPlan, in dir: String, _ label: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        guard let state = imported(plan, label, file: file, line: line) else { return }
        stateRoundTrips(state, label, file: file, line: line)
        let exported = Export.document(state, today: Seeds.today).serialized()
        let path = dir + "/reimport.json"
        do {
            try Data(exported.utf8).write(to: URL(fileURLWithPath: path))
            guard let again = imported(try JSONExportReader.read(path: path), label, file: file, line: line) else {
                return XCTFail("\(label): the export of an accepted import is refused on import", file: file, line: line)
            }
            XCTAssertEqual(Export.document(again, today: Seeds.today).serialized(), exported,
                           "\(label): the export of an accepted import does not re-import to the same habits and days", file: file, line: line)
        } catch {
            XCTFail("\(label): the export of an accepted import is refused by the JSON reader: \(error)", file: file, line: line)
        }
    }

    /// A message shown to a person: one line, no control characters.
    static func oneLine(_ message: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(message.isEmpty, "\(label): an empty message", file: file, line: line)
        XCTAssertFalse(message.unicodeScalars.contains(where: Sanitize.isForbidden),
                       "\(label): the message is not one clean line: \(message.debugDescription)", file: file, line: line)
    }
}

/// A temporary folder, removed when the test ends.
final class Scratch {
    let path = NSTemporaryDirectory() + "habitto-fuzz-" + UUID().uuidString
    init() { try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `files` (relative path → bytes) into a fresh folder named `name`, replacing
    /// anything there, and returns its path.
    func folder(_ name: String, _ files: [String: [UInt8]]) throws -> String {
        let dir = path + "/" + name
        try? FileManager.default.removeItem(atPath: dir)
        for (relative, bytes) in files {
            let url = URL(fileURLWithPath: dir + "/" + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

func readBytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
