import CRUDKitCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of a ``URLSessionTransport``: routes each callback to the transfer of its task.
///
/// Only session-delegate callbacks are used: on Linux, per-task delegates miss completion and redirect
/// callbacks, and `task.progress` stays at zero.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = Locked<[Int: URLSessionTransfer]>([:])

    func register(_ transfer: URLSessionTransfer, for identifier: Int) {
        transfers.withLock { $0[identifier] = transfer }
    }

    /// How many transfers are registered (tasks not yet completed); for tests.
    var registeredCount: Int { transfers.withLock { $0.count } }

    func unregister(_ identifier: Int) {
        _ = transfers.withLock { $0.removeValue(forKey: identifier) }
    }

    private func transfer(_ task: URLSessionTask) -> URLSessionTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = transfer(dataTask)?.didReceive(response) ?? false
        completionHandler(proceed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(dataTask)?.didReceive(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        transfer(task)?.didSend(totalBytesSent: totalBytesSent, totalBytesExpected: totalBytesExpectedToSend)
    }

    /// Never lets URLSession follow a redirect: the transport returns the 3xx as it is, and an `API` follows it at
    /// the end of its middleware chain (see ``RedirectFollower``).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // A transfer that already ended (its deadline, a cancellation) has its task's cancel pending, and
        // FoundationNetworking may run that cancel before an answer given now, then trap on the answer ("Received
        // callback for HTTP redirection, but we're not waiting for it"): the cancel ends the task instead.
        if let transfer = transfer(task), transfer.isFinished { return }
        #endif
        completionHandler(nil)
    }

    /// Answers a server's authentication challenge (a 401 with `WWW-Authenticate: Basic`, or a TLS challenge).
    ///
    /// The transport sends no credential of its own: an `Authorization` header is the caller's, and the 401 is the
    /// answer the caller gets. On Linux, FoundationNetworking holds a task whose 401 carries a Basic challenge until
    /// the delegate answers, and answers nothing at all to `.performDefaultHandling` when no stored credential
    /// exists: the request used to wait forever, the idle timeout stopped. There the transfer ends with the 401
    /// response it already holds and the challenge is cancelled. On Apple platforms URLSession's default handling
    /// already returns the 401 (and checks server trust).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        if let response = challenge.failureResponse as? HTTPURLResponse, let transfer = transfer(task) {
            transfer.didReceiveChallenge(response: response) {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
            return
        }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.didComplete(error)
    }
}
