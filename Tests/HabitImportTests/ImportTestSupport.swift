import Foundation
import XCTest
import HabitImport

/// The message of the `ImportError` `body` throws; fails the calling test when it throws
/// nothing or something else.
func importError(_ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line) -> String {
    do {
        _ = try body()
        XCTFail("expected an ImportError", file: file, line: line)
        return ""
    } catch let e as ImportError {
        return e.message
    } catch {
        XCTFail("expected an ImportError, got \(error)", file: file, line: line)
        return ""
    }
}

/// `Tests/Fixtures`: the project's shared fixtures (legacy dump, Loop export, harsh files),
/// copied unchanged so that a clean clone tests on its own.
let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path
