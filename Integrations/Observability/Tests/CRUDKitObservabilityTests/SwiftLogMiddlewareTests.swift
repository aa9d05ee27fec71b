import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// `SwiftLogMiddleware` through a real transport: a line per attempt sent, answered, retried and failed, with
/// structured metadata, at a server team's levels, into the API's logger or the task's.
@Suite struct SwiftLogMiddlewareTests {
    @Test func aReadLogsItsAttemptWithStructuredMetadata() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let ada = try await Person.using(api).read(id: 1234)
        #expect(ada.name == "Ada")
        let entries = recorders.logs.entries
        #expect(entries.map(\.level) == [.trace, .debug])
        #expect(entries.map(\.message.description) == ["CRUDKit request sent", "CRUDKit response received"])
        let answered = entries[1].metadata
        #expect(answered["http.request.method"] == "GET")
        #expect(answered["url.full"] == "\(backend.server.baseURL.absoluteString)/v1/people/1234")
        #expect(answered["url.template"] == "/v1/people/{id}")
        #expect(answered["http.response.status_code"]?.description == "200")
        #expect(answered["http.response.body.size"]?.description == "27")
        #expect(answered["crudkit.attempt"]?.description == "1")
        // Seconds to the microsecond; not bounded (a loaded machine may take over a second on loopback).
        let duration = try #require(answered["crudkit.duration"]?.description)
        #expect(duration.wholeMatch(of: /[0-9]+\.[0-9]{6}/) != nil, "\(duration)")
        #expect(answered["error.type"] == nil)
    }

    @Test func a503ThenA200LogsTheRetryAtItsLevels() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api(retryPolicy: retryAtOnce))
        let _: Person = try await api.get("flaky/1234")
        let lines = recorders.logs.entries.map {
            "\($0.level) \($0.message) attempt=\($0.metadata["crudkit.attempt"] ?? "-")"
                + " status=\($0.metadata["http.response.status_code"] ?? "-")"
                + " error=\($0.metadata["error.type"] ?? "-")"
        }
        #expect(
            lines == [
                "trace CRUDKit request sent attempt=1 status=- error=-",
                "warning CRUDKit response received attempt=1 status=503 error=503",
                "notice CRUDKit retrying request attempt=2 status=- error=503",
                "trace CRUDKit request sent attempt=2 status=- error=-",
                "debug CRUDKit response received attempt=2 status=200 error=-",
            ])
    }

    @Test func aTransportErrorIsAnErrorAndA404IsInfo() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("reset") }
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("missing") }
        let answers = recorders.logs.entries.filter { $0.level != .trace }
        #expect(answers.map(\.level) == [.error, .info])
        #expect(answers[0].metadata["error.type"] == "connection_lost")
        #expect(answers[0].metadata["crudkit.error"] != nil)
        #expect(answers[1].metadata["error.type"] == "404")
    }

    @Test func aCancelledRequestIsLoggedAsCancelledAtDebug() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let task = Task { let _: Person = try await api.get("never") }
        var arrivals = backend.arrived.makeAsyncIterator()
        _ = await arrivals.next()
        task.cancel()
        await #expect(throws: CRUDError.self) { try await task.value }
        let last = try #require(recorders.logs.entries.last)
        #expect(last.level == .debug)
        #expect(last.message.description == "CRUDKit request failed")
        #expect(last.metadata["error.type"] == "cancelled")
    }

    @Test func theTasksMetadataFlowsIntoTheAPIsLogger() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        try await withLogger(mergingMetadata: ["request.id": "r-42"]) { _ in
            _ = try await Person.using(api).read(id: 1234)
        }
        #expect(recorders.logs.entries.count == 2)
        #expect(recorders.logs.entries.allSatisfy { $0.metadata["request.id"] == "r-42" })
    }

    @Test func aLoggerBoundForTheRequestWinsOverTheAPIs() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let perRequest = InMemoryLogHandler()
        var logger = Logger(label: "one-request") { _ in perRequest }
        logger.logLevel = .debug
        logger[metadataKey: "tenant"] = "acme"
        try await withLogger(logger) { _ in
            _ = try await Person.using(api).read(id: 1234)
        }
        #expect(recorders.logs.entries.isEmpty)
        #expect(perRequest.entries.map(\.level) == [.debug])
        #expect(perRequest.entries.first?.metadata["tenant"] == "acme")
    }

    @Test func aLoggerAboveEveryLevelLogsNothing() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        var logger = recorders.logger
        logger.logLevel = .critical
        let api = backend.api().with { $0.middleware.insertObservability(logger: logger) }
        _ = try await Person.using(api).read(id: 1234)
        #expect(recorders.logs.entries.isEmpty)
    }

    /// A log handler that counts each read or write of its metadata and each line it is handed.
    struct CountingLogHandler: Logging.LogHandler {
        let touches: LockedCounter
        let lines: LockedCounter
        var logLevel: Logger.Level = .info
        private var stored: Logger.Metadata = [:]

        init(touches: LockedCounter, lines: LockedCounter) {
            self.touches = touches
            self.lines = lines
        }

        var metadata: Logger.Metadata {
            get {
                _ = touches.increment()
                return stored
            }
            set {
                _ = touches.increment()
                stored = newValue
            }
        }

        var metadataProvider: Logger.MetadataProvider? {
            get {
                _ = touches.increment()
                return nil
            }
            set { _ = touches.increment() }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get {
                _ = touches.increment()
                return stored[key]
            }
            set {
                _ = touches.increment()
                stored[key] = newValue
            }
        }

        func log(event: Logging.LogEvent) { _ = lines.increment() }
    }

    /// The default `.info` level drops every line of a 2xx attempt: the stage builds none of them, and does not merge
    /// the task's metadata (a request id) into the API's logger for them either. A 404 at `.info` is still written.
    @Test func aLoggerAtInfoBuildsNothingForASuccess() async throws {
        let stubs = StubTransport()
            .on(.get, "people/:id", .json(["id": 1234, "name": "Ada"]))
            .on(.get, "missing", .status(404))
        let touches = LockedCounter()
        let lines = LockedCounter()
        let apiLogger = Logger(label: "people-client") { _ in CountingLogHandler(touches: touches, lines: lines) }
        #expect(apiLogger.logLevel == .info)
        let api = API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs).with {
            $0.middleware.insertObservability(logger: apiLogger)
        }
        // The task's metadata, as `withLogger(mergingMetadata:)` leaves it (no label), in a counting handler too.
        let taskHandler = CountingLogHandler(touches: touches, lines: lines)
        try await withLogger(handler: taskHandler, metadata: ["request.id": "r-7"]) { _ in
            let before = touches.current
            for id in 1...3 { _ = try await Person.using(api).read(id: id) }
            #expect(touches.current == before, "metadata read or written for lines the level drops")
            #expect(lines.current == 0)
            await #expect(throws: CRUDError.self) { let _: Person = try await api.get("missing") }
        }
        #expect(lines.current == 1)
    }
}
