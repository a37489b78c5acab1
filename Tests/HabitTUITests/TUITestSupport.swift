import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// A fixed little world: four habits with some history, seen on Saturday 2026-11-21.
enum World {
    static let device = DeviceID("0123456789abcdef0123456789abcdef")!
    static let water = HabitID("00000000000000a1")!
    static let read = HabitID("00000000000000b2")!
    static let sugar = HabitID("00000000000000c3")!
    static let gym = HabitID("00000000000000d4")!
    static let today = LocalDay("2026-11-21")!
    static let start = LocalDay("2026-10-01")!

    /// Builds a state by folding changes as this device's operations.
    static func state(_ changes: [Change]) -> HabitState {
        var s = HabitState()
        for (i, c) in changes.enumerated() {
            s.apply(HabitOperation(id: OpID(device: device, seq: UInt64(i + 1)),
                                   hlc: HLC(wallMillis: 1_800_000_000_000, counter: UInt32(i)), change: c))
        }
        return s
    }

    static var changes: [Change] {
        var c: [Change] = [
            .create(water, HabitFields(name: "Drink water", icon: "💧", goal: 8 * Amount.scale, unit: "glasses", startDate: start)),
            .create(read, HabitFields(name: "Read", icon: "📚", startDate: start)),
            .create(sugar, HabitFields(name: "No sugar", kind: .limit, goal: 0, startDate: start)),
            .create(gym, HabitFields(name: "Gym", schedule: .perWeek(3), startDate: start)),
        ]
        for d in 0..<51 {
            let day = start.adding(d)
            if d % 5 != 4 { c.append(.progress(read, day, delta: Amount.scale)) }
            c.append(.progress(water, day, delta: (d % 3 == 0 ? 8 : 5) * Amount.scale))
            if d % 7 == 3 { c.append(.progress(sugar, day, delta: Amount.scale)) }
            if d % 2 == 0 && day.weekday.rawValue <= 5 { c.append(.progress(gym, day, delta: Amount.scale)) }
            if d % 4 == 0 { c.append(.rate(read, day, 1 + d % 5)) }
        }
        c.append(.skip(read, today.adding(-2), true))
        c.append(.progress(water, today, delta: 3 * Amount.scale))
        return c
    }

    static func app(width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode, changes: [Change]? = nil) -> AppState {
        AppState(habits: state(changes ?? self.changes), today: today, width: width, height: height, glyphs: glyphs,
                 themeName: "default", themeNames: ["default", "gruvbox", "light"],
                 location: "~/.local/share/habitto")
    }
}

/// Compares a rendered screen with a stored text snapshot. `HABITTO_RECORD_SNAPSHOTS=1`
/// re-records; a missing snapshot is recorded and the test fails so it is looked at.
func assertSnapshot(_ buffer: ScreenBuffer, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    assertSnapshot(text: buffer.text + "\n", named: name, file: file, line: line)
}

/// Compares text (a screen, lines of a chart) with the stored snapshot `name`.
func assertSnapshot(text: String, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    let dir = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Snapshots")
    let path = dir.appendingPathComponent(name + ".txt")
    let record = ProcessInfo.processInfo.environment["HABITTO_RECORD_SNAPSHOTS"] == "1"
    if record || !FileManager.default.fileExists(atPath: path.path) {
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? text.write(to: path, atomically: true, encoding: .utf8)
        if !record { XCTFail("recorded a new snapshot \(name); check it and run again", file: file, line: line) }
        return
    }
    let stored = (try? String(contentsOf: path, encoding: .utf8)) ?? ""
    if stored != text {
        XCTFail("screen differs from snapshot \(name) (HABITTO_RECORD_SNAPSHOTS=1 re-records):\n\(text)", file: file, line: line)
    }
}

/// Sends keys through the reducer; returns all effects.
@discardableResult
func press(_ state: inout AppState, _ keys: Key...) -> [Effect] {
    keys.flatMap { reduce(&state, .key($0)) }
}

/// Types text into the form, one character at a time.
func type(_ state: inout AppState, _ text: String) {
    for c in text { _ = reduce(&state, .key(.char(c))) }
}
