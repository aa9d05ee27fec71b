import Foundation

/// What the redirect follower at the end of an `API`'s chain (or a `DownloadTask`) stamps on each hop it sends:
/// whether it will follow one more redirect after it (it has a hop left). A transport reads it through
/// `HTTPRequest.followedRedirectDrain(status:headers:)` to drop the body of a redirect that will be followed instead
/// of collecting it within its size limit.
///
/// It takes no part in equality or hashing (a request sent by the follower equals the one it was given), and a
/// request's description and mirror never show it.
package struct RedirectStamp: Sendable, Hashable {
    /// Whether the follower follows a redirect answering the stamped request (when `RedirectPolicy` does).
    package var followsNext: Bool

    /// A stamp; `followsNext` is `false` for a request the follower did not send (or sent with no hop left).
    package init(followsNext: Bool = false) {
        self.followsNext = followsNext
    }

    /// Always equal: the stamp is not part of a request's value.
    package static func == (lhs: RedirectStamp, rhs: RedirectStamp) -> Bool { true }

    /// Hashes nothing, consistently with `==`.
    package func hash(into hasher: inout Hasher) {}
}
