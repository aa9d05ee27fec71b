import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Redaction {
    /// `error` with the secrets it carries hidden, for logs: the failing URL inside a `URLError`, the URL and
    /// secret headers (`Set-Cookie`…) of a response the error keeps, and secrets in a reason or message.
    ///
    /// Only what a log shows is redacted; the error thrown to the caller stays whole.
    /// - Parameter error: The error a request failed with.
    /// - Returns: The same case with its URLs and headers redacted.
    public func redact(_ error: CRUDError) -> CRUDError {
        switch error {
        case .transport(let failure):
            guard let underlying = failure.underlying as? URLError else { return error }
            return .transport(TransportFailure(failure.reason, underlying: redact(underlying)))
        case .httpStatus(let response):
            return .httpStatus(redact(response))
        case .conflict(let response):
            return .conflict(redact(response))
        case .validation(let message, let response):
            return .validation(message: redact(text: message), response: redact(response))
        case .invalidRequest(let reason):
            return .invalidRequest(reason: redact(text: reason))
        case .writeAccepted(let response, let failure):
            return .writeAccepted(redact(response), failure: redact(failure))
        default:
            return error
        }
    }

    /// `response` with its URL's secrets and its secret headers replaced by `placeholder`.
    private func redact(_ response: HTTPResponse) -> HTTPResponse {
        var redacted = response
        redacted.headers = redact(response.headers)
        if let url = response.url { redacted.url = URL(string: redact(url)) }
        return redacted
    }

    /// A `URLError` with the same code and description whose failing URL is redacted.
    private func redact(_ error: URLError) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: error.localizedDescription]
        if let url = error.failingURL {
            let text = redact(url)
            info["NSErrorFailingURLStringKey"] = text  // the key the deprecated constant names
            if let redactedURL = URL(string: text) { info[NSURLErrorFailingURLErrorKey] = redactedURL }
        }
        return URLError(error.code, userInfo: info)
    }
}
