/// The versions of the formats this release writes in the data directory (`--version`).
public enum StoreFormats {
    public static var journal: Int { Journal.formatVersion }
    public static var snapshot: Int { Snapshot.formatVersion }
    public static var backup: Int { Backups.formatVersion }
}
