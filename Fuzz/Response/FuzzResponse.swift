// libFuzzer target for CRUDKit's response handling, linked with every CRUDKit module (see .ci/fuzz.sh).
//
// The input is read as an HTTP/1.1 response: a status line, header lines up to an empty line, then the body. The
// parsed response is handed, through an in-process transport, to one `API` configured as an app would be (a JSON
// error validator, a retry policy that reads `Retry-After`, a log handler, redaction), and requested as every kind
// of answer: a `Decodable` model, a list under an envelope key, `JSON`, raw `Data` and `Okay`. The properties:
//
// - nothing crashes, traps or hangs (libFuzzer and AddressSanitizer watch for that);
// - every failure is a `CRUDError` whose `localizedDescription` can be rendered; an `httpStatus`/`conflict`/
//   `validation` error keeps the response's status and body; a decoding failure's snippet is a prefix of the body;
// - a 2xx answer that decodes as `Data` is the body unchanged;
// - log events and `curl` renderings never contain the secrets the request carried.
//
// A failed property stops the process with `fatalError` so libFuzzer records the input (a harness, not library code).

import Dispatch
import Foundation

@testable import CRUDKit

/// libFuzzer's entry point: checks every property on the input `start[0..<count]`; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponse(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let response = parseResponse(Array(UnsafeBufferPointer(start: start, count: count)))
    let done = DispatchSemaphore(value: 0)
    Task {
        await checkResponse(response)
        done.signal()
    }
    done.wait()
    return 0
}

// MARK: - Reading the input as a response

/// The status line's code (any number, even outside 100–599), the header fields and the body.
func parseResponse(_ bytes: [UInt8]) -> HTTPResponse {
    let separator: [UInt8] = [13, 10, 13, 10]
    var headEnd = bytes.count
    var bodyStart = bytes.count
    if bytes.count >= 4 {
        for index in 0...(bytes.count - 4) where Array(bytes[index..<(index + 4)]) == separator {
            headEnd = index
            bodyStart = index + 4
            break
        }
    }
    let head = String(decoding: bytes[0..<headEnd], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.isEmpty ? "" : lines.removeFirst()
    let words = statusLine.split(separator: " ", omittingEmptySubsequences: true)
    let status = words.count > 1 ? Int(words[1].prefix(4)) ?? 200 : 200
    var headers = HTTPHeaders()
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.add(
            name: String(line[..<colon]),
            value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }
    return HTTPResponse(status: status, headers: headers, body: Data(bytes[bodyStart...]), url: baseURL)
}

let baseURL = URL(string: "https://api.example.com/v1/")

// MARK: - Running it through an API

/// Answers every request with one response.
struct FixedTransport: Transport {
    let response: HTTPResponse
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response = response
        response.url = request.url
        return response
    }
}

/// A clock whose `sleep` returns at once, so a `Retry-After: 86400` costs nothing.
struct InstantClock: APIClock {
    let elapsed = Locked(Duration.zero)
    func now() -> Duration { elapsed.withLock { $0 } }
    func date() -> Date { Date(timeIntervalSince1970: 1_700_000_000) }
    func sleep(for duration: Duration) async throws { elapsed.withLock { $0 += duration } }
}

struct Member: Codable, Sendable {
    var id: Int
    var name: String
    var tags: [String]?
    var joined: Date?
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
}

let secrets = ["bearer-s3cret", "cookie-s3cret", "query-s3cret", "proxy-s3cret"]

func fail(_ message: String) -> Never {
    fatalError("response property failed: \(message)")
}

func checkResponse(_ response: HTTPResponse) async {
    let events = Locked<[LogEvent]>([])
    let rejectErrorBodies = ClosureMiddleware.validate { response in
        if let json = try? JSON(data: response.body), case .string(let message) = json["error"] {
            throw ServerError(description: message)
        }
    }
    let api = API(
        configuration: APIConfiguration(
            baseURL: baseURL,
            headers: ["Authorization": "Bearer bearer-s3cret", "Cookie": "id=cookie-s3cret"],
            query: ["token": "query-s3cret"],
            transport: FixedTransport(response: response),
            redaction: Redaction(queryParameters: ["token"]),
            clock: InstantClock()
        )
    ).with {
        $0.middleware.insert(RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, maxTotalTime: nil)))
        $0.middleware.insert(LoggingMiddleware { event in events.withLock { $0.append(event) } })
        $0.middleware.insert(rejectErrorBodies, after: .validation)
    }

    await expectCRUDErrors(response) { _ = try await api.get("people/1", as: Member.self) }
    await expectCRUDErrors(response) { _ = try await api.send(Request<[Member]>(.get, "people", at: "results")) }
    await expectCRUDErrors(response) { _ = try await api.send(Request<JSON>(.get, "people/1")) }
    await expectCRUDErrors(response) { _ = try await api.send(Request(.delete, "people/1", decoder: .okay)) }
    await expectCRUDErrors(response) {
        let data = try await api.send(
            Request<Data>(
                .post, "people", body: .data(Data("{}".utf8)), headers: ["Proxy-Authorization": "proxy-s3cret"]))
        guard data == response.body else { fail("a 2xx body read as Data changed") }
    }

    for event in events.withLock({ $0 }) {
        let rendered = event.description + event.url + "\(event.headers)"
        for secret in secrets where rendered.contains(secret) { fail("\(secret) in a log event: \(rendered)") }
    }
    guard let url = URL(string: "https://api.example.com/v1/people?token=query-s3cret") else { return }
    let curl = HTTPRequest(url: url, headers: response.headers.merging(["Cookie": "cookie-s3cret"]))
        .cURLDescription(redacting: Redaction(queryParameters: ["token"]))
    for secret in secrets where curl.contains(secret) { fail("\(secret) in a curl rendering") }
}

/// Runs `body`; any error must be a ``CRUDError`` consistent with `response`.
func expectCRUDErrors(_ response: HTTPResponse, _ body: () async throws -> Void) async {
    do {
        try await body()
    } catch let error as CRUDError {
        _ = error.localizedDescription
        switch error {
        case .httpStatus(let kept), .conflict(let kept), .validation(_, let kept):
            guard kept.status == response.status, kept.body == response.body else {
                fail("\(error) does not keep the response")
            }
        case .writeAccepted(let kept, _):
            guard kept.status == response.status else { fail("\(error) does not keep the write's response") }
        case .decoding(let failure):
            guard snippetMatches(failure.bodySnippet, response.body) else {
                fail("the decoding snippet \(failure.bodySnippet.debugDescription) is not the body's start")
            }
        case .invalidRequest, .transport, .timedOut, .cancelled, .responseTooLarge, .tooManyRedirects, .incompleteList:
            fail("\(error) from a response that arrived")
        }
    } catch {
        fail("not a CRUDError: \(error)")
    }
}

/// Whether `snippet` is the text of the body's first 200 bytes (invalid UTF-8 repaired as U+FFFD).
func snippetMatches(_ snippet: String, _ body: Data) -> Bool {
    snippet == String(decoding: body.prefix(200), as: UTF8.self)
}
