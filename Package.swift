// swift-tools-version:6.0
import PackageDescription
import Foundation

// A generic type's metadata (a `[HabitID: Entry]`, a `Set<LocalDay>`) is reached through
// its accessor rather than built from its mangled name: building from the name demangles it
// and finds each conformance by scanning every conformance record of the binary, which cost
// every command about 0.3 ms at its first use of each such type (README, Performance).
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6),
                              .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

// A release build meant to be installed (and the one the benchmark measures) links the
// Swift runtime and Foundation statically:
// `swift build -c release --static-swift-stdlib --disable-local-rpath` (the last flag leaves
// out the $ORIGIN library path, which made the loader look for libm and libc in a dozen
// folders next to the binary at every start).
// Binding their symbols at every start is most of a short command's time (see the
// README's Performance). The static FoundationNetworking and FoundationXML (only in
// habitto-webdav) ask the linker for -lcurl and -lxml2:
// Sources/habitto/Link holds linker scripts that resolve those to
// the shared libraries already on any machine that runs Swift's Foundation, so that no
// development package is needed. A build without the flag ignores them.
let linkScripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Sources/habitto/Link"
let findLinkScripts: [LinkerSetting] = [.unsafeFlags(["-L", linkScripts])]
// For `habitto` only, three more start-up costs of that build (README, Performance):
// - its link arguments export every public symbol of the program's own modules (4,200 of
//   them), and the runtime's start-up looks through them all to find the program's path;
//   nothing loads `habitto`'s symbols by name;
// - they link the C++ library (the runtime is C++) as a shared library, loaded and bound
//   at every start: Sources/habitto/LinkStatic resolves -lstdc++ to the static archive.
//   (habitto-webdav keeps the shared one, which libxml2's ICU loads anyway.)
// - the C compiler's runtime (libgcc_s) is a shared library too, and its constructor runs a
//   dozen CPUID instructions at every start (each traps to the hypervisor in a virtual
//   machine): -static-libgcc links the few routines habitto needs instead.
let linkStatic = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Sources/habitto/LinkStatic"
let startsFast: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic", "-L", linkStatic, "-Xclang-linker", "-static-libgcc"])]

let package = Package(
    name: "habitto",
    targets: [
        // Pure domain: types, the fold State = apply(ops), rules. No I/O, no clock reads.
        .target(name: "HabitCore", swiftSettings: strict),
        // Journal, snapshots, file lock, the repository actor, config, export.
        .target(name: "HabitStore", dependencies: ["HabitCore", "CRC32CInstruction"], swiftSettings: strict),
        // The processor's CRC-32C instruction, for HabitStore's checksums (C: Swift has no
        // way to name it).
        .target(name: "CRC32CInstruction"),
        // Sync: hybrid-logical-clock stamped operations pushed and pulled through a dumb
        // remote (a directory, later WebDAV), with a durable outbox cursor and backoff.
        .target(name: "HabitSync", dependencies: ["HabitCore", "HabitStore", "WebDAVWire"], swiftSettings: strict),
        // The framed protocol between the sync engine and habitto-webdav (pure Swift).
        .target(name: "WebDAVWire", swiftSettings: strict),
        // The HTTP client that habitto-webdav runs, over libcurl's easy interface.
        .target(name: "WebDAVClient", dependencies: ["WebDAVWire", "CHTTPTransfer"], swiftSettings: strict),
        // libcurl's easy interface, declared by hand (no development package needed); -lcurl
        // resolves through the linker script in Sources/habitto/Link.
        .target(name: "CHTTPTransfer", linkerSettings: [.linkedLibrary("curl")] + findLinkScripts),
        // The WebDAV transport as its own process, so that habitto links no libcurl: the
        // sync engine starts it next to itself and talks to it over a pipe.
        .executableTarget(name: "habitto-webdav", dependencies: ["WebDAVClient"], swiftSettings: strict,
                          linkerSettings: findLinkScripts),
        // The terminal UI as pure code: state, actions, reducer, render into a screen
        // buffer, key map as data, themes. No C import.
        .target(name: "HabitTUI", dependencies: ["HabitCore"], swiftSettings: strict),
        // The system ncursesw library; only HabitTerminal may import it.
        .systemLibrary(name: "CNcursesw",
                       providers: [.apt(["libncurses-dev"])]),
        // The terminal driver: draws a ScreenBuffer, reads keys, handles resize and signals.
        .target(name: "HabitTerminal", dependencies: ["HabitTUI", "CNcursesw"], swiftSettings: strict),
        // Argument parsing and wiring only.
        .executableTarget(name: "habitto", dependencies: ["HabitCore", "HabitStore", "HabitSync", "HabitTUI", "HabitTerminal"],
                          exclude: ["Link", "LinkStatic"], swiftSettings: strict, linkerSettings: startsFast + findLinkScripts),
        // A real Apache mod_dav server on loopback, started and stopped by the WebDAV tests
        // and the benchmark (Foundation only).
        .target(name: "WebDAVHarness", swiftSettings: strict),
        // The benchmark program: prints a Markdown table of figures and ratios.
        .executableTarget(name: "habitto-bench", dependencies: ["HabitCore", "HabitStore", "HabitSync", "WebDAVHarness"],
                          swiftSettings: strict, linkerSettings: findLinkScripts),
        .testTarget(name: "HabitCoreTests", dependencies: ["HabitCore"], swiftSettings: strict),
        .testTarget(name: "HabitStoreTests", dependencies: ["HabitCore", "HabitStore", "CRC32CInstruction"], swiftSettings: strict),
        .testTarget(name: "HabitSyncTests", dependencies: ["HabitCore", "HabitStore", "HabitSync", "WebDAVClient", "CHTTPTransfer"], swiftSettings: strict),
        // Seeded fuzzing of every decoder of outside bytes (HABITTO_FUZZ_SEED, HABITTO_FUZZ_FACTOR).
        .testTarget(name: "HabitFuzzTests", dependencies: ["HabitCore", "HabitStore", "HabitSync", "WebDAVWire", "WebDAVClient"], swiftSettings: strict),
        .testTarget(name: "HabitTUITests", dependencies: ["HabitTUI", "HabitCore"], exclude: ["Snapshots"],
                    swiftSettings: strict),
        // The habitto executable's generators (completion scripts, man page) given other
        // command tables.
        .testTarget(name: "HabittoTests", dependencies: ["habitto", "HabitCore"], swiftSettings: strict),
        // Runs the habitto binary as a process (built with everything by `swift build`).
        .testTarget(name: "HabittoCLITests", dependencies: ["HabitCore", "HabitStore", "WebDAVHarness", "WebDAVWire"],
                    swiftSettings: strict),
    ]
)
