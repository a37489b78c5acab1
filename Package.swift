// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "habitto",
    targets: [
        // Pure domain: types, the fold State = apply(ops), rules. No I/O, no clock reads.
        .target(name: "HabitCore", swiftSettings: strict),
        // Journal, snapshots, file lock, the repository actor, config, export.
        .target(name: "HabitStore", dependencies: ["HabitCore"], swiftSettings: strict),
        // The system ncursesw library; only the terminal driver may import it.
        .systemLibrary(name: "CNcursesw",
                       providers: [.apt(["libncurses-dev"])]),
        // Argument parsing and wiring only.
        .executableTarget(name: "habitto", dependencies: ["HabitCore", "HabitStore", "CNcursesw"],
                          swiftSettings: strict),
        .testTarget(name: "HabitCoreTests", dependencies: ["HabitCore"], swiftSettings: strict),
        .testTarget(name: "HabitStoreTests", dependencies: ["HabitCore", "HabitStore"], swiftSettings: strict),
        .testTarget(name: "HabittoCLITests", dependencies: ["habitto", "HabitCore", "HabitStore"],
                    swiftSettings: strict),
    ]
)
