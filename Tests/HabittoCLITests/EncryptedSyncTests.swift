import Foundation
import WebDAVHarness
import XCTest
import SyncTestKit
#if canImport(Glibc)
import Glibc
#endif

/// An encrypted remote (`remote set … --encrypt`, `--key FILE`, `remote key`), with the real
/// binary and the real `age`, against a folder and against Apache: the remote holds only
/// age files and nothing that names a habit; a device with the key converges; devices with
/// no key or another key are refused before they write and keep their data; a damaged file
/// is reported and skipped; kill -9 mid-push loses and duplicates nothing; the key is in one
/// file, mode 0600, and in no output but `remote key`.
final class EncryptedSyncTests: SyncCLITestCase {
    var boxes: [Sandbox] = []
    /// The shared remote folder (inside the first sandbox).
    var folder: String!

    /// Words of the habits, notes, groups and units that must never be on the remote.
    static let privateWords = ["Sertraline", "milligrams", "Therapy", "Whitfield", "panicky", "Journaling", "pages"]
    static let refusedWithoutKey = "this remote is encrypted: join with --key FILE (habitto remote key on a device that has it)"

    override func setUp() {
        super.setUp()
        boxes = (0..<4).map { _ in Sandbox() }
        for box in boxes { box.now = boxes[0].now }
        folder = boxes[0].root + "/remote"
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        super.tearDown()
        // The identity is in no output but `remote key`, nor in any file but the key file.
        for box in boxes {
            guard let key = try? String(contentsOfFile: box.home + "/remote-key", encoding: .utf8),
                  let secret = key.split(separator: "\n").first(where: { $0.hasPrefix("AGE-SECRET-KEY-1") }) else { continue }
            for text in outputs where text.contains(secret) { XCTFail("the key was printed: \(text)") }
            for file in [box.home + "/sync.json", box.home + "/remote", box.config + "/habitto/config"] {
                let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
                XCTAssertFalse(text.contains(secret), "the key is in \(file)")
            }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: box.home + "/backups")) ?? [] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: box.home + "/backups/" + name))) ?? Data()
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "the key is in the backup \(name)")
            }
        }
        boxes = []
        folder = nil
    }

    // MARK: Tests

    func testAnEncryptedFolderRemoteHoldsOnlyAgeFilesAndOnlyTheKeyHolderJoins() throws {
        try encryptedRemoteScenario(spec: "dir:" + folder, tree: folder)
    }

    func testAnEncryptedRemoteOnApacheHoldsOnlyAgeFilesAndOnlyTheKeyHolderJoins() throws {
        try onApache { try encryptedRemoteScenario(spec: $0, tree: $1, extra: $2) }
    }

    func testKillNineDuringAnEncryptedPushLosesAndDuplicatesNothing() throws {
        let (a, b) = (boxes[0], boxes[1])
        ok(a, "add", "Water", "--goal", "1000")
        ok(a, "remote", "set", "dir:" + folder, "--encrypt")
        let keyFile = try savedKey(of: a)
        ok(b, "remote", "set", "dir:" + folder, "--key", keyFile)
        let created = try XCTUnwrap(a.stat("operations"))
        var checkIns = 0
        for _ in 0..<20 { ok(a, "check", "Water"); checkIns += 1 }
        a.extraEnv["HABITTO_FAULTS"] = "latency=30ms"
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let ops = opsFolder(folder, device)
        var rng = SystemRandomNumberGenerator()
        // Even rounds: a random instant. Odd rounds: as soon as the new age file is in the
        // folder, before the cursor is recorded (the resend encrypts it again, to other bytes).
        let killed = try a.killedSyncs(12, maxPause: 200_000, waitingUpTo: 5, written: { batchFileNames(inOps: ops).count }) { r in
            outputs += [r.stdout, r.stderr]
            if !r.killed { XCTAssertEqual(r.status, 0, r.stderr) }
            for _ in 0..<Int.random(in: 0...3, using: &rng) { ok(a, "check", "Water"); checkIns += 1 }
        }
        XCTAssertGreaterThan(killed, 0, "no sync was interrupted")
        a.extraEnv["HABITTO_FAULTS"] = nil
        let last = run(a, "sync")
        XCTAssertEqual(last.status, 0, "the first sync after the kills failed: \(last.stderr)")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(try status(a)["pending"] as? Int, 0)
        try assertOnlyAgeFiles(folder)

        let pulled = run(b, "sync")
        XCTAssertEqual(pulled.status, 0, pulled.stderr)
        XCTAssertEqual(pulled.stdout, "Synced: pushed 0 operations in 0 batches, pulled \(checkIns)\n")
        XCTAssertEqual(progress(a, "Water"), checkIns, "A lost or duplicated an acknowledged check-in")
        XCTAssertEqual(progress(b, "Water"), checkIns, "B lost or duplicated a check-in")
        XCTAssertEqual(b.stat("operations"), created + checkIns)
        XCTAssertEqual(ok(b, "export"), ok(a, "export"))
    }

    /// This device's own batch damaged on an encrypted folder remote (a flipped byte, then cut
    /// short): the doctor names it and says what it says on a plain remote, `doctor --repair`
    /// removes it and re-queues its operations, the next sync sends them again, and a device
    /// that joins then has every check-in.
    func testTheDoctorRepairsThisDevicesDamagedBatchOnAnEncryptedFolderAsOnAPlainOne() throws {
        try damagedOwnBatchScenario(spec: "dir:" + folder, tree: folder, encrypted: true)
        try damagedOwnBatchScenario(spec: "dir:" + boxes[2].root + "/plain", tree: boxes[2].root + "/plain", encrypted: false,
                                    devices: (boxes[2], boxes[3]))
    }

    /// The same on an encrypted remote on Apache.
    func testTheDoctorRepairsThisDevicesDamagedBatchOnAnEncryptedRemoteOnApache() throws {
        try onApache { try damagedOwnBatchScenario(spec: $0, tree: $1, extra: $2, encrypted: true) }
    }

    /// A batch written whose answer was lost is sent again, encrypted again to other bytes:
    /// Apache answers 412 to the create-only PUT, and what the two decrypt to makes it an ack.
    func testAnAnswerLostAfterAnEncryptedUploadToApacheIsAckedByTheResend() throws {
        let s = try startServer()
        let (a, b) = (boxes[0], boxes[1])
        for box in [a, b] { box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = s.password }
        ok(a, "add", "Water", "--goal", "8")
        ok(a, "remote", "set", s.baseURL.absoluteString, "--user", s.user, "--encrypt")
        for _ in 0..<3 { ok(a, "check", "Water") }
        a.extraEnv["HABITTO_FAULTS"] = "lostack=1"
        let lost = run(a, "sync")
        XCTAssertEqual(lost.status, 4, lost.stderr)
        XCTAssertTrue(lost.stderr.contains("answer lost (injected by HABITTO_FAULTS)"), lost.stderr)
        let device = try XCTUnwrap(try status(a)["device"] as? String)
        let ops = s.dataDirectory + "/users/default/devices/\(device)/ops"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: ops).filter { $0.hasSuffix(".batch") }.sorted(), ["1-1.batch", "2-4.batch"])
        XCTAssertEqual(try status(a)["pending"] as? Int, 3, "the lost answer was taken as an ack")
        a.extraEnv["HABITTO_FAULTS"] = nil
        // The resend finds 2-4.batch there with other bytes and the same operations: an ack
        // (then the round compacts the two batches).
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 3 operations in 1 batch, pulled 0\n")
        XCTAssertEqual(overlappingBatches(try FileManager.default.contentsOfDirectory(atPath: ops).filter { $0.hasSuffix(".batch") }), [])
        XCTAssertEqual(try status(a)["pending"] as? Int, 0)
        try assertOnlyAgeFiles(s.dataDirectory)
        let joined = run(b, "remote", "set", s.baseURL.absoluteString, "--user", s.user, "--key", try savedKey(of: a))
        XCTAssertEqual(joined.status, 0, joined.stderr)
        XCTAssertEqual(progress(b, "Water"), 3)
        XCTAssertEqual(ok(b, "export"), ok(a, "export"))
    }

    func testWithoutAgeOnlyEncryptionFailsNamingTheDebianPackage() throws {
        let (a, b, c) = (boxes[0], boxes[1], boxes[2])
        ok(a, "add", "Water", "--goal", "8")
        let noAge = boxes[0].root + "/bin-without-age"
        try FileManager.default.createDirectory(atPath: noAge, withIntermediateDirectories: true)
        a.extraEnv["PATH"] = noAge
        let refused = run(a, "remote", "set", "dir:" + folder, "--encrypt")
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "habitto: --encrypt needs the age program (age and age-keygen), which is not installed: install the Debian package age (sudo apt install age)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: a.home + "/remote-key"))
        XCTAssertEqual(ok(a, "remote", "show"), "No remote: data stays on this machine ('habitto remote set dir:/path' connects one)\n")
        // A plain remote needs no age.
        let plainFolder = boxes[0].root + "/plain"
        try FileManager.default.createDirectory(atPath: plainFolder, withIntermediateDirectories: true)
        XCTAssertTrue(ok(a, "remote", "set", "dir:" + plainFolder).hasPrefix("Remote set to dir:\(plainFolder) (account default): pushed"))
        ok(a, "check", "Water")
        XCTAssertEqual(ok(a, "sync"), "Synced: pushed 1 operation in 1 batch, pulled 0\n")

        // A device set to encrypt whose age went away: sync fails in one line, nothing else.
        ok(b, "add", "Tea")
        ok(b, "remote", "set", "dir:" + folder, "--encrypt")
        ok(b, "check", "Tea")
        let before = ok(b, "export")
        b.extraEnv["PATH"] = noAge
        let sync = run(b, "sync")
        XCTAssertEqual(sync.status, 4)
        XCTAssertEqual(sync.stdout, "")
        XCTAssertTrue(sync.stderr.hasPrefix("habitto: sync: this remote is encrypted with age, and the age program is not installed here: install the Debian package age (sudo apt install age) ("),
                      sync.stderr)
        XCTAssertEqual(sync.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(ok(b, "export"), before)
        XCTAssertEqual(try status(b)["pending"] as? Int, 1)
        // --key without age says so too, and stores nothing.
        c.extraEnv["PATH"] = noAge
        let keyFile = try savedKey(of: b)
        let join = run(c, "remote", "set", "dir:" + folder, "--key", keyFile)
        XCTAssertEqual(join.status, 1)
        XCTAssertTrue(join.stderr.contains("install the Debian package age"), join.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.home + "/remote-key"))
    }

    func testAKeyForAPlainRemoteOrALostKeyFileIsToldWhatToDo() throws {
        let (a, b) = (boxes[0], boxes[1])
        ok(a, "add", "Water")
        ok(a, "remote", "set", "dir:" + folder)
        ok(b, "add", "Tea")
        ok(b, "check", "Tea")
        let before = ok(b, "export")
        let otherKey = try makeKeyFile(in: b.root)
        // Joining a plain remote with --key: refused before anything is sent.
        let plain = run(b, "remote", "set", "dir:" + folder, "--key", otherKey)
        XCTAssertEqual(plain.status, 4)
        XCTAssertTrue(plain.stderr.contains("this remote is not encrypted, and this device is set to encrypt: to move to encryption, set a new, empty remote with --encrypt"), plain.stderr)
        XCTAssertEqual(ok(b, "export"), before)
        XCTAssertEqual(try devicesOnRemote(), 1, "the refused device wrote to the remote")

        // A device that lost its key file.
        let encrypted = boxes[0].root + "/encrypted"
        try FileManager.default.createDirectory(atPath: encrypted, withIntermediateDirectories: true)
        ok(a, "remote", "set", "dir:" + encrypted, "--encrypt")
        try FileManager.default.removeItem(atPath: a.home + "/remote-key")
        let lost = run(a, "sync")
        XCTAssertEqual(lost.status, 4)
        XCTAssertTrue(lost.stderr.contains("this device is set to encrypt its remote, and its key file \(a.home)/remote-key is missing: join again with habitto remote set dir:\(encrypted) --key FILE"), lost.stderr)
        let key = run(a, "remote", "key")
        XCTAssertEqual(key.status, 1)
        XCTAssertTrue(key.stderr.hasPrefix("habitto: this device has no remote key"), key.stderr)
        // Not an identity: refused in one line, nothing stored.
        let junk = b.root + "/junk"
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: junk))
        let bad = run(b, "remote", "set", "dir:" + encrypted, "--key", junk)
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("holds a line that is not an age identity"), bad.stderr)
    }

    func testAFormatTurnedPlainOnAFolderIsRefusedBeforeAnythingIsWritten() throws {
        try downgradeScenario(spec: "dir:" + folder, tree: folder)
    }

    func testAFormatTurnedPlainOnApacheIsRefusedBeforeAnythingIsWritten() throws {
        try onApache { try downgradeScenario(spec: $0, tree: $1, extra: $2) }
    }

    /// A uses a remote encrypted; then the server (without the key) turns its `format` plain:
    /// as version 1 (which an unencrypted device would upgrade in place), then as a plain
    /// version 2. A refuses each before writing anything, leaves the file as it found it, and
    /// never writes to that remote unencrypted, also when set to it again without the key.
    func downgradeScenario(spec: String, tree: String, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let a = boxes[0]
        ok(a, "add", "Therapy", "--unit", "sessions")
        ok(a, ["remote", "set", spec, "--encrypt"] + extra)
        ok(a, "check", "Therapy", "--note", "Whitfield")
        ok(a, "sync")
        let formatFile = tree + "/users/default/format"
        func files() -> [String] { (FileManager.default.subpaths(atPath: tree) ?? []).sorted() }
        func assertNothingWritten(_ what: String, _ format: String, _ before: [String]) throws {
            XCTAssertEqual(try String(contentsOfFile: formatFile, encoding: .utf8), format, "\(what): the format file was changed", file: file, line: line)
            XCTAssertEqual(files(), before, "\(what): something was written", file: file, line: line)
            try assertOnlyAgeFiles(tree, file: file, line: line)
        }
        ok(a, "check", "Therapy", "--note", "panicky")

        // Version 1: an earlier, unencrypted format.
        try Data("habitto-sync 1\n".utf8).write(to: URL(fileURLWithPath: formatFile))
        var before = files()
        let v1 = run(a, "sync")
        XCTAssertEqual(v1.status, 4, v1.stderr, file: file, line: line)
        XCTAssertTrue(v1.stderr.contains("says 'habitto-sync 1', an unencrypted format, and this device uses the remote encrypted: someone without the key may have changed it. Nothing was written and the file was left alone"),
                      v1.stderr, file: file, line: line)
        XCTAssertEqual(errorLines(v1), 1, v1.stderr, file: file, line: line)
        try assertNothingWritten("version 1", "habitto-sync 1\n", before)

        // A plain version 2 under a new identity.
        let plain = "habitto-sync 2 remote \(String(repeating: "5a", count: 16))\n"
        try Data(plain.utf8).write(to: URL(fileURLWithPath: formatFile))
        before = files()
        let v2 = run(a, "sync")
        XCTAssertEqual(v2.status, 4, v2.stderr, file: file, line: line)
        XCTAssertTrue(v2.stderr.contains("says remote \(String(repeating: "5a", count: 16)) not encrypted, but this remote was made encrypted with a keycheck: the format file was changed on the remote by someone without the key, and was not used; nothing was written"),
                      v2.stderr, file: file, line: line)
        try assertNothingWritten("plain version 2", plain, before)

        // Set to it again without the key: still never written to unencrypted.
        let again = run(a, ["remote", "set", spec] + extra)
        XCTAssertEqual(again.status, 4, again.stderr, file: file, line: line)
        XCTAssertTrue(again.stderr.contains("this device used \(spec) (account default) encrypted, and never writes to it unencrypted: join it with --key FILE"),
                      again.stderr, file: file, line: line)
        XCTAssertEqual(errorLines(again), 1, again.stderr, file: file, line: line)
        try assertNothingWritten("set again without the key", plain, before)
        XCTAssertEqual(progress(a, "Therapy"), 2, "the check-ins are kept", file: file, line: line)
    }

    // MARK: The scenario, on a folder and on Apache

    /// A encrypts a new remote; B joins with A's key (from `remote key`, through standard
    /// input) and converges; C (no key) and D (another key) are refused and keep their data;
    /// a damaged batch of B's is reported and skipped while A's batches still reach C.
    func encryptedRemoteScenario(spec: String, tree: String, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let (a, b, c, d) = (boxes[0], boxes[1], boxes[2], boxes[3])
        ok(a, "add", "Sertraline", "--goal", "50", "--unit", "milligrams", "--group", "Therapy", "--notes", "Dr Whitfield")
        ok(a, "add", "Journaling", "--unit", "pages")
        ok(a, "check", "Sertraline", "--amount", "50", "--note", "felt panicky")
        ok(a, "check", "Journaling", "--amount", "2")
        let set = ok(a, ["remote", "set", spec, "--encrypt"] + extra)
        // The result first, then where the key is and how to bring it to the other devices.
        let lines = set.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, set, file: file, line: line)
        XCTAssertTrue(lines.first?.contains(", encrypted with age: pushed ") == true && lines.first?.hasSuffix("; verified") == true, set, file: file, line: line)
        XCTAssertTrue(lines.last?.hasPrefix("Made a key for the remote in \(a.home)/remote-key (mode 0600). Without it the remote cannot be read") == true,
                      set, file: file, line: line)
        var st = stat(a.home + "/remote-key")
        XCTAssertEqual(st.st_mode & 0o777, 0o600, file: file, line: line)
        XCTAssertEqual((try? String(contentsOfFile: a.home + "/remote", encoding: .utf8))?.contains("\nencrypt = age\n"), true, file: file, line: line)

        // C had data before and has no key: refused, nothing written, its data kept.
        ok(c, "add", "Tea", "--unit", "cups")
        ok(c, "check", "Tea", "--amount", "3")
        let exportC = ok(c, "export")
        let devices = try devicesOnRemote(tree)
        let refused = run(c, ["remote", "set", spec] + extra)
        XCTAssertEqual(refused.status, 4, refused.stderr, file: file, line: line)
        XCTAssertTrue(refused.stderr.contains(Self.refusedWithoutKey), refused.stderr, file: file, line: line)
        XCTAssertEqual(errorLines(refused), 1, refused.stderr, file: file, line: line)
        XCTAssertEqual(run(c, "sync").stderr.contains(Self.refusedWithoutKey), true, file: file, line: line)
        XCTAssertEqual(ok(c, "export"), exportC, file: file, line: line)
        XCTAssertEqual(try devicesOnRemote(tree), devices, "a device without the key wrote to the remote", file: file, line: line)

        // D has another key: refused as a wrong key, its data kept.
        ok(d, "add", "Run")
        let exportD = ok(d, "export")
        let wrong = run(d, ["remote", "set", spec, "--key", try makeKeyFile(in: d.root)] + extra)
        XCTAssertEqual(wrong.status, 4, wrong.stderr, file: file, line: line)
        XCTAssertTrue(wrong.stderr.contains("wrong key: this remote's users/default/keycheck on "), wrong.stderr, file: file, line: line)
        XCTAssertTrue(wrong.stderr.contains("does not decrypt with this device's key for age1"), wrong.stderr, file: file, line: line)
        XCTAssertEqual(errorLines(wrong), 1, wrong.stderr, file: file, line: line)
        XCTAssertEqual(ok(d, "export"), exportD, file: file, line: line)
        XCTAssertEqual(try devicesOnRemote(tree), devices, "a device with another key wrote to the remote", file: file, line: line)

        // B joins with A's key, given on standard input as `remote key` printed it.
        let key = run(a, "remote", "key")
        XCTAssertEqual(key.status, 0, file: file, line: line)
        XCTAssertTrue(key.stdout.contains("\nAGE-SECRET-KEY-1"), file: file, line: line)
        let join = try runWithInput(b, ["remote", "set", spec, "--key", "-"] + extra, input: key.stdout)
        XCTAssertEqual(join.status, 0, join.stderr, file: file, line: line)
        XCTAssertTrue(join.stdout.hasSuffix("; verified\nThe remote's key is in \(b.home)/remote-key (mode 0600). Without it the remote cannot be read: keep a copy somewhere safe, and join each other device with 'habitto remote key' here and 'habitto remote set \(spec) --key FILE' there\n"),
                      join.stdout, file: file, line: line)
        XCTAssertFalse(wrong.stdout.contains("key is in"), "a refused key was called the remote's: \(wrong.stdout)", file: file, line: line)
        st = stat(b.home + "/remote-key")
        XCTAssertEqual(st.st_mode & 0o777, 0o600, file: file, line: line)
        XCTAssertEqual(ok(b, "export"), ok(a, "export"), file: file, line: line)
        ok(b, "check", "Journaling", "--amount", "3", "--note", "panicky again")
        ok(b, "sync")
        ok(a, "sync")
        XCTAssertEqual(ok(b, "export"), ok(a, "export"), "the devices with the key did not converge", file: file, line: line)
        XCTAssertEqual(progress(a, "Journaling"), 5, file: file, line: line)

        // Nothing on the remote names a habit, a note, a group or a unit; every batch is an age file.
        try assertOnlyAgeFiles(tree, file: file, line: line)
        let format = try String(contentsOfFile: tree + "/users/default/format", encoding: .utf8)
        let recipient = try XCTUnwrap(try String(contentsOfFile: a.home + "/remote-key", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("# public key: ") }?.dropFirst(14))
        // The recipient is on no remote: the format says `age`, and the keycheck is an age file.
        XCTAssertTrue(format.hasPrefix("habitto-sync 2 remote ") && format.hasSuffix(" age\n"), format, file: file, line: line)
        XCTAssertEqual(format.count, "habitto-sync 2 remote  age\n".count + 32, format, file: file, line: line)
        let keycheck = try Data(contentsOf: URL(fileURLWithPath: tree + "/users/default/keycheck"))
        XCTAssertTrue(keycheck.starts(with: Data("age-encryption.org/v1\n".utf8)), file: file, line: line)
        XCTAssertTrue(ok(a, "remote", "show").contains("Encrypted with age for \(recipient)"), file: file, line: line)

        // A damaged batch of B's: reported and skipped; A's check-ins still reach a new device.
        ok(b, "check", "Sertraline", "--amount", "25")
        ok(b, "sync")
        ok(a, "check", "Journaling")
        ok(a, "sync")
        let bDevice = try XCTUnwrap(try status(b)["device"] as? String)
        let bOps = tree + "/users/default/devices/\(bDevice)/ops"
        // The batch that starts last holds B's last check-in only.
        let newest = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: bOps).filter { $0.hasSuffix(".batch") }
            .max { (Int($0.split(separator: "-")[0]) ?? 0) < (Int($1.split(separator: "-")[0]) ?? 0) })
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bOps + "/" + newest)))
        bytes[bytes.count - 5] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: bOps + "/" + newest))
        let cKey = try savedKey(of: a)
        let late = run(c, ["remote", "set", spec, "--key", cKey] + extra)
        XCTAssertEqual(late.status, 4, file: file, line: line)
        XCTAssertTrue(late.stderr.contains("batch \(newest) of device \(bDevice.prefix(8))"), late.stderr, file: file, line: line)
        XCTAssertTrue(late.stderr.contains("it was damaged on the remote or made with another key, and was not applied"), late.stderr, file: file, line: line)
        XCTAssertEqual(errorLines(late), 1, late.stderr, file: file, line: line)
        XCTAssertEqual(progress(c, "Journaling"), 6, "A's check-ins did not arrive beside B's damaged batch", file: file, line: line)
        XCTAssertEqual(progress(c, "Tea"), 3, "C lost its own data", file: file, line: line)
        XCTAssertEqual(progress(c, "Sertraline"), 50, "the damaged batch was applied", file: file, line: line)
        let cJSON = try status(c)
        XCTAssertEqual(cJSON["mode"] as? String, "online", file: file, line: line)
        XCTAssertEqual(cJSON["pending"] as? Int, 0, file: file, line: line)
        for box in [a, b, c, d] { XCTAssertEqual(stat(box.home + "/remote-key").st_mode & 0o077, 0, file: file, line: line) }
    }

    // MARK: Helpers

    /// Runs `scenario` on a real Apache started for it, every sandbox given its password:
    /// with the remote's URL, the server's folder on disk and the `--user` option.
    func onApache(_ scenario: (_ spec: String, _ tree: String, _ extra: [String]) throws -> Void) throws {
        let s = try startServer()
        for box in boxes { box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = s.password }
        try scenario(s.baseURL.absoluteString, s.dataDirectory, ["--user", s.user])
    }

    /// Runs the binary with `input` on its standard input.
    /// Device A on the remote `spec` (whose files are in `tree`), encrypted or plain, with
    /// operations 1 to 3 in three batches; the batch holding operation 2 is damaged twice (a
    /// flipped byte, then cut short), and each time `doctor` names it with the same words on
    /// either kind of remote, `doctor --repair` removes it and re-queues its operations, and
    /// the next sync sends them again. Then B joins and has every check-in.
    func damagedOwnBatchScenario(spec: String, tree: String, extra: [String] = [], encrypted: Bool,
                                 devices: (Sandbox, Sandbox)? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let (a, b) = devices ?? (boxes[0], boxes[1])
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        ok(a, "add", "Water", "--goal", "8")
        ok(a, ["remote", "set", spec] + (encrypted ? ["--encrypt"] : []) + extra)
        for _ in 0..<2 { ok(a, "check", "Water"); ok(a, "sync") }
        let device = try XCTUnwrap(try status(a)["device"] as? String, file: file, line: line)
        let ops = opsFolder(tree, device)
        XCTAssertEqual(try sortedBatchFiles(inOps: ops), ["1-1.batch", "2-2.batch", "3-3.batch"], file: file, line: line)
        if encrypted { try assertOnlyAgeFiles(tree) }
        let damages: [(String, (inout [UInt8]) -> Void)] = [
            ("a flipped byte", { $0[$0.count / 2] ^= 0x01 }),
            ("cut short", { $0.removeLast($0.count / 3) }),
        ]
        for (what, damage) in damages {
            let name = try XCTUnwrap(try sortedBatchFiles(inOps: ops).first { range($0).first == 2 }, what, file: file, line: line)
            let r = range(name)
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: ops + "/" + name)))
            damage(&bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: ops + "/" + name))
            let sick = run(a, "doctor")
            XCTAssertEqual(sick.status, 5, "\(what): \(sick.stdout)", file: file, line: line)
            XCTAssertTrue(sick.stdout.contains("problem: remote: this device's batch \(name) on the remote differs from the journal's operations \(r.first)–\(r.last) (damaged or changed there, so no device applies it); run habitto doctor --repair to remove it from the remote and push operations \(r.first)–\(r.last) again (the journal holds them)\n"),
                          "\(what): \(sick.stdout)", file: file, line: line)
            XCTAssertFalse(sick.stdout.contains("could not be checked"), "\(what): \(sick.stdout)", file: file, line: line)
            let fixed = run(a, "doctor", "--repair")
            XCTAssertEqual(fixed.status, 0, "\(what): \(fixed.stdout) \(fixed.stderr)", file: file, line: line)
            XCTAssertTrue(fixed.stdout.contains("repaired: remote: this device's damaged batch \(name) was removed from the remote and operations after #1 re-queued; the next sync pushes them again\n"),
                          "\(what): \(fixed.stdout)", file: file, line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: ops + "/" + name), what, file: file, line: line)
            XCTAssertEqual(try status(a)["pending"] as? Int, 2, "\(what): operations 2 and 3 wait", file: file, line: line)
            XCTAssertEqual(ok(a, "sync"), "Synced: pushed 2 operations in 1 batch, pulled 0\n", what, file: file, line: line)
            let healthy = run(a, "doctor")
            XCTAssertEqual(healthy.status, 0, "\(what): \(healthy.stdout)", file: file, line: line)
            XCTAssertTrue(healthy.stdout.contains("ok: remote: has 3 of this device's 3 operations\n"), "\(what): \(healthy.stdout)", file: file, line: line)
        }
        if encrypted { try assertOnlyAgeFiles(tree) }
        let joined = run(b, ["remote", "set", spec] + (encrypted ? ["--key", try savedKey(of: a)] : []) + extra)
        XCTAssertEqual(joined.status, 0, joined.stderr, file: file, line: line)
        XCTAssertEqual(progress(b, "Water"), 2, file: file, line: line)
        XCTAssertEqual(ok(b, "export"), ok(a, "export"), file: file, line: line)
    }

    func runWithInput(_ box: Sandbox, _ args: [String], input: String) throws -> RunResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: box.binaryPath)
        p.arguments = args
        p.environment = box.environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = stderr
        try p.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile(), err = stderr.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let r = RunResult(status: p.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                          stderr: String(decoding: err, as: UTF8.self), killed: false)
        outputs += [r.stdout, r.stderr]
        return r
    }

    /// A remote that lost a batch of device a's (a's folder restored from an old copy, a gone):
    /// a new device is told which range is missing, until b, which holds it, writes it back
    /// encrypted; then the new device has all of a's operations, and the remote only age files.
    func testAnEncryptedRemoteThatLostAnotherDevicesBatchIsRefilledEncrypted() throws {
        let (a, b, c) = (boxes[0], boxes[1], boxes[2])
        ok(a, "add", "Water", "--goal", "8")
        ok(a, "remote", "set", "dir:" + folder, "--encrypt")
        ok(a, "check", "Water")
        ok(a, "sync")
        let key = try savedKey(of: a)
        let deviceA = try XCTUnwrap(try status(a)["device"] as? String)
        let ops = opsFolder(folder, deviceA)
        XCTAssertEqual(try sortedBatchFiles(inOps: ops), ["1-1.batch", "2-2.batch"])
        ok(b, "remote", "set", "dir:" + folder, "--key", key)
        ok(b, "add", "Tea")
        ok(b, "sync")
        let deviceB = try XCTUnwrap(try status(b)["device"] as? String)
        try FileManager.default.removeItem(atPath: ops + "/2-2.batch")
        let joined = run(c, "remote", "set", "dir:" + folder, "--key", key)
        XCTAssertEqual(joined.status, 4, joined.stderr)
        XCTAssertTrue(joined.stderr.contains("the remote holds device \(deviceA.prefix(8)) up to 1; device \(deviceB.prefix(8)) saw it up to 2 (operation 2 is withheld or lost)"), joined.stderr)
        XCTAssertEqual(ok(b, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 0\n")
        XCTAssertEqual(try sortedBatchFiles(inOps: ops), ["1-1.batch", "2-2.batch"])
        try assertOnlyAgeFiles(folder)
        XCTAssertEqual(ok(c, "sync"), "Synced: pushed 0 operations in 0 batches, pulled 1\n")
        XCTAssertNil(try status(c)["lastError"] as? String)
        XCTAssertEqual(progress(c, "Water"), 1)
        XCTAssertEqual(ok(c, "export"), ok(b, "export"))
    }

    /// The lines of a run's standard error but the warning about plain http (on loopback).
    func errorLines(_ r: RunResult) -> Int {
        r.stderr.split(separator: "\n").filter { !$0.hasPrefix("habitto: warning: plain http") }.count
    }

    /// `remote key`'s output in a file of the box's root (as a user copies it).
    func savedKey(of box: Sandbox) throws -> String {
        let r = run(box, "remote", "key")
        XCTAssertEqual(r.status, 0, r.stderr)
        let path = box.root + "/copied-key-\(UUID().uuidString)"
        try Data(r.stdout.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A fresh identity made by `age-keygen -o`, as a user brings one.
    func makeKeyFile(in dir: String) throws -> String {
        let path = dir + "/other-key-\(UUID().uuidString)"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/age-keygen")
        p.arguments = ["-o", path]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return path
    }

    func stat(_ path: String) -> Glibc.stat {
        var st = Glibc.stat()
        XCTAssertEqual(lstat(path, &st), 0, "\(path) is missing")
        return st
    }

    func devicesOnRemote(_ tree: String? = nil) throws -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: (tree ?? folder) + "/users/default/devices")) ?? []).count
    }

    /// Every file under `tree` holds none of the private words (in any case), and every batch
    /// starts as an age file does.
    func assertOnlyAgeFiles(_ tree: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var batches = 0
        let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: tree), file: file, line: line)
        for case let rel as String in walker {
            let path = tree + "/" + rel
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let text = String(decoding: data, as: UTF8.self).lowercased()
            for word in Self.privateWords {
                XCTAssertFalse(text.contains(word.lowercased()) || rel.lowercased().contains(word.lowercased()),
                               "\(rel) holds '\(word)'", file: file, line: line)
            }
            if rel.hasSuffix(".batch") {
                batches += 1
                XCTAssertTrue(data.starts(with: Data("age-encryption.org/v1\n".utf8)), "\(rel) is not an age file", file: file, line: line)
            }
        }
        XCTAssertGreaterThan(batches, 0, "no batch on the remote", file: file, line: line)
    }
}
