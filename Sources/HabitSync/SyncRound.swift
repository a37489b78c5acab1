import FoundationEssentials
import HabitCore
import HabitStore

/// One round, carried out: it agrees with the remote (`Negotiation`), pushes (`PushPlan`),
/// compacts (`CompactionPlan`), marks its version, pulls (`PullPlan`) and verifies a first
/// push, every remote call through the round's gate. It holds the sync state while it runs
/// and records each result in it; it hands the state to the engine to save (`engine.save`)
/// before the engine publishes anything of it, so the engine's copy is always what was saved.
struct SyncRound {
    let engine: SyncEngine
    let repository: HabitRepository
    let calls: RemoteCalls
    let clock: any SyncClock
    let paths: DataPaths
    var state: SyncState
    var report = SyncReport()
    var me: DeviceID { repository.device }

    /// The most skipped remote entries kept in the status (then a count).
    static let maxRemoteProblems = 50
    /// The most other devices kept in `sync.json` and shown by `status`: more device folders
    /// with batches than one person's devices can be is a remote filled by mistake or on
    /// purpose. Every listed device is still read; only the record is bounded.
    static let maxDevices = 200
    var account: String { state.account }
    /// The remote is encrypted with its recipient in the clear (made by an earlier version).
    var clearRecipient = false

    /// Everything a round does with `plain`, the remote the settings name.
    mutating func run(_ plain: any Remote) async throws {
        guard let spec = try state.remoteSpec() else { throw RemoteError.refused("no remote is set") }
        let target = state.target, used = target.map { state.encryptedTargets?.contains($0) ?? false } ?? false
        let agreed = try await Negotiation.agree(plain, spec: spec, account: account, recordedID: state.remoteID,
                                                 recordedRecipient: state.remoteRecipient, recordedKeychecked: state.remoteKeychecked ?? false,
                                                 usedEncrypted: used, paths: paths, calls: calls)
        if spec.isEncrypted, !used, let target {
            // From now on this device never writes to it unencrypted.
            state.encryptedTargets = (state.encryptedTargets ?? []) + [target]
            try await save()
        }
        let remote = agreed.remote
        if let sealed = remote as? EncryptedRemote, sealed.binding == nil { clearRecipient = true }
        try await notice(agreed.format)
        if let own = try await push(remote) {
            try await compact(remote, own.items)
            try await markVersion(remote, own.versions)
        }
        try await pull(remote)
        if state.migratedTo != state.target, let markers = try await verify(remote) { try await markVersion(remote, markers) }
        // Batches were written: the change marker tells probing devices (WebDAV) to pull.
        if report.batches > 0 || report.refilledOthers > 0 {
            let me = me, account = account
            try await calls.run { try await plain.touchChangeMarker(account: account, device: me) }
        }
    }

    mutating func save() async throws { state = try await engine.save(state) }

    /// Records the remote's identity from the format `prepare` read (nil: not read).
    mutating func notice(_ format: RemoteFormat?) async throws {
        switch Negotiation.identity(format, recorded: state.remoteID) {
        case .unchanged: return
        case .first(let f):
            state.remoteID = f.id
            state.remoteRecipient = f.recipient
            state.remoteKeychecked = f.keychecked ? true : nil
        case .changed(let f):
            if !report.refilled { try await sendAllAgain() }
            state.remoteID = f.id
            state.remoteRecipient = f.recipient
            state.remoteKeychecked = f.keychecked ? true : nil
        }
        try await save()
    }

    /// Forgets what the remote acknowledged, so this round sends again (and then reads back
    /// and verifies, as after `remote set`) every operation the remote lacks.
    mutating func sendAllAgain() async throws {
        state.ackedSeq = 0
        state.scanOffset = 0
        state.migratedTo = nil
        try await save()
        report.refilled = true
    }

    // MARK: Push

