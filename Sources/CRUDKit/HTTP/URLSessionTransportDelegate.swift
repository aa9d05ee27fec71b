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

    /// Never lets URLSession follow a redirect: the transport follows them itself (see ``RedirectPolicy``).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.didComplete(error)
    }
}
