import Foundation

/// What a ``Middleware`` knows about the request in flight: the API sending it, the attempt, the request as
/// built, and the retry policy that applies.
///
/// A value: a middleware that changes it (the retry stage sets ``attempt`` and ``previousFailures``) passes the
/// changed copy to `next`, and only the middlewares after it see the change.
public struct MiddlewareContext: Sendable {
    /// The API sending the request; its settings are ``API/configuration``.
    public let api: API
    /// The attempt, from 1 (set by the ``RetryMiddleware`` stage).
    public var attempt: Int
    /// The failures of the earlier attempts, oldest first.
    public var previousFailures: [CRUDError]
    /// What stays the same for the whole call, in one reference so that passing the context on copies little.
    package var call: Call
    /// The names (lower-cased) of header fields that carry a trace's context rather than ask for anything, such as
    /// `traceparent`: a tracing middleware that injects such fields adds their names here and passes the context on.
    /// Identical reads that differ only in these fields still share one exchange (see ``CoalescingMiddleware``),
    /// sent with the fields of the read that went first.
    public var propagationHeaderNames: Set<String> = []
    /// Whether a ``CoalescingMiddleware`` outside has taken this read: it is shared with identical reads in flight
    /// just before the transport, keyed on the request as it is sent.
    package var sharesAtTransport = false

    /// What stays the same for a whole call.
    package final class Call: Sendable {
        let originalRequest: HTTPRequest
        /// The request's own retry policy, which the retry stage follows instead of its own.
        let retryPolicy: RetryPolicy?
        let startedAt: Duration
        let transfer: API.TransferMode
        /// Where the first ``LoggingMiddleware`` that runs leaves itself, for the retry stage to log each retry
        /// through; `nil` when the chain has no logging stage.
        let retryLog: Locked<LoggingMiddleware?>?
        /// Whether the request is still in its own ``Request/middleware``, outside the API's chain.
        let inRequestsOwnList: Bool

        init(
            originalRequest: HTTPRequest, retryPolicy: RetryPolicy?, startedAt: Duration, transfer: API.TransferMode,
            retryLog: Locked<LoggingMiddleware?>?, inRequestsOwnList: Bool
        ) {
            self.originalRequest = originalRequest
            self.retryPolicy = retryPolicy
            self.startedAt = startedAt
            self.transfer = transfer
            self.retryLog = retryLog
            self.inRequestsOwnList = inRequestsOwnList
        }

        /// This call with `request` as the original request.
        func starting(from request: HTTPRequest) -> Call {
            Call(
                originalRequest: request, retryPolicy: retryPolicy, startedAt: startedAt, transfer: transfer,
                retryLog: retryLog, inRequestsOwnList: inRequestsOwnList)
        }

        /// This call as the API's chain sees it, past the request's own middleware.
        func leavingRequestsOwnList() -> Call {
            Call(
                originalRequest: originalRequest, retryPolicy: retryPolicy, startedAt: startedAt, transfer: transfer,
                retryLog: retryLog, inRequestsOwnList: false)
        }

        /// The logging stage the retry stage logs each retry through: the first that ran.
        var retryLogger: LoggingMiddleware? { retryLog?.withLock { $0 } }

        /// Leaves `logging` for the retry stage, unless another logging stage already ran.
        func ran(_ logging: LoggingMiddleware) {
            retryLog?.withLock { if $0 == nil { $0 = logging } }
        }
    }

    /// Creates a context for `request`, at attempt 1 (also for testing a middleware on its own).
    /// - Parameters:
    ///   - api: The API sending the request.
    ///   - request: The request as built.
    ///   - retryPolicy: The request's own retry policy; `nil` leaves it to the ``RetryMiddleware``'s.
    public init(api: API, request: HTTPRequest, retryPolicy: RetryPolicy? = nil) {
        self.init(
            api: api, request: request, retryPolicy: retryPolicy, transfer: .memory(.none), logs: api.chain.logs,
            inRequestsOwnList: false)
    }

    package init(
        api: API, request: HTTPRequest, retryPolicy: RetryPolicy?, transfer: API.TransferMode, logs: Bool,
        inRequestsOwnList: Bool
    ) {
        self.api = api
        self.attempt = 1
        self.previousFailures = []
        self.call = Call(
            originalRequest: request, retryPolicy: retryPolicy, startedAt: api.configuration.clock.now(),
            transfer: transfer, retryLog: logs ? Locked(nil) : nil, inRequestsOwnList: inRequestsOwnList)
    }

    /// The request as built, before the API's middleware changed it (but with the idempotency key the
    /// ``IdempotencyKeyMiddleware`` stage gave it).
    public var originalRequest: HTTPRequest { call.originalRequest }

    /// The request's own retry policy (``Request/retryPolicy``), which the ``RetryMiddleware`` follows instead of its
    /// own; `nil` when the request has none.
    public var retryPolicy: RetryPolicy? { call.retryPolicy }

    /// When the request started, on the API's clock (``APIClock/now()``).
    package var startedAt: Duration { call.startedAt }

    /// Where the response body goes and who hears of progress.
    package var transfer: API.TransferMode { call.transfer }

    /// The time since the request started, on the API's clock.
    public var elapsed: Duration { api.configuration.clock.now() - call.startedAt }

    /// A name for the operation, for logs and metrics: method and URL path, such as `GET /v1/people/12`.
    public var operationID: String { originalRequest.method.rawValue + " " + originalRequest.url.path }
}
