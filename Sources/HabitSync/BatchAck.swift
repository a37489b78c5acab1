import HabitCore

/// How a create-only write ended.
public enum WriteOutcome: Equatable, Sendable {
    /// The batch was written.
    case created
    /// It was already there holding the same operations (a retry after a lost answer): an ack.
    case alreadyThere
}

/// What a remote's create-only write found (`Remote.createOnly`).
public enum CreateResult: Equatable, Sendable {
    /// The batch was written.
    case created
    /// Something was already there under its name: its bytes, as this remote reads them
    /// (decrypted, through `EncryptedRemote`), or what could be read of them.
    case found([UInt8])
}

/// The one rule of what a batch found under the name a create-only write wanted means, for
/// every remote, a push's retry and a compaction's read-back alike: an acknowledgement when it
/// holds exactly the operations written (the same bytes, or the same operations in another
/// version of the batch format, as an earlier version wrote them, or with another record of
/// what its writer had seen: a retry written after a pull, or a batch another device wrote
/// again for it); anything else is not.
public enum BatchAck {
    /// Whether `found` under `name` of `device` holds what `written` holds.
    public static func acknowledges(_ found: [UInt8], _ written: [UInt8], device: DeviceID, name: BatchName) -> Bool {
        if found == written { return true }
        guard let a = try? BatchFile.decode(found, device: device, name: name),
              let b = try? BatchFile.decode(written, device: device, name: name) else { return false }
        return a == b
    }
}

extension Remote {
    /// Writes a batch only if it does not exist. One already there is an ack when `BatchAck`
    /// says it holds the same operations; otherwise a conflict, and it is left alone.
    public func create(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> WriteOutcome {
        switch try await createOnly(account: account, device: device, batch: batch, bytes: bytes) {
        case .created:
            return .created
        case .found(let existing):
            guard BatchAck.acknowledges(existing, bytes, device: device, name: batch) else {
                throw RemoteError.conflict("batch \(batch) of device \(device.rawValue.prefix(8)) already exists with different contents on \(location); it was left alone. Another device may be using the same device id, or the file was changed by hand")
            }
            return .alreadyThere
        }
    }
}
