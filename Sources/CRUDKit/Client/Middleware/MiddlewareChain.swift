/// An API's middlewares, ready to run in their order, then the transport.
///
/// There is one way a middleware runs, the standard stages' and yours alike: the chain calls its public
/// ``Middleware/intercept(_:context:next:)`` with the rest of the chain as `next` (or, when it
/// ``Middleware/passesThrough(_:context:)``, sends the request straight on). The closures for the rest of the chain
/// are made once, when the chain is, so a request allocates none of them.
package struct MiddlewareChain: Sendable {
    /// The middlewares, outermost first.
    package let middleware: [any Middleware]
    /// The whole chain: the first middleware with the rest as its `next`, down to the transport.
    package let send: MiddlewareNext
    /// Whether a middleware named ``MiddlewareName/logging`` is in the chain: a call then keeps a place where the
    /// first ``LoggingMiddleware`` that runs leaves itself for the retry stage to log each retry through.
    package let logs: Bool

    /// The chain of `middleware`, ending with the transport.
    package init(_ middleware: [any Middleware]) {
        self.init(middleware, send: Self.chain(middleware, then: Self.transfer), logs: Self.logs(middleware))
    }

    private init(_ middleware: [any Middleware], send: @escaping MiddlewareNext, logs: Bool) {
        self.middleware = middleware
        self.send = send
        self.logs = logs
    }

    /// Whether `middleware` has one named ``MiddlewareName/logging``.
    private static func logs(_ middleware: [any Middleware]) -> Bool {
        middleware.contains { $0.name == .logging }
    }

    /// `middleware`, outermost first, then `end`, as one call.
    private static func chain(_ middleware: [any Middleware], then end: @escaping MiddlewareNext) -> MiddlewareNext {
        var next = end
        for step in middleware.reversed() {
            next = Self.step(step, then: next)
        }
        return next
    }

    /// `middleware` with `next` as the rest of the chain.
    private static func step(_ middleware: any Middleware, then next: @escaping MiddlewareNext) -> MiddlewareNext {
        { request, context in
            if middleware.passesThrough(request, context: context) { return try await next(request, context) }
            return try await middleware.intercept(request, context: context, next: next)
        }
    }

    /// This chain with `outer` around it (a request's own middleware). Until the request reaches this chain, the
    /// context says it is in a request's own list (a coalescing stage there has nobody to share with).
    package func wrapped(in outer: [any Middleware]) -> MiddlewareChain {
        guard !outer.isEmpty else { return self }
        let inner = send
        let send = Self.chain(outer) { request, context in
            var context = context
            context.call = context.call.leavingRequestsOwnList()
            return try await inner(request, context)
        }
        return MiddlewareChain(outer + middleware, send: send, logs: logs || Self.logs(outer))
    }
}

extension API {
    /// Sends `request` through the chain: the request's own middleware, the API's, then the transport.
    /// - Throws: ``CRUDError`` (another error a middleware throws becomes `CRUDError/transport(underlying:)`).
    package func run(
        _ request: HTTPRequest,
        middleware: [any Middleware] = [],
        retryPolicy: RetryPolicy?,
        transfer: TransferMode
    ) async throws -> HTTPResponse {
        let chain = self.chain.wrapped(in: middleware)
        let context = MiddlewareContext(
            api: self, request: request, retryPolicy: retryPolicy, transfer: transfer, logs: chain.logs,
            inRequestsOwnList: !middleware.isEmpty)
        do {
            return try await chain.send(request, context)
        } catch let error as CRUDError {
            throw error
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : CRUDError.fromTransport(error, timeout: request.timeout)
        }
    }
}
