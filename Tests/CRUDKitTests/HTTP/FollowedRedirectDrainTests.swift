import CRUDKitTesting
import Foundation
import Synchronization
import Testing

@testable import CRUDKit
@_spi(TransportKit) @testable import CRUDKitHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of a redirect the follower follows, without a socket: which hops the follower stamps, which answers
/// `HTTPRequest.followedRedirectDrain(status:headers:)` marks as followed, and how the URLSession transfer's machine
/// drops such a body (read to its end when short, left unread past the drain, never held within the size limit).
@Suite struct FollowedRedirectDrainTests {
    typealias Trace = TransferStateMachineTests.Trace

    static let drain = HTTPRequest.followedRedirectDrainLimit
    static let url = URL(string: "http://api.example.com/start")!

    static func stamped(_ method: HTTPMethod = .get, body: HTTPBody = .none) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: url, body: body)
        request.redirectStamp = RedirectStamp(followsNext: true)
        return request
    }

    // MARK: - Which hops the follower stamps

    @Test func everyHopWithARedirectLeftIsStampedAndTheLastIsNot() async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/hop/:n") { request in
            let next = Int(request.parameters["n"] ?? "") ?? 0
            return .status(302, headers: ["Location": next >= 3 ? "/done" : "/hop/\(next + 1)"])
        }
        stubs.on(nil, "/done") { _ in .text("done") }
        let stamps = Mutex<[Bool]>([])
        let follower = RedirectFollower(limit: 2)
        await #expect(throws: CRUDError.self) {
            try await follower.follow(HTTPRequest(url: URL(string: "http://api.example.com/hop/1")!)) { hop in
                stamps.withLock { $0.append(hop.redirectStamp.followsNext) }
                return try await stubs.send(hop)
            }
        }
        #expect(stamps.withLock { $0 } == [true, true, false])
        let none = Mutex<[Bool]>([])
        _ = try await RedirectFollower(limit: 0).follow(HTTPRequest(url: URL(string: "http://api.example.com/done")!)) {
            hop in
            none.withLock { $0.append(hop.redirectStamp.followsNext) }
            return try await stubs.send(hop)
        }
        #expect(none.withLock { $0 } == [false])
    }

    @Test func theStampIsNotPartOfTheRequestsValue() {
        let plain = HTTPRequest(url: Self.url)
        #expect(Self.stamped() == plain)
        #expect(Set([Self.stamped(), plain]).count == 1)
        #expect(!"\(Self.stamped())".contains("Stamp"))
    }

    // MARK: - Which answers are followed

    @Test func onlyARedirectThePolicyFollowsOnAStampedHopIsDrained() {
        let get = Self.stamped()
        #expect(get.followedRedirectDrain(status: 302, headers: ["Location": "/next"]) == Self.drain)
        #expect(HTTPRequest(url: Self.url).followedRedirectDrain(status: 302, headers: ["Location": "/next"]) == nil)
        #expect(get.followedRedirectDrain(status: 302, headers: [:]) == nil)
        #expect(get.followedRedirectDrain(status: 302, headers: ["Location": "ftp://elsewhere/x"]) == nil)
        for status in [200, 300, 304, 305, 400] {
            #expect(get.followedRedirectDrain(status: status, headers: ["Location": "/next"]) == nil, "\(status)")
        }
        let post = Self.stamped(.post, body: .data(Data("{}".utf8)))
        #expect(post.followedRedirectDrain(status: 302, headers: ["Location": "/next"]) == nil)
        #expect(post.followedRedirectDrain(status: 303, headers: ["Location": "/next"]) == Self.drain)
        #expect(post.followedRedirectDrain(status: 307, headers: ["Location": "/next"]) == Self.drain)
        // A body is never resent to another origin: that 307 ends the chain, its body the response's.
        #expect(post.followedRedirectDrain(status: 307, headers: ["Location": "http://other.example.com/"]) == nil)
    }

    /// A coded body is counted only once decoded: endless bytes that decode to nothing (empty deflate blocks) never
    /// reached the drain, so a coded redirect body is not read at all (a drain of 0).
    @Test func aCodedRedirectBodyIsNotReadAtAll() {
        let get = Self.stamped()
        for coding in ["gzip", "deflate", "br", " GZIP ", "gzip, gzip", "x-gzip"] {
            let headers: HTTPHeaders = ["Location": "/next", "Content-Encoding": coding]
            #expect(get.followedRedirectDrain(status: 302, headers: headers) == 0, "\(coding)")
        }
        let identity: HTTPHeaders = ["Location": "/next", "Content-Encoding": "identity"]
        #expect(get.followedRedirectDrain(status: 302, headers: identity) == Self.drain)
        let unfollowed: HTTPHeaders = ["Content-Encoding": "gzip"]
        #expect(get.followedRedirectDrain(status: 302, headers: unfollowed) == nil)
    }

    @Test(arguments: [nil, 10] as [Int64?])
    func aDrainOfNothingEndsAtTheHeadWhateverTheLength(length: Int64?) {
        var trace = Trace(TransferStateMachineTests.settings(maximum: 100))
        trace.started()
        let action = trace.on {
            $0.receivedHead(TransferStateMachineTests.head(302), expectedLength: length, now: 0, drain: 0)
        }
        #expect(action == "finish(1, 302 body 0 file false length 0, cancel: task)")
        trace.lateEventsAreIgnored()
    }

    // MARK: - The URLSession transfer's machine

    @Test func aShortBodyIsReadToItsEndAndDropped() {
        var trace = Trace(TransferStateMachineTests.settings(maximum: 100))
        trace.started()
        trace.on {
            $0.receivedHead(TransferStateMachineTests.head(302), expectedLength: 500, now: 0, drain: Self.drain)
        }
        trace.on { $0.receivedBody(TransferStateMachineTests.bytes(200), now: 0) }
        trace.on { $0.receivedBody(TransferStateMachineTests.bytes(300), now: 0) }
        #expect(trace.machine.finalDownloadProgress(error: nil) == nil)
        trace.on { $0.taskCompleted(error: nil) }
        #expect(
            trace.log == [
                "proceed", "resumeTask(idle: false)", "proceed", "none", "none",
                "finish(1, 302 body 0 file false length 500)",
            ])
        trace.lateEventsAreIgnored()
    }

    @Test func aDeclaredLengthPastTheDrainEndsAtTheHead() {
        var trace = Trace(TransferStateMachineTests.settings(maximum: 100))
        trace.started()
        let action = trace.on {
            $0.receivedHead(TransferStateMachineTests.head(302), expectedLength: 1 << 30, now: 0, drain: Self.drain)
        }
        #expect(action == "finish(1, 302 body 0 file false length 0, cancel: task)")
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    @Test func aHeadAnswersDeclaredLengthIsNoBodyToLeaveUnread() {
        var trace = Trace(TransferStateMachineTests.settings(maximum: 100, expectsBody: false))
        trace.started()
        trace.on {
            $0.receivedHead(TransferStateMachineTests.head(301), expectedLength: 1 << 30, now: 0, drain: Self.drain)
        }
        trace.on { $0.taskCompleted(error: nil) }
        #expect(
            trace.log == [
                "proceed", "resumeTask(idle: false)", "proceed", "finish(1, 301 body 0 file false length 0)",
            ])
    }

    @Test func anUndeclaredBodyEndsAtTheBytePastTheDrain() {
        var trace = Trace(TransferStateMachineTests.settings(maximum: 100))
        trace.started()
        trace.on {
            $0.receivedHead(TransferStateMachineTests.head(307), expectedLength: nil, now: 0, drain: Self.drain)
        }
        let within = trace.on { $0.receivedBody(TransferStateMachineTests.bytes(Self.drain), now: 0) }
        let past = trace.on { $0.receivedBody(TransferStateMachineTests.bytes(1), now: 0) }
        #expect(within == "none")
        #expect(past == "finish(1, 307 body 0 file false length \(Self.drain + 1), cancel: task)")
        trace.lateEventsAreIgnored()
    }

    @Test func aConnectionLostInsideTheDrainedBodyFails() {
        var trace = Trace()
        trace.started()
        trace.on {
            $0.receivedHead(TransferStateMachineTests.head(302), expectedLength: 1000, now: 0, drain: Self.drain)
        }
        trace.on { $0.receivedBody(TransferStateMachineTests.bytes(10), now: 0) }
        let end = trace.on { $0.taskCompleted(error: URLError(.networkConnectionLost)) }
        #expect(end == "finish(1, transport(\(URLError.Code.networkConnectionLost.rawValue)))")
    }

    @Test func withoutADrainARedirectsBodyIsHeldWithinTheLimit() {
        var trace = Trace(TransferStateMachineTests.settings(maximum: 100))
        trace.started()
        let action = trace.on { $0.receivedHead(TransferStateMachineTests.head(302), expectedLength: 101, now: 0) }
        #expect(action == "finish(1, tooLarge(100), cancel: task)")
    }
}
