import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// `all()` hands out nothing more once its task is cancelled, not even the rest of a page already fetched.
@Suite struct PageSequenceCancellationTests {
    /// The case: a task that cancels itself after the first item of a 25-item page got the other 24
    /// before `CRUDError.cancelled`; now the next `next()` throws at once, and no other page is requested.
    @Test func aCancelledTaskGetsNoMoreBufferedItems() async throws {
        let server = InMemoryBackend.people(pagination: .envelope(pageSize: 25))
        server.seed(60)
        let sequence = Member.using(server.api()).all()
        let task = Task { () -> (received: Int, error: (any Error)?) in
            var received = 0
            do {
                for try await _ in sequence {
                    received += 1
                    if received == 1 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            } catch {
                return (received, error)
            }
            return (received, nil)
        }
        let (received, error) = await task.value
        #expect(received == 1, "items were handed out after the task was cancelled")
        #expect((error as? CRUDError)?.isCancelled == true)
        #expect(server.log == ["GET /v1/people"])
    }

    /// After the cancellation is thrown the walk is over: a further `next()` answers `nil`; and a walk that has
    /// already ended answers `nil`, not `cancelled`.
    @Test func theWalkIsOverAfterTheCancellation() async throws {
        let server = InMemoryBackend.people(pagination: .envelope(pageSize: 25))
        server.seed(3)
        let sequence = Member.using(server.api()).all()
        let outcome = await Task { () -> (first: Bool, thrown: Bool, after: Bool) in
            var iterator = sequence.makeAsyncIterator()
            let first = (try? await iterator.next()) != nil
            withUnsafeCurrentTask { $0?.cancel() }
            var thrown = false
            do { _ = try await iterator.next() } catch { thrown = (error as? CRUDError)?.isCancelled == true }
            do {
                return (first, thrown, try await iterator.next() == nil)
            } catch {
                return (first, thrown, false)
            }
        }.value
        #expect(outcome.first && outcome.thrown && outcome.after)

        let finished = await Task { () -> Bool in
            var iterator = sequence.makeAsyncIterator()
            do {
                while try await iterator.next() != nil {}
                withUnsafeCurrentTask { $0?.cancel() }
                return try await iterator.next() == nil
            } catch {
                return false
            }
        }.value
        #expect(finished, "a finished walk must keep answering nil")
    }
}
