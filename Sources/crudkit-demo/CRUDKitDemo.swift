import CRUDKit
import Dispatch
import Foundation

/// `swift run crudkit-demo`: walks a Person through every operation, with async/await and with Futures, against
/// a loopback server (or `--base-url`), and exits non-zero when a step does not behave as expected.
///
/// `@main` rather than top-level code: at the top level of `main.swift` every call is in an async context, so
/// the `Future` overloads the second walk relies on would not be picked.
@main
enum CRUDKitDemo {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("crudkit-demo: \(error)\n\nRun with --help for usage.\n".utf8))
            exit(2)
        }
        if options.showsHelp {
            print(Options.help)
            exit(0)
        }
        exit(await run(options) ? 0 : 1)
    }

    /// Runs both walks; says what went wrong and returns `false` at the first step that fails.
    static func run(_ options: Options) async -> Bool {
        let clock = ContinuousClock()
        let started = clock.now
        let reporter = Reporter()
        let target: Target
        do {
            target = try Target.start(options)
        } catch {
            fail("could not start the loopback server: \(error)")
            return false
        }
        defer { target.stop() }
        personPath.withLock { $0 = options.path }
        CRUDKit.configure(target.api(options, reporter: reporter))
        print("crudkit-demo: walking a Person through \(target.description)/\(options.path)")
        print("  conventions \(options.conventions.name), trailing slash \(options.effectiveTrailingSlash)")

        let walk = Walk(reporter: reporter, options: options)
        do {
            try await walk.runAsync()
            let outcome = await withCheckedContinuation { continuation in
                walk.runWithFutures().onComplete { continuation.resume(returning: $0) }
            }
            _ = try outcome.get()
        } catch {
            let message = (error as? StepFailure)?.description ?? Walk.describe(error)
            fail("step \"\(reporter.step)\" failed: \(message)")
            return false
        }
        let elapsed = (clock.now - started).seconds * 1000
        print(
            "\n✓ \(reporter.stepsPassed) steps passed, \(reporter.requests) requests in "
                + String(format: "%.0f ms", elapsed))
        return true
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("\n✗ crudkit-demo: \(message)\n".utf8))
    }
}
