import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitCore
import HabitStore
import HabitSync
import HabitSys

/// The encryption parts of `habitto remote`: `set … --encrypt` (a key made with
/// `age-keygen`), `set … --key FILE|-` (a key brought from another device) and `key` (the
/// only output that ever shows it). See `EncryptedRemote`.
extension RemoteCommand {
    /// The options of `remote` about encryption.
    static var encryptionOptions: [OptionSpec] {
        [OptionSpec(name: "--encrypt", value: nil, help: "set: encrypt everything on the remote with age (a key is made once, in the data directory's remote-key)"),
         OptionSpec(name: "--key", value: "FILE", help: "set: join an encrypted remote with the key 'habitto remote key' printed on another device (FILE, or - for standard input)")]
    }

    /// `remote set` with `--encrypt` or `--key`: makes or stores the key (before anything is
    /// synced) and returns the encryption to record (nil without either option). `age` is
    /// needed here, and only here and when syncing an encrypted remote.
    func keyForRemoteSet(_ paths: DataPaths, removing: Bool) throws -> (encrypt: String?, made: Bool) {
        let file = invocation.value(.key)
        guard invocation.flag(.encrypt) || file != nil else { return (nil, false) }
        guard !removing else { throw CLIError.usage(.encryptionWithoutRemote) }
        guard let tool = AgeTool.find() else {
            throw CLIError.invalid(.ageMissing(file != nil ? .key : .encrypt))
        }
        do {
            if let file {
                _ = try RemoteKey.store(try readKey(file), in: paths, tool: tool, source: file == "-" ? "standard input" : Sanitize.display(file))
                return (RemoteSettings.age, false)
            }
            // A key this device has is kept: setting the remote again must not lock it out.
            if try RemoteKey.load(paths) != nil { return (RemoteSettings.age, false) }
            _ = try RemoteKey.generate(paths, tool: tool)
            return (RemoteSettings.age, true)
        } catch let e as SyncSettingError {
            throw CLIError.invalid(.setting(e))
        } catch let e as AgeError {
            throw CLIError.invalid(.age(e))
        }
    }

    /// The bytes of `--key FILE` (at most 64 KiB; `-` is standard input).
    private func readKey(_ file: String) throws -> [UInt8] {
        let limit = 64 << 10
        if file == "-" {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while bytes.count <= limit {
                guard let n = try? sysCall("read", { read(0, &chunk, chunk.count) }), n > 0 else { break }
                bytes += chunk[..<n]
            }
            guard bytes.count <= limit else { throw CLIError.invalid(.keyInputTooLarge) }
            return bytes
        }
        do {
            guard let bytes = try Sys.readFile(file, limit: limit) else {
                throw CLIError.invalid(.keyFileMissing(file))
            }
            return bytes
        } catch let e as StoreError {
            throw CLIError.invalid(.keyFileUnreadable(file, e))
        }
    }

    /// What `remote set` adds about the key: where it is and how to bring it to the other
    /// devices (never the key itself).
    func keyAdvice(_ paths: DataPaths, made: Bool, spec: String) -> String {
        let key = RemoteKey.path(paths)
        return (made ? "Made a key for the remote in \(key) (mode 0600). " : "The remote's key is in \(key) (mode 0600). ")
            + "Without it the remote cannot be read: keep a copy somewhere safe, and join each other device with 'habitto remote key' here and 'habitto remote set \(spec) --key FILE' there"
    }

    /// `remote show`'s line about encryption (none for a plain remote).
    func encryptionLine(_ state: SyncState, _ paths: DataPaths) -> String? {
        guard state.encrypt != nil else { return nil }
        guard let key = try? RemoteKey.load(paths) else { return "Encrypted with age, but this device's key file \(RemoteKey.path(paths)) is missing or damaged: join again with --key FILE." }
        return "Encrypted with age for \(key.recipient); the key is in \(key.path) ('habitto remote key' prints it)."
    }

    /// `remote key`: prints the identity (the only output that shows it).
    func printKey(_ paths: DataPaths) throws {
        let text: String?
        do { text = try RemoteKey.text(paths) } catch let e as SyncSettingError { throw CLIError.invalid(.setting(e)) }
        guard let text else {
            throw CLIError.invalid(.noRemoteKey)
        }
        Output.raw(text)
    }
}
