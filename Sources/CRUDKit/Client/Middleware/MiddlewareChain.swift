/// An API's middlewares, ready to run: the standard stages that are on and the custom middlewares in their order,
/// then the transport.
package struct MiddlewareChain: Sendable {
    /// One step: a standard stage, called directly, or a custom middleware, called with a closure for the rest.
    package enum Step: Sendable {
        case standard(StandardMiddleware)
        case custom(any Middleware)
    }

    /// The rest of a chain as a standard stage sees it: a position in a chain (no closure needed), or a closure.
    package enum Next: Sendable {
        case chain(MiddlewareChain, Int)
        case closure(MiddlewareNext)

        /// Sends `request` through the rest of the chain.
        @inline(__always)
        package func callAsFunction(_ request: HTTPRequest, _ context: MiddlewareContext) async throws -> HTTPResponse {
            switch self {
            case .chain(let chain, let index): try await chain.run(request, context, at: index)
            case .closure(let next): try await next(request, context)
            }
        }
    }

    package let steps: [Step]

    /// The chain of `middleware` for `configuration`: standard stages whose setting is off are left out.
    package init(_ middleware: [any Middleware], for configuration: APIConfiguration) {
        steps = middleware.compactMap { middleware in
            guard let standard = middleware as? StandardMiddleware else { return .custom(middleware) }
            return standard.isActive(in: configuration) ? .standard(standard) : nil
        }
    }

    private init(steps: [Step]) {
        self.steps = steps
    }

    /// This chain with `outer` around it (a request's own middleware).
    package func wrapped(in outer: [any Middleware]) -> MiddlewareChain {
        outer.isEmpty ? self : MiddlewareChain(steps: outer.map { .custom($0) } + steps)
    }

    /// Sends `request` through the steps from `index` on, then the transport.
    package func run(_ request: HTTPRequest, _ context: MiddlewareContext, at index: Int) async throws -> HTTPResponse {
        guard index < steps.count else { return try await StandardMiddleware.transfer(request, context) }
        switch steps[index] {
        case .standard(let stage):
            return try await stage.run(request, context, .chain(self, index + 1))
        case .custom(let middleware):
            return try await middleware.intercept(request, context: context) { request, context in
                try await self.run(request, context, at: index + 1)
            }
        }
    }
}

extension API {
    /// Sends `request` through the chain: the request's own middleware, the API's, then the transport.
    /// - Throws: ``CRUDError`` (another error a middleware throws becomes ``CRUDError/transport(underlying:)``).
    package func run(
        _ request: HTTPRequest,
        middleware: [any Middleware] = [],
        retryPolicy: RetryPolicy?,
        transfer: TransferMode
    ) async throws -> HTTPResponse {
        let context = MiddlewareContext(api: self, request: request, retryPolicy: retryPolicy, transfer: transfer)
        do {
            return try await chain.wrapped(in: middleware).run(request, context, at: 0)
        } catch let error as CRUDError {
            throw error
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : CRUDError.fromTransport(error, timeout: request.timeout ?? 0)
        }
    }
}