    /// Pushes what is pending; returns this device's batches on the remote (listed before,
    /// and written since) with its version markers when the remote is verified, nil otherwise.
    mutating func push(_ remote: any Remote) async throws -> Listing<BatchName>? {
        let me = me, account = account
        var held: Listing<BatchName>?
        if state.migratedTo == state.target && state.ackedSeq > 0 {
            let listing = try await calls.run { try await remote.listBatches(account: account, device: me) }
            if PushPlan.start(listed: listing.items, acked: state.ackedSeq) == .sendAllAgain {
                // The root may be gone too: it is checked (never created) and the layout made
                // again; then everything is pushed again and read back.
                remote.forgetExisting()
                let format = try await calls.run { try await remote.prepare(account: account) }
                try await sendAllAgain()
                try await notice(format)
            }
            held = listing
        }
        if state.migratedTo != state.target { try await skipWhatRemoteHas(remote, listed: held?.items) }
        var plan = PushPlan(remoteMost: remote.maxBatchOperations, learnt: state.learntNow?.maxBatchOperations)
        while true {
            // The end the read covered comes from the same call: reading the journal's end
            // afterwards could pass over a check-in committed in between, never to be sent.
            let (ops, first, scannedTo) = try await repository.pendingOperations(
                afterSeq: state.ackedSeq, fromOffset: state.scanOffset, limit: plan.limit)
            if let first { state.scanOffset = first }
            guard let name = PushPlan.batch(ops) else {
                state.scanOffset = scannedTo
                return held
            }
            // What this device had seen of every other one goes with it (`BatchFile`).
            let bytes = BatchFile.encode(ops, seen: await repository.state.seen)
            try calls.checkNotStopped()
            await engine.show(sending: ops)
            do {
                _ = try await calls.run { try await remote.create(account: account, device: me, batch: name, bytes: bytes) }
            } catch let e as RemoteError where e.tooLarge {
                if plan.refused(count: ops.count) { continue }
                throw e
            }
            if let limit = plan.learnt { state.learn(remote.knownToExist, maxBatchOperations: limit) }
            // The remote has it: record the cursor durably before anything else.
            state.ackedSeq = name.last
            state = try await engine.save(state, acknowledging: name)
            held?.items.append(name)
            report.pushed += ops.count
            report.batches += 1
            await engine.show(sending: [])
        }
    }

    /// Before the push to a remote and account not yet verified (a new remote, `sync.json`
    /// lost with the cursor in it, or a verification that failed): takes as acknowledged what
    /// the remote holds of this device (`PushPlan.alreadyHeld`), and no more, so what it lost
    /// is sent again; the verification reads it back.
    mutating func skipWhatRemoteHas(_ remote: any Remote, listed: [BatchName]?) async throws {
        let me = me, account = account
        let written = await repository.state.seen[me] ?? 0
        // A device that has written nothing (a new device joining) has nothing to skip.
        guard written > 0 else { return }
        var held = listed ?? []
        if listed == nil { held = try await calls.run { try await remote.batches(account: account, device: me) } }
        let end = PushPlan.alreadyHeld(listed: held, written: written)
        guard end != state.ackedSeq else { return }
        // The scan offset is where the operations after the cursor start: not after it.
        if end < state.ackedSeq { state.scanOffset = 0 }
        state.ackedSeq = end
        try await save()
    }

    // MARK: Compaction

