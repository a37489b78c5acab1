import Foundation
#if canImport(Glibc)
import Glibc
import HabitStore
#endif

// habitto-bench [--quick] [--habitto PATH]: prepares its own data sets in a temporary
// folder and prints a Markdown table of figures and ratios (docs/performance.md).

func benchMain() async -> Int32 {
    var quick = false
    var habitto: String?
    var makeSet: String?
    var only: String?
    var args = Array(CommandLine.arguments.dropFirst())
    while !args.isEmpty {
        let a = args.removeFirst()
        switch a {
        case "--quick": quick = true
        case "--habitto":
            guard !args.isEmpty else { FileHandle.standardError.write(Data("habitto-bench: --habitto needs a path\n".utf8)); return 2 }
            habitto = args.removeFirst()
        case "--make-data-set":
            guard !args.isEmpty else { FileHandle.standardError.write(Data("habitto-bench: --make-data-set needs a folder\n".utf8)); return 2 }
            makeSet = args.removeFirst()
        case "--only":
            guard !args.isEmpty else { FileHandle.standardError.write(Data("habitto-bench: --only needs a part (remote, encryption or live)\n".utf8)); return 2 }
            only = args.removeFirst()
            guard ["remote", "encryption", "live"].contains(only) else {
                FileHandle.standardError.write(Data("habitto-bench: unknown part '\(only ?? "")' for --only; use remote, encryption or live\n".utf8)); return 2
            }
        case "-h", "--help":
            print("Usage: habitto-bench [--quick] [--habitto PATH]\n\n--quick     small data sets and few runs, no goals judged (CI)\n--habitto   the habitto binary to measure (default: the one next to this program)\n--make-data-set DIR   only write the ten-year data set (100 habits) into DIR, for profiling\n--only remote   only measure a remote over time (Apache on loopback)\n--only encryption   only measure a sync round with and without encryption (folder remote)\n--only live   only measure live sync: propagation to an open UI (folder remote, Apache) and an open UI's traffic")
            return 0
        default:
            FileHandle.standardError.write(Data("habitto-bench: unknown argument '\(a)'; see --help\n".utf8))
            return 2
        }
    }
    let binary = habitto ?? (URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path + "/habitto")
    guard Sys.canAccess(binary, X_OK) else {
        FileHandle.standardError.write(Data("habitto-bench: no habitto binary at \(binary); build it (swift build -c release) or pass --habitto PATH\n".utf8))
        return 2
    }
    do {
        if let makeSet {
            let bench = try Bench(quick: quick, habitto: binary)
            let (dir, ops) = try await bench.dataSet("years", habits: 100, days: Bench.yearsDays)
            try FileManager.default.moveItem(atPath: dir, toPath: makeSet)
            print("\(ops) operations in \(makeSet)")
            return 0
        }
        let bench = try Bench(quick: quick, habitto: binary)
        FileHandle.standardError.write(Data("habitto-bench\(quick ? " --quick" : ""): measuring \(binary) in \(bench.root)\n".utf8))
        if let only {
            switch only {
            case "remote": try await bench.remoteGrowth()
            case "encryption": try await bench.encryptionCost()
            default: try bench.propagation()
            }
            print(bench.table(), terminator: "")
            return 0
        }
        try await bench.checkInCost()
        let years = try await bench.coldStart()
        try bench.charts(on: years, habits: quick ? 10 : 100)
        try await bench.localWrite(on: years)
        try await bench.sync(fullSet: years)
        try await bench.remoteGrowth()
        try await bench.encryptionCost()
        try bench.propagation()
        try await bench.taskwarrior()
        print(bench.table(), terminator: "")
        return 0
    } catch {
        FileHandle.standardError.write(Data("habitto-bench: \(error)\n".utf8))
        return 1
    }
}

exit(await benchMain())
