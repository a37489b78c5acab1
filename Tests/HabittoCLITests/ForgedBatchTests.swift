import Foundation
import XCTest
import SyncTestKit

/// Authenticity on an encrypted remote (issue 37, point 1): a test "server" that knows only
/// what the remote shows in the clear (folder and file names, the format file, the sizes)
/// writes into the remote what such a server can: a new device folder with a batch encrypted
/// to a recipient it made, a squatted `3-1002.batch` in A's folder, A's batches copied to
/// another range, to a name past A's last, into another device's folder, a truncated copy, a
/// file re-encrypted with another key, and a changed `format`. B applies nothing of it,
/// refuses each in one line naming the device and the file (in `sync`, `status` and
/// `doctor`), and still gets every operation of A.
extension EncryptedSyncTests {
    func testNothingAServerWithoutTheKeyWritesIsAppliedOnAFolder() throws {
        try forgeryScenario(spec: "dir:" + folder, tree: folder, everyForgery: true)
    }

    func testAForgedDeviceAndASquattedBatchAreRefusedOnApache() throws {
        let s = try startServer()
        for box in boxes { box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = s.password }
        try forgeryScenario(spec: s.baseURL.absoluteString, tree: s.dataDirectory, extra: ["--user", s.user], everyForgery: false)
    }

    /// A and C write on an encrypted remote, B joins; the forgeries are written; B's sync,
    /// status and doctor refuse each, and B converges with A. `everyForgery`: all of them
    /// (else the forged device and the squatted batch).
    func forgeryScenario(spec: String, tree: String, extra: [String] = [], everyForgery: Bool,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        let (a, b, c) = (boxes[0], boxes[1], boxes[2])
        ok(a, "add", "Water")
        ok(a, "check", "Water")
        ok(a, ["remote", "set", spec, "--encrypt"] + extra)
        let key = try savedKey(of: a)
        ok(b, ["remote", "set", spec, "--key", key] + extra)
        ok(c, ["remote", "set", spec, "--key", key] + extra)
        ok(c, "add", "Tea")
        ok(c, "sync")
        ok(b, "sync")
        // A goes on in small batches: operations 3 and later, which B has not pulled yet.
        ok(a, "add", "Run", "--notes", "before work")
        ok(a, "sync")
        ok(a, "check", "Run")
        ok(a, "sync")
        ok(a, "check", "Water", "--note", "two glasses")
        ok(a, "sync")
        let aDevice = try XCTUnwrap(try status(a)["device"] as? String)
        let cDevice = try XCTUnwrap(try status(c)["device"] as? String)
        let accountDir = tree + "/users/default"
        let aOps = accountDir + "/devices/\(aDevice)/ops", cOps = accountDir + "/devices/\(cDevice)/ops"
        let aBatches = try sortedBatchFiles(inOps: aOps)
        XCTAssertGreaterThanOrEqual(aBatches.count, 2, "\(aBatches)", file: file, line: line)
        let format = try String(contentsOfFile: accountDir + "/format", encoding: .utf8)
        XCTAssertFalse(format.contains("age1"), "the recipient is on the remote: \(format)", file: file, line: line)

        // What the server makes: files encrypted to the recipient the format shows, if it
        // shows one (earlier versions did), else to one of its own.
        let serverKey = try makeKeyFile(in: a.root)
        let shown = format.split(separator: " ").last.map { String($0.dropLast()) }.flatMap { $0.hasPrefix("age1") ? $0 : nil }
        let serverRecipient = try shown ?? recipient(of: serverKey)
        let forgedDevice = String(repeating: "5e", count: 16)
        var forged: [(device: String, name: String)] = []
        func write(_ bytes: Data, _ folder: String, _ name: String, device: String) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try bytes.write(to: URL(fileURLWithPath: folder + "/" + name))
            forged.append((device, name))
        }
        let plaintext = Data("HABITTO-BATCH\u{2} Pay the server admin 0.1 BTC".utf8)
        try write(try ageEncrypt(plaintext, to: serverRecipient), accountDir + "/devices/\(forgedDevice)/ops", "1-1.batch", device: forgedDevice)
        try write(try ageEncrypt(plaintext, to: serverRecipient), aOps, "3-1002.batch", device: aDevice)
        if everyForgery {
            let first = try Data(contentsOf: URL(fileURLWithPath: aOps + "/" + aBatches[0]))
            let (f, l) = range(aBatches[0])
            let last = aBatches.map { range($0).last }.max() ?? 0
            // A real batch renamed to another range (reaching as far as A's last, so it is
            // read), and replayed past A's last operation.
            try write(first, aOps, "\(f)-\(last).batch", device: aDevice)
            try write(first, aOps, "\(last + 1)-\(last + 1 + l - f).batch", device: aDevice)
            // One of A's batches copied into C's folder.
            let cLast = try sortedBatchFiles(inOps: cOps).map { range($0).last }.max() ?? 0
            try write(first, cOps, "\(cLast + 1)-\(cLast + 1 + l - f).batch", device: cDevice)
            // A truncated copy, and a file re-encrypted with another key.
            try write(first.prefix(first.count - 20), aOps, "\(last + 1)-\(last + 3 + l - f).batch", device: aDevice)
            try write(try ageEncrypt(Data("habitto-batch 1 remote".utf8), to: serverRecipient), aOps, "\(last + 1)-\(last + 4 + l - f).batch", device: aDevice)
        }