    /// Carries out the `CompactionPlan` for this device's batches `listed` (once the remote is
    /// verified): each step written create-only from the journal, read back and checked to
    /// hold the same operations, and only then the batches it replaces removed. A stop at any
    /// step leaves batches that overlap, which readers skip, and the next round finishes.
    mutating func compact(_ remote: any Remote, _ listed: [BatchName]) async throws {
        guard state.migratedTo == state.target, state.ackedSeq > 0 else { return }
        let largest = min(CompactionPlan.largest, state.learntNow?.maxBatchOperations.map(UInt64.init) ?? .max)
        var plan = CompactionPlan(listed: listed, acked: state.ackedSeq, largest: largest)
        let me = me, account = account
        while let step = plan.next() {
            let range = step.range
            // Stop when the journal lacks the range; pass over a range a reader takes no file of.
            guard let ops = try await journalOperations(range) else { return }
            // What this device has seen now: at least the most any of the parts says, as
            // what a device has seen only grows, and true of when this batch was written.
            let bytes = BatchFile.encode(ops, seen: await repository.state.seen)
            guard bytes.count <= BatchFile.maxBytes else { continue }
            do {
                _ = try await calls.run { try await remote.create(account: account, device: me, batch: range, bytes: bytes) }
            } catch let e as RemoteError where e.tooLarge && range.count > 1 {
                // Refused for its size and not written: later compactions use half the size.
                state.learn(remote.knownToExist, maxBatchOperations: Int(range.count / 2))
                return
            }
            let back = try await calls.run { try await remote.read(account: account, device: me, batch: range, maxBytes: BatchFile.maxBytes) }
            guard BatchAck.acknowledges(back, bytes, device: me, name: range) else {
                throw RemoteError.damaged("batch \(range) of this device read back from the remote differs from what was written; the batches it covers were left alone")
            }
            for old in step.replaces { try await calls.run { try await remote.remove(account: account, device: me, batch: old) } }
            plan.merged(step)
        }
    }

    /// This device's operations `range` from the journal, read from where the last
    /// compaction's range started when that is at or before it (from the start otherwise,
    /// or when the journal does not hold them there); nil when the journal lacks any.
    mutating func journalOperations(_ range: BatchName) async throws -> [HabitOperation]? {
        let mark = state.compactedFrom.flatMap { $0.seq <= range.first ? $0.offset : nil }
        for from in mark.map({ $0 > 0 ? [$0, 0] : [0] }) ?? [0] {
            let (ops, offset) = try await repository.localOperations(afterSeq: range.first - 1, fromOffset: from, limit: Int(range.count))
            guard ops.count == Int(range.count), ops.first?.id.seq == range.first, ops.last?.id.seq == range.last else { continue }
            if let offset { state.compactedFrom = SyncState.JournalMark(seq: range.first, offset: offset) }
            return ops
        }
        return nil
    }

    /// Writes this device's version marker when its `ops` folder lacks the one for this
    /// release (`markers`: the versions its listing names), and removes its others.
    func markVersion(_ remote: any Remote, _ markers: [String]) async throws {
        let me = me, account = account, current = HabittoVersion.current
        if !markers.contains(current) {
            try await calls.run { try await remote.markVersion(account: account, device: me, version: current) }
        }
        for old in markers where old != current {
            try await calls.run { try await remote.unmarkVersion(account: account, device: me, version: old) }
        }
    }

    // MARK: Pull

