import Foundation
import HabitCore
import HabitStore
import HabitSync
import HabitTUI

/// `habitto status --short`: one short line for a shell prompt or a status bar
/// (`✓3/5 ↑2`). It reads the snapshot's index and one day of each habit (a week for an
/// N-per-week habit), and the sync state file when a remote is set; it never syncs, never
/// touches the network and creates nothing when there is no data yet.
struct Segment {
    /// What a segment shows.
    struct Values: Equatable {
        var done = 0
        var due = 0
        /// nil without a remote.
        var queue: Int?
        var failed = false
    }

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
                throw CLIError.usage("--format ends with a lone %: write %% for a percent sign")
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
                let known = placeholders.map(\.0).joined(separator: " ")
                throw CLIError.usage("unknown placeholder '%\(Sanitize.display(String(p)))' in --format: use \(known)")
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

extension Runner {
    /// The values of the segment, read without writing (no data directory yet: all zero).
    func segmentValues() async throws -> Segment.Values {
        let paths = DataPaths(directory: env.home)
        guard FileManager.default.fileExists(atPath: paths.journal) else { return Segment.Values() }
        let repo = try openRepository()
        let tally = await repo.state.tally(on: today, settings: settings)
        var values = Segment.Values(done: tally.done, due: tally.due)
        guard FileManager.default.fileExists(atPath: paths.directory + "/remote")
                || FileManager.default.fileExists(atPath: paths.directory + "/sync.json") else { return values }
        let st = await (try engine(repo)).status()
        guard st.remote != nil else { return values }
        values.queue = st.pending
        values.failed = st.mode == .failed || st.mode == .unreachable
        return values
    }

    /// `status --short` and `status --format FORMAT`.
    func statusShort() async throws {
        if invocation.has("--json") { throw CLIError.usage("--short and --format print one line; leave out --json") }
        let format = invocation.value("--format") ?? Segment.defaultFormat
        // The format is checked before anything is read, so a typo fails fast.
        _ = try Segment.render(format, Segment.Values(), glyphs: Output.glyphs)
        let line = try Segment.render(format, try await segmentValues(), glyphs: Output.glyphs)
        Output.line(Output.ascii ? ASCIIText.fold(line) : line)
    }
}
