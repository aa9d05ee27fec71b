import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore

extension AsyncHTTPClientTransport {
    /// Maps an AsyncHTTPClient or NIO error to the ``CRUDKit/CRUDError`` a person can act on, as
    /// ``CRUDKit/URLSessionTransport`` does: timeouts, cancellation, then every other failure as a transport error.
    static func crudError(for error: any Error, idleTimeout: TimeInterval, deadline: TimeInterval?) -> CRUDError {
        if let error = error as? CRUDError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .readTimeout, .writeTimeout: return .timedOut(.idle(idleTimeout))
            case .deadlineExceeded:
                return deadline.map { .timedOut(.deadline($0)) } ?? .timedOut(.idle(idleTimeout))
            case .connectTimeout: return .timedOut(.idle(idleTimeout))
            default: break
            }
        }
        if Task.isCancelled { return .cancelled }
        return .transport(underlying: error)
    }
}
