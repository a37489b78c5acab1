import Glibc
import HabitSys
import Synchronization

/// A self-pipe that turns signals and cross-thread wake-ups into something `Terminal.wait`
/// can poll.
public final class WakePipe: @unchecked Sendable {
    // @unchecked: the only stored state is two file descriptors fixed at init; the
    // signal state lives in atomics (`SignalRouting`).
    private let readEnd: Int32
    private let writeEnd: Int32

    /// A new pipe, both ends non-blocking and closed on exec. Throws when the process is
    /// out of file descriptors.
    public init() throws {
        let fds: [Int32]
        do { fds = try SignalRouting.makePipe() } catch {
            throw TerminalError("cannot create a wake-up pipe: \(error.reason)")
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        if SignalRouting.pipeFD.compareExchange(expected: writeEnd, desired: -1,
                                                ordering: .sequentiallyConsistent).exchanged {
            for sig in SignalRouting.terminationSignals { _ = signal(sig, SIG_DFL) }
        }
        try? sysClose(readEnd)
        try? sysClose(writeEnd)
    }

    /// The end to poll (pass it to `Terminal.wait(timeoutMilliseconds:wakeFD:)`).
    public var readFD: Int32 { readEnd }

    /// Wakes a waiting `Terminal.wait` (thread-safe, non-blocking; a full pipe is fine).
    public func wake() {
        var byte: UInt8 = 1
        _ = try? sysCall("write") { write(writeEnd, &byte, 1) }
    }

    /// Routes SIGINT, SIGTERM and SIGHUP to this pipe: the signal is recorded (see
    /// `pendingSignal`) and the pipe woken, so the app's loop can quit cleanly and restore
    /// the terminal. Call before `Terminal.init`, so ncurses does not install its own
    /// handlers for them. SIGTSTP (Ctrl-Z) is left to ncurses, which restores the terminal
    /// while the process is stopped and redraws it on `fg`. Routing to another pipe later
    /// moves the signals there; when this pipe is deinitialised the default actions return.
    public func routeTerminationSignals() {
        SignalRouting.routeTermination(to: writeEnd)
    }

    /// The termination signal received since the last read (SIGINT, SIGTERM or SIGHUP),
    /// or nil. Reading it consumes it: the next read is nil until another signal arrives.
    /// Always nil when the signals are not routed to this pipe.
    public var pendingSignal: Int32? {
        guard SignalRouting.pipeFD.load(ordering: .sequentiallyConsistent) == writeEnd else { return nil }
        let sig = SignalRouting.pending.exchange(0, ordering: .sequentiallyConsistent)
        return sig == 0 ? nil : sig
    }
}

/// Process-wide signal state. Signal handlers touch only these atomics and `write(2)`,
/// which are async-signal-safe; every atomic is initialised before a handler that reads it
/// is installed (Swift initialises globals lazily, which a handler must not trigger).
enum SignalRouting {
    static let terminationSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The write end of the pipe termination signals go to, or -1.
    static let pipeFD = Atomic<Int32>(-1)
    /// The last termination signal not yet consumed, or 0.
    static let pending = Atomic<Int32>(0)

    /// The write end of the process-wide SIGWINCH pipe, or -1 before it exists.
    static let resizeWriteFD = Atomic<Int32>(-1)
    /// The handler SIGWINCH had before ours (ncurses's), as a bit pattern; 0 for none.
    static let previousResizeHandler = Atomic<Int>(0)

    static func routeTermination(to fd: Int32) {
        _ = pending.load(ordering: .sequentiallyConsistent)
        pipeFD.store(fd, ordering: .sequentiallyConsistent)
        for sig in terminationSignals { install(onTerminationSignal, for: sig) }
    }

    /// The read end of a pipe that gets a byte on every SIGWINCH. Created, and the handler
    /// installed, once per process, the first time this is read: after ncurses has
    /// installed its own handler (in `newterm`), which ours then calls.
    static let resizeReadFD: Int32 = {
        guard let fds = try? makePipe() else { return -1 }
        resizeWriteFD.store(fds[1], ordering: .sequentiallyConsistent)
        var old = sigaction()
        _ = try? sysCall("sigaction") { sigaction(SIGWINCH, nil, &old) }
        let bits = unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self)
        // Chain only a plain handler (not SIG_DFL 0 or SIG_IGN 1, nor an SA_SIGINFO one).
        if bits > 1, old.sa_flags & SA_SIGINFO == 0 {
            previousResizeHandler.store(bits, ordering: .sequentiallyConsistent)
        }
        install(onResizeSignal, for: SIGWINCH)
        return fds[0]
    }()

