import Dispatch
import Foundation

extension API {
    /// The shared default, behind one lock; starts without a base URL or transport.
    private static let installed = Locked(API(baseURL: nil))

    /// An API set for the current task and its children by ``withShared(_:operation:)``, with the number of its
    /// block (each call of `withShared` has its own, so values read in one block are told from another's).
    @TaskLocal private static var scoped: (api: API, block: UInt64?)?

    /// The number the next ``withShared(_:operation:)`` block gets.
    private static let blocks = Locked<UInt64>(0)

    /// The ``withShared(_:operation:)`` block the current task runs in, if any.
    static var sharedBlock: UInt64? { scoped?.block ?? nil }

    /// The API model operations use when given none: the one set by ``withShared(_:operation:)`` for the current
    /// task if any, otherwise the one installed by setting this property (the one way to install it).
    ///
    /// ```swift
    /// API.shared = API(baseURL: URL(string: "https://api.example.com/v1")!, headers: ["Authorization": "Bearer \(token)"])
    /// ```
    ///
    /// Set it once at start-up; reading and setting are safe from any thread, and a request keeps the API it started
    /// with, so replacing the default never affects requests already running.
    ///
    /// To give one task and the tasks it starts another default (two walks against two servers at once, a test),
    /// use ``withShared(_:operation:)`` instead of setting this property in turn: the walks would race for it. A
    /// value read, created or listed through an API writes back there whatever the default is later.
    public static var shared: API {
        get { scoped?.api ?? installed.withLock { $0 } }
        set { installed.withLock { $0 = newValue } }
    }

    // twin: none (runs the caller's own async closure; there is nothing to start as a Future)
    /// Runs `operation` with `api` as ``shared`` for the current task and the tasks it creates, leaving the
    /// program-wide default alone (handy for tests, and for servers that talk to one API per tenant).
    /// - Returns: What `operation` returns.
    public static func withShared<Result>(
        _ api: API,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        let block = blocks.withLock { count in
            count &+= 1
            return count
        }
        return try await $scoped.withValue((api, block), operation: operation)
    }

    /// Runs `operation` with `api` as ``shared`` in `block` (the block a `Future` was made in, so that values it
    /// reads and writes count as that block's; `nil` outside any block).
    static func withShared<Result>(
        _ api: API, block: UInt64?, operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $scoped.withValue((api, block), operation: operation)
    }
}
