// swift-tools-version:6.0
import PackageDescription
import Foundation

// Every flag is explained in build/README.md.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
// Generic metadata through accessors, not built from mangled names.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6),
                              .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
// -lcurl and -lxml2 resolved to the shared libraries Swift already needs.
let findLinkScripts: [LinkerSetting] = [.unsafeFlags(["-L", root + "/build/link-shared"])]
// habitto only: no exported symbols, the C++ library and the C compiler's runtime linked in.
let startsFast: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic", "-L", root + "/build/link-static",
                                                 "-Xclang-linker", "-static-libgcc"])]

let package = Package(
    name: "habitto",
    targets: [
        // Pure domain: types, the fold State = apply(ops), rules. No I/O, no clock reads.
        .target(name: "HabitCore", swiftSettings: strict),
        // The one system-call helper (`sysCall`: EINTR retried, failures as `SysError`). Its own
        // module, below everything that calls the C library, so that the modules that may not
        // depend on HabitStore (the UI, the terminal driver, the HTTP client, the test servers)
        // use the same one.
        .target(name: "HabitSys", swiftSettings: strict),
        // Journal, snapshots, file lock, the repository actor, config, export.
        .target(name: "HabitStore", dependencies: ["HabitCore", "HabitSys", "CRC32CInstruction"], swiftSettings: strict),
        // Readers of other trackers' files (legacy app, Loop, harsh, Habitto's JSON export)
        // that produce import plans, and the importer that writes a plan through the
        // repository. HabitStore gives them its system-call wrapper, outside programs (unzip)
        // and JSON parser.
        .target(name: "HabitImport", dependencies: ["HabitCore", "HabitStore"], swiftSettings: strict),
        // The processor's CRC-32C instruction, for HabitStore's checksums (C: Swift has no
        // way to name it).
        .target(name: "CRC32CInstruction"),
        // Sync: hybrid-logical-clock stamped operations pushed and pulled through a dumb
        // remote (a directory, later WebDAV), with a durable outbox cursor and backoff.
        .target(name: "HabitSync", dependencies: ["HabitCore", "HabitStore", "WebDAVWire"], swiftSettings: strict),
        // The framed protocol between the sync engine and habitto-webdav (pure Swift).
        .target(name: "WebDAVWire", swiftSettings: strict),
        // The HTTP client that habitto-webdav runs, over libcurl's easy interface.
        .target(name: "WebDAVClient", dependencies: ["WebDAVWire", "HabitSys", "CHTTPTransfer"], swiftSettings: strict),
        // libcurl's easy interface, declared by hand (no development package needed).
        .target(name: "CHTTPTransfer", linkerSettings: [.linkedLibrary("curl")] + findLinkScripts),
        // The WebDAV transport as its own process, so that habitto links no libcurl: the
        // sync engine starts it next to itself and talks to it over a pipe.
        .executableTarget(name: "habitto-webdav", dependencies: ["WebDAVClient"], swiftSettings: strict,
                          linkerSettings: findLinkScripts),
        // The terminal UI as pure code: state, actions, reducer, render into a screen
        // buffer, key map as data, themes. No C import.
        .target(name: "HabitTUI", dependencies: ["HabitCore", "HabitSys"], swiftSettings: strict),
        // The system ncursesw library; only HabitTerminal may import it.
        .systemLibrary(name: "CNcursesw",
                       providers: [.apt(["libncurses-dev"])]),
        // The terminal driver: draws a ScreenBuffer, reads keys, handles resize and signals.
        .target(name: "HabitTerminal", dependencies: ["HabitTUI", "HabitSys", "CNcursesw"], swiftSettings: strict),
        // The command line: one type per command (its spec and its run), the table built from
        // them, the parser, help, completions, man page and output. No terminal library: the
        // executable gives it the UI to open.
        .target(name: "HabittoCLI", dependencies: ["HabitCore", "HabitStore", "HabitImport", "HabitSync", "HabitTUI"],
                swiftSettings: strict),
        // Wiring only: the command line, and the full-screen UI it opens.
        .executableTarget(name: "habitto", dependencies: ["HabitCore", "HabitStore", "HabitSync", "HabitTUI", "HabitTerminal",
                                                         "HabittoCLI"],
                          swiftSettings: strict, linkerSettings: startsFast + findLinkScripts),
        // A real Apache mod_dav server on loopback, started and stopped by the WebDAV tests
        // and the benchmark (Foundation, and HabitSys for its system calls).
        .target(name: "WebDAVHarness", dependencies: ["HabitSys"], swiftSettings: strict),
        // The benchmark program: prints a Markdown table of figures and ratios.
        .executableTarget(name: "habitto-bench", dependencies: ["HabitCore", "HabitStore", "HabitSync", "WebDAVHarness"],
                          swiftSettings: strict, linkerSettings: findLinkScripts),
        // The sync tests' kit: devices (a repository and its engine in a temporary data
        // directory), folder remotes and faulty ones, servers (Apache, rclone, a fault proxy,
        // hostile ones), manual clocks, temporary roots, and the sandboxes that run the
        // binary with the command-line side's helpers. Built for testing (`--build-tests`).
        .target(name: "SyncTestKit", dependencies: ["HabitCore", "HabitStore", "HabitSync", "HabittoCLI", "WebDAVHarness",
                                                    "WebDAVWire"],
                path: "Tests/SyncTestKit", swiftSettings: strict),
        .testTarget(name: "HabitCoreTests", dependencies: ["HabitCore"], swiftSettings: strict),
        // Also the importer, for reminders carried through an export and an import.
        .testTarget(name: "HabitStoreTests", dependencies: ["HabitCore", "HabitSys", "HabitStore", "HabitImport", "CRC32CInstruction"],
                    swiftSettings: strict),
        .testTarget(name: "HabitImportTests", dependencies: ["HabitCore", "HabitStore", "HabitImport"], swiftSettings: strict),
        .testTarget(name: "HabitSyncTests", dependencies: ["HabitCore", "HabitStore", "HabitImport", "HabitSync", "WebDAVClient",
                                                           "WebDAVHarness", "CHTTPTransfer", "SyncTestKit"], swiftSettings: strict),
        // Seeded fuzzing of every decoder of outside bytes (HABITTO_FUZZ_SEED, HABITTO_FUZZ_FACTOR).
        .testTarget(name: "HabitFuzzTests", dependencies: ["HabitCore", "HabitStore", "HabitImport", "HabitSync", "WebDAVWire",
                                                           "WebDAVClient"], swiftSettings: strict),
        .testTarget(name: "HabitTUITests", dependencies: ["HabitTUI", "HabitCore"], exclude: ["Snapshots"],
                    swiftSettings: strict),
        // The command line's generators (completion scripts, man page) given other command
        // tables, and its pure parts.
        .testTarget(name: "HabittoTests", dependencies: ["HabittoCLI", "HabitCore"], swiftSettings: strict),
        // Runs the habitto binary as a process (built with everything by `swift build`), or a
        // command in process against HabittoCLI (`Sandbox(inProcess: true)`).
        // HabitTUI too: a test compares what `list` prints with the today screen's rows.
        .testTarget(name: "HabittoCLITests", dependencies: ["HabitCore", "HabitStore", "HabittoCLI", "HabitTUI", "WebDAVHarness",
                                                            "WebDAVWire", "SyncTestKit"],
                    swiftSettings: strict),
    ]
)
