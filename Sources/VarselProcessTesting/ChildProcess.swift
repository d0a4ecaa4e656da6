import Foundation

/// A program that a test runs to its end, awaited without holding a thread of Swift's task pool.
///
/// `Process.waitUntilExit()` blocks the calling thread, polling its run loop until Foundation has seen the child
/// end. Called from an async test, that thread is one of the task pool's, which has only as many threads as the
/// machine has cores: while it waits, every other test of the run has one thread fewer, and on a two-core machine two
/// such waits stop them all. This waits for the termination handler instead, which is set before the program starts,
/// so a program that ends at once is not missed, and the test's task is suspended, not its thread.
public struct ChildProcess: Sendable {
    /// How a program ended, and what it wrote to its standard output.
    public struct Ended: Sendable {
        /// The exit status, or the signal's number when a signal ended it.
        public var status: Int32
        /// Whether it exited by itself or was ended by a signal.
        public var reason: Process.TerminationReason
        /// Everything it wrote to its standard output.
        public var output: Data

        /// Whether it exited with status 0.
        public var succeeded: Bool { reason == .exit && status == 0 }
    }

    /// Runs `executable` with `arguments` to its end; what it writes to standard error goes to the test's own, unless
    /// `standardError` says otherwise, so a failure says why.
    ///
    /// The standard output goes to a temporary file, read once the program has ended, so a program that writes more
    /// than a pipe holds never waits for a reader.
    public static func run(
        _ executable: URL, _ arguments: [String], standardError: FileHandle = FileHandle.standardError
    ) async throws -> Ended {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("child-output-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = standardError
        let (ended, ending) = AsyncStream.makeStream(of: (Int32, Process.TerminationReason).self, bufferingPolicy: .bufferingNewest(1))
        process.terminationHandler = { process in
            ending.yield((process.terminationStatus, process.terminationReason))
            ending.finish()
        }
        try process.run()
        var outcome: (Int32, Process.TerminationReason)?
        for await end in ended { outcome = end }
        guard let (status, reason) = outcome else { throw CancellationError() }
        return Ended(status: status, reason: reason, output: try Data(contentsOf: outputURL))
    }
}
