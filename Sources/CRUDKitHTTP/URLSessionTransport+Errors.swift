import CRUDKitCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Maps what URLSession throws to a ``CRUDError``: `URLError.cancelled` (what Linux throws on cancellation)
    /// to ``CRUDError/cancelled``, `URLError.timedOut` to an idle timeout, anything else to
    /// ``CRUDError/transport(underlying:)``.
    static func crudError(for error: any Error, idleTimeout: TimeInterval) -> CRUDError {
        if let error = error as? CRUDError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            switch error.code {
            case .cancelled: return .cancelled
            case .timedOut: return .timedOut(.idle(idleTimeout))
            default: return .transport(underlying: error)
            }
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorCancelled { return .cancelled }
        return .transport(underlying: error)
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
