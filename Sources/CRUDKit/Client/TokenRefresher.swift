/// An ``Interceptor`` that sends a bearer token with every request and, on 401, refreshes it once for everyone.
///
/// However many requests fail together with the same token, exactly one `refresh` runs; every one of them waits
/// for it and is sent once more with the new token. Requests that start while a refresh runs wait for it too. A
/// request is retried with a new token at most once, and when the refresh fails, every request waiting on it fails,
/// with the refresh's error if it threw a ``CRUDError`` and with the original 401 otherwise. After a failed refresh
/// no new refresh starts for the same token (so a dead session is not refreshed in a loop): later requests that
/// fail with that token fail the same way, until ``setToken(_:)`` gives a new one.
///
/// ```swift
/// let auth = TokenRefresher(token: storedToken) { expired in
///     let tokens: Tokens = try await authAPI.post("token/refresh", body: .json(["refresh": refreshToken]))
///     return tokens.access
/// }
/// let api = API(baseURL: base, interceptors: [auth])
/// ```
public actor TokenRefresher: Interceptor {
    private var token: String?
    private var refreshing: Task<String, any Error>?
    /// The token whose refresh failed, and the error it failed with (`nil`: not a ``CRUDError``).
    private var failed: (token: String?, error: CRUDError?)?
    private let refresh: @Sendable (_ expired: String?) async throws -> String
    private let headerName: String
    private let scheme: String
    private let statuses: Set<Int>

    /// The number of refreshes started so far.
    public private(set) var refreshCount = 0

    /// Creates a refresher.
    /// - Parameters:
    ///   - token: The token to start with; `nil` sends no header until a refresh or ``setToken(_:)``.
    ///   - headerName: The header that carries the token.
    ///   - scheme: Written before the token, as in `Bearer abc`; empty for the token alone.
    ///   - statuses: The statuses that mean the token expired.
    ///   - refresh: Gets a new token, given the one that expired.
    public init(
        token: String?,
        headerName: String = "Authorization",
        scheme: String = "Bearer",
        statuses: Set<Int> = [401],
        refresh: @escaping @Sendable (_ expired: String?) async throws -> String
    ) {
        self.token = token
        self.headerName = headerName
        self.scheme = scheme
        self.statuses = statuses
        self.refresh = refresh
    }

    /// The token sent now.
    public var currentToken: String? { token }

    /// Replaces the token (after signing in again, say) and allows refreshing again.
    public func setToken(_ token: String?) {
        self.token = token
        failed = nil
    }

    /// Sets the token header, after waiting for a refresh that is running.
    public func adapt(_ request: HTTPRequest, context: InterceptorContext) async throws -> HTTPRequest {
        if let refreshing { _ = try? await refreshing.value }
        guard let token else { return request }
        var request = request
        request.headers[headerName] = headerValue(token)
        request.sensitiveHeaderNames.insert(headerName.lowercased())
        return request
    }

    /// On an expired-token status, refreshes once (or joins the refresh running) and retries the request once.
    public func retry(
        _ request: HTTPRequest, failedWith error: CRUDError, context: InterceptorContext
    ) async
        -> RetryDecision
    {
        guard case .httpStatus(let response) = error, statuses.contains(response.status) else { return .doNotRetry }
        let alreadyRetried = context.previousFailures.contains {
            if case .httpStatus(let earlier) = $0 { return statuses.contains(earlier.status) }
            return false
        }
        if alreadyRetried { return .doNotRetry }
        let sent = request.headers[headerName]
        if let token, headerValue(token) != sent, refreshing == nil { return .retryNow }
        let task: Task<String, any Error>
        if let refreshing {
            task = refreshing
        } else {
            if let failed, failed.token == token { return failed.error.map { .fail($0) } ?? .doNotRetry }
            task = startRefresh()
        }
        do {
            _ = try await task.value
            return .retryNow
        } catch let failure as CRUDError {
            return .fail(failure)
        } catch {
            return .doNotRetry
        }
    }

    private func startRefresh() -> Task<String, any Error> {
        let expired = token
        let refresh = self.refresh
        refreshCount += 1
        let task = Task {
            let result: Result<String, any Error>
            do {
                result = .success(try await refresh(expired))
            } catch {
                result = .failure(error)
            }
            self.finish(result, expired: expired)
            return try result.get()
        }
        refreshing = task
        return task
    }

    /// Records the outcome before any waiter resumes.
    private func finish(_ result: Result<String, any Error>, expired: String?) {
        refreshing = nil
        switch result {
        case .success(let newToken):
            token = newToken
            failed = nil
        case .failure(let error):
            failed = (expired, error as? CRUDError)
        }
    }

    private func headerValue(_ token: String) -> String {
        scheme.isEmpty ? token : scheme + " " + token
    }
}
