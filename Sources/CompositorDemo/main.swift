import Compositor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit status: 0 success, 1 failure (`error: ` on stderr), 64 usage error (as sysexits' EX_USAGE).
let status = DemoCommand.run(Arguments(Arguments.processArguments))
exit(status)
