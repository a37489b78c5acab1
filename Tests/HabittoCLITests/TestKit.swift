// `Sandbox` (a data and config directory, and a way to run the binary or a command in this
// process on it) and the sync tests' helpers live in the sync test kit (Tests/SyncTestKit);
// every file of this target sees them.
@_exported import SyncTestKit
