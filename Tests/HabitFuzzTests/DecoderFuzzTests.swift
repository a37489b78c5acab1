import Foundation
import XCTest
import HabitCore
@testable import HabitStore
@testable import HabitImport
@testable import HabitSync

/// Random and mutated bytes fed to every decoder of outside input: operations, states,
/// snapshots, journals, sync batches and the four importers. Each must either refuse the
/// input with its own error type and a clean one-line message, or give a value that
/// re-encodes (and, for imports, exports and re-imports) to the same thing. A crash here
/// kills the test run: that is the proof that there is none. Seeded; see `Fuzzer`.
final class DecoderFuzzTests: XCTestCase {

    // MARK: Operations and states (HabitCore's codec)

    func testMutatedOperationsAreRefusedOrReencodeAndApply() {
        let corpus = Seeds.operations.map { op -> [UInt8] in var w = ByteWriter(); w.operation(op); return w.bytes }
        var accepted = 0
        Fuzzer.run("operation", iterations: 40_000) { rng, label in
            let input = Int.random(in: 0..<20, using: &rng) == 0
                ? Fuzzer.noise(&rng) : Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng)
            var r = ByteReader(input)
            let op: HabitOperation
            do { op = try r.operation() } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
                return
            }
            accepted += 1
            var w = ByteWriter()
            w.operation(op)
            var again = ByteReader(w.bytes)
            XCTAssertEqual(try? again.operation(), op, "\(label): an accepted operation does not re-encode")
            XCTAssertTrue(again.isAtEnd, label)
            var state = Seeds.state
            _ = state.apply(op)
            Check.stateRoundTrips(state, label)
        }
        XCTAssertGreaterThan(accepted, 40_000 * Fuzzer.factor / 20, "too few mutations decoded: the re-encoding went untested")
    }

    func testMutatedStatesAreRefusedOrReencode() {
        let corpus = [Seeds.state.encoded(), HabitState().encoded()]
        Fuzzer.run("state", iterations: 20_000) { rng, label in
            let input = Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng)
            var r = ByteReader(input)
            do {
                let state = try HabitState(decoding: &r)
                Check.stateRoundTrips(state, label)
            } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
            }
        }
    }

    /// Order keys from anywhere (a set operation's field 11): refused by the decoder, or a
    /// valid key that re-encodes, sorts among the others and leaves room on both sides.
    func testRandomOrderKeysAreRefusedOrValidKeys() throws {
        let alphabet = OrderKey.digits + Array(" -0~é\u{1B}".utf8)
        try Fuzzer.run("order key", iterations: 20_000) { rng, label in
            let n = Int.random(in: 0...(OrderKey.maxLength + 3), using: &rng)
            let raw = (0..<n).map { _ in Int.random(in: 0..<8, using: &rng) == 0 ? UInt8.random(in: 0...255, using: &rng) : alphabet.randomElement(using: &rng)! }
            var w = ByteWriter()
            w.u8(2); w.habit(Seeds.read); w.u8(11); w.bool(true); w.varint(UInt64(raw.count)); w.raw(raw)
            var r = ByteReader(w.bytes)
            let change: Change
            do { change = try r.change() } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
                return
            }
            guard case .set(_, .position(let key?)) = change else { return XCTFail("\(label): decoded to \(change)") }
            XCTAssertTrue(OrderKey.isValid(key), label)
            XCTAssertNoThrow(try change.validate(), label)
            for (a, b) in [(nil, key), (key, nil)] as [(String?, String?)] {
                guard let k = OrderKey.between(a, b) else {
                    // Only a key of the longest length next to the end of the alphabet has no room.
                    XCTAssertEqual(key.utf8.count, OrderKey.maxLength, "\(label): no key next to \(key)")
                    continue
                }
                XCTAssertTrue(OrderKey.isValid(k), label)
            }
            var state = Seeds.state
            Check.apply([change], to: &state)
            Check.stateRoundTrips(state, label)
        }
    }

    /// Reminder times from anywhere (a set operation's field 12): refused by the decoder, or
    /// a list local input accepts that re-encodes as it was read.
    func testRandomReminderTimesAreRefusedOrValid() throws {
        try Fuzzer.run("reminder times", iterations: 20_000) { rng, label in
            let n = Int.random(in: 0...10, using: &rng)
            var w = ByteWriter()
            w.u8(2); w.habit(Seeds.read); w.u8(12); w.varint(UInt64(n))
            var minute = UInt64.random(in: 0...300, using: &rng)
            for _ in 0..<n {
                w.varint(Int.random(in: 0..<10, using: &rng) == 0 ? UInt64.random(in: 0...UInt64.max, using: &rng) : minute)
                minute += UInt64.random(in: 0...200, using: &rng)
            }
            var bytes = w.bytes
            if Bool.random(using: &rng) { bytes.removeLast(Int.random(in: 0...min(2, bytes.count), using: &rng)) }
            var r = ByteReader(bytes)
            let change: Change
            do { change = try r.change() } catch {
                XCTAssertTrue(error is DecodeError, "\(label): \(error)")
                return
            }
            guard case .set(_, .reminders(let times)) = change else { return XCTFail("\(label): decoded to \(change)") }
            XCTAssertNoThrow(try Validate.reminders(times), label)
            XCTAssertEqual(try ReminderTime.parseList(ReminderTime.format(times)), times, label)
            var state = Seeds.state
            Check.apply([change], to: &state)
            Check.stateRoundTrips(state, label)
        }
    }

    // MARK: Snapshots, journals (HabitStore, through the real reading path)

    /// A data directory written through the repository: a journal of every seed commit and
    /// a snapshot covering some of it, with where each record lies.
    private func history(in scratch: Scratch) async throws -> (paths: DataPaths, state: HabitState, records: [Range<Int>]) {
        let dir = scratch.path + "/history"
        let repo = try HabitRepository(directory: dir, now: Seeds.clock, snapshotEvery: 5)
        var sizes = [try readBytes(repo.paths.journal).count]
        for (i, changes) in Seeds.commits.enumerated() {
            try await repo.commit(label: "seed \(i)") { _, _ in changes }
            sizes.append(try readBytes(repo.paths.journal).count)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: repo.paths.snapshot))
        return (repo.paths, await repo.state, (0..<Seeds.commits.count).map { sizes[$0]..<sizes[$0 + 1] })
    }

    /// A copy of `paths`' data directory with the given journal and snapshot bytes.
    private func dataDirectory(_ scratch: Scratch, from paths: DataPaths, journal: [UInt8], snapshot: [UInt8]?) throws -> String {
        var files = ["journal.hbj": journal, "device": try readBytes(paths.device), "lock": []]
        if let snapshot { files["snapshot.bin"] = snapshot }
        return try scratch.folder("open", files)
    }

    /// The snapshot with its meta checksum made right again, so that the decoder behind the
    /// checksum sees the mutation.
    private func fixingMetaChecksum(_ b: [UInt8]) -> [UInt8] {
        guard b.count >= Snapshot.headerSize else { return b }
        var h = ByteReader(b, from: Snapshot.magic.count)
        guard let length = try? Int(h.u32le()), length <= b.count - Snapshot.headerSize else { return b }
        var out = b
        var w = ByteWriter()
        w.u32le(CRC32C.checksum(Array(b[Snapshot.headerSize..<(Snapshot.headerSize + length)])))
        out.replaceSubrange((Snapshot.magic.count + 4)..<Snapshot.headerSize, with: w.bytes)
        return out
    }

    func testMutatedSnapshotsAreIgnoredOrDecodeToAStateThatReencodes() async throws {
        let scratch = Scratch()
        let (paths, _, _) = try await history(in: scratch)
        let seed = try readBytes(paths.snapshot)
        let journal = try Journal(path: paths.journal)
        Fuzzer.run("snapshot decoder", iterations: 15_000) { rng, label in
            var input = Fuzzer.mutate(seed, rng: &rng)
            if Bool.random(using: &rng) { input = fixingMetaChecksum(input) }
            let (snapshot, why) = Snapshot.load(input, journal: journal)
            guard let snapshot else {
                Check.oneLine(why ?? "", label)
                return
            }
            _ = try? snapshot.undo.items()
            Check.stateRoundTrips(snapshot.state, label) // reads every habit's block
        }
    }

    func testMutatedSnapshotFilesOpenToTheJournalsState() async throws {
        let scratch = Scratch()
        let (paths, truth, _) = try await history(in: scratch)
        let seed = try readBytes(paths.snapshot), journal = try readBytes(paths.journal)
        for case (var rng, let label) in Fuzzer.cases("snapshot file", iterations: 300) {
            // Checksums left as they are: whatever the damage, the journal's state comes back.
            let dir = try dataDirectory(scratch, from: paths, journal: journal, snapshot: Fuzzer.mutate(seed, rng: &rng))
            let repo = try HabitRepository(directory: dir, now: Seeds.clock, snapshotEvery: 5)
            let state = await repo.state
            XCTAssertEqual(state.encoded(), truth.encoded(), label)
            for w in repo.openingWarnings { Check.oneLine(w.description, label) }
            XCTAssertEqual(try readBytes(dir + "/journal.hbj"), journal, "\(label): the journal was changed")
        }
    }

    func testMutatedJournalsAreReadRecoveredOrRefusedWithAnOffset() async throws {
        let scratch = Scratch()
        let (paths, _, records) = try await history(in: scratch)
        let seed = try readBytes(paths.journal)
        for case (var rng, let label) in Fuzzer.cases("journal", iterations: 800) {
            var input: [UInt8]
            if Bool.random(using: &rng) {
                input = Fuzzer.mutate(seed, rng: &rng)
            } else {
                // A record whose payload is damaged but framed with good checksums: the
                // operation decoder behind the checksums must refuse it.
                let record = records.randomElement(using: &rng)!
                let payload = Array(seed[(record.lowerBound + Journal.frameOverhead)..<record.upperBound])
                input = seed
                input.replaceSubrange(record, with: Journal.frame(Fuzzer.mutate(payload, rng: &rng)))
            }
            let dir = try dataDirectory(scratch, from: paths, journal: input, snapshot: nil)
            let repo: HabitRepository
            do {
                repo = try HabitRepository(directory: dir, now: Seeds.clock, snapshotEvery: 5)
            } catch let error as StoreError {
                Check.oneLine(error.description, label)
                if case .corrupt(_, let offset, _) = error {
                    XCTAssertTrue((0..<input.count).contains(offset), "\(label): offset \(offset) outside the journal")
                }
                XCTAssertEqual(try readBytes(dir + "/journal.hbj"), input, "\(label): a refused journal was changed")
                continue
            }
            let state = await repo.state
            Check.stateRoundTrips(state, label)
            for w in repo.openingWarnings { Check.oneLine(w.description, label) }
            // A torn tail is cut off, and its bytes kept in recovered/.
            let after = try readBytes(dir + "/journal.hbj")
            // (A header torn on creation, when nothing was ever acknowledged, is written anew.)
            let tornHeader = input.count < Journal.headerSize && Journal.magic.starts(with: input) && after == Journal.magic
            XCTAssertTrue(input.starts(with: after) || tornHeader, "\(label): the journal was rewritten, not cut")
            if after.count < input.count {
                let saved = try FileManager.default.contentsOfDirectory(atPath: dir + "/recovered")
                    .map { try readBytes(dir + "/recovered/" + $0) }
                XCTAssertTrue(saved.contains(Array(input[after.count...])), "\(label): the cut bytes were not saved")
            }
        }
    }

    // MARK: Sync batches (HabitSync)

    func testMutatedBatchesAreRefusedOrDecodeToOperationsThatReencode() {
        let ops = Seeds.operations
        let corpus = [BatchFile.encode(ops), BatchFile.encode(Array(ops[0..<1])), BatchFile.encode(Array(ops[3..<9]))]
        let header = BatchFile.magic.count + 16
        var accepted = 0
        Fuzzer.run("batch", iterations: 20_000) { rng, label in
            var input = Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng)
            if input.count > 4, Bool.random(using: &rng) {
                // Good checksum: the decoder behind it sees the damage.
                var w = ByteWriter()
                w.u32le(CRC32C.checksum(input, 0..<(input.count - 4)))
                input.replaceSubrange((input.count - 4)..., with: w.bytes)
            }
            // Usually the name the header claims, so that the operations themselves are read.
            var name = BatchName(first: 1, last: UInt64(ops.count))!
            if input.count >= header + 16, Int.random(in: 0..<4, using: &rng) != 0 {
                var r = ByteReader(input, from: header)
                if let first = try? r.u64le(), let last = try? r.u64le(), let claimed = BatchName(first: first, last: last) { name = claimed }
            }
            do {
                let decoded = try BatchFile.decode(input, device: Seeds.device, name: name)
                accepted += 1
                XCTAssertEqual(try? BatchFile.decode(BatchFile.encode(decoded), device: Seeds.device, name: name), decoded,
                               "\(label): an accepted batch does not re-encode")
                var state = HabitState()
                for op in decoded { _ = state.apply(op) }
                Check.stateRoundTrips(state, label)
            } catch let error as RemoteError {
                Check.oneLine(error.description, label)
            } catch {
                XCTFail("\(label): refused with an unexpected error \(error)")
            }
        }
        XCTAssertGreaterThan(accepted, 0, "no mutated batch decoded: the re-encoding went untested")
    }

    func testMutatedSeenVectorsAreRefusedOrDecodeToABatchThatReencodes() {
        let ops = Array(Seeds.operations[0..<3])
        let others = (1...200).map { DeviceID(hi: UInt64($0), lo: 0xFEED) }
        let version2: [UInt8] = {
            // The same operations as version 2 wrote them: no seen vector.
            var bytes = BatchFile.encode(ops)
            bytes.remove(at: BatchFile.magic.count + 32)
            bytes[BatchFile.magic.count - 1] = 2
            var w = ByteWriter()
            w.u32le(CRC32C.checksum(bytes, 0..<(bytes.count - 4)))
            bytes.replaceSubrange((bytes.count - 4)..., with: w.bytes)
            return bytes
        }()
        let corpus = [BatchFile.encode(ops, seen: [others[0]: 5, others[1]: 1 << 40]),
                      BatchFile.encode(ops, seen: Dictionary(uniqueKeysWithValues: others.map { ($0, $0.hi) })),
                      version2]
        let name = BatchName(first: 1, last: UInt64(ops.count))!
        XCTAssertEqual(try? BatchFile.read(version2, device: Seeds.device, name: name), BatchFile.Contents(operations: ops, seen: [:]))
        var accepted = 0, withSeen = 0
        Fuzzer.run("seen vector", iterations: 20_000) { rng, label in
            var input = Fuzzer.mutate(corpus.randomElement(using: &rng)!, corpus: corpus, rng: &rng)
            if input.count > 4, Int.random(in: 0..<4, using: &rng) != 0 {
                // Good checksum: the decoder behind it sees the damage.
                var w = ByteWriter()
                w.u32le(CRC32C.checksum(input, 0..<(input.count - 4)))
                input.replaceSubrange((input.count - 4)..., with: w.bytes)
            }
            do {
                let read = try BatchFile.read(input, device: Seeds.device, name: name)
                accepted += 1
                if !read.seen.isEmpty { withSeen += 1 }
                XCTAssertLessThanOrEqual(read.seen.count, BatchFile.maxSeenDevices, label)
                XCTAssertNil(read.seen[Seeds.device], label)
                XCTAssertFalse(read.seen.values.contains(0), label)
                XCTAssertEqual(try? BatchFile.read(BatchFile.encode(read.operations, seen: read.seen), device: Seeds.device, name: name), read,
                               "\(label): an accepted batch does not re-encode")
            } catch let error as RemoteError {
                Check.oneLine(error.description, label)
            } catch {
                XCTFail("\(label): refused with an unexpected error \(error)")
            }
        }
        XCTAssertGreaterThan(withSeen, 0, "no mutated batch with a seen vector decoded: accepted \(accepted)")
    }

    // MARK: Importers (HabitImport)

    /// Feeds mutations of one file of `files` (relative path → bytes) to the reader of
    /// `format`, reading the folder (or `entry` inside it).
    private func fuzzImporter(_ format: ImportFormat, files: [String: [UInt8]], entry: String? = nil, iterations: Int) throws {
        let scratch = Scratch()
        let corpus = Array(files.values)
        // The seeds themselves are read and round-trip.
        let plain = try scratch.folder("seed", files)
        Check.planReimports(try Importer.read(format, path: entry.map { plain + "/" + $0 } ?? plain), in: scratch.path, "\(format) seed")
        var accepted = 0, refused = 0
        try Fuzzer.run("import \(format.rawValue)", iterations: iterations) { rng, label in
            var mutated = files
            let target = files.keys.sorted().randomElement(using: &rng)!
            mutated[target] = Fuzzer.mutate(files[target]!, corpus: corpus, text: true, rng: &rng)
            let dir = try scratch.folder("input", mutated)
            let plan: ImportPlan
            do {
                plan = try Importer.read(format, path: entry.map { dir + "/" + $0 } ?? dir)
            } catch let error as ImportError {
                Check.oneLine(error.message, label)
                refused += 1
                return
            }
            accepted += 1
            for note in plan.skipped + plan.disagreements { Check.oneLine(note.text, label) }
            Check.planReimports(plan, in: scratch.path, label)
        }
        // Both outcomes were exercised, not only the refusal.
        XCTAssertGreaterThan(accepted, 0, "\(format): accepted \(accepted), refused \(refused)")
        XCTAssertGreaterThan(refused, 0, "\(format): accepted \(accepted), refused \(refused)")
    }

    private func fixture(_ relative: String) throws -> [UInt8] { try readBytes(Seeds.fixtures + "/" + relative) }

    func testMutatedLoopExportsAreRefusedOrReimport() throws {
        try fuzzImporter(.loopCSV, files: [
            "Habits.csv": try fixture("loop-csv-export/Habits.csv"),
            "001 Meditate/Checkmarks.csv": try fixture("loop-csv-export/001 Meditate/Checkmarks.csv"),
            "002 Wake up early/Checkmarks.csv": try fixture("loop-csv-export/002 Wake up early/Checkmarks.csv"),
        ], iterations: 500)
    }

    func testMutatedHarshFilesAreRefusedOrReimport() throws {
        try fuzzImporter(.harsh, files: ["habits": try fixture("harsh/habits"), "log": try fixture("harsh/log")], iterations: 600)
    }

    func testMutatedLegacyDumpsAreRefusedOrReimport() throws {
        try fuzzImporter(.habittoLegacy, files: ["dump.json": try fixture("legacy-habitto/userdefaults-dump.json")],
                         entry: "dump.json", iterations: 500)
    }

    func testMutatedHabittoExportsAreRefusedOrReimport() throws {
        try fuzzImporter(.json, files: ["export.json": Array(Export.document(Seeds.state, today: Seeds.today).serialized().utf8)],
                         entry: "export.json", iterations: 1_000)
    }
}

