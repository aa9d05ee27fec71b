import Dispatch
import Testing

@testable import CRUDKit

/// An error the tests fail futures with.
struct TestError: Error, Equatable {
    var code = 0
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
