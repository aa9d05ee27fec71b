import Foundation

/// Sends one request and returns its response: the seam between CRUDKit and the network.
///
/// ``URLSessionTransport`` is the default. Plug in another (AsyncHTTPClient, an in-memory backend from
/// `CRUDKitTesting`, a stub) without touching anything else.
///
/// A transport throws ``CRUDError`` values: ``CRUDError/cancelled`` when the calling task is cancelled,
/// ``CRUDError/timedOut(_:)`` and ``CRUDError/transport(underlying:)`` for network failures. Any status,
/// 4xx and 5xx included, is a response, not an error.
public protocol Transport: Sendable {
    /// Sends `request` and returns the response, honouring the calling task's cancellation.
    ///
    /// - Parameter request: The fully built request, after interceptors have adapted it.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDError``.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
