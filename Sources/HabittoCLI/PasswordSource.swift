import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitCore
import HabitStore
import HabitSync

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
        if let problem = result.problem { throw SyncSettingError.passwordCommandFailed(problem: problem, config: configPath) }
        guard !result.outputCut || result.output.contains(UInt8(ascii: "\n")) else {
            throw SyncSettingError.passwordCommandNoLineBreak(limitKiB: sizeLimit >> 10, config: configPath)
        }
        guard let password = firstLine(result.output) else {
            throw SyncSettingError.passwordCommandPrintedNothing(config: configPath)
        }
        return password
    }

    /// Reads `path`, which must be a regular file of this user's that neither group nor
    /// others can read (`LocalTrust`: a secret).
    static func read(_ path: String, configPath: String) throws -> String {
        guard let st = Sys.status(followingLinks: path) else {
            throw SyncSettingError.passwordFileUnreadable(path: path, reason: String(cString: strerror(errno)), config: configPath)
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw SyncSettingError.passwordFileNotRegular(path: path, kind: Sys.kind(st.st_mode), config: configPath)
        }
        guard st.st_mode & 0o077 == 0 else {
            throw SyncSettingError.passwordFileReadableByOthers(path: path, mode: String(st.st_mode & 0o777, radix: 8))
        }
        let bytes: [UInt8]
        do {
            bytes = try LocalTrust.read(path, what: "password_file", holds: .secret, limit: sizeLimit) ?? []
        } catch StoreError.untrusted(let refusal) {
            throw SyncSettingError.untrusted(refusal)
        } catch StoreError.unreadable(_, let detail) {
            throw SyncSettingError.passwordFileProblem(path: path, detail: detail, config: configPath)
        } catch StoreError.io(_, _, let e) {
            throw SyncSettingError.passwordFileUnreadable(path: path, reason: String(cString: strerror(e)), config: configPath)
        }
        guard let password = firstLine(bytes) else {
            throw SyncSettingError.passwordFileEmpty(path: path)
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
