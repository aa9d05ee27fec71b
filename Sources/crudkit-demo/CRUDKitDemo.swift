import CRUDKit
import CRUDKitTesting
import Dispatch
import Foundation

/// `swift run crudkit-demo`: walks a Person through every operation, with async/await and with Futures, against
/// a loopback server (or `--base-url`), and exits non-zero when a step does not behave as expected.
///
/// `@main` rather than top-level code: top-level code that awaits is an async context in which Swift still picks
/// the `Future` overloads, where a write's `Future` overload is a compile error (it would only start the write).
///
/// A walk that fails deletes the people it made before it exits (`--fail-at` checks that against the loopback
/// server).
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
        let target: Target
        do {
            target = try Target.start(options)
        } catch {
            fail("could not start the loopback server: \(error)")
            return false
        }
        defer { target.stop() }
        let reporter = Reporter(onBegin: failureInjector(options.failAt, backend: target.backend))
        personPath.withLock { $0 = options.path }
        API.shared = target.api(options, reporter: reporter)
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
            let step = reporter.step
            let message = (error as? StepFailure)?.description ?? Walk.describe(error)
            reporter.heading("cleanup")
            print("  " + (await walk.cleanUp()))
            reportLoopbackCount(target)
            fail("step \"\(step)\" failed: \(message)")
            return false
        }
        reportLoopbackCount(target)
        let elapsed = (clock.now - started).seconds * 1000
        print(
            "\n✓ \(reporter.stepsPassed) steps passed, \(reporter.requests) requests in "
                + String(format: "%.0f ms", elapsed))
        return true
    }

    /// Prints how many people the loopback server still holds (none, after a walk that cleaned up).
    static func reportLoopbackCount(_ target: Target) {
        guard let backend = target.backend else { return }
        print("  the loopback server holds \(backend.count(in: personPath.withLock { $0 })) people")
    }

    /// The reporter's step hook for `--fail-at`: makes the loopback server answer 503 to the first request of
    /// the step named (in the walk named, `async:` or `futures:`), once.
    static func failureInjector(
        _ failAt: String?, backend: InMemoryBackend?
    ) -> @Sendable (_ walk: String, _ step: String) -> Void {
        guard let failAt, let backend else { return { _, _ in } }
        let fired = Locked(false)
        return { walk, step in
            let key = walk == "Futures" ? "futures" : "async"
            guard failAt == step || failAt == "\(key):\(step)" else { return }
            let first = fired.withLock { fired in
                let first = !fired
                fired = true
                return first
            }
            if first { backend.failNext(1, status: 503) }
        }
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("\n✗ crudkit-demo: \(message)\n".utf8))
    }
}
