@_spi(TransportKit) import CRUDKitCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CRUDError {
    /// The ``CRUDError`` for an error thrown while sending: a `CRUDError` stays as it is, `CancellationError` and
    /// `URLError.cancelled` become ``cancelled``, `URLError.timedOut` becomes ``timedOut(_:)`` (idle, after
    /// `timeout` seconds), and anything else `transport(underlying:)`.
    /// - Parameters:
    ///   - error: What the transport threw.
    ///   - timeout: The request's idle timeout, reported with a timeout.
    package static func fromTransport(_ error: any Error, timeout: TimeInterval?) -> CRUDError {
        if let error = error as? CRUDError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            switch error.code {
            case .cancelled: return .cancelled
            // No idle time named by the request: the transport's own applied, reported as `.idle(0)`.
            case .timedOut: return .timedOut(.idle(timeout ?? 0))
            default: return .transport(underlying: error)
            }
        }
        return .transport(underlying: error)
    }

    /// The ``CRUDError`` for an error thrown by an `.adapt` middleware: a `CRUDError` stays as it is,
    /// `CancellationError` becomes ``cancelled``, anything else ``invalidRequest(reason:)``.
    package static func fromAdapter(_ error: any Error) -> CRUDError {
        if let error = error as? CRUDError { return error }
        if error is CancellationError { return .cancelled }
        return .invalidRequest(reason: "a middleware refused the request: \(error)")
    }

    /// The ``CRUDError`` for an error thrown by a `.validate` middleware: a `CRUDError` stays as it is, anything
    /// else becomes ``validation(message:response:)`` with the error's description.
    package static func fromValidator(_ error: any Error, response: HTTPResponse) -> CRUDError {
        if let error = error as? CRUDError { return error }
        return .validation(message: "\(error)", response: response)
    }

    /// The ``CRUDError`` for a response that is not a success: 412 is ``conflict(_:)``, anything else
    /// ``httpStatus(_:)``.
    package static func fromStatus(_ response: HTTPResponse) -> CRUDError {
        response.status == 412 ? .conflict(response) : .httpStatus(response)
    }
}
