import CRUDKit
import Foundation
import Testing

/// Runs the built `crudkit-demo` as a process (`swift build --build-tests` and `swift test` build it with the
/// tests): every `--conventions` preset walks its loopback imitation with its own page-size parameter, and a walk
/// that fails midway (`--fail-at`, a 503 from the loopback server) deletes what it made.
@Suite struct DemoWalkTests {
    /// What a finished run of the demo said.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The page-size parameter each preset must send, as it appears in a logged URL.
    static let pageSizeParameters = [
        "standard": "per_page=2", "drf": "page_size=2", "rails": "per_page=2", "fastapi": "limit=2", "vapor": "per=2",
        "laravel": "per_page=2",
    ]

    @Test(arguments: ["standard", "drf", "rails", "fastapi", "vapor", "laravel"])
    func everyPresetWalksWithItsOwnPageSizeParameter(preset: String) async throws {
        // When
        let run = try await Self.demo(["--conventions", preset])

        // Then
        #expect(run.status == 0, "\(run.errors)\n\(run.output)")
        let parameter = try #require(Self.pageSizeParameters[preset])
        let pageRequests = run.output.split(separator: "\n").filter { $0.contains("GET") && $0.contains(parameter) }
        #expect(!pageRequests.isEmpty, "no GET sent \(parameter):\n\(run.output)")
        for other in Set(Self.pageSizeParameters.values) where other != parameter {
            #expect(!run.output.contains("&" + other) && !run.output.contains("?" + other), "\(preset) sent \(other)")
        }
        #expect(run.output.contains("the loopback server holds 0 people"))
    }

    @Test(arguments: [
        ("standard", "patch"), ("standard", "delete"), ("fastapi", "all pages"), ("drf", "futures:patch"),
        ("vapor", "futures:delete"), ("rails", "async:404"), ("laravel", "futures:validation"),
    ])
    func aWalkThatFailsMidwayDeletesWhatItMade(preset: String, step: String) async throws {
        // When: the loopback server answers 503 to the first request of `step`
        let run = try await Self.demo(["--conventions", preset, "--fail-at", step])

        // Then: the walk fails, says which step, and leaves nobody behind
        #expect(run.status == 1, "\(run.errors)\n\(run.output)")
        let stepName = step.split(separator: ":").last.map(String.init) ?? step
        #expect(run.errors.contains("step \"\(stepName)\" failed"), "\(run.errors)")
        #expect(run.output.contains("cleanup: "), "\(run.output)")
        #expect(run.output.contains("the loopback server holds 0 people"), "\(run.output)")
    }

    @Test func anUnknownPresetIsAUsageErrorThatListsThePresets() async throws {
        let run = try await Self.demo(["--conventions", "jsonapi"])

        #expect(run.status == 2)
        #expect(run.errors.contains("standard, drf, rails, fastapi, vapor, laravel"), "\(run.errors)")
    }

    // MARK: - Running the demo

    /// Runs the demo with `arguments`, killing it after 60 seconds (a healthy walk takes well under one). The
    /// waiting happens on a dispatch thread, never on one of the cooperative pool's few threads.
    static func demo(_ arguments: [String]) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runDemo(arguments) })
            }
        }
    }

    /// Runs the demo and waits for it, blocking the calling thread.
    private static func runDemo(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = try demoExecutable()
        process.arguments = arguments
        // Under AddressSanitizer the demo is instrumented too; its leak check at exit is the sanitizer run's
        // business for the test process, not what these tests check about the demo (its exit status is).
        var environment = ProcessInfo.processInfo.environment
        if let options = environment["ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = options + ":detect_leaks=0" }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let watchdog = DispatchWorkItem { [process] in process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        // Both pipes are drained at once, so a child that writes much to one never blocks on the other.
        let errorData = Locked(Data())
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        watchdog.cancel()
        return Run(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }

    /// The `crudkit-demo` built next to the test bundle, or in the package's `.build/debug`.
    static func demoExecutable() throws -> URL {
        var places: [URL] = []
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<5 {
            places.append(directory)
            directory.deleteLastPathComponent()
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        places.append(packageRoot.appendingPathComponent(".build/debug"))
        for place in places {
            let candidate = place.appendingPathComponent("crudkit-demo")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw DemoNotBuilt(searched: places.map(\.path))
    }

    /// The demo executable was not found: build it (`swift build --build-tests` builds it with the tests).
    struct DemoNotBuilt: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "crudkit-demo is not built; run `swift build --build-tests`. Searched: \(searched.joined(separator: ", "))"
        }
    }
}
