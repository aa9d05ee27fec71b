import Foundation
import Testing

@testable import CRUDKit
@_spi(TransportKit) @testable import CRUDKitHTTP

/// The redirect hops of one URLSession exchange driven without I/O: followed by `RedirectPolicy` within the limit,
/// returned when the policy refuses, failed past the limit.
@Suite struct RedirectStateMachineTests {
    static func redirect(_ status: Int, to location: String = "/next") -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Location", value: location)
        return HTTPResponse(status: status, headers: headers)
    }

    @Test func redirectIsFollowedWithinTheLimit() {
        var redirects = RedirectStateMachine(limit: 2)
        let get = HTTPRequest(url: URL(string: "http://127.0.0.1:1/start")!)
        guard case .follow(let next) = redirects.received(Self.redirect(302), for: get) else {
            Issue.record("a 302 after GET is followed")
            return
        }
        #expect(next.url.absoluteString == "http://127.0.0.1:1/next")
        guard case .follow = redirects.received(Self.redirect(307), for: next) else {
            Issue.record("a second redirect within the limit is followed")
            return
        }
        guard case .fail(let error) = redirects.received(Self.redirect(308), for: next) else {
            Issue.record("a third redirect passes the limit of 2")
            return
        }
        #expect(TransferStateMachineTests.describe(error) == "tooManyRedirects(2)")
        #expect(redirects.followed == 3)
    }

    @Test func redirectThePolicyRefusesEndsTheExchange() {
        var redirects = RedirectStateMachine(limit: 5)
        let post = HTTPRequest(
            method: .post, url: URL(string: "http://127.0.0.1:1/start")!, body: .data(Data("x".utf8)))
        guard case .finish = redirects.received(Self.redirect(301), for: post) else {
            Issue.record("a 301 after POST is returned, not followed")
            return
        }
        guard case .finish = redirects.received(HTTPResponse(status: 200), for: post) else {
            Issue.record("a 200 ends the exchange")
            return
        }
        #expect(redirects.followed == 0)
        var none = RedirectStateMachine(limit: 0)
        guard case .fail = none.received(Self.redirect(303), for: post) else {
            Issue.record("with a limit of 0 any redirect to follow fails")
            return
        }
    }
}
