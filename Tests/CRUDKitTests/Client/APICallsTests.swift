import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A model mapped by hand.
struct HandPerson: JSONConvertible, Sendable {
    var name: String

    init(json: JSON) throws {
        name = try json.required("first_name")
    }
}

/// A transport that breaks the `Transport` contract: it throws `error` as is instead of a `CRUDError`, as a
/// hand-written transport may; the API maps what it throws.
private struct RawErrorTransport: Transport {
    let error: any Error

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw error }
}

enum PeopleEndpoints {
    static func adults(page: Int) -> Request<[StubPerson]> {
        Request(.get, "people", query: ["age_gte": "18", "page": "\(page)"])
    }
}

@Suite struct APICallsTests {
    let ada = #"{"id": 1, "firstName": "Ada", "lastName": "Lovelace"}"#

    @Test func decodedAndRawCalls() async throws {
        let transport = StubTransport().on(nil, "**", .json(text: ada))
        let api = API(baseURL: testBase, transport: transport)
        let person: StubPerson = try await api.get("people/1")
        #expect(person == StubPerson(id: 1, firstName: "Ada", lastName: "Lovelace"))
        let same = try await api.patch("people/1", body: .json(["lastName": "Lovelace"]), as: StubPerson.self)
        #expect(same == person)
        let response = try await api.delete("people/1")
        #expect(response.status == 200)
        #expect(transport.recorder.requests.map(\.method) == [.get, .patch, .delete])
    }

    @Test func typedRequestsReadTheirAnswerEachTheirWay() async throws {
        let transport = StubTransport().on(nil, "**") { request in
            request.request.url.path.hasSuffix("people")
                ? .json(text: "[\(#"{"id": 1, "firstName": "Ada", "lastName": "Lovelace"}"#)]")
                : .json(text: #"{"count": 7}"#)
        }
        let api = API(baseURL: testBase, transport: transport)
        let adults = try await api.send(PeopleEndpoints.adults(page: 2))
        #expect(adults.map(\.firstName) == ["Ada"])
        #expect(transport.recorder.requests[0].request.url.query == "age_gte=18&page=2")

        let data = try await api.send(Request<Data>(.get, "count"))
        #expect(data == Data(#"{"count": 7}"#.utf8))
        #expect(try await api.get("count", as: Data.self) == data)
        let okay = try await api.send(Request(.post, "count/reset", decoder: .okay))
        #expect(okay == Okay())
        let whole = try await api.send(Request(.head, "count", decoder: .response))
        #expect(whole.mediaType == "application/json")
        let count = try await api.send(
            Request(
                .get, "count",
                decoder: ResponseDecoder<Int> { response, _ in
                    let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Int]
                    guard let count = object?["count"] else {
                        throw CRUDError.decoding(
                            .init(keyPath: "count", expected: "Int", found: "nothing", body: response.body))
                    }
                    return count
                }))
        #expect(count == 7)
    }

    @Test func statusesBecomeErrorsWithTheResponseKept() async {
        let api = API(
            baseURL: testBase,
            transport: StubTransport().on(nil, "**", .json(text: #"{"detail": "Not found."}"#, status: 404)))
        let notFound = await crudError { try await api.get("people/9") }
        #expect(notFound?.isNotFound == true)
        #expect(notFound?.response?.body == Data(#"{"detail": "Not found."}"#.utf8))
        let conflict = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: "{}", status: 412)))
        let error = await crudError { try await conflict.put("people/9", body: .json(["a": "b"])) }
        #expect(error?.caseName == "conflict")
    }

