import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// How a read of the journal ended.
public enum JournalEnd: Equatable, Sendable {
    /// Every byte belongs to a valid record.
    case clean
    /// A bad or partial record at `offset` with nothing valid after it: a write torn by
    /// a crash (or, when reading without the lock, a write still in progress).
    case torn(offset: Int)
    /// A bad record at `offset` followed by valid records: corruption in the middle.
    case corrupt(offset: Int, detail: String)
}

/// One record as read: where it starts and its payload.
public struct JournalRecord: Sendable {
    public let offset: Int
    public let payload: [UInt8]
}

/// The append-only journal file: a header, then records `[length][crc(length)][crc(payload)][payload]`
/// (little-endian UInt32s, CRC-32C). A record is acknowledged only after fsync returns.
/// Not thread-safe: owned by one repository, and appends happen under the directory lock.
public final class Journal {
    public static let magic = Array("HABITTO-JOURNAL\u{1}".utf8) // 16 bytes
    /// The version of the journal format written (its magic's last byte).
    public static var formatVersion: Int { Int(magic[magic.count - 1]) }
    public static let headerSize = magic.count
    public static let frameOverhead = 12
    public static let maxRecord = 64 << 20

    public let path: String
    let fd: Int32
    let io: FileIO
    /// The offset just past the last record this object has read or written.
    public private(set) var endOffset: Int
    /// Set when the file could only be opened for reading (read-only file system or
    /// permissions): the errno that refused writing, reported by every append.
    public let readOnlyReason: Int32?

    /// Opens (creating when missing) the journal. Call with the directory lock held when
    /// the file may need to be created.
    public init(path: String, io: FileIO = .live) throws {
        self.path = path
        self.io = io
        var reason: Int32?
        do {
            // Never waits: a FIFO in the journal's place is refused below, not waited on.
            fd = try Sys.open(path, O_RDWR | O_CREAT | O_NONBLOCK)
        } catch StoreError.io(_, _, let e) where e == EROFS || e == EACCES || e == EPERM {
            guard FileManager.default.fileExists(atPath: path) else { throw StoreError.io(operation: "create", path: path, errno: e) }
            fd = try Sys.open(path, O_RDONLY | O_NONBLOCK)
            reason = e
        }
        readOnlyReason = reason
        let st = try Sys.status(fd, path: path)
        guard st.st_mode & S_IFMT == S_IFREG else {
            Sys.close(fd)
            throw StoreError.unreadable(path: path, detail: "is \(Sys.kind(st.st_mode)), not a regular file; move it out of the data directory (Habitto's journal is a file)")
        }
        do {
            let size = try Sys.size(fd, path: path)
            if size == 0 {
                if let reason { throw StoreError.io(operation: "write", path: path, errno: reason) }
                try io.write(fd, Journal.magic, 0, path)
                try io.sync(fd, path)
                try Sys.syncDirectory(path.pathParent)
            } else {
                let head = try Sys.pread(fd, count: Journal.headerSize, offset: 0, path: path)
                guard head == Journal.magic else {
                    if head.count < Journal.headerSize && Journal.magic.starts(with: head) && reason == nil {
                        // The header itself was torn on creation: nothing was ever acknowledged.
                        try Sys.ftruncate(fd, 0, path: path)
                        try io.write(fd, Journal.magic, 0, path)
                        try io.sync(fd, path)
                        endOffset = Journal.headerSize
                        return
                    }
                    throw StoreError.unreadable(path: path, detail: "is not a Habitto journal (unknown header); move it away or use another --home")
                }
            }
        } catch {
            Sys.close(fd)
            throw error
        }
        endOffset = Journal.headerSize
    }

    deinit { Sys.close(fd) }