    /// Reads and applies what other devices wrote. A device with bad batches is reported and
    /// blocks neither this device nor the others.
    mutating func pull(_ remote: any Remote) async throws {
        let me = me, account = account
        try calls.checkNotStopped()
        await engine.show(pulling: true)
        let devices = try await calls.run { try await remote.listDevices(account: account) }
        var skipped = devices.skipped, problems: [String] = []
        // Devices that are on the remote with a batch, or were known and could not be read
        // this round; the others are forgotten (a folder with no batch is not a device yet).
        var present = Set<DeviceID>()
        // Each device's batches as the round leaves them (listed, and refilled by this device).
        var held: [DeviceID: [BatchName]] = [:]
        let listed = Set(devices.items)
        let known = Set(await repository.state.seen.keys)
        for device in devices.items where device != me {
            let wasSeen = state.devicesSeen[device] != nil
            do {
                let listing = try await pull(device, from: remote, refused: &problems)
                skipped += listing.skipped
                held[device] = listing.items
                guard !listing.items.isEmpty else { continue }
                present.insert(device)
            } catch let e as RemoteError where e.kind == .permanent {
                problems.append(e.message)
                if wasSeen { present.insert(device) }
            }
        }
        // Devices this device holds operations of whose folder the remote does not show at
        // all (restored from a copy older than them): this device sends them again.
        for device in known.subtracting(listed).sorted() where device != me {
            do {
                held[device] = try await refill(device, listed: [], into: remote)
            } catch let e as RemoteError where e.kind == .permanent {
                problems.append(e.message)
            }
        }
        // A listing that ends before what another device saw of it: withheld, or lost.
        let claimed = (state.claims ?? [:]).filter { $0.key != me }
        for (device, claim) in claimed.sorted(by: { $0.key < $1.key }) {
            guard let batches = held[device] ?? (listed.contains(device) ? nil : []) else { continue }
            if let line = PullPlan.shortfall(of: device, listed: batches, claim: claim) { problems.append(line) }
        }
        let (keptClaims, _) = PullPlan.kept(Set(claimed.keys), known: known.union(listed), most: SyncRound.maxDevices)
        state.claims = claimed.isEmpty ? nil : claimed.filter { keptClaims.contains($0.key) }
        let (kept, left) = PullPlan.kept(present, known: known, most: SyncRound.maxDevices)
        if left > 0 { skipped.append("\(left) more devices with batches are not kept in the status (at most \(SyncRound.maxDevices))") }
        state.devicesSeen = state.devicesSeen.filter { kept.contains($0.key) }
        state.clockAhead = state.clockAhead.filter { kept.contains($0.key) }
        state.devicesVersion = state.devicesVersion?.filter { kept.contains($0.key) }
        // One snapshot after the whole pull, however many batches it folded in.
        if report.pulled > 0 { try? await repository.snapshotIfDue() }
        if !problems.isEmpty { report.error = problems.joined(separator: "; ") }
        // Skipped entries are a list of what is there now, not an error of every round.
        if skipped.count > SyncRound.maxRemoteProblems {
            skipped = Array(skipped.prefix(SyncRound.maxRemoteProblems)) + ["\(skipped.count - SyncRound.maxRemoteProblems) more entries skipped"]
        }
        if clearRecipient { skipped.insert(EncryptedRemote.clearRecipient, at: 0) }
        let before = Set(state.remoteProblems ?? [])
        report.remoteProblems = skipped
        report.newRemoteProblems = skipped.filter { !before.contains($0) }
        state.remoteProblems = skipped.isEmpty ? nil : skipped
    }

    /// Reads and applies `device`'s batches beyond what this device has of it, as its
    /// `PullPlan` says; returns the device's last listing. A batch that cannot be used (damaged,
    /// not decrypting, not authentic) is refused in one line added to `refused`, and the
    /// device's other batches still apply.
    mutating func pull(_ device: DeviceID, from remote: any Remote, refused: inout [String]) async throws -> Listing<BatchName> {
        let account = account
        var listing = try await calls.run { try await remote.listBatches(account: account, device: device) }
        var plan = PullPlan(listed: listing.items, seen: await repository.state.seen[device] ?? 0)
        var newest: Int64 = 0
        while true {
            switch plan.next {
            case .done:
                // A device whose every batch was refused (a forged folder) is not one.
                listing.items = plan.listed
                if !listing.items.isEmpty { record(device, listing, newest: newest) }
                listing.items += try await refill(device, listed: listing.items, into: remote)
                return listing
            case .gap(let next):
                throw RemoteError.notFound("device \(device.rawValue.prefix(8)) has no batch with operation \(plan.seen + 1) (next is \(next)); waiting for it")
            case .read(let batch):
                let contents: BatchFile.Contents
                do {
                    let bytes = try await calls.run { try await remote.read(account: account, device: device, batch: batch, maxBytes: BatchFile.maxBytes) }
                    contents = try BatchFile.read(bytes, device: device, name: batch)
                } catch let e as RemoteError where e.missing {
                    // Removed since it was listed: that device compacted, and a listing now
                    // shows the batch covering it. Operations already applied are skipped.
                    guard plan.missing() else { throw e }
                    listing = try await calls.run { try await remote.listBatches(account: account, device: device) }
                    plan.relist(listing.items)
                    continue
                } catch let e as RemoteError where e.isDamaged {
                    refused.append(e.message)
                    plan.refuse(batch)
                    continue
                }
                let ops = contents.operations
                report.pulled += try await repository.applyRemote(ops)
                let claims = PullPlan.noting(contents.seen, by: device, me: me, into: state.claims ?? [:])
                if !claims.isEmpty { state.claims = claims }
                plan.read(batch)
                newest = max(newest, ops.map(\.hlc.wallMillis).max() ?? 0)
            }
        }
    }

