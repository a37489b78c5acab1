import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import HabitSync

/// A fresh temporary folder per test, removed afterwards.
open class TemporaryFolderTestCase: XCTestCase {
    /// This test's folder.
    public private(set) var folder = ""

    open override func setUpWithError() throws {
        try super.setUpWithError()
        let template = NSTemporaryDirectory() + "/habitto-remote-XXXXXX"
        var chars = Array(template.utf8CString)
        guard let made = mkdtemp(&chars) else {
            throw NSError(domain: "RemoteTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot make a temporary folder"])
        }
        folder = String(cString: made)
    }

    open override func tearDownWithError() throws {
        if !folder.isEmpty { try? FileManager.default.removeItem(atPath: folder) }
        try super.tearDownWithError()
    }

    /// Writes `bytes` to a new file at `path`; failing to fails the test.
    public func write(_ bytes: [UInt8], to path: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)",
                      file: file, line: line)
    }

    /// Makes the folder `path` and those above it; failing to fails the test.
    public func makeFolder(_ path: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNoThrow(try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true),
                         file: file, line: line)
    }

    /// Makes `path` a symbolic link to `target`; failing to fails the test.
    public func symlink(_ path: String, to target: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Glibc.symlink(target, path), 0, "cannot make symlink \(path)", file: file, line: line)
    }

    /// The bytes of the file at `path`, or nil.
    public func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// Entry names of a folder, sorted.
    public func entries(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// The RemoteError `body` threw, failing the test when it returned or threw another error.
    @discardableResult
    public func remoteError<T>(file: StaticString = #filePath, line: UInt = #line,
                               _ body: () async throws -> T) async -> RemoteError? {
        do {
            let value = try await body()
            XCTFail("expected a RemoteError, got \(value)", file: file, line: line)
            return nil
        } catch {
            return asRemoteError(error, file: file, line: line)
        }
    }

    /// Asserts that `body` throws a RemoteError of `kind` whose message contains each of `words`.
    public func assertRemoteError<T>(_ kind: RemoteError.Kind, saying words: String..., file: StaticString = #filePath,
                                     line: UInt = #line, _ body: () async throws -> T) async {
        guard let error = await remoteError(file: file, line: line, body) else { return }
        XCTAssertEqual(error.kind, kind, error.message, file: file, line: line)
        for word in words {
            XCTAssertTrue(error.message.contains(word), "'\(error.message)' does not say '\(word)'", file: file, line: line)
        }
    }
}

/// The RemoteError `body` threw, or nil when it returned; any other error fails the test.
public func catchRemoteError<T>(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T) -> RemoteError? {
    do {
        _ = try body()
        return nil
    } catch {
        return asRemoteError(error, file: file, line: line)
    }
}

/// `error` as the RemoteError it is; any other error fails the test.
public func asRemoteError(_ error: any Error, file: StaticString = #filePath, line: UInt = #line) -> RemoteError? {
    guard let remote = error as? RemoteError else {
        XCTFail("expected a RemoteError, got \(error)", file: file, line: line)
        return nil
    }
    return remote
}
