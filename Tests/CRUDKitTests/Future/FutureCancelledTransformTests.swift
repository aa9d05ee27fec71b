import CRUDKitTesting
import Dispatch
import Testing

@testable import CRUDKit

/// A future cancelled before its input completes never runs its transform, even when the input is observed
/// elsewhere and goes on to succeed (or fail).
@Suite struct FutureCancelledTransformTests {
    /// A pending input that a callback elsewhere keeps alive, so cancelling a derived future does not cancel it.
    private func sharedInput() -> Promise<Int> {
        let promise = Promise<Int>()
        promise.future.onCompleteInline { _ in }
        return promise
    }

    @Test func aCancelledFlatMapNeverRunsItsTransform() {
        let input = sharedInput()
        let ran = Locked(0)
        let derived = (0..<1_000).map { _ in
            input.future.flatMap { value -> Future<Int> in
                ran.withLock { $0 += 1 }
                return Future(value: value)
            }
        }
        derived.forEach { $0.cancel() }
        input.succeed(1)
        #expect(ran.withLock { $0 } == 0)
        #expect(derived.allSatisfy { $0.isCancelled })
    }

    @Test func aCancelledMapNeverRunsItsTransform() {
        let input = sharedInput()
        let ran = Locked(0)
        let derived = (0..<1_000).map { _ in
            input.future.map { value -> Int in
                ran.withLock { $0 += 1 }
                return value
            }
        }
        derived.forEach { $0.cancel() }
        input.succeed(1)
        #expect(ran.withLock { $0 } == 0)
    }

    @Test func cancelledRecoversAndMapErrorNeverRunTheirTransforms() {
        let input = sharedInput()
        let ran = Locked(0)
        var derived: [Future<Int>] = []
        for _ in 0..<300 {
            derived.append(
                input.future.recover { _ -> Int in
                    ran.withLock { $0 += 1 }
                    return 0
                })
            derived.append(
                input.future.recover { _ -> Future<Int> in
                    ran.withLock { $0 += 1 }
                    return Future(value: 0)
                })
            derived.append(
                input.future.mapError { error in
                    ran.withLock { $0 += 1 }
                    return error
                })
        }
        derived.forEach { $0.cancel() }
        input.fail(TestError())
        #expect(ran.withLock { $0 } == 0)
    }

    @Test func aCancelledFlatMapSendsNoRequest() async throws {
        // Given: a read observed elsewhere, and a POST chained on it that the user cancels at once.
        let transport = StubTransport().on(.post, "orders", .json(text: "{}", status: 201))
        let api = API(baseURL: testBase, transport: transport)
        let input = sharedInput()
        let chained = (0..<200).map { _ in
            input.future.flatMap { _ in Future { try await api.post("orders", body: .json(["item": "tea"])) } }
        }
        chained.forEach { $0.cancel() }
        // When the read succeeds later,
        input.succeed(1)
        // Then no POST was issued.
        for future in chained { #expect(isCancelled(await future.result.failure)) }
        #expect(transport.recorder.count == 0)
    }
}
