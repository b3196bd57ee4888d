import Foundation
import Testing
import CompositorTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test suite's process runner: it must drain both pipes whatever their size, and report how
/// the child ended.
@Suite("ChildProcess, the tests' process runner")
struct ChildProcessTests {
    @Test("stdout and stderr larger than a pipe's buffer are collected whole; the last bytes before exit too")
    func largeOutput() async throws {
        // 300 000 and 200 000 bytes: a runner that read one pipe before the other would deadlock.
        let script = "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2; printf end; printf END >&2; exit 3"
        let output = try await ChildProcess.run("/bin/sh", ["-c", script])
        #expect(output.status == 3)
        #expect(output.terminationReason == .exit)
        #expect(output.stdoutBytes.count == 300_003)
        #expect(output.stdout.hasSuffix("end"))
        #expect(output.stderr.utf8.count == 200_003)
        #expect(output.stderr.hasSuffix("END"))
    }

    @Test("stdin is the null device, and the directory is the one asked for")
    func stdinAndDirectory() async throws {
        let output = try await ChildProcess.run("/bin/sh", ["-c", "cat; pwd"], in: URL(fileURLWithPath: "/"))
        #expect(output.status == 0)
        #expect(output.stdout == "/\n")
    }

    @Test("a child killed by a signal is reported so, with the signal's number")
    func killed() async throws {
        let child = try ChildProcess.start(URL(fileURLWithPath: "/bin/sleep"), ["30"])
        #expect(child.isRunning)
        kill(child.processIdentifier, SIGKILL)
        let output = await child.wait()
        #expect(output.terminationReason == .uncaughtSignal)
        #expect(output.status == SIGKILL)
        #expect(!child.isRunning)
    }
}

