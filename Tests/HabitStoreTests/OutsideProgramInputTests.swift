import Foundation
import XCTest
@testable import HabitStore

/// `OutsideProgram.input`: bytes given to a program on its standard input, written while its
/// output is read, so a program that echoes more than a pipe holds never waits on Habitto.
final class OutsideProgramInputTests: XCTestCase {
    /// 4 MiB of varied bytes: far more than a socket buffer holds, in either direction.
    let big: [UInt8] = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }

    func testInputLargerThanAPipeComesBackWholeFromAProgramThatEchoesIt() {
        var cat = OutsideProgram("/bin/cat", [], timeLimit: 30, outputLimit: 8 << 20)
        cat.input = big
        let result = cat.run()
        XCTAssertEqual(result.outcome, .exited(0))
        XCTAssertFalse(result.outputCut)
        XCTAssertFalse(result.inputCut)
        XCTAssertEqual(result.output.count, big.count)
        XCTAssertTrue(result.output == big, "the output differs from the input")
    }

    func testAProgramThatReadsNoneOfItsInputEndsAtOnce() {
        var sh = OutsideProgram("/bin/sh", ["-c", "echo done"], timeLimit: 30)
        sh.input = big
        let started = Date()
        let result = sh.run()
        XCTAssertEqual(result.outcome, .exited(0))
        XCTAssertEqual(String(decoding: result.output, as: UTF8.self), "done\n")
        XCTAssertFalse(result.inputCut, "a program that closes its input without reading it is not a write that failed")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testAProgramThatNeverReadsItsInputIsStoppedAtItsTimeLimit() {
        var sleeper = OutsideProgram("/bin/sh", ["-c", "exec sleep 300"], timeLimit: 0.5)
        sleeper.input = big
        let result = sleeper.run()
        XCTAssertEqual(result.outcome, .killedAfterTimeLimit)
    }

    func testWithoutInputTheProgramReadsNothing() {
        let result = OutsideProgram("/bin/cat", [], timeLimit: 10).run()
        XCTAssertEqual(result.outcome, .exited(0))
        XCTAssertEqual(result.output, [])
        var empty = OutsideProgram("/usr/bin/wc", ["-c"], timeLimit: 10)
        empty.input = []
        XCTAssertEqual(String(decoding: empty.run().output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "0")
    }
}
