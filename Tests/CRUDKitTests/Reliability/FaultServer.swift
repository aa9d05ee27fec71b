import CRUDKit
import CRUDKitTesting
import Foundation

/// A ``LoopbackServer`` scripted by path to break in every way the fault-injection suite needs, and to count the
/// attempts each path received (so a retry is seen on the wire, not inferred).
///
/// | path | answer |
/// |---|---|
/// | `/before-status` | closes before the status line |
/// | `/mid-headers` | closes in the middle of the headers (after a `Content-Length` line) |
/// | `/mid-body` | a chunked body cut in the middle of a chunk |
/// | `/short-body` | `Content-Length: 100000`, then 1,000 bytes, then closes |
/// | `/never` | never answers |
/// | `/flaky/<name>` | 500 to the first attempt, then 200 `{"attempt": n, "key": <Idempotency-Key>}` |
/// | `/throttled/<name>` | 429 with `Retry-After: 1` to the first attempt, then 200 |
/// | `/malformed` | 200 with truncated JSON |
/// | `/error-on-200` | 200 with `{"error": "quota exceeded"}` |
/// | `/html-502`, `/html-200` | an HTML error page with that status |
/// | `/text-json`, `/xml` | 200 with JSON labelled `text/plain`; 200 with an XML document |
/// | `/big`, `/big-chunked` | 10 MB, with and without a `Content-Length` |
/// | `/deep` | 200 with arrays nested 100,000 deep |
/// | `/people/<id>` | 200 `{"id": <id>, "name": "FaultRecord <id>"}` (what the load test reads) |
final class FaultServer: Sendable {
    let server: LoopbackServer
    private let attempts = Locked<[String: Int]>([:])

    static let htmlPage = """
        <!DOCTYPE html>
        <html><head><title>502 Bad Gateway</title></head>
        <body><h1>Bad Gateway</h1><p>The upstream server did not answer.</p></body></html>
        """

    init(recordsRequests: Bool = true) throws {
        let attempts = self.attempts
        server = LoopbackServer(
            recordsRequests: recordsRequests,
            synchronousHandler: { request in
                let attempt = attempts.withLock { counts -> Int in
                    counts[request.path, default: 0] += 1
                    return counts[request.path, default: 0]
                }
                return Self.reply(to: request, attempt: attempt)
            })
        try server.start()
    }

    deinit { server.stop() }

    var baseURL: URL { server.baseURL }

    /// How many requests `path` received.
    func attempts(_ path: String) -> Int { attempts.withLock { $0[path, default: 0] } }

    private static let json: HTTPHeaders = ["Content-Type": "application/json"]

    private static func ok(_ text: String, headers: HTTPHeaders = json, status: Int = 200) -> LoopbackReply {
        .response(HTTPResponse(status: status, headers: headers, body: Data(text.utf8)))
    }

    private static func reply(to request: LoopbackRequest, attempt: Int) -> LoopbackReply {
        let parts = request.path.split(separator: "/").map(String.init)
        switch parts.first ?? "" {
        case "before-status":
            return .fault(.closeBeforeStatusLine)
        case "mid-headers":
            return .fault(.closeMidHeaders)
        case "mid-body":
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            return .fault(.raw(Data((head + "400\r\n{\"name\": \"Ada").utf8)))
        case "short-body":
            let body = Data(("[" + String(repeating: "1,", count: 49_999) + "1]").utf8)
            return .fault(.closeMidBody(HTTPResponse(status: 200, headers: json, body: body), after: 1000))
        case "never":
            return .fault(.neverAnswer)
        case "flaky":
            guard attempt > 1 else { return ok(#"{"error": "try again"}"#, status: 500) }
            let key = request.headers["Idempotency-Key"].map { "\"\($0)\"" } ?? "null"
            return ok(#"{"attempt": \#(attempt), "key": \#(key)}"#)
        case "throttled":
            guard attempt > 1 else {
                return ok(
                    #"{"error": "slow down"}"#, headers: ["Content-Type": "application/json", "Retry-After": "1"],
                    status: 429)
            }
            return ok(#"{"attempt": \#(attempt), "key": null}"#)
        case "malformed":
            return ok(#"{"id": 1, "name": "Ada"#)
        case "error-on-200":
            return ok(#"{"error": "quota exceeded"}"#)
        case "html-502":
            return ok(htmlPage, headers: ["Content-Type": "text/html; charset=utf-8"], status: 502)
        case "html-200":
            return ok(htmlPage, headers: ["Content-Type": "text/html; charset=utf-8"])
        case "text-json":
            return ok(#"{"id": 7, "name": "Ada"}"#, headers: ["Content-Type": "text/plain"])
        case "xml":
            return ok("<person><id>7</id><name>Ada</name></person>", headers: ["Content-Type": "application/xml"])
        case "big":
            return .download(LoopbackDownload(length: 10 << 20, honoursRanges: false, contentType: "application/json"))
        case "big-chunked":
            let chunk = Data(repeating: 0x20, count: 64 << 10)
            return .stream(
                LoopbackStream(headers: json, chunks: Array(repeating: chunk, count: 160), declaresLength: false))
        case "deep":
            return ok(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
        case "people":
            let id = parts.count > 1 ? (Int(parts[1]) ?? -1) : -1
            return ok(#"{"id": \#(id), "name": "Person \#(id)"}"#)
        default:
            return ok(#"{"error": "no such path"}"#, status: 404)
        }
    }
}

/// What the suites decode.
struct FaultRecord: Codable, Sendable, Hashable {
    var id: Int
    var name: String
}

/// `{"attempt": n, "key": "…"}` from `/flaky` and `/throttled`.
struct Attempt: Codable, Sendable, Hashable {
    var attempt: Int
    var key: String?
}
