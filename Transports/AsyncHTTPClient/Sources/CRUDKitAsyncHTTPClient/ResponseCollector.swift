import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Reads an answer kept in memory on AsyncHTTPClient's event loop, as its parts arrive: the head through
/// ``ResponseHead``, each piece of the body through its ``ResponseStateMachine`` (the size limit, the deadline),
/// stamping the exchange's ``IdleWatchdog`` at each.
///
/// No task reads the body: the caller waits for the whole answer once (see
/// `AsyncHTTPClientTransport.collected(_:deadline:limit:idle:)`). A failure the machine calls for (a body past the
/// size limit, the deadline passed) fails the future the delegate returns, which ends the request.
final class ResponseCollector: HTTPClientResponseDelegate {
    typealias Response = HTTPResponse

    private struct State {
        /// The head, once it arrived, with the machine that reads the body.
        var head: ResponseHead?
        /// The body so far.
        var body = Data()
    }

    private let request: HTTPRequest
    private let transport: AsyncHTTPClientTransport
    private let deadline: NIODeadline
    private let limit: TimeInterval?
    private let watchdog: IdleWatchdog
    private let state = NIOLockedValueBox(State())

    /// Creates the reader of the answer to `request`, sent through `transport`.
    ///
    /// - Parameters:
    ///   - request: The request, whose URL ends up in the response.
    ///   - transport: The transport, for its configuration.
    ///   - deadline: When the exchange must be over; `limit` is that in seconds (`nil` for none), for its error.
    ///   - watchdog: The exchange's watchdog, stamped at the head and at each piece.
    init(
        request: HTTPRequest, transport: AsyncHTTPClientTransport, deadline: NIODeadline, limit: TimeInterval?,
        watchdog: IdleWatchdog
    ) {
        self.request = request
        self.transport = transport
        self.deadline = deadline
        self.limit = limit
        self.watchdog = watchdog
    }

    func didReceiveHead(task: HTTPClient.Task<HTTPResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        watchdog.stamp()
        do {
            let read = try ResponseHead(
                head.status, head.headers, of: request, transport: transport, deadline: deadline, limit: limit,
                observer: .none, destination: nil, appending: nil)
            // Room for the declared length up front (within the limit, and at most 1 MiB before any byte arrived):
            // a small body's pieces are copied in once.
            let declared = max(0, min(read.machine.expected ?? 0, Int64(read.machine.maximumBodySize), 1 << 20))
            state.withLockedValue { state in
                state.head = read
                if read.machine.drain == nil { state.body.reserveCapacity(Int(clamping: declared)) }
            }
            // A followed redirect whose body is not read: failing the future ends the request (and its connection);
            // the exchange answers with the head (see `followedRedirect(after:)`).
            if read.skipsBody { return task.eventLoop.makeFailedFuture(FollowedRedirectBodyLeft()) }
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<HTTPResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let now = NIODeadline.now().uptimeNanoseconds
        watchdog.stamp(now)
        let failure = state.withLockedValue { state -> (any Error)? in
            switch state.head?.machine.receivedPiece(count: buffer.readableBytes, now: now) {
            case .keep?:
                buffer.withUnsafeReadableBytes { bytes in
                    if let start = bytes.baseAddress, !bytes.isEmpty {
                        state.body.append(start.assumingMemoryBound(to: UInt8.self), count: bytes.count)
                    }
                }
                return nil
            case .fail(let error)?:
                return error
            case .stop?:
                return FollowedRedirectBodyLeft()
            default:
                return nil
            }
        }
        if let failure { return task.eventLoop.makeFailedFuture(failure) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// The answer to give when AsyncHTTPClient failed with `error` after a head that has no body (a HEAD answer, a
    /// 204, a 304, or `Content-Length: 0`) and none arrived: its decompressor fails such an answer marked
    /// `Content-Encoding: gzip` as truncated, where URLSession hands it on; `nil` otherwise.
    func bodilessAnswer(after error: any Error) -> HTTPResponse? {
        let (head, received) = state.withLockedValue { ($0.head, $0.body.count) }
        guard let head, AsyncHTTPClientTransport.endsBodiless(error, bodiless: head.bodiless, received: received > 0)
        else { return nil }
        return HTTPResponse(status: head.status, headers: head.headers, url: request.url)
    }

    /// The answer to give when the request ended with `error` because the body of a redirect the follower follows
    /// passed the drain (``FollowedRedirectBodyLeft``): the head without a body; `nil` otherwise. (A coded body,
    /// which alone could fail to decode, is never drained: see `HTTPRequest.followedRedirectDrain`.)
    func followedRedirect(after error: any Error) -> HTTPResponse? {
        guard error is FollowedRedirectBodyLeft, let head = state.withLockedValue({ $0.head }) else { return nil }
        return HTTPResponse(status: head.status, headers: head.headers, url: request.url)
    }

    func didFinishRequest(task: HTTPClient.Task<HTTPResponse>) throws -> HTTPResponse {
        let (head, body) = state.withLockedValue { state in
            defer { state.body = Data() }
            return (state.head, state.body)
        }
        // AsyncHTTPClient gives the head before the end; without one there is no answer to give.
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return HTTPResponse(status: head.status, headers: head.headers, body: body, url: request.url)
    }
}

/// Ends a collected request whose answer is a redirect the follower follows once its body passes the drain (or its
/// declared length does): the body is left unread and the connection closes, and the exchange answers with the head
/// (see `ResponseCollector.followedRedirect(after:)`).
struct FollowedRedirectBodyLeft: Error {}