    /// Whether the terminal is reporting the mouse (`Terminal` turns it on and off).
    static let mouseReporting = Atomic<Bool>(false)
    /// The SIGTSTP handler before ours (ncurses's, which gives the terminal back to the shell
    /// while the process is stopped), as a bit pattern; 0 for none.
    static let previousStopHandler = Atomic<Int>(0)
    /// The sequences that turn the mouse reports (presses and the wheel, SGR encoded) on and off.
    static let mouseOn: StaticString = "\u{1B}[?1000h\u{1B}[?1006h"
    static let mouseOff: StaticString = "\u{1B}[?1006l\u{1B}[?1000l"

    /// Installs, once per process (after `newterm`), a SIGTSTP handler around ncurses's own:
    /// the mouse reports go off while the process is stopped (ncurses's `endwin` knows nothing
    /// of them) and on again when it resumes. Without a handler of ncurses's (SIGTSTP ignored:
    /// no job control), none.
    static let stopHandlerInstalled: Bool = {
        _ = mouseReporting.load(ordering: .sequentiallyConsistent)
        var old = sigaction()
        _ = try? sysCall("sigaction") { sigaction(SIGTSTP, nil, &old) }
        let bits = unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self)
        guard bits > 1, old.sa_flags & SA_SIGINFO == 0 else { return false }
        previousStopHandler.store(bits, ordering: .sequentiallyConsistent)
        install(onStopSignal, for: SIGTSTP)
        return true
    }()

    /// Writes one of the mouse sequences to standard output (async-signal-safe).
    static func writeMouse(_ sequence: StaticString) {
        _ = write(STDOUT_FILENO, sequence.utf8Start, sequence.utf8CodeUnitCount) // direct: also called from a signal handler
    }

    /// A pipe whose ends are both non-blocking and closed on exec.
    static func makePipe() throws(SysError) -> [Int32] {
        var fds: [Int32] = [-1, -1]
        try sysCall("pipe") { pipe(&fds) }
        for fd in fds {
            if let flags = try? sysCall("fcntl", { fcntl(fd, F_GETFL) }) { _ = try? sysCall("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) } }
            _ = try? sysCall("fcntl") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        return fds
    }

    /// Installs `handler` for `sig` (restarting interrupted system calls), returning the
    /// previous action.
    @discardableResult
    static func install(_ handler: @convention(c) (Int32) -> Void, for sig: Int32) -> sigaction {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var old = sigaction()
        _ = try? sysCall("sigaction") { sigaction(sig, &action, &old) }
        return old
    }
}

private func onTerminationSignal(_ sig: Int32) {
    let savedErrno = errno
    SignalRouting.pending.store(sig, ordering: .sequentiallyConsistent)
    var byte = UInt8(truncatingIfNeeded: sig)
    let fd = SignalRouting.pipeFD.load(ordering: .sequentiallyConsistent)
    if fd >= 0 { _ = write(fd, &byte, 1) } // direct: a signal handler runs only async-signal-safe code
    errno = savedErrno
}

private func onResizeSignal(_ sig: Int32) {
    let savedErrno = errno
    var byte: UInt8 = 1
    let fd = SignalRouting.resizeWriteFD.load(ordering: .sequentiallyConsistent)
    if fd >= 0 { _ = write(fd, &byte, 1) } // direct: a signal handler runs only async-signal-safe code
    let previous = SignalRouting.previousResizeHandler.load(ordering: .sequentiallyConsistent)
    if previous != 0 {
        unsafeBitCast(previous, to: (@convention(c) (Int32) -> Void).self)(sig)
    }
    errno = savedErrno
}

private func onStopSignal(_ sig: Int32) {
    let savedErrno = errno
    let reporting = SignalRouting.mouseReporting.load(ordering: .sequentiallyConsistent)
    if reporting { SignalRouting.writeMouse(SignalRouting.mouseOff) }
    // ncurses's handler stops the process and returns once it is resumed.
    let previous = SignalRouting.previousStopHandler.load(ordering: .sequentiallyConsistent)
    if previous != 0 {
        unsafeBitCast(previous, to: (@convention(c) (Int32) -> Void).self)(sig)
    }
    if reporting { SignalRouting.writeMouse(SignalRouting.mouseOn) }
    errno = savedErrno
}