    /// Frames a payload as a record.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: payload.count + frameOverhead)
        w.u32le(UInt32(payload.count))
        w.u32le(CRC32C.checksum(w.bytes))
        w.u32le(CRC32C.checksum(payload))
        return w.bytes + payload
    }

    /// Reads every complete record from `offset` to the end of the file.
    public func read(from offset: Int) throws -> (records: [JournalRecord], end: Int, status: JournalEnd) {
        let size = try Sys.size(fd, path: path)
        guard size > offset else { return ([], offset, .clean) }
        let bytes = try Sys.pread(fd, count: size - offset, offset: offset, path: path)
        return Journal.scan(bytes, base: offset)
    }

    /// Calls `body` with each record from `start` up to `end` (both record boundaries that a
    /// fold has already read and checked), oldest first, until it returns false. The file
    /// is read a window at a time (a larger record is read whole), so memory stays near
    /// the window's size however long the journal is.
    public func forEachRecord(from start: Int, to end: Int, window: Int = 1 << 20,
                              _ body: (JournalRecord) throws -> Bool) throws {
        func damaged(_ at: Int) -> StoreError {
            StoreError.corrupt(path: path, offset: at, detail: "a record read before no longer checks (changed on disk?); run 'habitto doctor'")
        }
        let window = max(window, Journal.frameOverhead)
        var offset = start
        var size = window
        while offset < end {
            let bytes = try Sys.pread(fd, count: min(end - offset, size), offset: offset, path: path)
            var pos = 0
            while pos + Journal.frameOverhead <= bytes.count {
                let len = Int(Journal.u32le(bytes, pos))
                guard len <= Journal.maxRecord else { throw damaged(offset + pos) }
                guard pos + Journal.frameOverhead + len <= bytes.count else { break }
                guard case .success = Journal.recordLength(bytes, at: pos) else { throw damaged(offset + pos) }
                let payload = Array(bytes[(pos + Journal.frameOverhead)..<(pos + Journal.frameOverhead + len)])
                guard try body(JournalRecord(offset: offset + pos, payload: payload)) else { return }
                pos += Journal.frameOverhead + len
            }
            if pos == 0 {
                // The next record does not fit in the window: read exactly that record.
                guard bytes.count >= Journal.frameOverhead, size < Journal.frameOverhead + Int(Journal.u32le(bytes, 0)) else {
                    throw damaged(offset)
                }
                size = Journal.frameOverhead + Int(Journal.u32le(bytes, 0))
                continue
            }
            offset += pos
            size = window
        }
    }

    /// Calls `body` with each record that ends at or before `end` (a record boundary that a
    /// fold has already read and checked), newest first, down to `start` (another boundary,
    /// `headerSize` for the whole journal), until it returns false. Records carry no link
    /// backwards, so each one is found by its frame: the latest position before the known
    /// boundary whose length (checked by its own CRC) ends exactly at that boundary and whose
    /// payload passes its CRC. The file is read a window at a time from the end (a larger
    /// record widens the window), so a few records cost a few windows however long the
    /// journal is. Returns the bytes read.
    @discardableResult
    public func forEachRecordBackward(from end: Int, to start: Int = Journal.headerSize, window: Int = 16 << 10,
                                      _ body: (JournalRecord) throws -> Bool) throws -> Int {
        var boundary = end
        var read = 0
        // The file's bytes from `held` up to `boundary`.
        var bytes: [UInt8] = []
        var held = boundary
        var size = max(window, Journal.frameOverhead)
        while boundary > start {
            // The latest frame that ends exactly at the boundary.
            var found: Int?
            var pos = bytes.count - Journal.frameOverhead
            while pos >= 0 {
                if Int(Journal.u32le(bytes, pos)) == bytes.count - pos - Journal.frameOverhead,
                   case .success = Journal.recordLength(bytes, at: pos) {
                    found = pos
                    break
                }
                pos -= 1
            }
            guard let at = found else {
                guard held > start, boundary - held <= Journal.maxRecord + Journal.frameOverhead else {
                    throw StoreError.corrupt(path: path, offset: held,
                                             detail: "no record ends at offset \(boundary) (changed on disk?); run 'habitto doctor'")
                }
                // Read further back: a record longer than what is held, or nothing held yet.
                let from = max(start, held - size)
                bytes = try Sys.pread(fd, count: held - from, offset: from, path: path) + bytes
                read += held - from
                held = from
                size = min(size * 2, Journal.maxRecord + Journal.frameOverhead)
                continue
            }
            let payload = Array(bytes[(at + Journal.frameOverhead)...])
            bytes.removeLast(bytes.count - at)
            boundary = held + at
            size = max(window, Journal.frameOverhead)
            guard try body(JournalRecord(offset: boundary, payload: payload)) else { return read }
        }
        return read
    }

    static func u32le(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    /// Splits bytes (which start at file offset `base`) into valid records.
    public static func scan(_ bytes: [UInt8], base: Int) -> (records: [JournalRecord], end: Int, status: JournalEnd) {
        var records: [JournalRecord] = []
        var pos = 0
        while pos < bytes.count {
            switch recordLength(bytes, at: pos) {
            case .success(let len):
                records.append(JournalRecord(offset: base + pos,
                                             payload: Array(bytes[(pos + frameOverhead)..<(pos + frameOverhead + len)])))
                pos += frameOverhead + len
            case .failure(let problem):
                // Anything valid after the bad spot means corruption, not a torn tail.
                var q = pos + 1
                while q + frameOverhead <= bytes.count {
                    if case .success = recordLength(bytes, at: q) {
                        return (records, base + pos, .corrupt(offset: base + pos, detail: problem.message))
                    }
                    q += 1
                }
                return (records, base + pos, .torn(offset: base + pos))
            }
        }
        return (records, base + pos, .clean)
    }

    struct Problem: Error { let message: String }

    /// The payload length of a valid record at `pos`, or why there is none.
    static func recordLength(_ b: [UInt8], at pos: Int) -> Result<Int, Problem> {
        guard pos + frameOverhead <= b.count else { return .failure(Problem(message: "partial record header")) }
        func u32(_ i: Int) -> UInt32 {
            UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        }
        let len = Int(u32(pos))
        guard CRC32C.checksum(b, pos..<(pos + 4)) == u32(pos + 4), len <= maxRecord else {
            return .failure(Problem(message: "bad record length"))
        }
        guard pos + frameOverhead + len <= b.count else { return .failure(Problem(message: "record cut short")) }
        guard CRC32C.checksum(b, (pos + frameOverhead)..<(pos + frameOverhead + len)) == u32(pos + 8) else {
            return .failure(Problem(message: "checksum mismatch"))
        }
        return .success(len)
    }

    /// Moves the read position forward after records were read by `read(from:)`.
    public func advance(to offset: Int) { endOffset = offset }

    /// Cuts the file back to `offset` (a torn tail) durably. Only with the lock held.
    public func truncate(to offset: Int) throws {
        if let readOnlyReason { throw StoreError.io(operation: "truncate", path: path, errno: readOnlyReason) }
        try Sys.ftruncate(fd, offset, path: path)
        try io.sync(fd, path)
        endOffset = offset
    }

    /// Appends one record at `endOffset` and fsyncs. On any failure the file is cut back
    /// to its previous length (best effort) and the error is thrown: nothing is acknowledged.
    /// Only with the lock held and after reading up to the end of the file.
    @discardableResult
    public func append(_ payload: [UInt8]) throws -> Int {
        if let readOnlyReason { throw StoreError.io(operation: "write", path: path, errno: readOnlyReason) }
        let start = endOffset
        do {
            try io.write(fd, Journal.frame(payload), start, path)
            try io.sync(fd, path)
        } catch {
            try? Sys.ftruncate(fd, start, path: path)
            throw error
        }
        endOffset = start + Journal.frameOverhead + payload.count
        return start
    }

    /// The payload checksum stored in the header of the record at `offset`, with its length.
    public func header(at offset: Int) throws -> (length: Int, crc: UInt32)? {
        let h = try Sys.pread(fd, count: Journal.frameOverhead, offset: offset, path: path)
        guard h.count == Journal.frameOverhead else { return nil }
        var r = ByteReader(h)
        let len = try r.u32le(); _ = try r.u32le()
        return (Int(len), try r.u32le())
    }

    /// The current file size.
    public func fileSize() throws -> Int { try Sys.size(fd, path: path) }
}
