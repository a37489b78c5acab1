import Foundation
import XCTest

/// Every call of the C library's system calls in `Sources` goes through the one helper
/// (`sysCall` and its variants in HabitSys, or `Sys.call` in HabitStore), which retries
/// EINTR and throws `SysError`: this scan fails when a direct call is added.
///
/// A call counts as wrapped when a helper call with the call's name (`sysCall("read")`,
/// `call("open", …)`) comes before it on the same line. A line may keep a direct call only
/// with a `// direct: REASON` comment (a signal handler, which may run only
/// async-signal-safe code).
final class DirectSystemCallTests: XCTestCase {
    /// The system calls looked for, with how many arguments each takes (a Swift function of
    /// the same name with other arguments, or with argument labels, is not one of them).
    static let calls: [String: ClosedRange<Int>] = [
        "open": 2...3, "openat": 3...4, "read": 3...3, "write": 3...3, "pread": 4...4, "pwrite": 4...4,
        "close": 1...1, "fsync": 1...1, "fdatasync": 1...1, "ftruncate": 2...2, "lseek": 3...3,
        "rename": 2...2, "renameat": 4...4, "unlink": 1...1, "unlinkat": 3...3, "link": 2...2, "linkat": 5...5,
        "symlink": 2...2, "readlink": 3...3, "mkdir": 2...2, "mkdirat": 3...3, "rmdir": 1...1,
        "stat": 2...2, "fstat": 2...2, "lstat": 2...2, "fstatat": 4...4, "access": 2...2,
        "chmod": 2...2, "fchmod": 2...2, "chown": 3...3, "realpath": 2...2,
        "opendir": 1...1, "fdopendir": 1...1, "readdir": 1...1,
        "flock": 2...2, "fcntl": 2...3, "ioctl": 3...3, "tcgetattr": 2...2, "tcsetattr": 3...3,
        "poll": 3...3, "pipe": 1...1, "pipe2": 2...2, "dup": 1...1, "dup2": 2...2,
        "socket": 3...3, "socketpair": 4...4, "bind": 3...3, "listen": 2...2, "accept": 3...3,
        "connect": 3...3, "send": 4...4, "recv": 4...4, "setsockopt": 5...5, "getsockname": 3...3,
        "shutdown": 2...2, "kill": 2...2, "waitpid": 3...3, "waitid": 4...4, "wait4": 4...4,
        "posix_spawn": 6...6, "sigaction": 3...3, "getpwuid_r": 5...5, "nanosleep": 2...2,
        "mkdtemp": 1...1, "pthread_create": 4...4, "inotify_init1": 1...1, "inotify_add_watch": 3...3,
    ]

    /// The helper's own file, which makes the calls.
    static let helperFile = "Sources/HabitSys/SysCall.swift"

    
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testNoDirectSystemCallInSources() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted() ?? []
        XCTAssertGreaterThan(files.count, 100, "the scan found the sources")
        var found: [String] = []
        for file in files where "Sources/" + file != Self.helperFile {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            found += Self.directCalls(in: text).map { "Sources/\(file):\($0.line): \($0.call)" }
        }
        XCTAssertEqual(found, [], "call these through sysCall (HabitSys) or a Sys function")
    }

    /// The scan itself: it finds what it must, and nothing else.
    func testTheScanTellsDirectCallsFromWrappedOnes() {
        let text = """
        import Glibc
        let fd = open(path, O_RDONLY)
        let n = read(fd, &buffer, buffer.count)
        if Glibc.close(fd) != 0 { }
        guard stat(path, &st) == 0 else { return }
        let m = try sysCall("read") { read(fd, &buffer, buffer.count) }
        let fd2 = try call("open", "open", path) { Glibc.open(path, flags, mode) }
        _ = write(fd, &byte, 1) // direct: a signal handler
        _ = write(fd, &byte, 1) // direct:
        // read(fd, &buffer, 10) in a comment
        let s = "kill(pid, SIGKILL) in a string"
        return write(.rate(h, day, r), &state)
        close(current: false)
        try open(sealed, account: account, device: device, batch: batch, maxBytes: 10)
        x.read(fd, &buffer, 3)
        func send(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {}
        let r = poll(&fds,
                     1, -1)
        """
        XCTAssertEqual(Self.directCalls(in: text).map { "\($0.line) \($0.call)" },
                       ["2 open", "3 read", "4 close", "5 stat", "9 write", "17 poll"])
        let own = """
        func close(_ name: String) {}
        close(local(name))
        Glibc.close(fd)
        """
        XCTAssertEqual(Self.directCalls(in: own).map { "\($0.line) \($0.call)" }, ["3 close"],
                       "in a file with a function of that name only Glibc's is the C library's")
    }

    /// The direct calls in `text`: line number (from 1) and the call's name.
    static func directCalls(in text: String) -> [(line: Int, call: String)] {
        let names = calls.keys.sorted { $0.count > $1.count }.joined(separator: "|")
        let call = try! NSRegularExpression(pattern: "(?<![\\w.$])(Glibc\\.)?(\(names))\\s*\\(")
        let declared = try! NSRegularExpression(pattern: "\\bfunc\\s+(\(names))\\s*[(<]")
        let ownNames = Set(declared.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        })
        let helper = try! NSRegularExpression(pattern: "\\b(sysCall\\w*|call)\\s*\\(\\s*\"")
        var found: [(Int, String)] = []
        for (i, raw) in text.components(separatedBy: "\n").enumerated() {
            if let marker = raw.range(of: "// direct:"),
               !raw[marker.upperBound...].trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let line = code(of: raw)
            let ns = line as NSString
            for m in call.matches(in: line, range: NSRange(location: 0, length: ns.length)) {
                let name = ns.substring(with: m.range(at: 2))
                let qualified = m.range(at: 1).location != NSNotFound
                let before = ns.substring(to: m.range.location)
                if before.range(of: "(func|case)\\s+$", options: .regularExpression) != nil { continue }
                if !qualified && ownNames.contains(name) { continue }
                // A call that goes on past the line counts whatever its number of arguments.
                let (arguments, complete) = arguments(of: ns.substring(from: m.range.location + m.range.length))
                guard !complete || calls[name]!.contains(arguments.count), !arguments.contains(where: isLabelled) else { continue }
                let helperCalls = helper.matches(in: before, range: NSRange(location: 0, length: (before as NSString).length))
                if !helperCalls.isEmpty { continue }
                found.append((i + 1, name))
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

    /// The arguments up to the closing parenthesis (split at top-level commas), and whether
    /// that parenthesis is on the line.
    static func arguments(of rest: String) -> ([String], Bool) {
        var depth = 0, current = "", parts: [String] = []
        for c in rest {
            switch c {
            case "(", "[", "{": depth += 1
            case ")" where depth == 0:
                let last = current.trimmingCharacters(in: .whitespaces)
                return (parts.isEmpty && last.isEmpty ? [] : parts + [last], true)
            case ")", "]", "}": depth -= 1
            case "," where depth == 0:
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            default: break
            }
            current.append(c)
        }
        return (parts + [current.trimmingCharacters(in: .whitespaces)], false)
    }

    /// Whether an argument has a label (`account: x`), which no C function's call has.
    static func isLabelled(_ argument: String) -> Bool {
        argument.range(of: "^[A-Za-z_][A-Za-z0-9_]*:(?!:)", options: .regularExpression) != nil
    }
}
