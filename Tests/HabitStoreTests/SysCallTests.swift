import Foundation
import HabitStore
import HabitSys
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Signals the interrupting handler has run for (touched by a signal handler: an atomic,
/// initialised before the handler is installed).
private let handled = Atomic<Int>(0)
/// What the interrupted `read` returned on each try, and the `errno` of each failed one.
private let tries = Atomic<Int>(0)
private let firstResult = Atomic<Int>(0)
private let firstErrno = Atomic<Int32>(0)
/// The reading thread (0 until it runs), and the byte it read (or minus the errno).
private let readerThread = Atomic<UInt>(0)
private let readOutcome = Atomic<Int>(Int.min)

private func onInterrupt(_: Int32) {
    let saved = errno
    handled.add(1, ordering: .sequentiallyConsistent)
    errno = saved
}

/// `sysCall` retries a call a signal interrupts and throws `SysError` for a real failure;
/// `Sys` turns that into the same `StoreError` as before.
final class SysCallTests: XCTestCase {
    /// A `read` on an empty pipe, blocked on another thread, is interrupted by a signal
    /// whose handler does not restart system calls (no SA_RESTART): the kernel's EINTR
    /// reaches `sysCall`, which reads again, and the byte written afterwards arrives.
    func testAReadInterruptedBySignalIsRetriedAndCompletes() throws {
        _ = handled.load(ordering: .sequentiallyConsistent)
        var action = sigaction(), old = sigaction()
        action.__sigaction_handler.sa_handler = onInterrupt
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        XCTAssertEqual(sigaction(SIGUSR2, &action, &old), 0)
        defer { sigaction(SIGUSR2, &old, nil) }
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]); close(ends[1]) }
        let readEnd = ends[0]
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            readerThread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
            var byte: UInt8 = 0
            do {
                let n = try sysCall("read") { () -> Int in
                    let r = read(readEnd, &byte, 1), e = errno
                    if tries.add(1, ordering: .sequentiallyConsistent).newValue == 1 {
                        firstResult.store(r, ordering: .sequentiallyConsistent)
                        firstErrno.store(e, ordering: .sequentiallyConsistent)
                    }
                    errno = e
                    return r
                }
                readOutcome.store(n == 1 ? Int(byte) : -1000, ordering: .sequentiallyConsistent)
            } catch {
                readOutcome.store(-Int((error as? SysError)?.errno ?? 0), ordering: .sequentiallyConsistent)
            }
            finished.signal()
        }
        // Signals until one has cut the read short (the first try came back): a signal that
        // lands before the read starts only runs the handler, and the read still waits.
        let deadline = Date().addingTimeInterval(20)
        while tries.load(ordering: .sequentiallyConsistent) == 0 && Date() < deadline {
            let thread = readerThread.load(ordering: .sequentiallyConsistent)
            if thread != 0 { pthread_kill(pthread_t(thread), SIGUSR2) }
            sched_yield()
        }
        XCTAssertGreaterThanOrEqual(tries.load(ordering: .sequentiallyConsistent), 1, "a signal cut the read short")
        XCTAssertEqual(firstResult.load(ordering: .sequentiallyConsistent), -1)
        XCTAssertEqual(firstErrno.load(ordering: .sequentiallyConsistent), EINTR)
        var byte: UInt8 = 42
        XCTAssertEqual(write(ends[1], &byte, 1), 1)
        finished.wait()
        XCTAssertEqual(readOutcome.load(ordering: .sequentiallyConsistent), 42, "the retried read completes with the byte")
        XCTAssertGreaterThanOrEqual(tries.load(ordering: .sequentiallyConsistent), 2, "it was read again after EINTR")
        XCTAssertGreaterThanOrEqual(handled.load(ordering: .sequentiallyConsistent), 1)
    }

    /// EINTR is tried again, as often as it comes; the result of the try that succeeds is returned.
    func testEINTRIsRetriedUntilTheCallSucceeds() throws {
        var results: [Int32] = [-1, -1, 7]
        let r = try sysCall("fake") { () -> Int32 in
            let next = results.removeFirst()
            if next == -1 { errno = EINTR }
            return next
        }
        XCTAssertEqual(r, 7)
        XCTAssertEqual(results, [])
        var answers: [Int32] = [EINTR, 0]
        try sysCallReturningError("fake") { answers.removeFirst() }
        XCTAssertEqual(answers, [])
        var pointers: [Int?] = [nil, 5]
        let p = try sysCall("fake") { () -> Int? in
            let next = pointers.removeFirst()
            if next == nil { errno = EINTR }
            return next
        }
        XCTAssertEqual(p, 5)
    }

    /// A real failure throws `SysError` with the call's name and its errno, tried once.
    func testARealFailureThrowsSysErrorWithTheCallAndErrno() {
        let missing = NSTemporaryDirectory() + "habitto-no-such-file-\(getpid())"
        var tried = 0
        XCTAssertThrowsError(try sysCall("open") { () -> Int32 in tried += 1; return open(missing, O_RDONLY) }) { error in
            XCTAssertEqual(error as? SysError, SysError(call: "open", errno: ENOENT))
            XCTAssertEqual("\(error)", "open: No such file or directory")
        }
        XCTAssertEqual(tried, 1)
        XCTAssertThrowsError(try sysCall("opendir") { opendir(missing) }) { error in
            XCTAssertEqual(error as? SysError, SysError(call: "opendir", errno: ENOENT))
        }
        var child: pid_t = 0
        XCTAssertThrowsError(try sysCallReturningError("posix_spawn") { posix_spawn(&child, missing, nil, nil, [nil], nil) }) { error in
            XCTAssertEqual(error as? SysError, SysError(call: "posix_spawn", errno: ENOENT))
        }
        XCTAssertThrowsError(try sysClose(-1)) { error in
            XCTAssertEqual(error as? SysError, SysError(call: "close", errno: EBADF))
        }
    }

    /// `Sys` reports the failure as it always has: what could not be done, to which file.
    func testSysTurnsTheFailureIntoTheStoreErrorOfBefore() {
        let missing = NSTemporaryDirectory() + "habitto-no-such-folder-\(getpid())/file"
        XCTAssertThrowsError(try Sys.open(missing, O_RDONLY)) { error in
            XCTAssertEqual(error as? StoreError, .io(operation: "open", path: missing, errno: ENOENT))
            XCTAssertEqual("\(error)", "cannot open \(missing): No such file or directory; the path does not exist")
        }
        XCTAssertThrowsError(try Sys.open(missing, O_WRONLY | O_CREAT)) { error in
            XCTAssertEqual(error as? StoreError, .io(operation: "open for writing", path: missing, errno: ENOENT))
        }
        XCTAssertNil(try Sys.openIfPresent(missing, O_RDONLY))
        XCTAssertThrowsError(try Sys.call("unlink", "delete", missing) { unlink(missing) }) { error in
            XCTAssertEqual(error as? StoreError, .io(operation: "delete", path: missing, errno: ENOENT))
        }
        XCTAssertNoThrow(try Sys.removeIfPresent(missing))
        XCTAssertFalse(Sys.canAccess(missing, F_OK))
    }
}
