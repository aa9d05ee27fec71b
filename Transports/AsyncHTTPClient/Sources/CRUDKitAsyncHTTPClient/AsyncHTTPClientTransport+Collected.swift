import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    /// Sends `request`, sent whole, and keeps its answer in memory without a task of its own: AsyncHTTPClient's
    /// event loop hands the head and each piece of the body to a ``ResponseCollector`` as they arrive, and the caller
    /// waits once, for the whole answer.
    ///
    /// One ``IdleWatchdog`` keeps both limits from the start: the idle time (stamped by the head and each piece) and
    /// the deadline; either, like cancelling the calling task, cancels AsyncHTTPClient's task, and the error names the
    /// one that ran out. Neither AsyncHTTPClient nor the exchange schedules a timer of its own.
    @inline(never)
    func collected(
        _ request: HTTPRequest, deadline: NIODeadline, limit: TimeInterval?, idle: TimeInterval
    ) async throws -> HTTPResponse {
        let watchdog = IdleWatchdog(
            idle: Self.nanoseconds(idle), deadline: deadline.uptimeNanoseconds, sweeper: sweeper)
        var armed = false
        defer { if armed { watchdog.disarm() } }
        // Over plain HTTP (AsyncHTTPClient speaks HTTP/1.1 there, one request per connection), a request that would
        // queue in the pool waits at the gate instead, for the loop of the connection that comes free.
        let gated = gate.flatMap { gate in Self.gateKey(for: request.url).map { (gate, $0) } }
        var preferred: (any EventLoop)?
        if let (gate, host) = gated, !gate.enter(host) {
            let ticket = gate.ticket()
            watchdog.arm { gate.abandon(ticket, of: host, because: CancellationError()) }
            armed = true
            do {
                preferred = try await gate.wait(host, ticket: ticket)
            } catch {
                throw collectedFailure(error, of: request, limit: limit, idle: idle, watchdog: watchdog)
            }
        }
        var sentOn: (any EventLoop)?
        defer { if let (gate, host) = gated { gate.leave(host, loop: sentOn) } }
        let task: HTTPClient.Task<HTTPResponse>
        let collector = ResponseCollector(
            request: request, transport: self, deadline: deadline, limit: limit, watchdog: watchdog)
        let concurrent = collecting.withLockedValue { count in
            count += 1
            return count
        }
        defer { collecting.withLockedValue { $0 -= 1 } }
        do {
            try Task.checkCancellation()
            // A limit that ran out just as the place came free ends the request before it is sent.
            if armed, watchdog.fired != nil { throw CancellationError() }
            let loop: HTTPClient.EventLoopPreference
            if let preferred {
                loop = .delegate(on: preferred)
            } else {
                loop = concurrent <= Self.sameLoopLimit ? .delegate(on: sweeper.eventLoop) : .indifferent
            }
            task = client.execute(
                request: try delegateRequest(request), delegate: collector, eventLoop: loop, deadline: nil,
                logger: nil)
        } catch {
            throw collectedFailure(error, of: request, limit: limit, idle: idle, watchdog: watchdog)
        }
        sentOn = task.eventLoop
        if !armed {
            watchdog.arm { task.cancel() }
            armed = true
        } else if !watchdog.retarget({ task.cancel() }) {
            // The idle time or the deadline ran out between the gate and here.
            task.cancel()
        }
        do {
            return try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch {
            if watchdog.fired == nil,
                let answer = collector.bodilessAnswer(after: error) ?? collector.followedRedirect(after: error)
            {
                return answer
            }
            throw collectedFailure(error, of: request, limit: limit, idle: idle, watchdog: watchdog)
        }
    }

    /// What ``ConnectionGate`` counts `url`'s answers under: its origin, for plain HTTP only (over HTTPS,
    /// AsyncHTTPClient may speak HTTP/2, many requests to a connection, where the connection limit does not apply).
    static func gateKey(for url: URL) -> String? {
        guard let scheme = url.scheme, scheme.utf8.count == 4, nameIs(scheme, "http"), let host = url.host else {
            return nil
        }
        return "\(host):\(url.port ?? 80)"
    }

    /// The most answers collected at once that all prefer one event loop (the sweeper's).
    ///
    /// AsyncHTTPClient hands every part of an answer from the connection's event loop to the delegate's, waking that
    /// thread when the two differ; a delegate on a loop of its own (`.indifferent`) meets an idle connection on another
    /// loop half the time when few requests are in flight (a sequential caller has one connection). Preferring one
    /// loop while few are in flight keeps their connections, made there, on the same loop as their delegate; more
    /// at once are spread over every loop.
    static let sameLoopLimit = 4

    /// The request for AsyncHTTPClient's delegate API: the URL as it is (not spelled out and parsed again), the
    /// method, the headers (see ``fields(of:fileBound:)``) and the bytes of the body.
    @inline(never)
    func delegateRequest(_ request: HTTPRequest) throws -> HTTPClient.Request {
        let body: HTTPClient.Body?
        switch request.body {
        case .none: body = nil
        case .data(let data): body = .byteBuffer(ByteBuffer(bytes: data))
        case .file:
            // Never sent whole (see `sendsWhole(_:upload:)`): a file streams through `exchange`'s other paths.
            throw CRUDError.invalidRequest(reason: "a body from a file is streamed, not sent whole")
        }
        return try HTTPClient.Request(
            url: request.url.absoluteURL, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue),
            headers: fields(of: request, fileBound: false), body: body)
    }

    /// The error a collected exchange that failed with `error` throws: the limit `watchdog` ended it by, else
    /// `error` as a ``CRUDKit/CRUDError``.
    @inline(never)
    func collectedFailure(
        _ error: any Error, of request: HTTPRequest, limit: TimeInterval?, idle: TimeInterval, watchdog: IdleWatchdog
    ) -> any Error {
        switch watchdog.fired {
        case .idle?: return CRUDError.timedOut(.idle(idle))
        case .deadline?: return CRUDError.timedOut(limit.map { .deadline($0) } ?? .idle(idle))
        case nil: return failure(error, of: request, limit: limit)
        }
    }
}
