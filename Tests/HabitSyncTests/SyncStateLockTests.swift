import Foundation
import XCTest
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif
@testable import HabitSync
import SyncTestKit

/// The lock around `sync.json` is waited for within the time limit, like the data lock.
final class SyncStateLockTests: TemporaryFolderTestCase {
    func testAChangeToTheSyncStateGivesUpWhenItsLockIsHeldTooLong() throws {
        let paths = DataPaths(directory: folder)
        try SyncState.update(paths) { $0.offline = false }
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/sync.json"))
        // Held on another descriptor: flock locks belong to an open file, so this process
        // waits for it as another process would.
        let held = open(folder + "/sync.json.lock", O_RDWR | O_CLOEXEC)
        XCTAssertEqual(flock(held, LOCK_EX | LOCK_NB), 0)
        defer { close(held) }
        let saved = Sys.lockWait
        Sys.lockWait = 0.2
        defer { Sys.lockWait = saved }
        let start = Date()
        do {
            try SyncState.update(paths) { $0.offline = true }
            XCTFail("the change was made while another held the lock")
        } catch let e as StoreError {
            guard case .lockBusy(let path, let name, _, let seconds) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(path, folder + "/sync.json.lock")
            XCTAssertEqual(name, "the sync state lock")
            XCTAssertEqual(seconds, 0.2)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder + "/sync.json")), before, "nothing was written")
    }
}
