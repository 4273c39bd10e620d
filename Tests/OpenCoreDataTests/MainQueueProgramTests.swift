import Foundation
import Testing

/// Main-queue contexts in a program built like a server (issue 14, item 4): `ocd-mainqueue` has
/// an `async` main, so no run loop turns and the main queue's blocks run on a thread other than
/// the main thread. Run as a child process, with a deadline: a deadlock fails the test instead of
/// hanging it.
@Suite struct MainQueueProgramTests {
    @Test func aViewContextMergesAndRunsItsBlocksUnderAnAsyncMain() throws {
        let directory = TemporaryDirectory()
        let result = try runProgram(["async", directory.file("Notes.sqlite").path])
        #expect(result.status == 0, "\(result.error)")
        // The merge queued on the main queue ran while the main actor awaited.
        #expect(result.output.contains("async: merged v2\n"), "\(result.output)")
        #expect(result.output.contains("async: performAndWait from another thread v2\n"), "\(result.output)")
        // performAndWait inside a main-queue block runs in place, not with a sync onto its own queue.
        #expect(result.output.contains("async: performAndWait on the main queue v2\n"), "\(result.output)")
        #expect(result.output.contains("async: a child in a main-queue block v2\n"), "\(result.output)")
    }

    @Test func aViewContextWhoseQueueIsBlockedMergesWhenItIsNextUsed() throws {
        let directory = TemporaryDirectory()
        let result = try runProgram(["busy", directory.file("Notes.sqlite").path])
        #expect(result.status == 0, "\(result.error)")
        // Nothing ran the queued merge while the main queue was blocked…
        #expect(result.output.contains("busy: before use v1\n"), "\(result.output)")
        // …and the context merged it before it answered the count.
        #expect(result.output.contains("busy: after a count of 1 v2\n"), "\(result.output)")
    }

    private func runProgram(_ arguments: [String], deadline: TimeInterval = 60) throws -> OCD.Result {
        let process = Process()
        process.executableURL = OCD.product("ocd-mainqueue")
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + deadline)
        timer.setEventHandler { if process.isRunning { process.terminate() } }
        timer.resume()
        defer { timer.cancel() }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return OCD.Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                          error: String(decoding: errorData, as: UTF8.self))
    }
}
