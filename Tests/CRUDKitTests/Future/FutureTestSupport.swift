import Dispatch
import Foundation
import Testing

@testable import CRUDKit

/// An error the tests fail futures with.
struct TestError: Error, Equatable {
    var code = 0
}

/// Runs `body` on a thread of its own and waits for it without holding a thread of Swift's cooperative pool:
/// a long synchronous loop run on the pool (two threads on a two-core machine) starves the tasks of every other
/// suite running in parallel. Check the returned value with `#expect` back in the test: an expectation on the
/// thread itself would not be attributed to the test.
func onOwnThread<Value: Sendable>(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { (finished: CheckedContinuation<Value, Never>) in
        let thread = Thread { finished.resume(returning: body()) }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}

/// Collects values from callbacks running on any thread.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])

    func record(_ element: Element) { storage.withLock { $0.append(element) } }

    var elements: [Element] { storage.withLock { $0 } }
}

extension Future {
    /// The outcome, delivered through a callback on `queue` (or the future's own queue).
    func outcome(on queue: DispatchQueue? = nil) async -> Result<Value, any Error> {
        await withCheckedContinuation { continuation in
            onComplete(on: queue) { continuation.resume(returning: $0) }
        }
    }

    /// How many observers and derived futures currently count as interested in this future.
    var interestForTesting: Int { observerCount }
}

extension Result {
    /// The value, or `nil` for a failure.
    var success: Success? { try? get() }

    /// The error, or `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Whether `error` is ``CRUDError/cancelled``.
func isCancelled(_ error: (any Error)?) -> Bool {
    (error as? CRUDError)?.isCancelled ?? false
}