        let sync = run(b, "sync")
        XCTAssertEqual(sync.status, 4, sync.stderr, file: file, line: line)
        XCTAssertEqual(errorLines(sync), 1, sync.stderr, file: file, line: line)
        let json = try status(b)
        let reported = (json["lastError"] as? String ?? "") + ((json["remoteProblems"] as? [String]) ?? []).joined(separator: "\n")
        let doctor = run(b, "doctor")
        XCTAssertEqual(doctor.status, 5, doctor.stdout, file: file, line: line)
        for (device, name) in forged {
            let named = "batch \(name) of device \(device.prefix(8))"
            XCTAssertTrue(sync.stderr.contains(named), "\(named) not refused: \(sync.stderr)", file: file, line: line)
            XCTAssertTrue(reported.contains(named), "\(named) not in status: \(reported)", file: file, line: line)
            XCTAssertTrue(doctor.stdout.contains(named), "\(named) not in doctor: \(doctor.stdout)", file: file, line: line)
        }
        if everyForgery {
            XCTAssertTrue(sync.stderr.contains("is not sealed for where it is"), sync.stderr, file: file, line: line)
        }
        // Every operation of A and C arrived, and nothing else.
        XCTAssertEqual(ok(b, "export"), ok(a, "export"), "B lacks some of A's operations", file: file, line: line)
        XCTAssertFalse(ok(b, "list").contains("BTC"), file: file, line: line)
        XCTAssertEqual(progress(b, "Run"), 1, file: file, line: line)

