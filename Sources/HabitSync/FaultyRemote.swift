import FoundationEssentials
import HabitCore
import HabitStore

/// Faults to inject into a remote, as read from `HABITTO_FAULTS`
/// (for example `latency=200ms,fail=0.2,lostack=0.1,unreachable`).
public struct FaultPlan: Equatable, Sendable, CustomStringConvertible {
    /// Seconds added before each call.
    public var latency: Double
    /// Probability (0–1) that a call fails with a transient error before reaching the remote.
    public var failureRate: Double
    /// Probability (0–1) that `create` writes the batch and then fails with a transient
    /// error, as when the answer is lost on the way back.
    public var lostAckRate: Double
    /// Every call fails with a transient "remote unreachable" error.
    public var unreachable: Bool
    /// Batches of at most this many operations instead of the remote's own maximum (tests
    /// scale a long history down with it; not part of `description`).
    public var maxBatchOperations: Int?

    /// A plan with the given faults; the defaults inject none.
    public init(latency: Double = 0, failureRate: Double = 0, lostAckRate: Double = 0, unreachable: Bool = false) {
        self.latency = latency; self.failureRate = failureRate
        self.lostAckRate = lostAckRate; self.unreachable = unreachable
    }

    /// No faults at all.
    public static let none = FaultPlan()

    /// The largest latency accepted, in seconds.
    public static let maxLatency = 60.0

    /// The plan in the form `parse` reads (`none` when there are no faults).
    public var description: String {
        var parts: [String] = []
        if latency > 0 { parts.append("latency=\(Int((latency * 1000).rounded()))ms") }
        if failureRate > 0 { parts.append("fail=\(failureRate)") }
        if lostAckRate > 0 { parts.append("lostack=\(lostAckRate)") }
        if unreachable { parts.append("unreachable") }
        return parts.isEmpty ? "none" : parts.joined(separator: ",")
    }

    /// Reads a comma-separated list of `latency=<N>ms` or `latency=<N>s`, `fail=<0–1>`,
    /// `lostack=<0–1>` and `unreachable`; an empty string means no faults. A part that is not
    /// one of these throws `SyncSettingError` naming it and the accepted keys. Empty parts are
    /// ignored; when a key is given twice, the last one counts.
    public static func parse(_ text: String) throws -> FaultPlan {
        var plan = FaultPlan()
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            let part = raw.trimmingBlanks
            if part.isEmpty { continue }
            if part == "unreachable" { plan.unreachable = true; continue }
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2 else { throw SyncSettingError.faultNotUnderstood(part: part) }
            let key = kv[0].trimmingBlanks, value = kv[1].trimmingBlanks
            func number(_ s: Substring) -> Double? {
                // Plain decimals only: no signs, exponents, hex, "nan" or "inf".
                guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let d = Double(s), d.isFinite
                else { return nil }
                return d
            }
            func rate() throws -> Double {
                guard let r = number(Substring(value)), r <= 1 else { throw SyncSettingError.faultNotAProbability(part: part) }
                return r
            }
            switch key {
            case "latency":
                let seconds: Double?
                if value.hasSuffix("ms") { seconds = number(value.dropLast(2)).map { $0 / 1000 } }
                else if value.hasSuffix("s") { seconds = number(value.dropLast(1)) }
                else { seconds = nil }
                guard let seconds, seconds <= maxLatency else {
                    throw SyncSettingError.faultNotADuration(part: part, maxSeconds: Int(maxLatency))
                }
                plan.latency = seconds
            case "fail": plan.failureRate = try rate()
            case "lostack": plan.lostAckRate = try rate()
            default: throw SyncSettingError.faultNotUnderstood(part: part)
            }
        }
        return plan
    }
}

/// Wraps a remote and injects the faults of a `FaultPlan`: latency, transient failures,
/// lost answers after a write, and an unreachable remote. With a seed the failures are
/// the same on every run. For tests and demos (`HABITTO_FAULTS`).
public final class FaultyRemote: Remote, @unchecked Sendable {
    private let inner: any Remote
    private let clock: any SyncClock
    private let lock = Lock()
    // Guarded by `lock`.
    private var _plan: FaultPlan
    private var seeded: SplitMix64?
    private var _calls = 0
    private var _writes = 0

    /// `inner` with the faults of `plan`; `seed` makes the random failures repeatable, and
    /// the latency is waited on `clock`.
    public init(_ inner: any Remote, plan: FaultPlan, seed: UInt64? = nil, clock: any SyncClock = LiveClock()) {
        self.inner = inner
        self.clock = clock
        self._plan = plan
        self.seeded = seed.map(SplitMix64.init(seed:))
    }

    /// The faults injected from now on (it can be changed while syncing).
    public var plan: FaultPlan {
        get { lock.withLock { _plan } }
        set { lock.withLock { _plan = newValue } }
    }

    /// Calls made so far, including those that failed.
    public var calls: Int { lock.withLock { _calls } }

    /// Batches the wrapped remote wrote (its `create` answered `.created`), including
    /// those whose answer was then lost.
    public var writes: Int { lock.withLock { _writes } }

    /// The wrapped remote's location followed by ` (faults: …)`.
    public var location: String { "\(inner.location) (faults: \(plan))" }
    public var maxBatchOperations: Int { plan.maxBatchOperations ?? inner.maxBatchOperations }
    public var knownToExist: Set<String> { inner.knownToExist }
    public func assumeExisting(_ keys: Set<String>) { inner.assumeExisting(keys) }
    public func forgetExisting() { inner.forgetExisting() }
    public func forgetFormat(account: String) { inner.forgetFormat(account: account) }

