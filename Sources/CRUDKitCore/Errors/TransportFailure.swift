import Foundation

/// Why the network failed, in terms that do not depend on the transport, with the transport's own error kept.
///
/// Every transport fills it in the same way: a refused connection is ``Reason/cannotConnect`` whether
/// URLSession or AsyncHTTPClient saw it, so code that handles "cannot connect" or "connection lost" works over
/// either. ``underlying`` keeps the transport's error (a `URLError`, a NIO `IOError`, …) for logs and for what the
/// reason does not say.
///
/// ```swift
/// } catch CRUDError.transport(let failure) where failure.reason == .cannotConnect {
///     showOffline()
/// }
/// ```
public struct TransportFailure: Sendable, CustomStringConvertible {
    /// Why a transport failed. New reasons may be added in any release: compare with `==` or switch with a
    /// `default`, never exhaustively.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        /// The reason's name, as ``description`` shows it.
        private let name: String

        private init(_ name: String) { self.name = name }

        /// No connection could be opened: refused, unreachable, no network, or the connection attempt timed out.
        /// Nothing was sent.
        public static let cannotConnect = Reason("cannot connect")
        /// The host name could not be resolved (DNS). Nothing was sent.
        public static let hostNotFound = Reason("host not found")
        /// An open connection closed or was reset before the answer was complete: the server may have acted on
        /// the request.
        public static let connectionLost = Reason("connection lost")
        /// The TLS handshake failed or the server's certificate was not trusted.
        public static let tls = Reason("TLS failure")
        /// The server's bytes were not valid HTTP (a broken status line, header or body framing); sending the same
        /// request again gets the same answer.
        public static let protocolViolation = Reason("protocol violation")
        /// None of the above; ``TransportFailure/underlying`` says what happened.
        public static let other = Reason("other")
        /// The transport was shut down while the request was waiting or on the wire, or before it was sent: no
        /// answer will come through it, and `RetryPolicy` never retries it.
        public static let shutDown = Reason("transport shut down")

        /// The reason's name, such as `cannot connect`.
        public var description: String { name }
    }

    /// Why the transport failed.
    public var reason: Reason
    /// The transport's own error.
    public var underlying: any Error

    /// Creates a failure with a reason and the transport's error.
    ///
    /// - Parameters:
    ///   - reason: Why the transport failed.
    ///   - underlying: The transport's own error.
    public init(_ reason: Reason, underlying: any Error) {
        self.reason = reason
        self.underlying = underlying
    }

    /// Creates a failure for `underlying`, its reason read from it: a `URLError` (or an error in
    /// `NSURLErrorDomain`) or a POSIX error by its code, anything else ``Reason/other``.
    ///
    /// - Parameter underlying: The transport's own error.
    package init(underlying: any Error) {
        self.init(Self.reason(of: underlying), underlying: underlying)
    }

    /// The reason and the underlying error, such as `cannot connect: …`.
    public var description: String { "\(reason): \(underlying)" }

    /// The reason a `URLError` or POSIX error code stands for; ``Reason/other`` for anything else.
    static func reason(of error: any Error) -> Reason {
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain { return reason(ofURLErrorCode: nsError.code) }
        if nsError.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(clamping: nsError.code)) {
            return reason(of: code)
        }
        return .other
    }

    /// The reason for a `URLError` code (by `URLError.Code`: FoundationNetworking's `NSURLErrorSecureConnectionFailed`
    /// constant is -1201, not the -1200 its errors carry).
    private static func reason(ofURLErrorCode rawValue: Int) -> Reason {
        switch URLError.Code(rawValue: rawValue) {
        case .cannotConnectToHost, .notConnectedToInternet, .internationalRoamingOff, .callIsActive, .dataNotAllowed:
            .cannotConnect
        case .cannotFindHost, .dnsLookupFailed:
            .hostNotFound
        case .networkConnectionLost:
            .connectionLost
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            .tls
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData,
            .zeroByteResource:
            .protocolViolation
        default:
            .other
        }
    }

    /// The reason for a POSIX error code of a socket call.
    private static func reason(of code: POSIXErrorCode) -> Reason {
        switch code {
        case .ECONNREFUSED, .EHOSTUNREACH, .ENETUNREACH, .EHOSTDOWN, .ENETDOWN, .EADDRNOTAVAIL:
            .cannotConnect
        case .ECONNRESET, .EPIPE, .ECONNABORTED, .ENOTCONN, .ESHUTDOWN:
            .connectionLost
        default:
            .other
        }
    }
}
