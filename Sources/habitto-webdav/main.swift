import WebDAVClient
#if canImport(Glibc)
import Glibc
#endif

// The WebDAV transport of habitto, run by its sync engine over a pipe (see WebDAVHelper in
// HabitSync): keeps libcurl out of the habitto binary.
exit(HelperServer.run(arguments: CommandLine.arguments))
