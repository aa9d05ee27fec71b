import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// The logging stage at each of swift-log's levels: it writes exactly the lines at or above the level, reads the
/// logger's level once per attempt, and touches no metadata for a line it drops.
@Suite struct SwiftLogLevelTests {
    /// A log handler that counts the reads of its level and of its metadata, and keeps the levels of its lines.
    struct CountingLevelHandler: Logging.LogHandler {
        let levelReads: LockedCounter
        let metadataReads: LockedCounter
        let written: InMemoryLogHandler
        private var level: Logger.Level
        private var stored: Logger.Metadata = [:]

        init(level: Logger.Level, levelReads: LockedCounter, metadataReads: LockedCounter, written: InMemoryLogHandler)
        {
            self.level = level
            self.levelReads = levelReads
            self.metadataReads = metadataReads
            self.written = written
        }

        var logLevel: Logger.Level {
            get {
                _ = levelReads.increment()
                return level
            }
            set { level = newValue }
        }

        var metadata: Logger.Metadata {
            get {
                _ = metadataReads.increment()
                return stored
            }
            set { stored = newValue }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get {
                _ = metadataReads.increment()
                return stored[key]
            }
            set { stored[key] = newValue }
        }

        func log(event: Logging.LogEvent) {
            var event = event
            event.metadata = stored.merging(event.metadata ?? [:]) { $1 }
            written.log(event: event)
        }
    }

    /// A connection dropped under a request.
    struct Dropped: Error {}

    /// What every level runs: a read (2xx), a 404, a 503 answered three times (retried twice), a transport error.
    static func scenario(_ api: API) async {
        _ = try? await Person.using(api).read(id: 1)
        _ = try? await api.get("missing")
        _ = try? await api.get("busy")
        _ = try? await api.get("broken")
    }

    static func api(logger: Logger) -> API {
        let stubs = StubTransport()
            .on(.get, "people/:id", .json(["id": 1, "name": "Ada"]))
            .on(.get, "missing", .status(404))
            .on(.get, "busy", .status(503))
            .on(.get, "broken", .failure(.transport(TransportFailure(.connectionLost, underlying: Dropped()))))
        return API(
            baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs,
            middleware: .standard.inserting(RetryMiddleware(policy: retryAtOnce))
        ).with { $0.middleware.insertObservability(logger: logger) }
    }

    @Test(arguments: Logger.Level.allCases)
    func eachLevelWritesTheLinesAtOrAboveItAndBuildsNoOther(_ level: Logger.Level) async throws {
        let reference = InMemoryLogHandler()
        var all = Logger(label: "reference") { _ in reference }
        all.logLevel = .trace
        await Self.scenario(Self.api(logger: all))
        let attempts = reference.entries.filter { $0.message.description == "CRUDKit request sent" }.count
        #expect(reference.entries.count >= 10 && attempts >= 6)

        let levelReads = LockedCounter()
        let metadataReads = LockedCounter()
        let written = InMemoryLogHandler()
        let logger = Logger(label: "people-client") { _ in
            CountingLevelHandler(
                level: level, levelReads: levelReads, metadataReads: metadataReads, written: written)
        }
        let taskReads = LockedCounter()
        let task = CountingLevelHandler(
            level: .trace, levelReads: LockedCounter(), metadataReads: taskReads, written: InMemoryLogHandler())
        let api = Self.api(logger: logger)
        await withLogger(handler: task, metadata: ["request.id": "r-1"]) { _ in
            let before = taskReads.current
            await Self.scenario(api)
            // The task's metadata is merged once for each line written, never for a line dropped.
            #expect(taskReads.current - before == written.entries.count)
        }
        let expected = reference.entries.filter { $0.level >= level }
        #expect(written.entries.map(\.level) == expected.map(\.level))
        #expect(written.entries.map(\.message.description) == expected.map(\.message.description))
        #expect(written.entries.allSatisfy { $0.metadata["request.id"] == "r-1" })
        // The stage reads the level once per attempt; swift-log reads it once more for each line written.
        #expect(levelReads.current == attempts + written.entries.count)
    }

    /// A logger bound for the task (`withLogger(_:_:)`) has its level read once per attempt too.
    @Test func aLoggerBoundForTheTaskHasItsLevelReadOncePerAttempt() async throws {
        let levelReads = LockedCounter()
        let written = InMemoryLogHandler()
        let bound = Logger(label: "one-request") { _ in
            CountingLevelHandler(
                level: .error, levelReads: levelReads, metadataReads: LockedCounter(), written: written)
        }
        let api = Self.api(logger: Logger(label: "unused") { _ in SwiftLogNoOpLogHandler() })
        await withLogger(bound) { _ in await Self.scenario(api) }
        let stubs = api.configuration.transport as? StubTransport
        let sent = try #require(stubs).recorder.requests.count
        #expect(sent >= 6)
        #expect(written.entries.map(\.level) == Array(repeating: .error, count: written.entries.count))
        #expect(!written.entries.isEmpty)
        #expect(levelReads.current == sent + written.entries.count)
    }
}
