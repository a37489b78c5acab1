import FoundationEssentials
import HabitCore
import HabitStore
import HabitSync
import HabitTUI

/// `habitto status --short`: one short line for a shell prompt or a status bar
/// (`✓3/5 ↑2`). It reads the snapshot's index and one day of each habit (a week for an
/// N-per-week habit), and the sync state file when a remote is set; it never syncs, never
/// touches the network and creates nothing when there is no data yet.
struct Segment {
    /// What a segment shows (what its cache keeps).
    typealias Values = SegmentCache.Entry

    /// How long the segment waits for a lock another process holds, in seconds: a shell
    /// prompt must not be held up (`statusShort`).
    static let lockWait = 0.04

    /// The format used without `--format`: the done glyph, done/due, then the sync part.
    static let defaultFormat = "%g%d/%t%S"

    /// The placeholders of `--format`, with what they mean (for the help and the man page).
    static let placeholders: [(String, String)] = [
        ("%d", "habits done today"), ("%t", "habits due today (not skipped)"),
        ("%q", "operations waiting to be sent (0 without a remote)"),
        ("%s", "sync glyph: ↑ waiting, ! last sync failed, ✓ all sent, nothing without a remote"),
        ("%S", "sync part: a space, then ↑N while N wait and ! when the last sync failed; nothing otherwise"),
        ("%g", "the done glyph (✓, + in ASCII)"), ("%%", "a %"),
    ]

    /// Expands `format` (a `CLIError.usage` for an unknown placeholder or a lone `%` at the end).
    static func render(_ format: String, _ v: Values, glyphs: Glyphs) throws -> String {
        var out = ""
        var it = format.makeIterator()
        while let c = it.next() {
            guard c == "%" else { out.append(c); continue }
            guard let p = it.next() else {
                throw CLIError.usage(.formatLonePercent)
            }
            switch p {
            case "d": out += String(v.done)
            case "t": out += String(v.due)
            case "q": out += String(v.queue ?? 0)
            case "g": out += glyphs.done
            case "s": out += syncGlyph(v, glyphs)
            case "S":
                var part = ""
                if let q = v.queue, q > 0 { part += glyphs.syncPending + String(q) }
                if v.failed { part += glyphs.syncFailed }
                out += part.isEmpty ? "" : " " + part
            case "%": out += "%"
            default:
                throw CLIError.usage(.unknownPlaceholder(p, known: placeholders.map(\.0)))
            }
        }
        return out
    }

    static func syncGlyph(_ v: Values, _ g: Glyphs) -> String {
        guard let q = v.queue else { return "" }
        if v.failed { return g.syncFailed }
        return q > 0 ? g.syncPending : g.syncSynced
    }
}

extension Segment {
    /// The checks of `status --short`/`--format` that need no data: --json refused, the
    /// format checked before anything is read so that a typo fails fast. The format to use.
    static func format(_ invocation: Invocation) throws -> String {
        if invocation.flag(.json) { throw CLIError.usage(.jsonWithOneLine) }
        let format = invocation.value(.format) ?? defaultFormat
        _ = try render(format, Values(), glyphs: Output.glyphs)
        return format
    }

    static func wanted(_ invocation: Invocation) -> Bool {
        invocation.command == .status && (invocation.flag(.short) || invocation.value(.format) != nil)
            && !invocation.flag(.waybar) && !invocation.flag(.i3blocks) && !invocation.flag(.watch)
    }

    /// The segment's line from the cache (`SegmentCache`), read synchronously before the
    /// async runtime starts anything: nil when it is not a segment command or the cache
    /// does not hold the count for the data, the day and the week start of now.
    static func cachedLine(env: AppEnvironment, invocation: Invocation) throws -> String? {
        guard wanted(invocation) else { return nil }
        let format = try format(invocation)
        let paths = DataPaths(directory: env.home)
        guard let key = SegmentCache.Key.current(paths: paths, day: env.today, weekStart: env.config.rules.weekStart),
              let entry = SegmentCache.read(paths, key: key) else { return nil }
        return line(format, entry)
    }

    static func line(_ format: String, _ values: Values) -> String {
        // The format was checked: rendering cannot fail.
        let line = (try? render(format, values, glyphs: Output.glyphs)) ?? ""
        return Output.ascii ? ASCIIText.fold(line) : line
    }
}

extension StatusCommand {
    /// The values of the segment, read without writing the data (no data directory yet: all
    /// zero), then kept in the segment's cache when the read met no damage.
    @MainActor func segmentValues() async throws -> Segment.Values {
        let paths = DataPaths(directory: env.home)
        // The key is taken before anything is read: what changes meanwhile makes it stale.
        guard let key = SegmentCache.Key.current(paths: paths, day: today, weekStart: settings.weekStart) else {
            return Segment.Values()
        }
        let repo = try openRepository()
        let tally = await repo.state.tally(on: today, settings: settings)
        var values = Segment.Values(done: tally.done, due: tally.due)
        if FileManager.default.fileExists(atPath: paths.directory + "/remote")
            || FileManager.default.fileExists(atPath: paths.directory + "/sync.json") {
            let st = await (try engine(repo)).status()
            if st.remote != nil {
                values.queue = st.pending
                values.failed = st.mode == .failed || st.mode == .unreachable
            }
        }
        // A count that met damage is not kept, so that its warning is shown again next time.
        if repo.openingWarnings.isEmpty && repo.warnings.isEmpty {
            SegmentCache.write(paths, key: key, entry: values)
        }
        return values
    }

    /// `status --short` and `status --format FORMAT`, when the cache did not answer. A lock
    /// another process holds is waited for at most `Segment.lockWait`; then the line is left
    /// out (nothing printed, exit 0): a prompt is never held up.
    @MainActor func statusShort() async throws {
        let format = try Segment.format(invocation)
        Sys.lockWait = Segment.lockWait
        let values: Segment.Values
        do { values = try await segmentValues() } catch let e as StoreError where e.isLockBusy { return }
        Output.line(Segment.line(format, values))
    }
}