    /// Writes into `device`'s folder what this device holds of it and the folder lacks
    /// (`listed`: its batches), as `PullPlan.refill` cuts it: create-only batches of exactly
    /// that device's operations from the journal, with no seen vector (this device cannot
    /// know what that one had seen), so the bytes are the operations' alone and a device
    /// refilling the same range at the same time writes the same file, an ack. Nothing of the
    /// device's is removed. Returns the batches written (or found there already).
    mutating func refill(_ device: DeviceID, listed: [BatchName], into remote: any Remote) async throws -> [BatchName] {
        let account = account
        let holds = await repository.state.seen[device] ?? 0
        let most = min(remote.maxBatchOperations, state.learntNow?.maxBatchOperations ?? .max, HabitRepository.maxOperationsRead)
        var written: [BatchName] = []
        for range in PullPlan.refill(listed: listed, held: holds, most: most) {
            let ops = try await repository.operations(of: device, afterSeq: range.first - 1, limit: Int(range.count))
            // The journal lacks some (it is never cut, but a data directory can be replaced).
            guard ops.count == Int(range.count) else { break }
            let bytes = BatchFile.encode(ops)
            try calls.checkNotStopped()
            do {
                _ = try await calls.run { try await remote.create(account: account, device: device, batch: range, bytes: bytes) }
            } catch let e as RemoteError where e.tooLarge && range.count > 1 {
                // Refused for its size and not written: later rounds use half the size.
                state.learn(remote.knownToExist, maxBatchOperations: Int(range.count / 2))
                break
            }
            written.append(range)
            report.refilledOthers += ops.count
        }
        return written
    }

    /// Records that `device` was seen, the version it last ran, and how far ahead its clock is.
    mutating func record(_ device: DeviceID, _ listing: Listing<BatchName>, newest: Int64) {
        state.devicesSeen[device] = clock.now()
        if newest > 0 {
            let at = Date(timeIntervalSince1970: Double(newest) / 1000)
            var last = state.devicesLastChange ?? [:]
            if last[device].map({ $0 < at }) ?? true { last[device] = at }
            state.devicesLastChange = last
        }
        if let version = listing.versions.last { state.devicesVersion = (state.devicesVersion ?? [:]).merging([device: version]) { $1 } }
        if let ahead = PullPlan.clockAhead(newestMillis: newest, now: clock.now()) {
            state.clockAhead[device] = ahead
        } else if newest > 0 {
            state.clockAhead[device] = nil
        }
    }

    // MARK: Verification

    /// After the first full push to a remote: reads this device's batches back (as a pull
    /// would) and checks that they hold every operation up to the acked cursor, then records
    /// it as done. Returns the version markers the listing named (nil when this device has
    /// sent nothing).
    mutating func verify(_ remote: any Remote) async throws -> [String]? {
        guard state.ackedSeq > 0 else {
            state.migratedTo = state.target
            return nil
        }
        let me = me, account = account
        let listing = try await calls.run { try await remote.listBatches(account: account, device: me) }
        var plan = PullPlan(listed: listing.items, seen: 0)
        while case .read(let batch) = plan.next {
            let bytes = try await calls.run { try await remote.read(account: account, device: me, batch: batch, maxBytes: BatchFile.maxBytes) }
            _ = try BatchFile.decode(bytes, device: me, name: batch)
            plan.read(batch)
        }
        if case .lacks(let cursor) = PushPlan.verification(readBack: plan.seen, acked: state.ackedSeq) {
            // It answered writes it did not keep: they wait again, and `status` counts them.
            state.ackedSeq = cursor
            state.scanOffset = 0
            try await save()
            throw RemoteError.notFound("verification failed: the remote lacks this device's operations from \(cursor + 1), which it had acknowledged; they wait to be sent again: run 'habitto sync' again")
        }
        state.migratedTo = state.target
        return listing.versions
    }
}
