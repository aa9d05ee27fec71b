import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

extension AsyncHTTPClientTransport {
    /// Maps an AsyncHTTPClient or NIO error to the ``CRUDKit/CRUDError`` a person can act on, as
    /// ``CRUDKit/URLSessionTransport`` does: timeouts, cancellation, a decompressed body past `maximumSize`, then
    /// every other failure as a ``CRUDKit/CRUDError/transport(_:)`` with the same reason URLSession gives.
    static func crudError(
        for error: any Error, idleTimeout: TimeInterval, deadline: TimeInterval?, maximumSize: Int
    ) -> CRUDError {
        if let error = error as? CRUDError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .readTimeout, .writeTimeout: return .timedOut(.idle(idleTimeout))
            case .deadlineExceeded:
                return deadline.map { .timedOut(.deadline($0)) } ?? .timedOut(.idle(idleTimeout))
            default: break
            }
        }
        if let error = error as? NIOHTTPDecompression.DecompressionError, case .limit = error {
            return .responseTooLarge(limit: maximumSize)
        }
        if Task.isCancelled { return .cancelled }
        return .transport(TransportFailure(reason(of: error), underlying: error))
    }

    /// Whether `error` only says that an answer without a body ended empty: AsyncHTTPClient's decompressor fails an
    /// answer marked `Content-Encoding: gzip` whose (`bodiless`) head allows no body, and of which no byte was
    /// `received`, as truncated, where URLSession hands it on. Such an answer ends as any empty one does.
    static func endsBodiless(_ error: any Error, bodiless: Bool, received: Bool) -> Bool {
        guard bodiless, !received else { return false }
        return error is NIOHTTPDecompression.DecompressionError || error is NIOHTTPDecompression.ExtraDecompressionError
    }

    /// The transport-neutral reason for an AsyncHTTPClient, NIO or NIOSSL error.
    static func reason(of error: any Error) -> TransportFailure.Reason {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .remoteConnectionClosed: return .connectionLost
            case .tlsHandshakeTimeout: return .tls
            // The client's own connect timeout (the exchange's idle time ends a connect before it on an owned
            // client): no connection, nothing sent, as a refused connection.
            case .connectTimeout: return .cannotConnect
            // (`chunkedSpecifiedMultipleTimes` is no longer thrown: AsyncHTTPClient 1.37 corrects that header.)
            case .bodyLengthMismatch, .identityCodingIncorrectlyPresent, .contentLengthMissing, .invalidProxyResponse:
                return .protocolViolation
            default: return .other
            }
        case let error as ChannelError:
            switch error {
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: return .connectionLost
            case .connectTimeout, .writeHostUnreachable: return .cannotConnect
            default: return .other
            }
        case let error as IOError:
            return reason(ofErrno: error.errnoCode)
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return .hostNotFound
            }
            return .cannotConnect
        case is SocketAddressError.UnknownHost:
            return .hostNotFound
        case let error as HTTPParserError:
            // The connection closed inside the head or the body: the server went away, it sent nothing invalid.
            return error == .invalidEOFState ? .connectionLost : .protocolViolation
        case is NIOHTTPDecompression.DecompressionError,
            is NIOHTTPDecompression.ExtraDecompressionError:
            return .protocolViolation
        default:
            // NIOSSL's errors (handshake, certificate), without importing NIOSSL for their types.
            if String(reflecting: type(of: error)).hasPrefix("NIOSSL.") { return .tls }
            return .other
        }
    }

    /// The reason for a socket call's `errno`.
    private static func reason(ofErrno code: CInt) -> TransportFailure.Reason {
        switch code {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL: .cannotConnect
        case ECONNRESET, EPIPE, ECONNABORTED, ENOTCONN, ESHUTDOWN: .connectionLost
        default: .other
        }
    }
}
