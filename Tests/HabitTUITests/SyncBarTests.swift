import Foundation
import XCTest
import HabitCore
@testable import HabitTUI

/// Every state the status bar and the message line show about sync ends: `Syncing…` gives
/// way to the round's result, activity to the mode, and `S` offline says what to do.
final class SyncBarTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let remote = "dir:/mnt/shared"

    func app(_ mode: SyncInfo.Mode, pending: Int = 0, history: [SyncInfo.Attempt] = [], glyphs: Glyphs = .unicode) -> AppState {
        var app = World.app(glyphs: glyphs)
        _ = reduce(&app, .tick(now))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: mode, remote: remote, pending: pending, history: history)))
        return app
    }

    func round(_ pushed: Int, _ pulled: Int, error: String? = nil, after seconds: Double = 1) -> SyncInfo.Attempt {
        SyncInfo.Attempt(at: now.addingTimeInterval(seconds), pushed: pushed, pulled: pulled, error: error)
    }

    func bar(_ app: AppState) -> String { render(app).line(22) }

    func testSyncNowWhileOfflineSaysHowToGoOnlineAndSendsNothing() {
        var app = app(.offline, pending: 2)
        XCTAssertEqual(press(&app, .char("S")), [])
        XCTAssertEqual(app.message, Message("offline: press o to go online", .warning))
        XCTAssertFalse(app.awaitingRound)
        XCTAssertTrue(render(app).line(21).contains("offline: press o to go online"), render(app).line(21))
        XCTAssertTrue(bar(app).contains("↑ offline · queue 2"), bar(app))
    }

    func testSyncingIsReplacedByTheRoundsResultAndActivityShowsWhilePushingAndPulling() {
        let earlier = [round(1, 0, after: -60)]
        var app = app(.online, pending: 3, history: earlier)
        XCTAssertEqual(press(&app, .char("S")), [.syncNow])
        XCTAssertEqual(app.message?.text, "Syncing…")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: remote, pending: 3, inFlight: 3, history: earlier)))
        XCTAssertTrue(bar(app).contains("online · ⟳ syncing 3 · queue 3"), bar(app))
        XCTAssertEqual(app.message?.text, "Syncing…", "the round has not ended yet")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: remote, pulling: true, history: earlier)))
        XCTAssertTrue(bar(app).contains("online · ⟳ pulling · queue 0"), bar(app))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: remote, roundsEnded: 1, lastSyncAt: now, history: earlier + [round(3, 5)])))
        XCTAssertEqual(app.message, Message("synced · sent 3, received 5"))
        XCTAssertTrue(render(app).line(21).contains("synced · sent 3, received 5"), render(app).line(21))
        XCTAssertTrue(bar(app).contains("✓ online · queue 0 · checked 0s ago"), bar(app))
        XCTAssertFalse(bar(app).contains("⟳"), bar(app))
        // A later round of the background loop leaves the message alone.
        _ = reduce(&app, .undone("check 'Drink water' +1"))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: remote, roundsEnded: 2, history: earlier + [round(3, 5), round(1, 0, after: 30)])))
        XCTAssertEqual(app.message?.text, "Undid: check 'Drink water' +1")
    }

    func testAFailedOrUnreachableRoundReplacesSyncingWithItsError() {
        var app = app(.failed, pending: 1)
        press(&app, .char("S"))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .failed, remote: remote, pending: 1, roundsEnded: 1, lastError: "authentication failed: check user and password",
                                               history: [round(0, 0, error: "authentication failed: check user and password")])))
        XCTAssertEqual(app.message, Message("Sync: authentication failed: check user and password", .error))
        XCTAssertTrue(bar(app).contains("! sync failed · queue 1 · authentication failed"), bar(app))
        press(&app, .char("S"))
        XCTAssertEqual(app.message?.text, "Syncing…")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .unreachable, remote: remote, pending: 1, roundsEnded: 2, nextRetryAt: now.addingTimeInterval(4),
                                               lastError: "cannot reach /mnt/shared\u{1B}[2J",
                                               history: [round(0, 0, error: "authentication failed: check user and password"),
                                                         round(0, 0, error: "cannot reach /mnt/shared\u{1B}[2J", after: 2)])))
        XCTAssertEqual(app.message?.kind, .error)
        XCTAssertEqual(app.message?.text.hasPrefix("Sync: cannot reach /mnt/shared"), true)
        XCTAssertFalse(app.message?.text.contains("\u{1B}") ?? true, "sanitised")
        XCTAssertTrue(bar(app).contains("! unreachable · retry in 4s · queue 1"), bar(app))
    }

    func testGoingOnlineShowsTheRoundsResultAndGoingOfflineEndsActivityAtOnce() {
        var app = app(.online, pending: 1)
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: remote, pending: 1, inFlight: 1)))
        XCTAssertEqual(press(&app, .char("o")), [.setOffline(true)])
        XCTAssertEqual(app.message?.text, "Offline: changes wait in the queue")
        XCTAssertTrue(bar(app).contains("↑ offline · queue 1"), "nothing shows in flight once offline: \(bar(app))")
        XCTAssertFalse(bar(app).contains("syncing"), bar(app))
        XCTAssertEqual(press(&app, .char("o")), [.setOffline(false)])
        XCTAssertEqual(app.message?.text, "Online: syncing now")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: remote, roundsEnded: 1, lastSyncAt: now, history: [round(2, 0)])))
        XCTAssertEqual(app.message?.text, "synced · sent 2, received 0")
        // Offline before the round ends: the offline message stays, no result comes later.
        press(&app, .char("o"), .char("o"), .char("o"))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .offline, remote: remote, roundsEnded: 2, history: [round(2, 0), round(0, 0, after: 5)])))
        XCTAssertEqual(app.message?.text, "Offline: changes wait in the queue")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .offline, remote: remote, roundsEnded: 3, history: [round(2, 0), round(0, 0, after: 5), round(1, 0, after: 9)])))
        XCTAssertEqual(app.message?.text, "Offline: changes wait in the queue")
    }

    func testARoundIdenticalToThePreviousOneStillEndsSyncing() {
        // A frozen clock (HABITTO_NOW) makes two failed rounds alike in every field.
        let failed = round(0, 0, error: "remote unreachable", after: 0)
        var app = app(.unreachable, pending: 1, history: [failed])
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .unreachable, remote: remote, pending: 1, roundsEnded: 1, history: [failed])))
        press(&app, .char("S"))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .unreachable, remote: remote, pending: 1, roundsEnded: 1, history: [failed])))
        XCTAssertEqual(app.message?.text, "Syncing…", "no round has ended yet")
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .unreachable, remote: remote, pending: 1, roundsEnded: 2, history: [failed, failed])))
        XCTAssertEqual(app.message, Message("Sync: remote unreachable", .error))
    }

    func testTheResultUsesTheASCIISeparatorWithASCIIGlyphs() {
        var app = app(.online, glyphs: .ascii)
        press(&app, .char("S"))
        _ = reduce(&app, .syncChanged(SyncInfo(mode: .online, remote: remote, roundsEnded: 1, history: [round(0, 4)])))
        XCTAssertEqual(app.message?.text, "synced | sent 0, received 4")
    }
}
