import Foundation
import XCTest
@testable import HabittoCLI

/// Where the data and the config are, from the environment; the user's home is looked up
/// (HOME, else the password database) only when a path is made from it.
final class EnvironmentTests: XCTestCase {
    func resolve(_ vars: [String: String]) throws -> (AppEnvironment, asked: [String]) {
        var asked: [String] = []
        let env = try AppEnvironment.resolve(home: nil, env: { key in asked.append(key); return vars[key] })
        return (env, asked)
    }

    func testHomeIsNotReadWhenNoPathNeedsIt() throws {
        let (env, asked) = try resolve(["HABITTO_HOME": "/data/h", "XDG_CONFIG_HOME": "/cfg"])
        XCTAssertEqual(env.home, "/data/h")
        XCTAssertEqual(env.configPath, "/cfg/habitto/config")
        XCTAssertFalse(asked.contains("HOME"), "asked: \(asked)")
    }

    func testPathsFromHomeWhenTheOthersAreUnset() throws {
        let (env, asked) = try resolve(["HOME": "/home/u"])
        XCTAssertEqual(env.home, "/home/u/.local/share/habitto")
        XCTAssertEqual(env.configPath, "/home/u/.config/habitto/config")
        XCTAssertEqual(asked.filter { $0 == "HOME" }.count, 1, "read once, asked: \(asked)")
        let (xdg, _) = try resolve(["HOME": "/home/u", "XDG_DATA_HOME": "/d", "HABITTO_HOME": "~/h"])
        XCTAssertEqual(xdg.home, "/home/u/h")
        XCTAssertEqual(xdg.configPath, "/home/u/.config/habitto/config")
    }

    func testNoHomeVariableUsesThePasswordDatabase() throws {
        let (env, _) = try resolve(["XDG_CONFIG_HOME": "/cfg"])
        XCTAssertEqual(env.home, ProcessEnvironment.homeDirectory + "/.local/share/habitto")
        XCTAssertFalse(env.home.hasPrefix("/.local"), env.home)
    }
}
