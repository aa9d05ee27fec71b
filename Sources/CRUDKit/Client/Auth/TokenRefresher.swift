import Foundation

/// A ``Middleware`` that sends a bearer token with every request and, on 401, refreshes it once for everyone.
///
/// However many requests fail together with the same token, exactly one `refresh` runs; every one of them waits
/// for it and is sent once more with the new token. Requests that start while a refresh runs wait for it too. A
/// request is retried with a new token at most once, and when the refresh fails, every request waiting on it fails
/// without being sent again (never with the dead token), with the refresh's error if it threw a ``CRUDError`` and
/// with the original 401 otherwise. After a failed refresh
/// no new refresh starts for the same token (so a dead session is not refreshed in a loop): later requests that
/// fail with that token fail the same way, until ``setToken(_:)`` gives a new one. A refresh that returns the very
/// token that expired counts as failed.
///
/// Waiting never outlasts the caller: a request waiting for a refresh ends at once with ``CRUDError/cancelled``
/// when its task is cancelled, and with ``CRUDError/Timeout/deadline(_:)`` when its ``HTTPRequest/deadline``
/// (counted from the start of the request, on the API's clock) passes. A refresh itself has a time limit,
/// ``refreshTimeout`` (30 seconds by default): a refresh that has not returned by then is cancelled and abandoned,
/// every request waiting for it fails with ``CRUDError/Timeout/tokenRefresh(_:)``, and the next request that needs
/// a new token starts a fresh refresh (a refresh that timed out does not count as failed). Whatever the abandoned
/// refresh returns later is ignored.
///
/// The refresh may go through the very API it guards (or any other API sharing the refresher): a request sent
/// from inside `refresh` (from its task and the tasks it creates) is the refresh's own, and this refresher leaves
/// it alone — it neither waits for the refresh it belongs to, nor adds the expired token, nor refreshes on its
/// 401. A refresh endpoint that answers 401 therefore fails the refresh at once, with that 401, and every request
/// waiting for it with it; the expired token is not refreshed again (no loop). A request sent from a task that
/// `refresh` detaches (`Task.detached`) is not its own, and waits for it like any other.
///
/// ```swift
/// let auth = TokenRefresher(token: storedToken) { expired in
///     let tokens: Tokens = try await api.post("token/refresh", body: .json(["refresh": refreshToken]))
///     return tokens.access
/// }
/// let api = API(baseURL: base).with { $0.middleware.insert(auth, after: .retry) }
/// ```
public actor TokenRefresher {
    /// The refreshers whose refresh the current task runs (a refresh's own requests see their refresher here).
    @TaskLocal private static var refreshesInProgress: Set<ObjectIdentifier> = []
    private var token: String?
    /// Counts ``setToken(_:)`` calls: a refresh that started before the latest one does not replace its token.
    private var tokenGeneration = 0
    private var refreshing: PendingRefresh?
    /// The token whose refresh failed, and the error it failed with (`nil`: not a ``CRUDError``).
    private var failed: (token: String?, error: CRUDError?)?
    private let refresh: @Sendable (_ expired: String?) async throws -> String
    private let headerName: String
    private let scheme: String
    private let statuses: Set<Int>

    /// The number of refreshes started so far.
    public private(set) var refreshCount = 0

    /// The longest a refresh may run, in seconds, before it is cancelled and the requests waiting for it fail with
    /// ``CRUDError/Timeout/tokenRefresh(_:)``; `.infinity` for no limit. The default is 30 seconds: longer than a
    /// token endpoint takes when it is up, short enough that a stuck one does not hold every request of the API.
    /// Change it with ``setRefreshTimeout(_:)``; a refresh already running keeps the limit it started with.
    public private(set) var refreshTimeout: TimeInterval

    /// Creates a refresher.
    /// - Parameters:
    ///   - token: The token to start with; `nil` sends no header until a refresh or ``setToken(_:)``.
    ///   - headerName: The header that carries the token.
    ///   - scheme: Written before the token, as in `Bearer abc`; empty for the token alone.
    ///   - statuses: The statuses that mean the token expired.
    ///   - refreshTimeout: The longest a refresh may run, in seconds (see ``refreshTimeout``); 30 by default.
    ///   - refresh: Gets a new token, given the one that expired. It is cancelled when it outlasts `refreshTimeout`.
    public init(
        token: String?,
        headerName: String = "Authorization",
        scheme: String = "Bearer",
        statuses: Set<Int> = [401],
        refreshTimeout: TimeInterval = 30,
        refresh: @escaping @Sendable (_ expired: String?) async throws -> String
    ) {
        self.token = token
        self.headerName = headerName
        self.scheme = scheme
        self.statuses = statuses
        self.refreshTimeout = refreshTimeout
        self.refresh = refresh
    }

    /// The token sent now.
    public var currentToken: String? { token }

    /// How many requests are waiting for the refresh running now (0 when none runs); for tests.
    package var waitingForRefresh: Int { refreshing?.waiterCount ?? 0 }

    /// Replaces the token (after signing in again, say, or `nil` after signing out) and allows refreshing again.
    ///
    /// A refresh running meanwhile no longer changes the token: what it returns is dropped, and the requests waiting
    /// for it are sent once more with this token.
    public func setToken(_ token: String?) {
        self.token = token
        tokenGeneration &+= 1
        failed = nil
    }

    /// Sets ``refreshTimeout``, the longest a refresh started from now on may run, in seconds (`.infinity` for no
    /// limit; zero, negative and NaN count as no time at all).
    public func setRefreshTimeout(_ seconds: TimeInterval) {
        refreshTimeout = seconds
    }

    /// Sets the token header, after waiting for a refresh that is running.
    /// - Throws: ``CRUDError/cancelled`` or ``CRUDError/Timeout/deadline(_:)`` when the caller's task is
    ///   cancelled or its deadline passes during that wait; ``CRUDError/Timeout/tokenRefresh(_:)`` when the refresh
    ///   runs out of time.
    func adapt(_ request: HTTPRequest, context: MiddlewareContext) async throws -> HTTPRequest {
        if isOwnRefreshRequest { return request }
        if let refreshing {
            switch await Self.wait(for: refreshing, context: context) {
            case .outcome(.timedOut(let seconds)): throw CRUDError.timedOut(.tokenRefresh(seconds))
            case .outcome(.token), .outcome(.superseded): break
            // The refresh failed: the token is dead, so the request is not sent with it (no extra round trip, no
            // write attempted with dead credentials); it fails as the requests that waited in `retry` do.
            case .outcome(.failed(let failure as CRUDError)): throw failure
            case .outcome(.failed), .outcome(.unchanged): throw refreshing.trigger
            case .cancelled: throw CRUDError.cancelled
            case .deadline(let seconds): throw CRUDError.timedOut(.deadline(seconds))
            }
        }
        guard let token else { return request }
        var request = request
        request.headers[headerName] = headerValue(token)
        request.sensitiveHeaderNames.insert(headerName.lowercased())
        return request
    }

    /// On an expired-token status, refreshes once (or joins the refresh running) and retries the request once.
    ///
    /// The wait for the refresh ends with the caller's cancellation, its deadline, or the refresh's timeout, as
    /// ``adapt(_:context:)`` describes.
    package func retry(
        _ request: HTTPRequest, failedWith error: CRUDError, context: MiddlewareContext
    ) async
        -> RetryDecision
    {
        guard case .httpStatus(let response) = error, statuses.contains(response.status), !isOwnRefreshRequest else {
            return .doNotRetry
        }
        let alreadyRetried = context.previousFailures.contains {
            if case .httpStatus(let earlier) = $0 { return statuses.contains(earlier.status) }
            return false
        }
        if alreadyRetried { return .doNotRetry }
        let sent = request.headers[headerName]
        if let token, headerValue(token) != sent, refreshing == nil { return .retry(after: .zero) }
        let pending: PendingRefresh
        if let refreshing {
            pending = refreshing
        } else {
            if let failed, failed.token == token { return failed.error.map { .fail($0) } ?? .doNotRetry }
            pending = startRefresh(trigger: error)
        }
        switch await Self.wait(for: pending, context: context) {
        case .outcome(.token), .outcome(.superseded): return .retry(after: .zero)
        case .outcome(.failed(let failure as CRUDError)): return .fail(failure)
        case .outcome(.failed), .outcome(.unchanged): return .doNotRetry
        case .outcome(.timedOut(let seconds)): return .fail(.timedOut(.tokenRefresh(seconds)))
        case .cancelled: return .fail(.cancelled)
        case .deadline(let seconds): return .fail(.timedOut(.deadline(seconds)))
        }
    }

    /// Starts refreshing the current token, because a request failed with `trigger` (an expired-token status).
    private func startRefresh(trigger: CRUDError) -> PendingRefresh {
        let expired = token
        let refresh = self.refresh
        let limit = refreshTimeout
        let generation = tokenGeneration
        refreshCount += 1
        let pending = PendingRefresh(trigger: trigger)
        // The refresh's own requests know they are: they see this refresher in `refreshesInProgress`.
        let marks = Self.refreshesInProgress.union([ObjectIdentifier(self)])
        let work = Task {
            let outcome: PendingRefresh.Outcome
            do {
                outcome = .token(try await Self.$refreshesInProgress.withValue(marks) { try await refresh(expired) })
            } catch {
                outcome = .failed(error)
            }
            self.finish(pending, with: outcome, expired: expired, generation: generation)
        }
        var watchdog: Task<Void, Never>?
        if let nanoseconds = Self.nanoseconds(limit) {
            watchdog = Task {
                try? await Task.sleep(nanoseconds: nanoseconds)
                if Task.isCancelled { return }
                // The refresh hears of its cancellation before anyone waiting hears of the timeout.
                work.cancel()
                self.finish(pending, with: .timedOut(limit), expired: expired, generation: generation)
            }
        }
        pending.watch(watchdog)
        refreshing = pending
        return pending
    }

    /// Records the first outcome of `pending` (a later one, such as a result after a timeout, is ignored), then
    /// wakes the requests waiting for it. The token and the failure are recorded only while the token is still the
    /// one the refresh started from (`generation`): a ``setToken(_:)`` since then wins.
    private func finish(
        _ pending: PendingRefresh, with outcome: PendingRefresh.Outcome, expired: String?, generation: Int
    ) {
        guard !pending.isFinished else { return }
        if refreshing === pending { refreshing = nil }
        // Superseded: the waiters are sent once more with the token set meanwhile.
        var outcome = generation == tokenGeneration ? outcome : .superseded
        // The expired token back again: the session cannot be refreshed, as when the refresh fails.
        if case .token(let newToken) = outcome, newToken == expired { outcome = .unchanged }
        switch outcome {
        case .token(let newToken):
            token = newToken
            failed = nil
        case .failed(let error):
            failed = (expired, error as? CRUDError)
        case .unchanged:
            failed = (expired, nil)
        case .timedOut, .superseded:
            break  // Not a failure of the session: the next request that needs a token refreshes again.
        }
        pending.finish(outcome)
    }

    /// `seconds` as whole nanoseconds for a timer; `nil` for no limit (infinite, or beyond a century). Zero,
    /// negative and NaN give zero.
    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64? {
        if seconds.isNaN || seconds <= 0 { return 0 }
        guard seconds < 3_155_760_000 else { return nil }
        return UInt64(seconds * 1e9)
    }

    /// Whether the current task is running this refresher's refresh: its requests are the refresh's own.
    private var isOwnRefreshRequest: Bool {
        Self.refreshesInProgress.contains(ObjectIdentifier(self))
    }

    private func headerValue(_ token: String) -> String {
        scheme.isEmpty ? token : scheme + " " + token
    }

    /// How a wait for a refresh ended.
    private enum WaitResult: Sendable {
        /// The refresh ended this way.
        case outcome(PendingRefresh.Outcome)
        /// The waiting task was cancelled.
        case cancelled
        /// The waiting request's deadline, of this many seconds, passed.
        case deadline(TimeInterval)
    }

    /// Waits for `pending` until it ends, the calling task is cancelled, or the request's deadline passes.
    ///
    /// The deadline is the original request's ``HTTPRequest/deadline``, counted from the start of the request
    /// (``MiddlewareContext/elapsed``) on the API's clock.
    private static func wait(for pending: PendingRefresh, context: MiddlewareContext) async -> WaitResult {
        guard let seconds = context.originalRequest.deadline, let nanoseconds = nanoseconds(seconds) else {
            return await pending.wait().map { .outcome($0) } ?? .cancelled
        }
        let remaining = Duration.nanoseconds(Int64(nanoseconds)) - context.elapsed
        if let outcome = pending.outcome { return .outcome(outcome) }
        if remaining <= .zero { return .deadline(seconds) }
        let clock = context.api.configuration.clock
        return await withTaskGroup(of: WaitResult.self) { group in
            group.addTask { await pending.wait().map { .outcome($0) } ?? .cancelled }
            group.addTask {
                do {
                    try await clock.sleep(for: remaining)
                    return .deadline(seconds)
                } catch {
                    return .cancelled
                }
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return first
        }
    }
}

/// One refresh of a ``TokenRefresher``: its outcome once known, and the continuations of the requests waiting for
/// it, each of which can leave on its own (cancelled) without ending the others' wait.
// Safety: `@unchecked Sendable` because all mutable state is in `state`, a `Locked` (its named lock), read and
// changed only inside `withLock`; continuations are resumed outside the lock.
private final class PendingRefresh: @unchecked Sendable {
    /// How a refresh ended.
    enum Outcome: Sendable {
        /// It returned this token.
        case token(String)
        /// It threw this error.
        case failed(any Error)
        /// It ran past the refresh timeout of this many seconds and was abandoned.
        case timedOut(TimeInterval)
        /// It returned the expired token it was given: a failed refresh, ending in the original status.
        case unchanged
        /// ``TokenRefresher/setToken(_:)`` replaced the token while it ran; what it returned was dropped.
        case superseded
    }

    private struct State {
        var outcome: Outcome?
        var waiters: [Int: CheckedContinuation<Outcome?, Never>] = [:]
        var nextWaiter = 0
        var watchdog: Task<Void, Never>?
    }

    private let state = Locked(State())

    /// The expired-token error that started the refresh: what a request waiting for it fails with when the refresh
    /// fails without a ``CRUDError`` of its own (as the request that started it fails with its own status).
    let trigger: CRUDError

    init(trigger: CRUDError) {
        self.trigger = trigger
    }

    /// How many requests are waiting for the refresh.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// The outcome, once the refresh ended.
    var outcome: Outcome? { state.withLock { $0.outcome } }

    /// Whether the refresh ended.
    var isFinished: Bool { outcome != nil }

    /// Keeps the task enforcing the time limit, to stop it when the refresh ends first.
    func watch(_ watchdog: Task<Void, Never>?) {
        let finished = state.withLock { state -> Bool in
            state.watchdog = watchdog
            return state.outcome != nil
        }
        if finished { watchdog?.cancel() }
    }

    /// Records the outcome, stops the watchdog, and resumes every waiter; only the first call counts.
    func finish(_ outcome: Outcome) {
        typealias Taken = (waiters: [CheckedContinuation<Outcome?, Never>], watchdog: Task<Void, Never>?)
        let (waiters, watchdog) = state.withLock { state -> Taken in
            guard state.outcome == nil else { return ([], nil) }
            state.outcome = outcome
            defer {
                state.waiters.removeAll()
                state.watchdog = nil
            }
            return (Array(state.waiters.values), state.watchdog)
        }
        watchdog?.cancel()
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// Waits for the outcome; `nil` when the calling task is cancelled first.
    func wait() async -> Outcome? {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
                let now = state.withLock { state -> Outcome?? in
                    if let outcome = state.outcome { return .some(outcome) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }
}
