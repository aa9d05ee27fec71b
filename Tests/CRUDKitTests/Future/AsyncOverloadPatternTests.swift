import Dispatch
import Testing

@testable import CRUDKit

/// The pattern every CRUDKit operation follows: one name, a synchronous overload returning a `Future` and an
/// `async throws` overload returning the value. Swift picks the `async` one under `await` inside functions and
/// the `Future` one where a `Future` member is used or no `await` is possible.
struct Thing: Sendable, Equatable {
    var id: Int

    /// The `Future` overload: usable from any code.
    static func thing(id: Int) -> Future<Thing> {
        let promise = Promise<Thing>()
        DispatchQueue.global().async {
            if id > 0 { promise.succeed(Thing(id: id)) } else { promise.fail(TestError(code: id)) }
        }
        return promise.future
    }

    /// The `async` overload, written once on top of the `Future` one (`.value` forces the `Future` overload).
    static func thing(id: Int) async throws -> Thing {
        try await thing(id: id).value
    }
}

@Suite struct AsyncOverloadPatternTests {
    @Test func awaitPicksTheAsyncOverloadInsideAnAsyncFunction() async throws {
        let thing = try await Thing.thing(id: 1)
        #expect(type(of: thing) == Thing.self)
        #expect(thing == Thing(id: 1))
        await #expect(throws: TestError(code: -1)) { try await Thing.thing(id: -1) }
    }

    @Test func aFutureMemberPicksTheFutureOverloadInsideAnAsyncFunction() async throws {
        let id = await withCheckedContinuation { continuation in
            Thing.thing(id: 2).onSuccess { continuation.resume(returning: $0.id) }
        }
        #expect(id == 2)
        // Without a Future member, a plain `let` needs its type spelled out in async code: otherwise the
        // async overload is chosen and the compiler asks for `try await`.
        let future: Future<Thing> = Thing.thing(id: 3)
        #expect(try await future.value == Thing(id: 3))
        #expect(try await Thing.thing(id: 4).value == Thing(id: 4))
    }

    @Test func synchronousCodeGetsTheFutureOverload() async throws {
        let future = synchronousCaller()
        #expect(try await future.value == Thing(id: 5))
    }

    private func synchronousCaller() -> Future<Thing> {
        let future = Thing.thing(id: 5)
        future.onSuccess { _ in }
        return future
    }
}
