@_spi(TransportKit) import CRUDKitCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Maps what URLSession throws to a ``CRUDError``: `URLError.cancelled` (what Linux throws on cancellation)
    /// to ``CRUDError/cancelled``, `URLError.timedOut` to an idle timeout, anything else to
    /// ``CRUDError/transport(_:)`` with the reason ``reason(of:)`` reads.
    static func crudError(for error: any Error, idleTimeout: TimeInterval) -> CRUDError {
        if let error = error as? CRUDError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            switch error.code {
            case .cancelled: return .cancelled
            case .timedOut: return .timedOut(.idle(idleTimeout))
            default: return .transport(TransportFailure(reason(of: error), underlying: error))
            }
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorCancelled { return .cancelled }
        return .transport(underlying: error)
    }

    /// The transport-neutral reason of a `URLError`: by its code (as `CRUDError.transport(underlying:)` reads one), except
    /// where FoundationNetworking on Linux files libcurl's failures under codes that say something else — an
    /// empty reply (`-1011`, "Empty reply from server") and a body cut short (`-1`, "transfer closed with … bytes
    /// remaining to read") are a lost connection, and a status line it cannot take, such as a status below 100
    /// (`-1002`, "Unsupported response code in HTTP response"), is a protocol violation; so a fault gets the reason
    /// `AsyncHTTPClientTransport` gives it.
    static func reason(of error: URLError) -> TransportFailure.Reason {
        #if canImport(FoundationNetworking)
        let message = error.localizedDescription
        switch error.code {
        case .badServerResponse where message.contains("Empty reply from server"):
            return .connectionLost
        case .unknown
        where message.contains("transfer closed") || message.contains("Recv failure")
            || message.contains("Send failure") || message.contains("Connection reset"):
            return .connectionLost
        case .unsupportedURL where message.contains("response code") || message.contains("HTTP response"):
            return .protocolViolation
        default:
            break
        }
        #endif
        return TransportFailure(underlying: error).reason
    }

    /// The header fields of `response`, sorted by name (URLSession does not keep their order).
    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        var fields: [(key: String, name: String, value: String)] = []
        let all = response.allHeaderFields
        fields.reserveCapacity(all.count)
        for (key, value) in all {
            guard let name = key as? String else { continue }
            fields.append((name.lowercased(), name, value as? String ?? "\(value)"))
        }
        fields.sort { $0.key < $1.key }
        var headers = HTTPHeaders()
        for field in fields {
            headers.add(name: field.name, value: field.value)
        }
        return headers
    }
}