    /// The wrapped remote's `prepare`, after the injected latency and failures.
    @discardableResult
    public func prepare(account: String, recipient: String?) async throws -> RemoteFormat? {
        _ = try await enter()
        return try await inner.prepare(account: account, recipient: recipient)
    }

    /// The wrapped remote's `listDevices`, after the injected latency and failures.
    public func listDevices(account: String) async throws -> Listing<DeviceID> {
        _ = try await enter()
        return try await inner.listDevices(account: account)
    }

    /// The wrapped remote's `listBatches`, after the injected latency and failures.
    public func listBatches(account: String, device: DeviceID) async throws -> Listing<BatchName> {
        _ = try await enter()
        try intercept?(.listBatches(device))
        return try await inner.listBatches(account: account, device: device)
    }

    /// The wrapped remote's `read`, after the injected latency and failures.
    public func read(account: String, device: DeviceID, batch: BatchName, maxBytes: Int) async throws -> [UInt8] {
        _ = try await enter()
        try intercept?(.read(device, batch))
        return try await inner.read(account: account, device: device, batch: batch, maxBytes: maxBytes)
    }

    /// The wrapped remote's `createOnly`, after the injected latency and failures; with a
    /// lost answer it writes and then throws a transient error, so a retry finds the batch.
    public func createOnly(account: String, device: DeviceID, batch: BatchName, bytes: [UInt8]) async throws -> CreateResult {
        let loseAnswer = try await enter()
        try intercept?(.create(device, batch))
        let outcome = try await inner.createOnly(account: account, device: device, batch: batch, bytes: bytes)
        if outcome == .created { lock.withLock { _writes += 1 } }
        if loseAnswer {
            throw RemoteError.unreachable("answer lost (injected by HABITTO_FAULTS); batch \(batch) may have been written")
        }
        return outcome
    }

    /// The wrapped remote's `readKeycheck`, after the injected latency and failures.
    public func readKeycheck(account: String, maxBytes: Int) async throws -> [UInt8]? {
        _ = try await enter()
        return try await inner.readKeycheck(account: account, maxBytes: maxBytes)
    }

    /// The wrapped remote's `createKeycheck`, after the injected latency and failures.
    public func createKeycheck(account: String, bytes: [UInt8]) async throws -> CreateResult {
        _ = try await enter()
        return try await inner.createKeycheck(account: account, bytes: bytes)
    }

    /// The wrapped remote's `markVersion`, after the injected latency and failures.
    public func markVersion(account: String, device: DeviceID, version: String) async throws {
        _ = try await enter()
        try await inner.markVersion(account: account, device: device, version: version)
    }

    /// The wrapped remote's `unmarkVersion`, after the injected latency and failures.
    public func unmarkVersion(account: String, device: DeviceID, version: String) async throws {
        _ = try await enter()
        try await inner.unmarkVersion(account: account, device: device, version: version)
    }

    public func touchChangeMarker(account: String, device: DeviceID) async throws {
        _ = try await enter()
        try await inner.touchChangeMarker(account: account, device: device)
    }

    public func probeChanges(account: String, since tag: String?) async throws -> ChangeProbe {
        _ = try await enter()
        return try await inner.probeChanges(account: account, since: tag)
    }

    /// The wrapped remote's `remove`, after the injected latency and failures.
    public func remove(account: String, device: DeviceID, batch: BatchName) async throws {
        _ = try await enter()
        try intercept?(.remove(device, batch))
        try await inner.remove(account: account, device: device, batch: batch)
    }

    /// A call about to reach the wrapped remote, as `intercept` sees it.
    enum Call: Equatable, Sendable {
        case listBatches(DeviceID)
        case read(DeviceID, BatchName)
        case create(DeviceID, BatchName)
        case remove(DeviceID, BatchName)
    }

    /// Tests: runs before each batch call reaches the wrapped remote, to change the remote
    /// between two calls (another device's compaction between a listing and a read) or to
    /// fail one step (by throwing). Set it before a round starts.
    var intercept: (@Sendable (Call) throws -> Void)?

    /// Counts the call, waits the latency and throws the injected failure, if any; returns
    /// whether a write's answer is to be lost. Two random numbers are drawn on every call,
    /// so a seeded run does not depend on the plan's rates.
    private func enter() async throws -> Bool {
        let (plan, failRoll, lostRoll) = lock.withLock { () -> (FaultPlan, Double, Double) in
            _calls += 1
            return (_plan, nextUnit(), nextUnit())
        }
        if plan.latency > 0 {
            try await clock.sleep(seconds: plan.latency)
        }
        if plan.unreachable {
            throw RemoteError.unreachable("remote unreachable (injected by HABITTO_FAULTS)")
        }
        if failRoll < plan.failureRate {
            throw RemoteError.unreachable("injected failure (HABITTO_FAULTS)")
        }
        return lostRoll < plan.lostAckRate
    }

    /// A random number in 0..<1; call with `lock` held.
    private func nextUnit() -> Double {
        let bits: UInt64
        if seeded != nil { bits = seeded!.next() } else { bits = UInt64.random(in: .min ... .max) }
        return Double(bits >> 11) * 0x1p-53
    }
}