    @Test func decodingFailuresNameTheKeyPathTypeAndBody() async throws {
        let body =
            #"{"results": [{"id": 1, "firstName": "Ada", "lastName": "L"}, {"id": "two", "firstName": "B", "lastName": "C"}]}"#
        struct Page: Decodable, Sendable { var results: [StubPerson] }
        let api = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: body)))
        let error = await crudError { try await api.get("people", as: Page.self) }
        guard case .decoding(let failure) = error else {
            Issue.record("expected a decoding failure, got \(String(describing: error))")
            return
        }
        #expect(failure.keyPath == "results[1].id")
        #expect(failure.expected == "Int")
        #expect(failure.bodySnippet == String(body.prefix(200)))

        let missing = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: #"{"id": 1}"#)))
        guard case .decoding(let absent) = await crudError({ try await missing.get("people/1", as: StubPerson.self) })
        else { return #expect(Bool(false)) }
        #expect(absent.keyPath == "firstName")
        #expect(absent.found == "nothing")

        let garbage = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: "<html>")))
        guard case .decoding(let broken) = await crudError({ try await garbage.get("people/1", as: StubPerson.self) })
        else { return #expect(Bool(false)) }
        #expect(broken.found.contains("line 1, column 1"))
        #expect(broken.bodySnippet == "<html>")
    }

    @Test func answersMapThroughJSONEitherWay() async throws {
        let page =
            #"{"count": 2, "results": [{"id": 1, "first_name": "Ada", "last_name": "L"}, {"id": 2, "first_name": "Grace", "last_name": "H"}]}"#
        let api = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: page)))
        // Codable, from under DRF's "results", snake_case keys converted by the default coding.
        let decoded = try await api.send(Request<[StubPerson]>(.get, "people", at: "results"))
        #expect(decoded.map(\.firstName) == ["Ada", "Grace"])
        // Hand mapping through JSONConvertible.
        let mapped = try await api.send(Request(.get, "people", decoder: .mapping([HandPerson].self, at: "results")))
        #expect(mapped.map(\.name) == ["Ada", "Grace"])
        // A closure over JSON, and the JSON itself.
        let count = try await api.send(Request(.get, "people", decoder: .json { json in json["count"].int ?? 0 }))
        #expect(count == 2)
        let whole = try await api.send(Request<JSON>(.get, "people"))
        #expect(whole["results"][1]["first_name"].string == "Grace")

        let error = await crudError {
            try await api.send(Request(.get, "people", decoder: .mapping([HandPerson].self, at: "data")))
        }
        guard case .decoding(let failure) = error else { return #expect(Bool(false)) }
        #expect(failure.keyPath == "data")
        let deep = API(
            baseURL: testBase,
            transport: StubTransport().on(nil, "**", .json(text: #"{"results": [{"first_name": 3}]}"#)))
        let wrong = await crudError {
            try await deep.send(Request(.get, "people", decoder: .mapping([HandPerson].self, at: "results")))
        }
        guard case .decoding(let bad) = wrong else { return #expect(Bool(false)) }
        #expect(bad.keyPath == "results[0].first_name")
    }

    @Test(arguments: [
        (URLError(.cancelled) as any Error, "cancelled"),
        (CancellationError(), "cancelled"),
        (URLError(.timedOut), "timedOut"),
        (URLError(.cannotConnectToHost), "transport"),
        (CRUDError.tooManyRedirects(limit: 5), "tooManyRedirects"),
    ])
    func transportErrorsBecomeCRUDErrors(thrown: any Error, expected: String) async {
        // A transport that throws what it gets, as is (the API maps it), and a stub whose route throws it.
        let transports: [any Transport] = [
            RawErrorTransport(error: thrown), StubTransport().on(nil, "**") { _ in throw thrown },
        ]
        for transport in transports {
            let api = API(baseURL: testBase, transport: transport, timeout: 7)
            let error = await crudError { try await api.get("people") }
            #expect(error?.caseName == expected)
            if case .timedOut(let timeout) = error { #expect(timeout == .idle(7)) }
        }
    }

    /// Behind an API that names no idle time, a transport's own time-out is reported as the transport's, never as
    /// "nothing for 0 seconds".
    @Test func aTransportsOwnTimeOutNamesNoSecondsItDidNotHave() async {
        let transports: [any Transport] = [
            RawErrorTransport(error: URLError(.timedOut)),
            StubTransport().on(nil, "**") { _ in throw URLError(.timedOut) },
        ]
        for transport in transports {
            let error = await crudError { try await API(baseURL: testBase, transport: transport).get("people") }
            guard case .timedOut(.idle(0)) = error else {
                Issue.record("expected timedOut(idle(0)), got \(String(describing: error))")
                continue
            }
            #expect(error?.description == "The server sent nothing for the transport's own idle time.")
        }
    }

    @Test func anAPIWithoutBaseURLRefusesPathsAndNonHTTPURLs() async {
        let bare = API(baseURL: nil)
        #expect(bare.configuration.transport is URLSessionTransport)
        let noBase = await crudError { try await bare.get("people") }
        guard case .invalidRequest(let reason) = noBase else { return #expect(Bool(false)) }
        #expect(reason.contains("base URL"))
        let file = await crudError { try await bare.get(URL(fileURLWithPath: "/etc/passwd")) }
        #expect(file?.caseName == "invalidRequest")
    }

    @Test func cancellingTheTaskCancelsTheRequest() async {
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let transport = StubTransport().on(nil, "**") { _ in
            signal.yield()
            try await Task.sleep(nanoseconds: 3_600_000_000_000)
            return .json(text: "{}")
        }
        let api = API(baseURL: testBase, transport: transport)
        let task = Task { try await api.get("slow") }
        for await _ in entered { break }
        task.cancel()
        let error = await crudError { try await task.value }
        #expect(error?.caseName == "cancelled")
    }
}
