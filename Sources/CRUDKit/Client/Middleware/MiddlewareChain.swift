/// An API's middlewares, ready to run in their order, then the transport.
package struct MiddlewareChain: Sendable {
    /// One step: a standard stage, called directly by its concrete type (no closure, no existential; a payload is
    /// at most one reference to retain), the coalescing stage with the table of reads in flight the chain keeps for
    /// it, or a custom middleware, called with a closure for the rest.
    package enum Step: Sendable {
        case idempotencyKeys
        case retry(Boxed<RetryMiddleware>)
        case logging(Boxed<LoggingMiddleware>)
        case validation
        case coalescing(RequestCoalescer)
        case cache(CacheMiddleware)
        case custom(any Middleware)
    }

    /// A stage held by reference, so that reading a step retains one object rather than each of its settings.
    package final class Boxed<Stage: StandardStage>: Sendable {
        let stage: Stage

        init(_ stage: Stage) {
            self.stage = stage
        }
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
    /// The first logging stage, which the retry stage logs each retry through (boxed: the chain is copied into
    /// every step's `Next`, and stays two references).
    package let logging: Boxed<LoggingMiddleware>?

    /// The chain of `middleware`; each coalescing stage gets a table of its own (an API's reads in flight are its
    /// own).
    package init(_ middleware: [any Middleware]) {
        steps = middleware.map(Self.step)
        logging = middleware.lazy.compactMap { $0 as? LoggingMiddleware }.first.map(Boxed.init)
    }

    private init(steps: [Step], logging: Boxed<LoggingMiddleware>?) {
        self.steps = steps
        self.logging = logging
    }

    private static func step(_ middleware: any Middleware) -> Step {
        switch middleware {
        case is IdempotencyKeyMiddleware: .idempotencyKeys
        case let retry as RetryMiddleware: .retry(Boxed(retry))
        case let logging as LoggingMiddleware: .logging(Boxed(logging))
        case is ValidationMiddleware: .validation
        case is CoalescingMiddleware: .coalescing(RequestCoalescer())
        case let cache as CacheMiddleware: .cache(cache)
        default: .custom(middleware)
        }
    }

    /// This chain with `outer` around it (a request's own middleware; a coalescing stage there has nobody to share
    /// with and passes requests on).
    package func wrapped(in outer: [any Middleware]) -> MiddlewareChain {
        guard !outer.isEmpty else { return self }
        let first = outer.map { $0 is CoalescingMiddleware ? .custom($0) : Self.step($0) }
        return MiddlewareChain(
            steps: first + steps,
            logging: outer.lazy.compactMap { $0 as? LoggingMiddleware }.first.map(Boxed.init) ?? logging)
    }

    /// This chain with `step` last, just before the transport (the coalescing stage moved behind custom middleware).
    package func appending(_ step: Step) -> MiddlewareChain {
        MiddlewareChain(steps: steps + [step], logging: logging)
    }

    /// Whether a custom middleware is among the steps from `index` on (it may change what is sent).
    package func hasCustomStep(from index: Int) -> Bool {
        steps[index...].contains { if case .custom = $0 { true } else { false } }
    }

    /// The reads in flight of the first coalescing stage, if any.
    package var coalescer: RequestCoalescer? {
        for case .coalescing(let coalescer) in steps { return coalescer }
        return nil
    }

    /// Sends `request` through the steps from `index` on, then the transport.
    package func run(_ request: HTTPRequest, _ context: MiddlewareContext, at index: Int) async throws -> HTTPResponse {
        var index = index
        // A custom middleware with nothing to do for this request is skipped here, before any frame or closure.
        while index < steps.count, case .custom(let middleware) = steps[index],
            middleware.passesThrough(request, context: context)
        {
            index += 1
        }
        guard index < steps.count else { return try await Self.transfer(request, context) }
        switch steps[index] {
        case .idempotencyKeys:
            return try await IdempotencyKeyMiddleware().run(request, context, .chain(self, index + 1))
        case .retry(let retry):
            return try await RetryMiddleware.run(request, context, .chain(self, index + 1), stage: retry)
        case .logging(let logging):
            return try await logging.stage.run(request, context, .chain(self, index + 1))
        case .validation:
            return try await ValidationMiddleware().run(request, context, .chain(self, index + 1))
        case .cache(let cache):
            return try await cache.run(request, context, .chain(self, index + 1))
        case .coalescing(let coalescer):
            return try await CoalescingMiddleware.run(request, context, .chain(self, index + 1), coalescer: coalescer)
        case .custom(let middleware):
            let after = index + 1
            return try await middleware.intercept(request, context: context) { request, context in
                try await self.run(request, context, at: after)
            }
        }
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
            api: self, request: request, retryPolicy: retryPolicy, transfer: transfer, logging: chain.logging)
        do {
            return try await chain.run(request, context, at: 0)
        } catch let error as CRUDError {
            throw error
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : CRUDError.fromTransport(error, timeout: request.timeout ?? 0)
        }
    }
}
