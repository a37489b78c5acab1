import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HabitCore
import HabitStore
import HabitSync
import HabitSys

/// Where data and config live, what time it is, and the settings in force.
public struct AppEnvironment: Sendable {
    public let home: String
    public let configPath: String
    public let config: Config
    /// The instant "now" for this run (HABITTO_NOW or the system clock).
    public let now: Date
    public let clock: @Sendable () -> Date
    public init(home: String, configPath: String, config: Config, now: Date, clock: @escaping @Sendable () -> Date) {
        self.home = home; self.configPath = configPath; self.config = config; self.now = now; self.clock = clock
    }

    public var today: LocalDay { Self.localDay(now, dayStartHour: config.dayStartHour) }

    /// The local day holding `instant`, shifted by `dayStartHour`, in the process's time zone
    /// (`TZ`, else /etc/localtime, as `TimeZone.current`), through the C library's
    /// `localtime_r`: microseconds, where a Foundation `Calendar` costs about 2 ms at its
    /// first use, a fifth of a short command's start (see docs/performance.md).
    public static func localDay(_ instant: Date, dayStartHour: Int) -> LocalDay {
        var t = time_t(instant.timeIntervalSince1970.rounded(.down)), parts = tm()
        guard localtime_r(&t, &parts) != nil,
              let day = LocalDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday)) else {
            // Out of the C library's range: the day in UTC.
            return LocalDay(ordinal: Int((instant.timeIntervalSince1970 / 86_400).rounded(.down)))
        }
        return Int(parts.tm_hour) < dayStartHour ? day.adding(-1) : day
    }

    /// The instant of a local date and clock time (minutes after midnight) in the process's
    /// time zone, through the C library's `mktime` (`TZ`, else /etc/localtime): Foundation's
    /// time zones need ICU's data, which `habitto` does not link (docs/architecture.md). A
    /// time that a daylight-saving change skips is taken as in the offset before the change
    /// (02:30 on a spring-forward night is 03:30), as a Foundation `Calendar` takes it.
    static func localInstant(_ day: LocalDay, _ minutes: Int) -> Date? {
        var parts = clockTime(day, hour: minutes / 60, minute: minutes % 60, second: 0)
        let t = mktime(&parts)
        return t == -1 && parts.tm_year != 69 ? nil : Date(timeIntervalSince1970: Double(t))
    }

    /// A date and clock time as the C library's broken-down time, daylight saving left for
    /// `mktime` to find.
    static func clockTime(_ day: LocalDay, hour: Int, minute: Int, second: Int) -> tm {
        let c = day.components
        var parts = tm()
        parts.tm_year = Int32(c.year - 1900); parts.tm_mon = Int32(c.month - 1); parts.tm_mday = Int32(c.day)
        parts.tm_hour = Int32(hour); parts.tm_min = Int32(minute); parts.tm_sec = Int32(second)
        parts.tm_isdst = -1
        return parts
    }

    /// With `configProblemsAllowed` (the doctor, which reports them itself), an invalid
    /// config file, or one that is not used (`LocalTrust`), means the defaults rather than an error.
    static func resolve(home flag: String?, env: (String) -> String?, configProblemsAllowed: Bool = false) throws -> AppEnvironment {
        // Looked up (in the password database when HOME is unset) only when a path needs it.
        var knownHome: String?
        var userHome: String {
            if let knownHome { return knownHome }
            let h = env("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? ProcessEnvironment.homeDirectory
            knownHome = h
            return h
        }
        func nonEmpty(_ k: String) -> String? { env(k).flatMap { $0.isEmpty ? nil : $0 } }
        var home = flag ?? nonEmpty("HABITTO_HOME")
            ?? ((nonEmpty("XDG_DATA_HOME") ?? userHome + "/.local/share") + "/habitto")
        if home.isEmpty { throw CLIError.usage(.homeNeedsDirectory) }
        if home.hasPrefix("~/") { home = userHome + home.dropFirst() }
        if !home.hasPrefix("/") { home = FileManager.default.currentDirectoryPath + "/" + home }
        do { try TimeLimits.start(env(TimeLimits.variable)) } catch { throw CLIError.usage(.timeLimits(error)) }
        let configDir = (nonEmpty("XDG_CONFIG_HOME") ?? userHome + "/.config") + "/habitto"
        let configPath = configDir + "/config"
        let config: Config
        do { config = try Config.load(path: configPath) } catch let e as StoreError where configProblemsAllowed && e.isConfigProblem { config = Config() }
        let clock: @Sendable () -> Date
        if let fixed = env("HABITTO_NOW") {
            guard let date = parseNow(fixed) else {
                throw CLIError.usage(.nowNotUnderstood(fixed))
            }
            clock = { date }
        } else {
            clock = SystemClock.now
        }
        return AppEnvironment(home: home, configPath: configPath, config: config, now: clock(), clock: clock)
    }

    /// Parses `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|±HH:MM]`, local time unless a zone is given.
    static func parseNow(_ text: String) -> Date? {
        let s = text.trimmingBlanks
        guard s.count >= 10, let day = LocalDay(String(s.prefix(10))) else { return nil }
        var rest = Substring(s.dropFirst(10))
        var hour = 0, minute = 0, second = 0.0
        // Seconds east of UTC when the text gives a zone; nil: local time (TZ).
        var offset: Int?
        if let first = rest.first, first == "T" || first == " " {
            rest = rest.dropFirst()
            var zonePart = ""
            if let zi = rest.firstIndex(where: { $0 == "Z" || $0 == "+" || $0 == "-" }) {
                zonePart = String(rest[zi...]); rest = rest[..<zi]
            }
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3,
                  parts[0].count == 2, parts[1].count == 2,
                  let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m)
            else { return nil }
            hour = h; minute = m
            if parts.count == 3 {
                guard let sec = Double(parts[2]), sec >= 0, sec < 61, parts[2].first?.isNumber == true else { return nil }
                second = sec
            }
            if zonePart == "Z" { offset = 0 }
            else if !zonePart.isEmpty {
                let sign = zonePart.first == "-" ? -1 : 1
                let digits = String(zonePart.dropFirst().filter { $0 != ":" })
                guard digits.count == 4, let v = Int(digits), v % 100 < 60, v / 100 <= 14 else { return nil }
                offset = sign * ((v / 100) * 3600 + (v % 100) * 60)
            }
        } else if !rest.isEmpty {
            return nil
        }
        // Through the C library (timegm, or mktime in the local zone), not a Foundation
        // Calendar, whose first use costs about 2 ms (see `localDay`).
        var parts = clockTime(day, hour: hour, minute: minute, second: Int(second.rounded(.down)))
        let whole: time_t
        if let offset { whole = timegm(&parts) - time_t(offset) } else { whole = mktime(&parts) }
        return Date(timeIntervalSince1970: Double(whole) + (second - second.rounded(.down)))
    }

    /// Faults to inject into the sync remote: `HABITTO_FAULTS`, else the config's `faults`.
    public func faultPlan() throws -> FaultPlan? {
        guard let text = ProcessEnvironment.value("HABITTO_FAULTS") ?? config.faults else { return nil }
        do { return try FaultPlan.parse(text) } catch let e as SyncSettingError {
            throw CLIError.invalid(.faults(text: text, e))
        }
    }

    /// How the sync remote gets its password and CA: `HABITTO_WEBDAV_PASSWORD`, else the
    /// config's `password_command`, else its `password_file` (see `PasswordSource`). Looked
    /// up only when a remote needs it.
    public func remoteAccess() -> RemoteAccess {
        let config = self.config, configPath = self.configPath
        return RemoteAccess(password: {
            if let p = ProcessEnvironment.value("HABITTO_WEBDAV_PASSWORD") { return p }
            if let command = config.passwordCommand { return try PasswordSource.run(command, configPath: configPath) }
            if let path = config.passwordFile { return try PasswordSource.read(path, configPath: configPath) }
            return nil
        }, caFile: config.caFile)
    }
}
