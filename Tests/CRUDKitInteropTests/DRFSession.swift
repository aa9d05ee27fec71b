import CRUDKit
import Foundation
import Testing

/// One test's connection to the DRF server: an ``API`` made the way a user makes it
/// (`API(baseURL:conventions: .djangoREST, token:)`, the real `URLSessionTransport`), installed as ``API/shared``
/// for the test's task only, a ``WireLog`` of what went over the wire, and the people to delete afterwards.
struct DRFSession: Sendable {
    let api: API
    let wire: WireLog
    /// A unique `last_name` for this test's people, so tests can run in parallel and again on the same server.
    let tag: String
    private let created = Locked<[Int]>([])

    init(token: String?, retryPolicy: RetryPolicy) throws {
        let wire = WireLog()
        self.wire = wire
        self.tag = "T" + UUID().uuidString.prefix(12).lowercased()
        self.api = API(
            baseURL: try DRFServer.baseURL(), conventions: .djangoREST, token: token,
            middleware: .standard.inserting(RetryMiddleware(policy: retryPolicy)).inserting(
                LoggingMiddleware(wire.handler))
        ).with { $0.timeout = 10 }
    }

    /// Creates a person with this test's tag as last name, to be deleted when the test ends.
    func makePerson(_ firstName: String = "Ada", age: Int? = nil, favoriteColor: String? = nil) async throws -> Person {
        let person: Person = try await Person(
            firstName: firstName, lastName: tag, age: age, favoriteColor: favoriteColor
        )
        .create()
        track(person)
        return person
    }

    /// Deletes `person` when the test ends (a 404 then is fine: the test may have deleted it).
    func track(_ person: Person) {
        if let id = person.id { created.withLock { $0.append(id) } }
    }

    /// Deletes what was tracked; each failure other than 404 is recorded as an issue.
    func cleanUp() async {
        for id in created.withLock({ $0 }) {
            do {
                try await Person.using(api).delete(id: id)
            } catch let error as CRUDError where error.isNotFound {
                continue
            } catch {
                Issue.record(error, "cleaning up person \(id)")
            }
        }
    }

    /// Every request this test sent went to a path ending with `/`, as DRF needs.
    func expectTrailingSlashes(sourceLocation: SourceLocation = #_sourceLocation) {
        for exchange in wire.exchanges {
            #expect(exchange.path.hasSuffix("/"), "\(exchange)", sourceLocation: sourceLocation)
            #expect(exchange.status != 301, "\(exchange)", sourceLocation: sourceLocation)
        }
    }
}

/// Runs `body` with a new ``DRFSession`` whose API is ``API/shared`` for the body's task and its children; then
/// checks that every path ended with `/` and deletes the people the body created, also when it throws.
/// - Parameters:
///   - token: Sent as `Authorization: Token <token>`, if given.
///   - retryPolicy: The API's retry policy.
func withDRF<Result: Sendable>(
    token: String? = nil,
    retryPolicy: RetryPolicy = .none,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (DRFSession) async throws -> Result
) async throws -> Result {
    let session = try DRFSession(token: token, retryPolicy: retryPolicy)
    return try await API.withShared(session.api) {
        let result: Result
        do {
            result = try await body(session)
        } catch {
            await session.cleanUp()
            throw error
        }
        await session.cleanUp()
        session.expectTrailingSlashes(sourceLocation: sourceLocation)
        return result
    }
}
