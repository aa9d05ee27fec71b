import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import Testing

/// The tracing stage declares the header fields it injects as a trace's context, so that identical reads (each
/// with a trace context of its own) still share one exchange.
@Suite struct TraceContextCoalescingTests {
    /// What the last stage of the chain saw.
    final class Seen: @unchecked Sendable {
        // Safety: `names` and `headers` are only read and written under `lock`.
        private let lock = NSLock()
        private var names: Set<String> = []
        private var headers: [String] = []

        func record(_ request: HTTPRequest, _ context: MiddlewareContext) {
            lock.withLock {
                names = context.propagationHeaderNames
                headers = request.headers.fields.map { $0.name.lowercased() }
            }
        }

        var snapshot: (names: Set<String>, headers: [String]) { lock.withLock { (names, headers) } }
    }

    struct Capture: Middleware {
        let seen: Seen
        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
        ) async throws -> HTTPResponse {
            seen.record(request, context)
            return try await next(request, context)
        }
    }

    @Test func theInjectedFieldsAreDeclaredAsATracesContext() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let seen = Seen()
        let api = recorders.observing(backend.api()).with { $0.middleware.append(Capture(seen: seen)) }
        _ = try await Person.using(api).read(id: 1234)
        let (names, headers) = seen.snapshot
        // Before: nothing was declared, so every traced read had a key of its own and none was shared.
        #expect(!names.isEmpty)
        #expect(names.allSatisfy { headers.contains($0) })
        #expect(recorders.tracer.finishedSpans.count == 1)
    }
}
