import CRUDKit
import Foundation

extension LoopbackServer {
    /// Creates a server that serves `backend` over real HTTP on 127.0.0.1, for tests that go through
    /// `URLSessionTransport`; call ``start()`` before use.
    ///
    /// Each request reaches ``InMemoryBackend/send(_:)`` with its URL built from the `Host` header, so the
    /// backend's absolute links (pagination `next`, `Location`) point back at this server. An injected dropped
    /// connection or lost answer closes the connection without a byte of answer.
    ///
    /// ```swift
    /// let backend = InMemoryBackend(style: .drf)
    /// backend.register("people")
    /// let server = LoopbackServer(backend: backend)
    /// try server.start()
    /// defer { server.stop() }
    /// // point an API at server.baseURL
    /// ```
    /// - Parameter backend: The backend that answers.
    public convenience init(backend: InMemoryBackend) {
        self.init { request in
            do {
                return .response(try await backend.send(request.httpRequest))
            } catch {
                return .fault(.closeBeforeStatusLine)
            }
        }
    }
}
