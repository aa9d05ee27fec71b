import CRUDKitCore

/// The redirects of one exchange, as a value: each response either ends the exchange, is followed (by
/// ``RedirectPolicy``), or fails it when one more hop would pass the limit.
///
/// URLSession itself never follows a redirect (``URLSessionTransportDelegate`` refuses each one it proposes), so
/// every hop is a response that comes back to ``URLSessionTransport`` and through this machine.
struct RedirectStateMachine {
    /// What the transport does with a response.
    enum Action {
        /// It is the answer: return it.
        case finish
        /// Send this request next.
        case follow(HTTPRequest)
        /// Stop with this error (too many redirects).
        case fail(CRUDError)
    }

    /// The most redirects followed.
    let limit: Int
    /// The redirects followed so far.
    private(set) var followed = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// `response` came back for `request`.
    mutating func received(_ response: HTTPResponse, for request: HTTPRequest) -> Action {
        guard let next = RedirectPolicy.nextRequest(after: response, to: request) else { return .finish }
        followed += 1
        guard followed <= limit else { return .fail(.tooManyRedirects(limit: limit)) }
        return .follow(next)
    }
}
