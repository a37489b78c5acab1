import HabitCore
import HabitStore

/// A sync setting that cannot be used: a remote, an account, a settings value, a fault list,
/// the remote's key or an identity given for it, or where the WebDAV password comes from.
/// Each case carries what the refusal is about; `description` is the one place its text is
/// written, and says what to do. The description is safe to print (`Sanitize.display`),
/// whatever outside value it quotes. (Errors of the remote itself are `RemoteError`.)
public enum SyncSettingError: Error, Equatable, CustomStringConvertible, Sendable {
    // The remote setting (`RemoteSpec`); `setting` as given.
    case remoteNotAURL(setting: String)
    case remoteDirNotAbsolute(setting: String)
    case remoteFileNotAbsolute(setting: String)
    case remoteNotUnderstood(setting: String)
    /// A WebDAV setting that cannot work (plain http to another machine, a CA file that is
    /// not there): what making the remote refused.
    case remoteUnusable(RemoteError)
    /// An account name outside 1–64 of `a-z 0-9 . _ -`, or starting with a dot.
    case accountInvalid(String)
    /// A remote or user `value` the settings file cannot hold.
    case valueNotWritable(String)

    // A fault list (`FaultPlan.parse`): `part` is the part not understood.
    case faultNotUnderstood(part: String)
    case faultNotAProbability(part: String)
    /// A latency that is not a duration, or over `maxSeconds`.
    case faultNotADuration(part: String, maxSeconds: Int)

    // The remote's key (`RemoteKey`): `file` is the key file, `source` where an identity
    // came from ("standard input", a file's name, "age-keygen's output").
    /// A secret file that is not a regular file of this user's (`LocalTrust`).
    case untrusted(LocalTrust.Refusal)
    /// `detail`: why reading it failed, as the store said.
    case keyFileUnreadable(file: String, detail: String)
    case keyFileNotOurs(file: String)
    case identityNotText(source: String)
    case identityLineNotUnderstood(source: String)
    /// `count` identities where one is needed (0 or more than 1).
    case identityCount(source: String, count: Int)
    /// `detail`: what `age-keygen -y` said of it.
    case identityInvalid(source: String, detail: String)

    // Where the WebDAV password comes from: `config` is the config file's path.
    /// `problem`: how the command failed (`OutsideProgram`'s words).
    case passwordCommandFailed(problem: String, config: String)
    case passwordCommandNoLineBreak(limitKiB: Int, config: String)
    case passwordCommandPrintedNothing(config: String)
    /// `reason`: the system's words for the failure.
    case passwordFileUnreadable(path: String, reason: String, config: String)
    /// `kind`: what the path is instead ("a directory", …).
    case passwordFileNotRegular(path: String, kind: String, config: String)
    /// `mode`: the file's permission bits, in octal.
    case passwordFileReadableByOthers(path: String, mode: String)
    /// `detail`: what the store found reading it.
    case passwordFileProblem(path: String, detail: String, config: String)
    case passwordFileEmpty(path: String)

    public var description: String { Sanitize.display(text) }

    private static let giveIdentity = "give the identity 'habitto remote key' printed on a device that has it"
    private static let joinAgain = "join again with habitto remote set SPEC --key FILE (habitto remote key on a device that has it)"

    private var text: String {
        switch self {
        case .remoteNotAURL(let s): return "remote '\(Sanitize.display(s))' is not a valid URL"
        case .remoteDirNotAbsolute(let s): return "remote '\(Sanitize.display(s))': use an absolute path, like dir:/mnt/sync/habitto"
        case .remoteFileNotAbsolute(let s): return "remote '\(Sanitize.display(s))': use file:///absolute/path"
        case .remoteNotUnderstood(let s):
            return "remote '\(Sanitize.display(s))' not understood: use dir:/path/to/folder, file:///path/to/folder, https://server/path or none"
        case .remoteUnusable(let e): return e.message
        case .accountInvalid(let name):
            return "account '\(Sanitize.display(name))' is not valid: use 1 to 64 of a-z, 0-9, '.', '_' and '-', not starting with '.'"
        case .valueNotWritable(let value):
            return "'\(Sanitize.display(value))' holds a line break or begins or ends with a space; a remote or user cannot"
        case .faultNotUnderstood(let part): return Self.fault(part, "")
        case .faultNotAProbability(let part): return Self.fault(part, " (a probability from 0 to 1)")
        case .faultNotADuration(let part, let max): return Self.fault(part, " (a duration such as 200ms or 1.5s, at most \(max)s)")
        case .untrusted(let refusal): return refusal.description
        case .keyFileUnreadable(let file, let detail): return "the key file \(file) cannot be read (\(detail)); \(Self.joinAgain)"
        case .keyFileNotOurs(let file):
            return "the key file \(file) is not one habitto wrote (no '\(RemoteKey.recipientComment)age1…' line); \(Self.joinAgain)"
        case .identityNotText(let source): return "\(source) is not text; \(Self.giveIdentity)"
        case .identityLineNotUnderstood(let source):
            return "\(source) holds a line that is not an age identity (AGE-SECRET-KEY-1…) or a comment; \(Self.giveIdentity)"
        case .identityCount(let source, 0): return "\(source) holds no age identity (an AGE-SECRET-KEY-1… line); \(Self.giveIdentity)"
        case .identityCount(let source, let count):
            return "\(source) holds \(count) age identities; give the one of this remote ('habitto remote key' on a device that has it)"
        case .identityInvalid(let source, let detail): return "\(source) holds no valid age identity (\(detail)); \(Self.giveIdentity)"
        case .passwordCommandFailed(let problem, let config): return "password_command \(problem); check password_command in \(config)"
        case .passwordCommandNoLineBreak(let kib, let config):
            return "password_command printed over \(kib) KiB without a line break; it must print the password on its first line: check password_command in \(config)"
        case .passwordCommandPrintedNothing(let config):
            return "password_command printed no password (its first line is empty); check password_command in \(config)"
        case .passwordFileUnreadable(let path, let reason, let config):
            return "password_file \(path) cannot be read: \(reason); \(Self.pointPasswordFile(config))"
        case .passwordFileNotRegular(let path, let kind, let config):
            return "password_file \(path) is \(kind), not a regular file; \(Self.pointPasswordFile(config))"
        case .passwordFileReadableByOthers(let path, let mode): return "password_file \(path) is readable by others (mode \(mode)); run chmod 600 on it"
        case .passwordFileProblem(let path, let detail, let config): return "password_file \(path) \(detail); \(Self.pointPasswordFile(config))"
        case .passwordFileEmpty(let path): return "password_file \(path) holds no password (its first line is empty); put the password on its first line"
        }
    }

    private static func fault(_ part: String, _ why: String) -> String {
        "HABITTO_FAULTS: '\(Sanitize.display(part))' is not understood\(why); use a comma-separated list of latency=<N>ms or latency=<N>s, fail=<0-1>, lostack=<0-1> and unreachable"
    }

    private static func pointPasswordFile(_ config: String) -> String {
        "point password_file in \(config) at the file that holds the password"
    }
}
