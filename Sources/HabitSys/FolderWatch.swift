#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Tells when entries appear, change or go in a set of folders, through Linux inotify: one
/// descriptor, read when the kernel says it holds events (a Dispatch read source: nothing
/// polls). Each folder is watched itself, not what is below it; the caller adds folders as
/// they appear (`add`). Every event is reported on the watch's own queue, in order.
///
/// A watch only says that something changed; what changed is read again by whoever is told
/// (a sync round), so an event from a folder that is not what it seems costs a read, never
/// trust. A symbolic link is not followed as the last part of a path (`IN_DONT_FOLLOW`).
public final class FolderWatch: @unchecked Sendable {
    // @unchecked: every mutable field below is touched only on `queue`.

    /// Something happened in a watched folder: an entry `name` was made, written, moved or
    /// removed (`isFolder` when it is a folder), or (`overflow`) the kernel dropped events.
    public struct Event: Equatable, Sendable {
        public let folder: String
        public let name: String
        public let isFolder: Bool
        public let overflow: Bool
    }

    /// The most folders one watch holds (the kernel's per-user default is 8192 in all).
    public static let maxFolders = 1024

    private let fd: Int32
    private let queue = DispatchQueue(label: "habitto.folder-watch")
    private var source: (any DispatchSourceRead)?
    private var folders: [Int32: String] = [:]
    private var stopped = false
    private let onEvent: @Sendable (Event) -> Void

    /// A watch that reports to `onEvent` (on its own queue) until `stop`.
    public init(onEvent: @escaping @Sendable (Event) -> Void) throws(SysError) {
        self.onEvent = onEvent
        fd = try sysCall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.readEvents() }
        let fd = self.fd
        source.setCancelHandler { try? sysClose(fd) }
        self.source = source
        source.resume()
    }

    deinit { stop() }

    /// Watches the folder at `path` (a folder already watched is not added twice). Throws when
    /// it cannot be watched (gone, not a folder, a link, no permission, or `maxFolders`). With
    /// `modifications`, a write to a file that stays open (an append by a long-running
    /// process) is reported too, not only its close.
    public func add(_ path: String, modifications: Bool = false) throws(SysError) {
        let result: Result<Void, SysError> = queue.sync {
            guard !stopped else { return .success(()) }
            guard folders.count < Self.maxFolders else { return .failure(SysError(call: "inotify_add_watch", errno: ENOSPC)) }
            let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF)
                | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW) | UInt32(IN_EXCL_UNLINK) | (modifications ? UInt32(IN_MODIFY) : 0)
            do throws(SysError) {
                let wd = try sysCall("inotify_add_watch") { inotify_add_watch(fd, path, mask) }
                folders[wd] = path
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// The folders watched now.
    public var watched: Set<String> { queue.sync { Set(folders.values) } }

    /// Stops reporting and closes the descriptor; no event is reported after it returns.
    public func stop() {
        queue.sync {
            guard !stopped else { return }
            stopped = true
            source?.cancel()
            source = nil
        }
    }

    /// Reads what the kernel holds and reports each event (on `queue`).
    private func readEvents() {
        let size = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: size)
        while !stopped {
            let n: Int
            do {
                n = try sysCall("read") { buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, size) } }
            } catch {
                return // EAGAIN: nothing more now
            }
            guard n > 0 else { return }
            for event in Self.parse(buffer[0..<n]) {
                if event.mask & UInt32(IN_IGNORED) != 0 { folders[event.wd] = nil; continue }
                let overflow = event.mask & UInt32(IN_Q_OVERFLOW) != 0
                guard overflow || folders[event.wd] != nil else { continue }
                onEvent(Event(folder: folders[event.wd] ?? "", name: event.name,
                              isFolder: event.mask & UInt32(IN_ISDIR) != 0, overflow: overflow))
            }
        }
    }

    /// One record of what `read` gave: `struct inotify_event` (watch descriptor, mask,
    /// cookie, name length, then the name padded with NULs).
    struct Raw: Equatable {
        let wd: Int32
        let mask: UInt32
        let name: String
    }

    /// The records in `bytes`, a whole read's worth; a record cut short ends the list.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [Raw] {
        var out: [Raw] = []
        var i = bytes.startIndex
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while i + 16 <= bytes.endIndex {
            let wd = Int32(bitPattern: u32(i)), mask = u32(i + 4), length = Int(u32(i + 12))
            guard length <= bytes.endIndex - (i + 16) else { break }
            let nameBytes = bytes[(i + 16) ..< (i + 16 + length)].prefix { $0 != 0 }
            out.append(Raw(wd: wd, mask: mask, name: String(decoding: nameBytes, as: UTF8.self)))
            i += 16 + length
        }
        return out
    }
}
