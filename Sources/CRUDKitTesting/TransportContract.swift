import CRUDKit
import Foundation

/// Checks that any ``CRUDKit/Transport`` can be run against over ``LoopbackServer``, so every transport behaves
/// the way CRUDKit's pipeline expects: the same statuses, framing, closes, limits and errors, one exchange per request
/// (a redirect comes back as it is: following it, like cookies and the deadline across hops, is the `API`'s).
///
/// Build a contract from a factory, then run each check as its own test:
///
/// ```swift
/// let contract = TransportContract { settings in
///     URLSessionTransport(configuration: .init(
///         idleTimeout: settings.idleTimeout,
///         maximumResponseSize: settings.maximumResponseSize))
/// }
///
/// @Test(arguments: contract.checks)
/// func transportContract(check: TransportContract.Check) async throws {
///     try await check.run()
/// }
/// ```
///
/// A check throws ``Failure`` with a message that says what the transport did instead. Where a known transport
/// cannot pass a check, ``Check/knownLimitations`` names it with the reason.
public struct TransportContract: Sendable {
    /// The settings a check asks the factory to apply to the transport it makes.
    public struct Settings: Sendable, Hashable {
        /// Seconds without a byte before ``CRUDError/Timeout/idle(_:)``.
        public var idleTimeout: TimeInterval
        /// The largest response body held in memory before ``CRUDError/responseTooLarge(limit:)``.
        public var maximumResponseSize: Int

        /// Creates settings; the defaults suit most checks.
        ///
        /// - Parameters:
        ///   - idleTimeout: Idle timeout in seconds (default 10).
        ///   - maximumResponseSize: Largest in-memory body in bytes (default 1 MB).
        public init(idleTimeout: TimeInterval = 10, maximumResponseSize: Int = 1 << 20) {
            self.idleTimeout = idleTimeout
            self.maximumResponseSize = maximumResponseSize
        }
    }

    /// Why a check failed, in words a transport's author can act on.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What the transport did instead of what the contract expects.
        public var message: String

        /// Creates a failure with `message`.
        public init(_ message: String) { self.message = message }

        /// The message.
        public var description: String { message }
    }

    /// One named check; ``run()`` starts its own server and throws ``Failure`` when the transport misbehaves.
    public struct Check: Sendable, CustomStringConvertible {
        /// A short name, used as the test's argument description.
        public let name: String
        /// Transports known not to pass this check, by type name, with the reason.
        public let knownLimitations: [String: String]
        /// Transports, by type name, for which running this check aborts the whole process (a fault inside
        /// the platform's networking that no code above it can catch): a test runner must not run it for them
        /// in-process. Each is also listed in ``knownLimitations`` with the reason.
        public let abortsProcess: Set<String>
        let body: @Sendable () async throws -> Void

        /// Creates a check.
        ///
        /// - Parameters:
        ///   - name: A short name.
        ///   - knownLimitations: Transport type names that cannot pass it, with the reason.
        ///   - abortsProcess: Transport type names for which running it aborts the process.
        ///   - body: Runs the check, throwing on failure.
        public init(
            name: String, knownLimitations: [String: String] = [:], abortsProcess: Set<String> = [],
            body: @escaping @Sendable () async throws -> Void
        ) {
            self.name = name
            self.knownLimitations = knownLimitations
            self.abortsProcess = abortsProcess
            self.body = body
        }

        /// Runs the check.
        ///
        /// - Throws: ``Failure`` (or the transport's unexpected error) when the transport breaks the contract.
        public func run() async throws { try await body() }

        /// The check's name.
        public var description: String { name }

        /// The reason `transport` is known not to pass this check, or `nil` when it should pass.
        ///
        /// - Parameter transport: The transport under test.
        /// - Returns: The documented reason, if any.
        public func knownLimitation(of transport: any Transport) -> String? {
            knownLimitations[String(describing: type(of: transport))]
        }
    }

    let makeTransport: @Sendable (Settings) -> any Transport

    /// Creates a contract for the transports `makeTransport` returns.
    ///
    /// - Parameter makeTransport: Makes a fresh transport applying the given settings; called once per check.
    public init(makeTransport: @escaping @Sendable (Settings) -> any Transport) {
        self.makeTransport = makeTransport
    }
}

extension TransportContract {
    /// Starts a server answering with `handler`, runs `body` against it with a fresh transport, then stops it.
    static func withServer(
        _ settings: Settings = Settings(),
        contract: TransportContract,
        handler: @escaping @Sendable (LoopbackRequest) throws -> LoopbackReply,
        body: (LoopbackServer, any Transport) async throws -> Void
    ) async throws {
        let server = LoopbackServer(synchronousHandler: handler)
        try server.start()
        defer { server.stop() }
        try await body(server, contract.makeTransport(settings))
    }

    /// Throws ``Failure`` with `message` unless `condition` holds.
    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(message()) }
    }

    /// Runs `operation`, which must throw a ``CRUDError`` for which `matches` is true.
    static func expectError(
        _ expected: String,
        _ operation: () async throws -> HTTPResponse,
        matches: (CRUDError) -> Bool
    ) async throws {
        let outcome: String
        do {
            let response = try await operation()
            outcome = "a response with status \(response.status)"
        } catch let error as CRUDError {
            if matches(error) { return }
            outcome = "CRUDError \(error)"
        } catch {
            outcome = "a non-CRUDError \(type(of: error)): \(error)"
        }
        throw Failure("expected \(expected), got \(outcome)")
    }
}
