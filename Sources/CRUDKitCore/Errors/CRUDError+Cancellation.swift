import Foundation

extension CRUDError {
    /// Whether `error` says the work was cancelled: Swift concurrency's `CancellationError`, or URLSession's
    /// cancellation error (`URLError.cancelled`).
    ///
    /// URLSession's error is recognised by its `NSURLErrorDomain` code rather than by its type, so that this
    /// layer (and `Future`, which calls it) needs Foundation only, never FoundationNetworking.
    /// - Parameter error: The error some work ended with.
    /// - Returns: `true` when the error means "cancelled".
    package static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        let bridged = error as NSError
        return bridged.domain == NSURLErrorDomain && bridged.code == NSURLErrorCancelled
    }
}
