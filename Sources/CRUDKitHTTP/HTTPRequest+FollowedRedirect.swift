import CRUDKitCore
import Foundation

extension HTTPRequest {
    /// The most bytes of a followed redirect's body a transport reads and drops before it gives up on the connection
    /// (3 KiB, AsyncHTTPClient's own figure for the redirects it follows): enough for the short page a server writes
    /// under a `Location`, so the next hop can reuse the connection, and little to throw away.
    package static let followedRedirectDrainLimit = 3 * 1024

    /// How much of the body of a redirect answering this request with `status` and `headers` a transport reads and
    /// drops, when the redirect follower that sent the request follows that redirect; `nil` when it does not (then
    /// the body is the response's, within the transport's size limit, as any other).
    ///
    /// A redirect is followed when the follower at the end of an `API`'s chain (or a ``DownloadTask``) sent this
    /// request with a hop left under its limit and ``RedirectPolicy`` follows `status` for the request's method to
    /// the `Location` in `headers`. Its body is never the caller's: the transport returns the response with an
    /// empty body, whatever its size. It reads and drops up to the returned number of bytes so that the connection
    /// can carry the next hop, and stops reading (closing the connection) as soon as the declared `Content-Length`
    /// or the bytes received pass it (`0` for a body with a `Content-Encoding`: not read at all, since its bytes are
    /// counted only once decoded); a failure while it reads (the connection lost, a timeout) fails the exchange,
    /// as for any response. A request a caller sends through a transport directly is never followed: `nil`.
    ///
    /// ```swift
    /// if let drain = request.followedRedirectDrain(status: head.status, headers: head.headers) {
    ///     // read and drop at most `drain` bytes of the body, then return the head with an empty body
    /// }
    /// ```
    /// - Parameters:
    ///   - status: The response's status.
    ///   - headers: The response's header fields.
    /// - Returns: The most bytes of the body to read and drop, or `nil` when the body is the response's.
    @_spi(TransportKit) public func followedRedirectDrain(status: Int, headers: HTTPHeaders) -> Int? {
        guard redirectStamp.followsNext, (300..<400).contains(status),
            RedirectPolicy.nextRequest(after: HTTPResponse(status: status, headers: headers), to: self) != nil
        else { return nil }
        // A coded body is counted after decoding, where a hostile one can send endless bytes that decode to nothing
        // (empty deflate blocks) and never reach the drain: it is not read at all.
        let coding = headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return coding.isEmpty || coding == "identity" ? Self.followedRedirectDrainLimit : 0
    }
}
