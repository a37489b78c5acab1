import Foundation
import HabitStore
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `habitto remind` and `--remind` through the real binary, with a fake `notify-send` and a
/// fake `systemctl` on PATH that record their arguments (one line each, a `--` line after
/// each call).
final class RemindCommandTests: XCTestCase {
    private var box: Sandbox!
    private var bin: String { box.fakePrograms }
    private var notifyLog: String { box.root + "/notify.log" }
    private var systemctlLog: String { box.root + "/systemctl.log" }

    override func setUp() {
        box = Sandbox()
        box.useFakePrograms()
        box.now = "2026-11-21T08:30:00"  // a Saturday
        fake("notify-send", log: notifyLog)
    }

    override func tearDown() { box = nil }

    /// A fake program that appends its arguments to `log` and exits with `status`.
    private func fake(_ name: String, log: String, status: Int = 0) {
        let script = "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '\(log)'\necho -- >> '\(log)'\nexit \(status)\n"
        let path = bin + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
    }

    /// The recorded calls, each a list of arguments (without `remind`'s `--help`, which asks
    /// whether notifications can be answered: these fakes say they cannot).
    private func calls(_ log: String) -> [[String]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "--\n", omittingEmptySubsequences: true).map { $0.split(separator: "\n").map(String.init) }
            .filter { $0 != ["--help"] }
    }

    func testAReminderFiresOnceThroughNotifySend() {
        box.ok("add", "Read", "--remind", "20:00,08:00")
        let r = box.run("remind")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(calls(notifyLog), [["--app-name=Habitto", "Habitto: Read", "Reminder 08:00: not done today (0/1)"]])
        box.now = "2026-11-21T08:40:00"
        XCTAssertEqual(box.ok("remind"), "")
        XCTAssertEqual(calls(notifyLog).count, 1, "not sent twice")
        box.now = "2026-11-21T20:05:00"
        box.ok("remind")
        XCTAssertEqual(calls(notifyLog).last?[2], "Reminder 20:00: not done today (0/1)")
        box.now = "2026-11-22T08:01:00"
        box.ok("remind")
        XCTAssertEqual(calls(notifyLog).count, 3, "the next day it fires again")
    }

    func testNoReminderForADoneSkippedOrNotDueHabit() {
        box.ok("add", "Read", "--remind", "08:00")
        box.ok("add", "Gym", "--schedule", "mon,wed", "--remind", "08:00")
        box.ok("add", "Walk", "--remind", "08:00")
        box.ok("check", "Read")
        box.ok("skip", "Walk")
        XCTAssertEqual(box.ok("remind"), "")
        XCTAssertEqual(calls(notifyLog), [])
        XCTAssertEqual(box.ok("remind", "--json"), "[]\n")
    }

    func testNoReminderBeforeItsTimeOrAfterTheGraceWindow() {
        box.ok("add", "Read", "--remind", "08:31,06:29")
        box.ok("remind")
        XCTAssertEqual(calls(notifyLog), [], "08:31 is still to come, 06:29 is over two hours ago")
        box.now = "2026-11-21T08:31:00"
        box.ok("remind")
        XCTAssertEqual(calls(notifyLog).map { $0[2] }, ["Reminder 08:31: not done today (0/1)"])
    }

    func testWithoutADesktopSessionTheReminderIsALineOnStandardOutput() {
        box.extraEnv["DISPLAY"] = ""
        box.ok("add", "Read", "--remind", "08:00", "--icon", "📚")
        XCTAssertEqual(box.ok("remind"), "Reminder 08:00: 📚 Read is not done today (0/1)\n")
        XCTAssertEqual(calls(notifyLog), [])
        XCTAssertEqual(box.ok("remind"), "", "not twice")
    }

    func testWhenNotifySendFailsTheReminderIsNotRecordedAndComesAgain() throws {
        // It fails for Read only: Walk is shown and recorded, Read is tried again.
        try box.script(bin + "/notify-send", "for a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '\(notifyLog)'\necho -- >> '\(notifyLog)'\n"
                       + "case \"$2\" in *Read*) echo 'GDBus.Error: no notification server' >&2; exit 1;; esac")
        box.extraEnv["DISPLAY"] = ""
        box.extraEnv["WAYLAND_DISPLAY"] = "wayland-0"
        box.ok("add", "Read", "--remind", "08:00")
        box.ok("add", "Walk", "--remind", "08:00")
        let r = box.run("remind")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "habitto: remind: the 08:00 reminder for 'Read' was not shown: notify-send failed (exit status 1: GDBus.Error: no notification server); it is tried again at the next run\n")
        XCTAssertEqual(calls(notifyLog).map { $0[1] }, ["Habitto: Read", "Habitto: Walk"])
        fake("notify-send", log: notifyLog)
        XCTAssertEqual(box.ok("remind"), "")
        XCTAssertEqual(calls(notifyLog).map { $0[1] }, ["Habitto: Read", "Habitto: Walk", "Habitto: Read"], "only Read again")
        XCTAssertEqual(box.ok("remind"), "")
        XCTAssertEqual(calls(notifyLog).count, 3)
    }

    func testANotifySendThatNeverReturnsIsStoppedAndItsRemindersComeAgain() throws {
        // Its help (remind asks whether notifications can be answered) says nothing of actions.
        try box.script(bin + "/notify-send", "[ \"$1\" = --help ] && exit 0\necho $$ >> '\(box.root)/pids'\nexec sleep 300")
        box.ok("add", "Read", "--remind", "08:00")
        box.ok("add", "Walk", "--remind", "08:00")
        // The limit shortened to half a second (the 5-second default is TimeLimitsTests').
        box.extraEnv[TimeLimits.variable] = "notify-send=0.5"
        let started = Date()
        let r = try box.runWithin(120, ["remind"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "stopped at the limit")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "habitto: remind: 2 reminders were not shown (the 08:00 reminder for 'Read', first: notify-send did not finish within 1 second and was stopped); they are tried again at the next run\n")
        let pids = try String(contentsOfFile: box.root + "/pids", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(pids.count, 2, "each reminder was tried")
        for pid in pids {
            try Data(pid.utf8).write(to: URL(fileURLWithPath: box.root + "/pid"))
            XCTAssertTrue(processInFileEnds(box.root + "/pid"), "notify-send \(pid) was killed")
        }
        XCTAssertEqual((try? String(contentsOfFile: box.home + "/reminders-sent", encoding: .utf8)) ?? "", "", "nothing recorded as sent")
        fake("notify-send", log: notifyLog)
        box.extraEnv[TimeLimits.variable] = nil
        XCTAssertEqual(box.ok("remind"), "")
        XCTAssertEqual(calls(notifyLog).map { $0[1] }, ["Habitto: Read", "Habitto: Walk"])
    }

    func testNotifySendGetsEscapedMarkupAndNoPassword() throws {
        try box.script(bin + "/notify-send", "env > '\(box.root)/env'\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '\(notifyLog)'\necho -- >> '\(notifyLog)'")
        box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = "s3cret-pw"
        box.ok("add", "Tom & <b>Jerry</b> \"1\" 'x'", "--remind", "08:00")
        box.ok("remind")
        XCTAssertEqual(calls(notifyLog), [["--app-name=Habitto", "Habitto: Tom &amp; &lt;b&gt;Jerry&lt;/b&gt; &quot;1&quot; &apos;x&apos;",
                                           "Reminder 08:00: not done today (0/1)"]])
        let env = try String(contentsOfFile: box.root + "/env", encoding: .utf8)
        XCTAssertTrue(env.contains("DISPLAY=:0"), env)
        XCTAssertFalse(env.contains("s3cret-pw"), "the password is not passed on: \(env)")
        XCTAssertFalse(env.contains("HABITTO_WEBDAV_PASSWORD"), env)
    }

    func testWithoutNotifySendTheRemindersArePrintedAndItsPackageNamed() {
        box.extraEnv["PATH"] = bin
        try? FileManager.default.removeItem(atPath: bin + "/notify-send")
        box.ok("add", "Read", "--remind", "08:00")
        let r = box.run("remind")
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, "Reminder 08:00: Read is not done today (0/1)\n")
        XCTAssertEqual(r.stderr, "habitto: remind: notify-send is not installed, so reminders are printed here; install it with 'sudo apt install libnotify-bin'\n")
        XCTAssertEqual(box.run("remind").stderr, "", "nothing left to send, nothing said")
    }

    func testARecordOfSentRemindersThatIsAFolderIsMovedToRecoveredAndStartedAfresh() throws {
        box.ok("add", "Read", "--remind", "08:00")
        try FileManager.default.createDirectory(atPath: box.home + "/reminders-sent/inside", withIntermediateDirectories: true)
        let r = box.run("remind")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("warning: \(box.home)/reminders-sent (the record of reminders shown) was a folder, not a regular file; it was moved to \(box.home)/recovered/reminders-sent-"), r.stderr)
        XCTAssertEqual(calls(notifyLog).count, 1)
        let recovered = try FileManager.default.contentsOfDirectory(atPath: box.home + "/recovered")
        XCTAssertEqual(recovered.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: box.home + "/recovered/" + recovered[0] + "/inside"), "kept with what it held")
        let again = box.run("remind")
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.stderr, "")
        XCTAssertEqual(calls(notifyLog).count, 1, "recorded in a new file")
    }

    func testJSONListsTheRemindersAndRecordsNothing() throws {
        box.ok("add", "Water", "--goal", "8", "--remind", "07:00,08:00")
        box.ok("check", "Water", "--amount", "3")
        let out = box.ok("remind", "--json")
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: String]])
        XCTAssertEqual(list.map { $0["time"] }, ["07:00", "08:00"])
        XCTAssertEqual(list.first?["name"], "Water")
        XCTAssertEqual(list.first?["day"], "2026-11-21")
        XCTAssertEqual(list.first?["progress"], "3/8")
        XCTAssertEqual(calls(notifyLog), [], "--json notifies nobody")
        XCTAssertEqual(box.ok("remind", "--json"), out, "--json only reports: the reminders are still to be sent")
    }

    func testTwoRemindersRunningAtOnceNotifyOnce() throws {
        box.ok("add", "Read", "--remind", "08:00")
        let runs = try (0..<4).map { _ in try box.start(["remind"]) }
        for (p, tag) in runs { XCTAssertEqual(box.finish(p, tag).status, 0) }
        XCTAssertEqual(calls(notifyLog).count, 1)
    }

    func testADamagedRecordOfSentRemindersIsReportedAndStartedAfresh() throws {
        box.ok("add", "Read", "--remind", "08:00")
        try Data("not a record\u{1B}[2J\n".utf8).write(to: URL(fileURLWithPath: box.home + "/reminders-sent"))
        let r = box.run("remind")
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("reminders-sent is damaged"), r.stderr)
        XCTAssertFalse(r.stderr.contains("\u{1B}"))
        XCTAssertEqual(calls(notifyLog).count, 1)
        let again = box.run("remind")
        XCTAssertEqual(again.stderr, "")
        XCTAssertEqual(calls(notifyLog).count, 1)
    }

    func testRemindTimesAreSetShownAndCleared() throws {
        box.ok("add", "Read", "--remind", "21:00, 7:30")
        XCTAssertTrue(box.ok("show", "Read").contains("  reminders: 07:30, 21:00\n"))
        XCTAssertEqual(box.listEntry("Read")?["reminders"] as? [String], ["07:30", "21:00"])
        let bad = box.run("edit", "Read", "--remind", "7:30,25:00")
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stderr, "habitto: reminder time '25:00' not understood: use HH:MM from 00:00 to 23:59, e.g. 08:00,20:30\n")
        let nine = (1...9).map { "0\($0):00" }.joined(separator: ",")
        XCTAssertEqual(box.run("edit", "Read", "--remind", nine).stderr, "habitto: 9 reminder times: a habit can have at most 8\n")
        let export = box.ok("export")
        XCTAssertTrue(export.contains("\"07:30\""), export)
        box.ok("edit", "Read", "--remind", "")
        XCTAssertFalse(box.ok("show", "Read").contains("reminders"))
        XCTAssertEqual(box.listEntry("Read")?["reminders"] as? [String], [])
    }

    func testInstallWritesASystemdTimerAndUninstallRemovesIt() throws {
        fake("systemctl", log: systemctlLog)
        let out = box.ok("remind", "--install")
        let dir = box.config + "/systemd/user"
        XCTAssertTrue(out.hasPrefix("Installed \(dir)/habitto-remind.service and habitto-remind.timer"), out)
        let service = try String(contentsOfFile: dir + "/habitto-remind.service", encoding: .utf8)
        XCTAssertTrue(service.contains("ExecStart=\"\(Sandbox.binary)\" \"--home\" \"\(box.home)\" \"remind\"\n"), service)
        let timer = try String(contentsOfFile: dir + "/habitto-remind.timer", encoding: .utf8)
        XCTAssertTrue(timer.contains("OnCalendar=*:0/5\n"), timer)
        XCTAssertTrue(timer.contains("WantedBy=timers.target\n"), timer)
        XCTAssertEqual(calls(systemctlLog), [["--user", "show-environment"], ["--user", "daemon-reload"],
                                             ["--user", "enable", "--now", "habitto-remind.timer"]])
        let removed = box.ok("remind", "--uninstall")
        XCTAssertEqual(removed, "Removed \(dir)/habitto-remind.service and \(dir)/habitto-remind.timer; the timer is stopped.\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/habitto-remind.service"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/habitto-remind.timer"))
        XCTAssertEqual(calls(systemctlLog).suffix(2), [["--user", "disable", "--now", "habitto-remind.timer"], ["--user", "daemon-reload"]])
        XCTAssertTrue(box.ok("remind", "--uninstall").hasPrefix("No reminder timer is installed"))
    }

    /// The binary in `folder` in the sandbox (a hard link, else a copy), run from there.
    private func runBinary(from folder: String) throws {
        let dir = box.root + "/" + folder
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if link(Sandbox.binary, dir + "/habitto") != 0 {
            try FileManager.default.copyItem(atPath: Sandbox.binary, toPath: dir + "/habitto")
        }
        box.binaryPath = dir + "/habitto"
    }

    func testTheTimerUnitNamesPathsWithDollarPercentSpacesAndQuotesVerbatim() throws {
        try box.script(bin + "/systemctl", "env > '\(box.root)/env'\nexit 0")
        box.extraEnv["HABITTO_WEBDAV_PASSWORD"] = "s3cret-pw"
        try runBinary(from: "bin $PATH 5%")
        let home = box.root + "/a $HOME ${USER} %h 100% \"q\" 'x' back\\slash"
        box.ok("--home", home, "add", "Read")
        XCTAssertTrue(box.ok("--home", home, "remind", "--install").hasPrefix("Installed "))
        let service = try String(contentsOfFile: box.config + "/systemd/user/habitto-remind.service", encoding: .utf8)
        // systemd.service(5): % is a specifier everywhere; $ a variable in the arguments only.
        let expected = "ExecStart=\"\(box.root)/bin $PATH 5%%/habitto\" \"--home\" "
            + "\"\(box.root)/a $$HOME $${USER} %%h 100%% \\\"q\\\" 'x' back\\\\slash\" \"remind\"\n"
        XCTAssertTrue(service.contains(expected), "\(service)\nwanted: \(expected)")
        let env = try String(contentsOfFile: box.root + "/env", encoding: .utf8)
        XCTAssertTrue(env.contains("PATH=\(bin)"), env)
        XCTAssertFalse(env.contains("s3cret-pw"), "the password is not passed on to systemctl: \(env)")
    }

    func testAProgramPathSystemdRefusesGetsTheCrontabLine() throws {
        fake("systemctl", log: systemctlLog)
        try runBinary(from: "it's here")
        let out = box.ok("remind", "--install")
        XCTAssertEqual(out, """
            the path of this program (\(box.root)/it's here/habitto) holds a quote, a backslash or a control character, which systemd does not accept in a program's path, so no systemd timer was installed.
            To check reminders every 5 minutes with cron instead, add this line with 'crontab -e':
            */5 * * * * '\(box.root)/it'\\''s here/habitto' '--home' '\(box.home)' 'remind'

            """)
        XCTAssertFalse(FileManager.default.fileExists(atPath: box.config + "/systemd"))
    }

    func testASystemctlThatNeverReturnsIsStoppedAndTheCrontabLineGiven() throws {
        try box.script(bin + "/systemctl", "echo $$ > '\(box.root)/pid'\nexec sleep 300")
        // The limit shortened to half a second (the 15-second default is TimeLimitsTests').
        box.extraEnv[TimeLimits.variable] = "systemctl=0.5"
        let started = Date()
        let r = try box.runWithin(120, ["remind", "--install"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "stopped at the limit")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "habitto: 'systemctl --user show-environment' did not finish within 1 second and was stopped\n")
        XCTAssertTrue(r.stdout.hasPrefix("'systemctl --user' does not work here, so no systemd timer was installed.\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("*/5 * * * * "), r.stdout)
        XCTAssertTrue(processInFileEnds(box.root + "/pid"), "systemctl was killed")
    }

    func testWithoutSystemctlInstallNamesItsPackageAndGivesTheCrontabLine() {
        box.extraEnv["PATH"] = bin
        let r = box.run("remind", "--install")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("systemctl is not installed (Debian package systemd), so no systemd timer was installed.\nTo check reminders every 5 minutes with cron instead"), r.stdout)
    }

    func testWithoutAWorkingSystemctlInstallPrintsTheCrontabLine() {
        fake("systemctl", log: systemctlLog, status: 1)
        let out = box.ok("remind", "--install")
        XCTAssertEqual(out, """
            'systemctl --user' does not work here, so no systemd timer was installed.
            To check reminders every 5 minutes with cron instead, add this line with 'crontab -e':
            */5 * * * * '\(Sandbox.binary)' '--home' '\(box.home)' 'remind'

            """)
        XCTAssertFalse(FileManager.default.fileExists(atPath: box.config + "/systemd"))
        XCTAssertEqual(calls(systemctlLog), [["--user", "show-environment"]])
        XCTAssertEqual(box.run("remind", "--install", "--uninstall").status, 2)
    }
}