/// The sync state's two files (`remote`, the settings; `sync.json`, the cursor, status and
/// what was learnt of the remote) come from disk, where anything may have changed them.
final class SyncStateFuzzTests: XCTestCase {
    func testMutatedSettingsAndSyncFilesAreRefusedInOneLineOrReadBackAsSaved() throws {
        let scratch = Scratch()
        let seedDir = try scratch.folder("seed", [:])
        var seed = SyncState()
        seed.settings = RemoteSettings(remote: "dir:/srv/habitto", account: "anna", user: "anna", offline: true)
        seed.ackedSeq = 42
        seed.lastError = "the remote folder /srv/habitto does not exist"
        seed.learnt = SyncState.Learnt(target: SyncTarget(remote: "dir:/srv/habitto", account: "anna"), maxBatchOperations: 250, existing: ["users", "users/anna"])
        try seed.save(DataPaths(directory: seedDir))
        let remote = try readBytes(seedDir + "/remote"), sync = try readBytes(seedDir + "/sync.json")
        var accepted = 0
        for case (var rng, let label) in Fuzzer.cases("sync state files", iterations: 1_500) {
            var files: [String: [UInt8]] = [:]
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: files = ["remote": Fuzzer.mutate(remote, text: true, rng: &rng), "sync.json": sync]
            case 1: files = ["remote": remote, "sync.json": Fuzzer.mutate(sync, text: true, rng: &rng)]
            default: files = ["remote": Fuzzer.mutate(remote, rng: &rng), "sync.json": Fuzzer.mutate(sync, rng: &rng)]
            }
            let dir = try scratch.folder("case", files)
            let state: SyncState
            do {
                state = try SyncState.load(DataPaths(directory: dir))
            } catch let e as StoreError {
                Check.oneLine(e.description, label)
                continue
            }
            // Accepted: it saves, and reads back the same.
            accepted += 1
            let again = try scratch.folder("again", [:])
            try state.save(DataPaths(directory: again))
            let reread = try SyncState.load(DataPaths(directory: again))
            XCTAssertEqual(reread.settings, state.settings, label)
            XCTAssertEqual(reread.ackedSeq, state.ackedSeq, label)
            XCTAssertEqual(reread.learnt, state.learnt, label)
        }
        XCTAssertGreaterThan(accepted, 0, "no mutated input was ever accepted: the round trip was never checked")
    }
}
