import CRUDKit
import Foundation

/// What one test's ``API`` sent and received, from its log handler: `POST /people/ → 201`.
final class WireLog: Sendable {
    /// One answered request.
    struct Exchange: Sendable, CustomStringConvertible {
        var method: HTTPMethod
        var path: String
        var query: String?
        var status: Int

        var description: String { "\(method.rawValue) \(path)\(query.map { "?\($0)" } ?? "") → \(status)" }
    }

    private let state = Locked<[Exchange]>([])

    /// The handler to give the API.
    var handler: LogHandler {
        { [state] event in
            guard case .responseReceived(let status) = event.kind else { return }
            let components = URLComponents(string: event.url)
            let exchange = Exchange(
                method: event.method, path: components?.percentEncodedPath ?? event.url,
                query: components?.percentEncodedQuery, status: status)
            state.withLock { $0.append(exchange) }
        }
    }

    /// Every exchange so far, in order.
    var exchanges: [Exchange] { state.withLock { $0 } }

    /// The exchanges with `method`.
    func exchanges(_ method: HTTPMethod) -> [Exchange] { exchanges.filter { $0.method == method } }
}
