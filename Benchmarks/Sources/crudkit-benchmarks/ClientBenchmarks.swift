import CRUDKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cost of CRUDKit's request pipeline without a network: build the request (URL with an encoded id segment,
/// default headers and query), run an `.adapt` and a `.validate` middleware, go through an in-process transport,
/// check the status and decode one person — against building a `URLRequest` by hand and decoding the same bytes
/// with `JSONDecoder`. Returns whether every target was met (there is none yet: the figure is recorded).
func runClientPipelineBenchmark(_ options: BenchmarkOptions) async throws -> Bool {
    printSuiteHeader("Client pipeline (in-process transport)")
    let body = Data(
        #"{"id": 12, "firstName": "Ada", "lastName": "Lovelace", "favoriteColor": "green", "age": 36}"#.utf8)
    let base = URL(string: "https://api.example.com/v1")!
    let transport = InProcessTransport(
        response: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body))
    let api = API(
        baseURL: base,
        headers: ["User-Agent": "CRUDKit-bench"],
        query: ["api_version": "3"],
        transport: transport
    ).with {
        $0.middleware.insert(
            .adapt { request in
                var request = request
                request.headers["Authorization"] = "Bearer token"
                return request
            }, after: .retry)
        $0.middleware.insert(
            .validate { response in
                if response.body.first != UInt8(ascii: "{") {
                    throw CRUDError.validation(message: "not an object", response: response)
                }
            }, after: .validation)
    }
    let iterations = options.iterations(20_000)

    var sink = 0
    let ours = try await nanosecondsPerIteration(iterations: iterations) {
        let person = try await api.send(Request<BenchPerson>(.get, Endpoint.segments(["people", "12"])))
        sink &+= person.id
    }
    let baseline = try await nanosecondsPerIteration(iterations: iterations) {
        guard let url = URL(string: base.absoluteString + "/people/12?api_version=3") else { return }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("CRUDKit-bench", forHTTPHeaderField: "User-Agent")
        request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
        let response = try await transport.respond(to: request)
        let person = try JSONDecoder().decode(BenchPerson.self, from: response)
        sink &+= person.id
    }
    // The same two steps as one middleware of its own.
    let viaMiddleware = API(
        configuration: APIConfiguration(
            baseURL: base, headers: ["User-Agent": "CRUDKit-bench"], query: ["api_version": "3"],
            transport: transport
        ).withMiddleware(BenchMiddleware()))
    let middleware = try await nanosecondsPerIteration(iterations: iterations) {
        let person = try await viaMiddleware.send(Request<BenchPerson>(.get, Endpoint.segments(["people", "12"])))
        sink &+= person.id
    }
    if sink == 42 { print("") }  // keeps the work from being optimised away
    report(
        "pipeline: build, .adapt + .validate, decode Person", ours: ours / 1000, baseline: baseline / 1000,
        baselineName: "URLRequest built by hand + JSONDecoder on the same bytes", unit: .microseconds, target: nil)
    report(
        "pipeline: build, 1 middleware, decode Person", ours: middleware / 1000, baseline: baseline / 1000,
        baselineName: "URLRequest built by hand + JSONDecoder on the same bytes", unit: .microseconds, target: nil)
    return true
}

/// The benchmark's two closure middlewares as one: sets the token, checks the body is an object.
private struct BenchMiddleware: Middleware {
    func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        var request = request
        request.headers["Authorization"] = "Bearer token"
        let response = try await next(request, context)
        if response.body.first != UInt8(ascii: "{") {
            throw CRUDError.validation(message: "not an object", response: response)
        }
        return response
    }
}

extension APIConfiguration {
    /// This configuration with `middleware` inside the retry stage.
    fileprivate func withMiddleware(_ middleware: some Middleware) -> APIConfiguration {
        var copy = self
        copy.middleware.insert(middleware, after: .retry)
        return copy
    }
}

/// The model decoded by the pipeline benchmark.
private struct BenchPerson: Decodable, Sendable {
    var id: Int
    var firstName: String
    var lastName: String
    var favoriteColor: String?
    var age: Int?
}

/// A transport that answers every request at once with the same response.
private struct InProcessTransport: Transport {
    let response: HTTPResponse

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }

    /// The baseline's counterpart of `send`: one async hop returning the body.
    func respond(to request: URLRequest) async throws -> Data { response.body }
}
