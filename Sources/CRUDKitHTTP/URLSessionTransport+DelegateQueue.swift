import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking

extension URLSessionTransport {
    /// The delegate queue of the transport's session on Linux: runs each delegate callback at once, on the thread
    /// that reports it (the session's serial work queue), instead of hopping to another thread.
    ///
    /// FoundationNetworking wraps every session-delegate callback (`didReceive response`, `didReceive data`,
    /// `didCompleteWithError`, redirects, upload progress) in `delegateQueue.addOperation`; with an ordinary
    /// queue each one wakes another thread, which made a small request cost about twice the context switches of
    /// `URLSession.data(for:)` (whose completion handler is called inline). Running them inline keeps the order
    /// (the work queue is serial) and costs nothing. In exchange, nothing called from a delegate callback may wait
    /// for the session's work queue: ``URLSessionTransfer`` cancels tasks asynchronously for that reason.
    ///
    /// The class adds no state; it restates the `@unchecked Sendable` conformance `OperationQueue` already has,
    /// as Swift requires of a subclass.
    // Safety: no stored state of its own; OperationQueue guards its own state with its internal lock.
    final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }

        override func addOperation(_ operation: Operation) {
            operation.start()
        }
    }
}
#endif
