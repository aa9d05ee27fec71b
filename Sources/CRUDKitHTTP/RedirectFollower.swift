@_spi(TransportKit) import CRUDKitCore
import Foundation

/// The one redirect loop: sends an exchange through a transport, one hop at a time, and follows each redirect
/// ``RedirectPolicy`` allows. A transport sends one exchange and returns a 3xx as it is; this stage, at the end of an
/// `API`'s middleware chain (and in ``DownloadTask``), turns those hops into one answer.
///
/// Per hop:
/// - the next request is ``RedirectPolicy/nextRequest(after:to:resendingBodyAcrossOrigins:)``'s (method, body and
///   credentials by its rules); more than ``limit`` redirects fail with ``CRUDError/tooManyRedirects(limit:)``;
/// - one deadline covers every hop: the request's ``HTTPRequest/deadline`` counts from the first hop, each later hop
///   carries what is left of it, and when nothing is left the exchange fails with ``CRUDError/Timeout/deadline(_:)``
///   (the request's own figure, whichever hop ran out); with `holdingTheAnswer`, an answer kept in memory that
///   arrives at or after the deadline (its transport's timer late, on a busy machine) is that timeout too, as for a
///   read shared with others (`RequestCoalescer`), while a download's answer, its file already in place, is kept;
/// - with a ``jar``, each hop's `Set-Cookie` is stored under the URL that answered it, and each later hop on the same
///   origin as the hop before carries the jar's `Cookie` for its own URL in place of the one the jar gave the hop
///   before; a hop to another origin carries none (the jar matches hosts, not ports or schemes), and a `Cookie` the
///   caller set follows the policy's credential rules;
/// - the response's `url` is the URL that answered; a cancelled task stops between hops with
///   ``CRUDError/cancelled``;
/// - each hop is stamped with whether a redirect answering it is followed (a hop left under ``limit``), so the
///   transport drops that redirect's body, whatever its size, instead of holding it within its size limit (see
///   ``HTTPRequest/followedRedirectDrain(status:headers:)``); a redirect not followed keeps its body.
package struct RedirectFollower: Sendable {
    /// The most redirects followed.
    package let limit: Int
    /// Where cookies are read and stored per hop; `nil` for none.
    package let jar: CookieJar?
    /// Whether the first request's `Cookie` header is the jar's (replaced hop by hop) rather than the caller's.
    package let cookieFromJar: Bool
    /// The API's rules for secret headers: the headers they list or name with the API's own words never go to
    /// another origin, whichever stage added them (``RedirectPolicy``'s credentials); `nil` for the standard ones.
    package let redaction: Redaction?

    /// A follower of at most `limit` redirects, keeping cookies in `jar`.
    /// - Parameters:
    ///   - limit: The most redirects followed (a negative one counts as 0).
    ///   - jar: The cookie jar, or `nil`.
    ///   - cookieFromJar: Whether the request's `Cookie` header was added from `jar`.
    ///   - redaction: The API's rules for secret headers, or `nil`.
    package init(limit: Int, jar: CookieJar? = nil, cookieFromJar: Bool = false, redaction: Redaction? = nil) {
        self.limit = max(0, limit)
        self.jar = jar
        self.cookieFromJar = cookieFromJar
        self.redaction = redaction
    }

    /// Sends `request` with `send`, then each redirect the policy follows, and returns the last response.
    /// - Parameters:
    ///   - request: The first hop.
    ///   - holdingTheAnswer: Whether the deadline holds for the last response too (an answer in memory, which is
    ///     dropped): one that arrives at or after it is ``CRUDError/Timeout/deadline(_:)``. `false` for a download,
    ///     whose file the transport has already put in place.
    ///   - send: Sends one hop (one exchange, no redirects) and returns its response.
    /// - Returns: The response that ends the chain of redirects, whatever its status.
    /// - Throws: ``CRUDError``, and what `send` throws.
    package func follow(
        _ request: HTTPRequest, holdingTheAnswer: Bool = false, send: (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let deadline = request.deadline.flatMap { $0.isFinite ? $0 : nil }
        let start = deadline == nil ? nil : ContinuousClock.now
        var current = request
        var cookieFromJar = self.cookieFromJar
        var followed = 0
        while true {
            var response: HTTPResponse
            // A hop with a redirect left tells the transport that a redirect it gets back is followed: the transport
            // drops that body instead of collecting it (``HTTPRequest/followedRedirectDrain(status:headers:)``).
            current.redirectStamp = RedirectStamp(followsNext: followed < limit)
            do {
                response = try await send(current)
            } catch CRUDError.timedOut(.deadline) where followed > 0 {
                throw CRUDError.timedOut(.deadline(deadline ?? 0))
            }
            if response.url == nil { response.url = current.url }
            jar?.store(from: response.headers, for: current.url)
            guard var next = RedirectPolicy.nextRequest(after: response, to: current, redaction: redaction) else {
                // The transport's timer fires the deadline; when it ran late, the answer that came first is past it.
                if holdingTheAnswer, let deadline, let start, Self.seconds(since: start) >= deadline {
                    throw CRUDError.timedOut(.deadline(deadline))
                }
                return response
            }
            followed += 1
            guard followed <= limit else { throw CRUDError.tooManyRedirects(limit: limit) }
            if Task.isCancelled { throw CRUDError.cancelled }
            if let jar {
                if cookieFromJar { next.headers["Cookie"] = nil }
                cookieFromJar = false
                // A hop to another origin carries no cookie, as it carries no credential: the jar matches hosts, not
                // ports or schemes, so its cookies for that URL may be the first origin's.
                if RedirectPolicy.sameOrigin(current.url, next.url), !next.headers.contains("Cookie"),
                    let cookie = jar.cookieHeader(for: next.url)
                {
                    next.headers.add(name: "Cookie", value: cookie)
                    cookieFromJar = true
                }
            }
            if let deadline, let start {
                let left = deadline - Self.seconds(since: start)
                guard left > 0 else { throw CRUDError.timedOut(.deadline(deadline)) }
                next.deadline = left
            }
            current = next
        }
    }

    /// The seconds since `start`, as a `Double` (a deadline of any finite figure compares with it; building a
    /// `Duration` from one past `Int64` seconds would trap).
    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
