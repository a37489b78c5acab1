import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitCore
import HabitStore

/// The WebDAV password from the config's `password_command` or `password_file`: the first
/// line (without its line break) of what the command prints or the file holds. Each refusal
/// is one line that says what to change.
enum PasswordSource {
    /// The longest `password_command` may run, in seconds: long enough to type a
    /// passphrase into the prompt that `pass` (through gpg-agent) opens.
    static var commandTimeLimit: Double { TimeLimits.current[.passwordCommand] }
    /// The most read of the command's output or of the file: far more than any password.
    static let sizeLimit = 64 << 10

    /// Runs `/bin/sh -c command` as an `OutsideProgram`: no standard input, no terminal, not
    /// the password variable, `commandTimeLimit` and `sizeLimit`.
    static func run(_ command: String, configPath: String) throws -> String {
        let result = OutsideProgram("/bin/sh", ["-c", command], timeLimit: commandTimeLimit, outputLimit: sizeLimit,
                                    errors: .collect).run()
        let check = "check password_command in \(configPath)"
        if let problem = result.problem { throw CoreError.invalid("password_command \(problem); \(check)") }
        guard !result.outputCut || result.output.contains(UInt8(ascii: "\n")) else {
            throw CoreError.invalid("password_command printed over \(sizeLimit >> 10) KiB without a line break; it must print the password on its first line: \(check)")
        }
        guard let password = firstLine(result.output) else {
            throw CoreError.invalid("password_command printed no password (its first line is empty); \(check)")
        }
        return password
    }

    /// Reads `path`, which must be a regular file of this user's that neither group nor
    /// others can read (`LocalTrust`: a secret).
    static func read(_ path: String, configPath: String) throws -> String {
        let fix = "point password_file in \(configPath) at the file that holds the password"
        guard let st = Sys.status(followingLinks: path) else {
            throw CoreError.invalid("password_file \(path) cannot be read: \(String(cString: strerror(errno))); \(fix)")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw CoreError.invalid("password_file \(path) is \(Sys.kind(st.st_mode)), not a regular file; \(fix)")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw CoreError.invalid("password_file \(path) is readable by others (mode \(String(st.st_mode & 0o777, radix: 8))); run chmod 600 on it")
        }
        let bytes: [UInt8]
        do {
            bytes = try LocalTrust.read(path, what: "password_file", holds: .secret, limit: sizeLimit) ?? []
        } catch StoreError.untrusted(let refusal) {
            throw CoreError.invalid(refusal.description)
        } catch StoreError.unreadable(_, let detail) {
            throw CoreError.invalid("password_file \(path) \(detail); \(fix)")
        } catch StoreError.io(_, _, let e) {
            throw CoreError.invalid("password_file \(path) cannot be read: \(String(cString: strerror(e))); \(fix)")
        }
        guard let password = firstLine(bytes) else {
            throw CoreError.invalid("password_file \(path) holds no password (its first line is empty); put the password on its first line")
        }
        return password
    }

    /// The first line, without a carriage return before its line break; nil when empty.
    static func firstLine(_ bytes: [UInt8]) -> String? {
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }
}