        guard everyForgery else { return }
        // A changed format (another identity; the server's recipient in the clear): refused
        // before anything is written; put back, B syncs again.
        ok(a, "add", "Late")
        _ = run(a, "sync")
        ok(b, "check", "Tea")
        let before = try FileManager.default.subpathsOfDirectory(atPath: accountDir).sorted()
        let id = format.split(separator: " ")[3]
        let other = String(repeating: "f", count: 32)
        for changed in [format.replacingOccurrences(of: String(id), with: other),
                        format.replacingOccurrences(of: " age\n", with: " age \(serverRecipient)\n")] {
            try Data(changed.utf8).write(to: URL(fileURLWithPath: accountDir + "/format"))
            let refused = run(b, "sync")
            XCTAssertEqual(refused.status, 4, refused.stderr, file: file, line: line)
            XCTAssertEqual(errorLines(refused), 1, refused.stderr, file: file, line: line)
            XCTAssertTrue(refused.stderr.contains("the format file of users/default on ") && refused.stderr.contains("was changed")
                          && refused.stderr.contains("nothing was written"), refused.stderr, file: file, line: line)
            XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: accountDir).sorted(), before, "written after a changed format", file: file, line: line)
            XCTAssertFalse(ok(b, "list").contains("Late"), "applied after a changed format", file: file, line: line)
        }
        try Data(format.utf8).write(to: URL(fileURLWithPath: accountDir + "/format"))
        // The keycheck removed, in an account that holds devices: refused, not made again.
        let keycheck = try Data(contentsOf: URL(fileURLWithPath: accountDir + "/keycheck"))
        try FileManager.default.removeItem(atPath: accountDir + "/keycheck")
        let missing = run(b, "sync")
        XCTAssertEqual(missing.status, 4, missing.stderr, file: file, line: line)
        XCTAssertTrue(missing.stderr.contains("keycheck on dir:\(folder!) is missing, and the account holds devices"), missing.stderr, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: accountDir + "/keycheck"), file: file, line: line)
        try keycheck.write(to: URL(fileURLWithPath: accountDir + "/keycheck"))
        let again = run(b, "sync")
        XCTAssertEqual(again.status, 4, "the forged files are still there", file: file, line: line)
        XCTAssertTrue(ok(b, "list").contains("Late"), again.stderr, file: file, line: line)
        let aSync = run(a, "sync")
        XCTAssertEqual(progress(a, "Tea"), 1, aSync.stderr, file: file, line: line)
    }

    /// A remote made encrypted by an earlier version (its format names the recipient): read and
    /// written as before, with batches an earlier version reads (no sealed line), and `status`
    /// and `doctor` say that anyone who kept the recipient can forge batches.
    func testARemoteWhoseFormatNamesItsRecipientStillSyncsAndIsReported() throws {
        let (a, b) = (boxes[0], boxes[1])
        let keyFile = try makeKeyFile(in: a.root)
        let recipient = try recipient(of: keyFile)
        let accountDir = folder + "/users/default"
        try FileManager.default.createDirectory(atPath: accountDir, withIntermediateDirectories: true)
        let format = "habitto-sync 2 remote 0123456789abcdef0123456789abcdef age \(recipient)\n"
        try Data(format.utf8).write(to: URL(fileURLWithPath: accountDir + "/format"))
        ok(a, "add", "Water")
        ok(a, "remote", "set", "dir:" + folder, "--key", keyFile)
        ok(b, "remote", "set", "dir:" + folder, "--key", keyFile)
        XCTAssertEqual(ok(b, "export"), ok(a, "export"))
        XCTAssertEqual(try String(contentsOfFile: accountDir + "/format", encoding: .utf8), format, "the format was rewritten")
        XCTAssertFalse(FileManager.default.fileExists(atPath: accountDir + "/keycheck"))
        // The batch decrypts to a plain batch, as an earlier version reads it.
        let aDevice = try XCTUnwrap(try status(a)["device"] as? String)
        let batch = try XCTUnwrap(try sortedBatchFiles(inOps: opsFolder(folder, aDevice)).first)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/age")
        p.arguments = ["-d", "-i", keyFile, opsFolder(folder, aDevice) + "/" + batch]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let plain = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertTrue(plain.starts(with: Data("HABITTO-BATCH".utf8)), String(decoding: plain.prefix(40), as: UTF8.self))
        let warning = "this remote's recipient was stored in the clear by an earlier version of habitto: anyone who kept it can forge batches; move to a new key: habitto remote set NEW --encrypt"
        XCTAssertTrue(((try status(b)["remoteProblems"] as? [String]) ?? []).contains { $0.hasPrefix(warning) })
        XCTAssertTrue(ok(b, "status").contains(warning))
        let doctor = run(b, "doctor")
        XCTAssertEqual(doctor.status, 5, doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("problem: remote: " + warning), doctor.stdout)
    }

    /// `bytes` encrypted by the `age` program to `recipient`, as a server can.
    func ageEncrypt(_ bytes: Data, to recipient: String) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/age")
        p.arguments = ["-r", recipient]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(bytes)
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return out
    }

    /// The recipient of an identity file `age-keygen` wrote.
    func recipient(of keyFile: String) throws -> String {
        let text = try String(contentsOfFile: keyFile, encoding: .utf8)
        return try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("# public key: ") }.map { String($0.dropFirst(14)) })
    }
}
