#if os(Linux)
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Glibc
import Synchronization
import Testing

@testable import CRUDKitAsyncHTTPClient

/// Probes of the `ConnectionGate` (collected answers over plain HTTP kept within the owned client's
/// connections per host), written by a session that had not written it. Each probe drives the real transport against
/// a hostile loopback server and checks what README promises: every request ends (by its answer, its idle time, its
/// deadline or its cancellation, as a `CRUDError`), every place taken is given back (`gate.isIdle` once all ended)
/// and a further request to the same host completes. A probe named `bug…` failed on the code it was written against.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ConnectionGateEndToEndTests {
    /// What a probe server saw: the requests per path.
    final class Hits: Sendable {
        private let state = Mutex<(counts: [String: Int], order: [String])>(([:], []))
        /// Counts one request for `path`; the number seen for it before.
        func record(_ path: String) -> Int {
            state.withLock { state in
                state.order.append(path)
                defer { state.counts[path, default: 0] += 1 }
                return state.counts[path, default: 0]
            }
        }
        func count(_ path: String) -> Int { state.withLock { $0.counts[path, default: 0] } }
        /// The paths in the order their requests arrived.
        var order: [String] { state.withLock { $0.order } }
    }

    /// A port set once the server it names is started (for servers redirecting to each other).
    final class Port: Sendable {
        private let value = Mutex(0)
        func set(_ port: Int) { value.withLock { $0 = port } }
        var port: Int { value.withLock { $0 } }
    }

    /// Which of a piece of work and its timer ended first, and the timer to cancel.
    final class Race: Sendable {
        private let state = Mutex<(done: Bool, timer: Task<Void, Never>?)>((false, nil))
        /// `true` for the first caller only.
        func claim() -> Bool {
            state.withLock { state in
                defer { state.done = true }
                return !state.done
            }
        }
        func setTimer(_ timer: Task<Void, Never>) {
            let cancel = state.withLock { state -> Bool in
                state.timer = timer
                return state.done
            }
            if cancel { timer.cancel() }
        }
        func cancelTimer() { state.withLock { $0.timer }?.cancel() }
    }

    /// Writes a route's answer on its connection's thread; to a HEAD request, only the answer's head.
    final class Writer {
        let connection: HostileConnection
        /// For a HEAD request: the head written so far, until its end; nil once the rest is dropped (or for
        /// another request, whose bytes all go through).
        private var head: String?
        private let isHead: Bool

        init(_ connection: HostileConnection, head: Bool) {
            self.connection = connection
            self.isHead = head
            self.head = head ? "" : nil
        }

        /// Writes `text` (for a HEAD request, up to the end of the head); false when the peer is gone.
        @discardableResult func send(_ text: String) -> Bool {
            guard isHead else { return connection.send(text) }
            guard let pending = head else { return true }
            let written = pending + text
            guard let end = written.range(of: "\r\n\r\n") else {
                head = written
                return true
            }
            head = nil
            return connection.send(String(written[..<end.upperBound]))
        }

        func waitForClose() { connection.waitForClose() }
    }

    /// A whole answer with `body`.
    static func answer(_ status: Int = 200, _ body: String = "ok", _ extra: String = "") -> String {
        "HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
    }

    /// A raw server on 127.0.0.1 whose every request is answered by `route(path, index on the path, connection)`;
    /// `route` returns whether the connection stays open. A HEAD request is answered by the route of its path with
    /// the body left out (the bytes after the head are dropped).
    static func server(
        hits: Hits = Hits(), _ route: @escaping @Sendable (String, Int, Writer) -> Bool
    ) throws -> HostileServer {
        try HostileServer { connection, _ in
            while let head = connection.readRequest() {
                let line = head.split(separator: "\r\n").first ?? ""
                let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                let path = String(target.split(separator: "?", omittingEmptySubsequences: false).first ?? "/")
                let index = hits.record(path)
                let keep =
                    line.hasPrefix("HEAD ")
                    ? route(path, index, Writer(connection, head: true))
                    : route(path, index, Writer(connection, head: false))
                if !keep { return }
            }
        }
    }

    /// The hostile endpoints every way an answer can end goes through (the size limit is 1000 bytes).
    static func hostile(_ path: String, _ index: Int, _ connection: Writer) -> Bool {
        switch path {
        case "/ok": return connection.send(answer())
        case "/slow":
            usleep(20_000)
            return connection.send(answer())
        case "/error": return connection.send(answer(500, "broken"))
        case "/close":
            // A body cut short: the server closes after 10 of 100 bytes.
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            return false
        case "/big": return connection.send(answer(200, String(repeating: "x", count: 5000)))
        case "/chunkedbig":
            connection.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<20 { connection.send("100\r\n" + String(repeating: "y", count: 256) + "\r\n") }
            return connection.send("0\r\n\r\n")
        case "/badgzip": return connection.send(answer(200, "notgzip!!!", "Content-Encoding: gzip\r\n"))
        case "/emptygzip": return connection.send(answer(200, "", "Content-Encoding: gzip\r\n"))
        case "/nocontentgzip": return connection.send("HTTP/1.1 204 No Content\r\nContent-Encoding: gzip\r\n\r\n")
        case "/redirect": return connection.send(answer(302, "", "Location: /ok\r\n"))
        case "/loop": return connection.send(answer(302, "", "Location: /loop\r\n"))
        case "/stall":
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            connection.waitForClose()
            return false
        case "/silent":
            connection.waitForClose()
            return false
        case "/early":
            connection.send("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n")
            return connection.send(answer())
        case "/closing": return connection.send(answer(200, "ok", "Connection: close\r\n")) && false
        case "/dribble":
            // Never quiet for long, but slow: 40 bytes, one per 50 ms.
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n")
            for _ in 0..<40 {
                usleep(50_000)
                if !connection.send("d") { return false }
            }
            return true
        case "/garbage":
            connection.send("NOT HTTP AT ALL\r\n\r\n")
            return false
        default:
            if path.hasPrefix("/hop/"), let left = Int(path.dropFirst(5)), left > 0 {
                return connection.send(answer(302, "", "Location: /hop/\(left - 1)\r\n"))
            }
            return connection.send(answer())
        }
    }

    static let hostilePaths = [
        "/ok", "/slow", "/error", "/close", "/big", "/chunkedbig", "/badgzip", "/emptygzip", "/nocontentgzip",
        "/redirect", "/loop", "/stall", "/silent", "/garbage", "/hop/3", "/early", "/closing",
    ]

    /// Runs `body`, giving up (nil, with an issue naming `what`) after `seconds`: a hang fails the probe instead of
    /// the suite. The abandoned work is cancelled.
    static func within<T: Sendable>(
        _ seconds: Double, _ what: String, _ body: @escaping @Sendable () async -> T
    ) async -> T? {
        let race = Race()
        let result: T? = await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let work = Task {
                let value = await body()
                if race.claim() {
                    race.cancelTimer()
                    continuation.resume(returning: value)
                }
            }
            race.setTimer(
                Task {
                    try? await Task.sleep(for: .seconds(seconds))
                    if race.claim() {
                        work.cancel()
                        continuation.resume(returning: nil)
                    }
                })
        }
        if result == nil { Issue.record("\(what) did not end within \(seconds) s") }
        return result
    }

    /// The outcome of one request in a few words (see `HostileServerTests.summary`).
    static func send(_ transport: AsyncHTTPClientTransport, _ request: HTTPRequest) async -> String {
        HostileServerTests.summary(await HostileServerTests.outcome(transport, request))
    }

    /// Checks that nothing is kept at the gate and that one more request to `url` completes.
    static func checkGateIsFree(
        _ transport: AsyncHTTPClientTransport, _ url: URL, _ context: String, afterMayFail: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let gate = transport.gate
        #expect(gate != nil, sourceLocation: sourceLocation)
        if let gate, let host = AsyncHTTPClientTransport.gateKey(for: url) {
            #expect(gate.isIdle, "\(context): left \(gate.counts(host))", sourceLocation: sourceLocation)
        }
        let after = await within(10, "\(context): the request after") {
            await send(transport, HTTPRequest(url: url.appendingPathComponent("ok"), timeout: 5))
        }
        if afterMayFail {
            #expect(
                after.map(isAnswerOrCRUDError) == true, "\(context): \(after ?? "hung")", sourceLocation: sourceLocation
            )
        } else {
            #expect(after == "status 200, 2 bytes", "\(context)", sourceLocation: sourceLocation)
        }
    }

    /// Whether `outcome` is an answer or a `CRUDError` (never another error).
    static func isAnswerOrCRUDError(_ outcome: String) -> Bool { !outcome.hasPrefix("non-CRUDError") }
}
#endif
