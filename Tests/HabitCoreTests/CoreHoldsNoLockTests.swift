import Foundation
import XCTest

/// HabitCore is pure: it holds no lock and no mutable state shared between copies of a
/// value (the day cache, which needs both, is HabitStore's `LazyDays`). A cache shared by
/// copies of a state needs a lock, and under strict concurrency a class with mutable stored
/// state is Sendable only unchecked; so this scan of Sources/HabitCore fails on a lock, a
/// queue or an atomic, on an unchecked `Sendable` or `nonisolated(unsafe)`, and on a class
/// with a stored `var`.
final class CoreHoldsNoLockTests: XCTestCase {
    /// What a lock or other shared mutable state is written with.
    static let forbidden: [(pattern: String, what: String)] = [
        ("\\bpthread_(mutex|rwlock|cond|spin)", "a pthread lock"),
        ("\\b(NSLock|NSRecursiveLock|NSCondition|NSConditionLock|os_unfair_lock\\w*)\\b", "a lock"),
        ("\\bMutex\\b", "a Mutex"),
        ("\\b\\w*Lock\\s*\\(", "a lock"),
        ("\\bDispatch(Queue|Semaphore|Group)\\b", "a Dispatch queue or semaphore"),
        ("\\b(Atomic|ManagedAtomic|UnsafeAtomic)\\b", "an atomic"),
        ("\\bimport\\s+(Dispatch|Synchronization|Atomics|Glibc\\.pthread)\\b", "an import of locks"),
        ("@unchecked\\s+Sendable", "an unchecked Sendable"),
        ("\\bnonisolated\\s*\\(\\s*unsafe\\s*\\)", "nonisolated(unsafe)"),
    ]

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testHabitCoreHoldsNoLockAndNoMutableSharedState() throws {
        let core = Self.root.appendingPathComponent("Sources/HabitCore")
        let files = try FileManager.default.contentsOfDirectory(atPath: core.path).filter { $0.hasSuffix(".swift") }.sorted()
        XCTAssertGreaterThan(files.count, 30, "the scan found HabitCore's sources")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
            found += Self.findings(in: text).map { "Sources/HabitCore/\(file):\($0.line): \($0.what)" }
        }
        XCTAssertEqual(found, [], "HabitCore holds no lock: a cache shared between copies belongs in HabitStore")
    }

    /// The scan itself: it finds what it must, and passes over comments, strings, computed
    /// properties and immutable classes.
    func testTheScanFindsLocksAndMutableClasses() {
        let text = """
        import Glibc
        private let lock = Lock()
        var m = pthread_mutex_t(); pthread_mutex_lock(&m)
        let q = DispatchQueue(label: "x")
        final class Cache: @unchecked Sendable {
            let source: Int
            private var cache: [Int: Int]?
            var count: Int { cache?.count ?? 0 }
            func f() { var local = 0; local += 1 }
        }
        nonisolated(unsafe) var shared = 0
        // a Lock() in a comment, and a DispatchQueue
        let s = "Mutex and NSLock() in a string"
        final class Box: Sendable {
            let value: Int
            var doubled: Int { value * 2 }
            var tripled: Int {
                value * 3
            }
        }
        struct Plain { var x = 0 }
        let m2 = Mutex(0)
        class Counter { public private(set) var n = 0 }
        """
        XCTAssertEqual(Self.findings(in: text).map { "\($0.line) \($0.what)" },
                       ["2 a lock", "3 a pthread lock", "4 a Dispatch queue or semaphore", "5 an unchecked Sendable",
                        "7 a stored var in a class", "11 nonisolated(unsafe)", "22 a Mutex", "23 a stored var in a class"])
    }

    /// What the scan finds in `text`: line number (from 1) and what it is.
    static func findings(in text: String) -> [(line: Int, what: String)] {
        let patterns = forbidden.map { (try! NSRegularExpression(pattern: $0.pattern), $0.what) }
        let classStart = try! NSRegularExpression(pattern: "\\bclass\\s+[A-Za-z_]\\w*")
        let storedVar = try! NSRegularExpression(pattern: "^\\s*(@\\w+\\s+)*((public|private|fileprivate|internal|open)(\\(set\\))?\\s+|static\\s+|lazy\\s+|weak\\s+|unowned\\s+)*var\\s+[A-Za-z_]\\w*\\s*(:[^{=]*)?(=|$|\\{\\s*(didSet|willSet))")
        let matches = { (regex: NSRegularExpression, line: String) in
            regex.firstMatch(in: line, range: NSRange(location: 0, length: (line as NSString).length)) != nil
        }
        var found: [(Int, String)] = []
        // The brace depth of the body of each class open around the line.
        var depth = 0, classDepths: [Int] = []
        for (i, raw) in text.components(separatedBy: "\n").enumerated() {
            let line = code(of: raw)
            for (regex, what) in patterns where matches(regex, line) { found.append((i + 1, what)) }
            let opensClass = matches(classStart, line)
            // A declaration in a class's body: on its own line, or after the class's `{` on
            // the line that opens it (`class C { var n = 0 }`).
            let inBody = opensClass ? line.firstIndex(of: "{").map { String(line[line.index(after: $0)...]) }
                : classDepths.last == depth ? line : nil
            if let inBody, matches(storedVar, inBody) { found.append((i + 1, "a stored var in a class")) }
            var opened = false
            for c in line {
                if c == "{" {
                    depth += 1
                    if opensClass && !opened { classDepths.append(depth); opened = true }
                } else if c == "}" {
                    if classDepths.last == depth { classDepths.removeLast() }
                    depth -= 1
                }
            }
        }
        return found
    }

    /// The line without its comment and with every string literal emptied.
    static func code(of line: String) -> String {
        var out = "", inString = false, escaped = false
        var chars = Array(line)[...]
        while let c = chars.popFirst() {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false; out.append(c) }
                continue
            }
            if c == "/" && chars.first == "/" { break }
            if c == "\"" { inString = true }
            out.append(c)
        }
        return out
    }
}
