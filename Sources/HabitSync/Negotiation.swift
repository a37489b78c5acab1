import HabitCore
import HabitStore

/// How a round comes to terms with a remote before it writes anything of its own: the
/// layout and the format file (made when missing, naming this device's recipient when it is
/// set to encrypt), the remote's identity, and its encryption against this device's key.
/// Each disagreement is a permanent error in one line saying what to do, raised before
/// anything is written; nothing local is changed.
enum Negotiation {
    /// What was agreed: the remote to use (an `EncryptedRemote` over the plain one when the
    /// remote is encrypted) and the format read (nil: known from an earlier round).
    struct Agreed {
        let remote: any Remote
        let format: RemoteFormat?
    }

    /// Prepares `plain` for `spec`'s account. `recordedID`, `recordedRecipient` and
    /// `recordedKeychecked`: what an earlier round read in the format file (a format not read
    /// now is taken from them). On an encrypted remote made by this version the keycheck is
    /// checked each time the format is read (`EncryptedRemote.checkKeycheck`).
    static func agree(_ plain: any Remote, spec: RemoteSpec, account: String, recordedID: String?, recordedRecipient: String?,
                      recordedKeychecked: Bool = false, usedEncrypted: Bool, paths: DataPaths, calls: RemoteCalls) async throws -> Agreed {
        try plainAllowed(spec: spec, account: account, usedEncrypted: usedEncrypted)
        var key: RemoteKey?
        var tool: AgeTool?
        if spec.isEncrypted { (key, tool) = try EncryptedRemote.keyAndTool(paths, spec: spec.setting) }
        let recipient = key?.recipient
        // An encrypted remote's format is read every round: one turned plain is refused
        // before anything is written.
        if spec.isEncrypted { plain.forgetFormat(account: account) }
        var format = try await calls.run { try await plain.prepare(account: account, recipient: recipient) }
        if format == nil && recordedID == nil {
            // Known to exist, but not read by this device (or its record was lost): read it.
            plain.forgetExisting()
            format = try await calls.run { try await plain.prepare(account: account, recipient: recipient) }
        }
        if recordedKeychecked, let format, !format.keychecked, let id = format.id {
            // Made with a keycheck, now a recipient in the clear or plain: not a key holder's.
            throw RemoteError.damaged("the format file of users/\(account) on \(plain.location) says remote \(id) \(format.recipient == nil ? "not encrypted" : "encrypted for a recipient it shows"), but this remote was made encrypted with a keycheck: the format file was changed on the remote by someone without the key, and was not used; nothing was written")
        }
        let keychecked = format.map(\.keychecked) ?? recordedKeychecked
        let encryptedFor = format != nil ? format?.recipient : recordedRecipient
        try encryption(remote: encryptedFor, keychecked: keychecked, key: recipient, spec: spec.setting)
        guard let key, let tool else { return Agreed(remote: plain, format: format) }
        guard keychecked, let id = format?.id ?? recordedID else {
            return Agreed(remote: EncryptedRemote(plain, key: key, tool: tool), format: format)
        }
        let remote = EncryptedRemote(plain, key: key, tool: tool, binding: .init(remoteID: id, account: account))
        if format != nil { try await calls.run { try await remote.checkKeycheck(id: id, account: account, spec: spec.setting) } }
        return Agreed(remote: remote, format: format)
    }

    /// Refuses, before anything is read or written, to use without encryption a remote and
    /// account this device has used encrypted (`usedEncrypted`), whatever its `format` says:
    /// a format turned plain may be someone's without the key.
    static func plainAllowed(spec: RemoteSpec, account: String, usedEncrypted: Bool) throws {
        guard usedEncrypted, !spec.isEncrypted else { return }
        throw RemoteError.refused("this device used \(spec.setting) (account \(account)) encrypted, and never writes to it unencrypted: join it with --key FILE (habitto remote key on a device that has it), or choose another remote to use unencrypted")
    }

    /// Whether a remote encrypted for `remote` (nil: not encrypted, or `keychecked`: encrypted
    /// for a recipient the remote does not show, which its keycheck then checks) and this
    /// device's key for `key` (nil: none) agree; throws the refusal when they do not. `spec`
    /// is the remote's setting, for the advice.
    static func encryption(remote: String?, keychecked: Bool = false, key: String?, spec: String) throws {
        switch (keychecked ? remote ?? key ?? "" : remote, key) {
        case (nil, nil):
            return
        case (nil, _?):
            throw RemoteError.refused("this remote is not encrypted, and this device is set to encrypt: to move to encryption, set a new, empty remote with --encrypt (everything is pushed again and verified; this one is left alone); to use this one as it is, run habitto remote set \(spec) without --key or --encrypt")
        case (_?, nil):
            throw RemoteError.refused("this remote is encrypted: join with --key FILE (habitto remote key on a device that has it)")
        case (let wanted?, let key?):
            guard wanted == key else {
                throw RemoteError.refused("wrong key: this remote is encrypted for \(RemoteKey.shown(wanted)), and this device's key is for \(RemoteKey.shown(key)); join with the remote's key: habitto remote set \(spec) --key FILE (habitto remote key on a device that has it)")
            }
        }
    }

    /// What the format read says of the remote's identity, against the one recorded.
    enum Identity: Equatable {
        /// Not read this round, or the identity recorded.
        case unchanged
        /// The first identity this device records for the remote.
        case first(RemoteFormat)
        /// Another identity than the one recorded: the layout was made again (the remote was
        /// emptied or replaced), so it lost what it had, and this device sends all of it again.
        case changed(RemoteFormat)
    }

    static func identity(_ format: RemoteFormat?, recorded: String?) -> Identity {
        guard let format, let id = format.id, id != recorded else { return .unchanged }
        return recorded == nil ? .first(format) : .changed(format)
    }
}
