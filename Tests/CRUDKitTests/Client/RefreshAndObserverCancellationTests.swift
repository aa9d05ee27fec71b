import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A refresh the test ends: each call says it started, then waits for the token the test hands over.
private final class HeldRefresh: Sendable {
    let started: AsyncStream<String?>
    private let startedContinuation: AsyncStream<String?>.Continuation
    private let tokens: AsyncStream<String>
    private let tokensContinuation: AsyncStream<String>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream.makeStream()
        (tokens, tokensContinuation) = AsyncStream.makeStream()
    }

    /// Waits for ``release(_:)``; throws `CancellationError` when the stream ends first.
    func refresh(_ expired: String?) async throws -> String {
        startedContinuation.yield(expired)
        for await token in tokens { return token }
        throw CancellationError()
    }

    func release(_ token: String) { tokensContinuation.yield(token) }

    func finish() { tokensContinuation.finish() }
}

/// Probes on issues 29 (token refresh) and 32 (cancellation per observer).
@Suite struct RefreshAndObserverCancellationTests {
    /// A server that accepts only `Bearer fresh` (and `Bearer signed-in`) and answers everything else 401.
    private static func server() -> StubTransport {
        StubTransport().on(nil, "**") { request in
            switch request.recorded.header("Authorization") {
            case "Bearer fresh", "Bearer signed-in": return .json(text: #"{"ok": true}"#)
            default: return .json(text: #"{"detail": "expired"}"#, status: 401)
            }
        }
    }

    /// Signing out (`setToken(nil)`) while a refresh runs: the refresh's token, arriving later, must not sign the
    /// user back in, and the request waiting for it must not be sent with it.
    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
    func signingOutDuringARefreshIsNotUndoneByTheRefresh() async throws {
        let held = HeldRefresh()
        defer { held.finish() }
        let auth = TokenRefresher(token: "stale") { try await held.refresh($0) }
        let transport = Self.server()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(auth, after: .retry) }
        let waiting = Task { await crudError { try await api.get("me") } }
        var started = held.started.makeAsyncIterator()
        #expect(await started.next() == "stale")
        await auth.setToken(nil)
        held.release("fresh")
        let error = await waiting.value
        #expect(await auth.currentToken == nil)
        #expect(error?.status == 401)
        #expect(!transport.recorder.requests.contains { $0.header("Authorization") == "Bearer fresh" })
    }

    /// Signing in again (`setToken`) while a refresh runs: the newer sign-in wins over the refresh's token, and the
    /// waiting request is sent once more with it.
    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
    func signingInDuringARefreshWinsOverTheRefresh() async throws {
        let held = HeldRefresh()
        defer { held.finish() }
        let auth = TokenRefresher(token: "stale") { try await held.refresh($0) }
        let transport = Self.server()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(auth, after: .retry) }
        let waiting = Task { try await api.get("me") }
        var started = held.started.makeAsyncIterator()
        _ = await started.next()
        await auth.setToken("signed-in")
        held.release("old-session")
        let response = try await waiting.value
        #expect(response.status == 200)
        #expect(await auth.currentToken == "signed-in")
        let sent = transport.recorder.requests.map { $0.header("Authorization") }
        #expect(sent == ["Bearer stale", "Bearer signed-in"])
    }

    /// A request that starts while a refresh runs waits in `adapt`; cancelling it ends only it, and the request
    /// that started the refresh still gets the new token.
    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
    func cancellingAJoiningCallerLeavesTheRefreshAndTheFirstCaller() async throws {
        let held = HeldRefresh()
        defer { held.finish() }
        let auth = TokenRefresher(token: "stale") { try await held.refresh($0) }
        let transport = Self.server()
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(auth, after: .retry)
            $0.middleware.removeAll(named: .coalescing)
        }
        let first = Task { try await api.get("first") }
        var started = held.started.makeAsyncIterator()
        _ = await started.next()
        let joining = Task { await crudError { try await api.get("joining") } }
        joining.cancel()
        #expect((await joining.value)?.isCancelled == true)
        held.release("fresh")
        #expect(try await first.value.status == 200)
        #expect(await auth.refreshCount == 1)
        // The cancelled caller never reached the server with the expired token after the refresh began.
        #expect(transport.recorder.requests.filter { $0.path.hasSuffix("joining") }.count == 0)
    }

    /// A caller whose deadline passes while it waits (on a clock the test controls) ends with its deadline; the
    /// refresh goes on for the others and is not counted as failed.
    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
    func aDeadlineWhileWaitingEndsOnlyThatCaller() async throws {
        let held = HeldRefresh()
        defer { held.finish() }
        let auth = TokenRefresher(token: "stale", refreshTimeout: .infinity) { try await held.refresh($0) }
        let transport = Self.server()
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(auth, after: .retry)
            $0.middleware.removeAll(named: .coalescing)
        }
        let first = Task { try await api.get("first") }
        var started = held.started.makeAsyncIterator()
        _ = await started.next()
        let hurried = api.with {
            $0.clock = ManualClock()
            $0.deadline = 5
        }
        let error = await crudError { try await hurried.get("hurried") }
        #expect(TokenRefresherStuckTests.isDeadline(error, 5), "\(String(describing: error))")
        held.release("fresh")
        #expect(try await first.value.status == 200)
        #expect(await auth.refreshCount == 1)
    }

    /// A refresh that calls the API it guards from a child task (`async let`) and from an unstructured `Task`:
    /// both requests are the refresh's own, so neither waits for it (no deadlock) nor carries the expired token.
    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
    func aRefreshCallingTheGuardedAPIFromChildTasksDoesNotDeadlock() async throws {
        let guarded = Locked<API?>(nil)
        let auth = TokenRefresher(token: "stale", refreshTimeout: .infinity) { _ in
            let api = try #require(guarded.withLock { $0 })
            async let child = api.post("token/refresh", body: .json(["n": 1]))
            let unstructured = Task { try await api.post("token/refresh", body: .json(["n": 2])) }
            _ = try await (child, unstructured.value)
            return "fresh"
        }
        // The later route wins: the refresh endpoint answers only requests without the expired token.
        let transport = StubTransport().on(nil, "**") { request in
            request.recorded.header("Authorization") == "Bearer fresh"
                ? .json(text: "{}") : .json(text: "{}", status: 401)
        }.on(.post, "token/refresh") { request in
            request.recorded.header("Authorization") == nil
                ? .json(text: "{}") : .json(text: "{}", status: 401)
        }
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(auth, after: .retry) }
        guarded.withLock { $0 = api }
        defer { guarded.withLock { $0 = nil } }
        #expect(try await api.get("me").status == 200)
        #expect(await auth.refreshCount == 1)
    }

    /// Fifty requests that all get 401, and a refresh that hands back the same expired token: one refresh (before
    /// the fix, requests whose 401 came after it started another each), every request failing with the 401.
    @Test func fiftyRequestsWithARefreshReturningTheSameTokenRefreshOnceAndStop() async throws {
        let auth = TokenRefresher(token: "stale") { expired in expired ?? "stale" }
        let gate = Gate(count: 50)
        // Every first attempt gets its 401 only once all fifty have arrived (later arrivals pass at once).
        let transport = StubTransport().on(nil, "**") { _ in
            await gate.arrive()
            return .json(text: "{}", status: 401)
        }
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(auth, after: .retry)
            $0.middleware.removeAll(named: .coalescing)
        }
        let errors = await withTaskGroup(of: CRUDError?.self) { group in
            for index in 0..<50 { group.addTask { await crudError { try await api.get("p/\(index)") } } }
            var errors: [CRUDError?] = []
            for await error in group { errors.append(error) }
            return errors
        }
        #expect(errors.map { $0?.status } == Array(repeating: 401, count: 50))
        #expect(await auth.refreshCount == 1)
        // The expired token back is a failed refresh: nobody is sent again with it.
        #expect(transport.recorder.count == 50)
        // Nor does a later request with that token refresh again (before the fix, each did: one refresh each).
        #expect((await crudError { try await api.get("later") })?.status == 401)
        #expect(await auth.refreshCount == 1)
    }

    // MARK: - Issue 32: cancellation belongs to one observer

    /// Starts a task awaiting `future` and waits until its await is registered.
    private static func awaiting(_ future: Future<Int>) async -> Task<Result<Int, any Error>, Never> {
        let before = future.interestForTesting
        let task = Task { await future.result }
        while future.interestForTesting == before { await Task.yield() }
        return task
    }

    /// Cancelling `all`, `zip` and `race` withdraws only their own interest: an input another task awaits keeps
    /// going and delivers its value; an input nobody else observes is cancelled.
    @Test func cancellingACombinatorSparesAnInputAnotherTaskAwaits() async {
        let (shared, alone) = (Promise<Int>(), Promise<Int>())
        let waiter = await Self.awaiting(shared.future)
        Future.all([shared.future, alone.future]).cancel()
        shared.future.zip(alone.future).cancel()
        Future.firstCompleted(of: [shared.future, alone.future]).cancel()
        #expect(!shared.isCancelled)
        #expect(alone.isCancelled)
        shared.succeed(7)
        #expect(await waiter.value.success == 7)
    }

    /// Cancelling a chain midway: the cancelled link fails, links after it fail with it, and the upstream that a
    /// callback still observes keeps going; a flatMap's inner future another task awaits survives the flatMap's
    /// cancellation.
    @Test func cancellingAChainMidwaySparesWhatOthersObserve() async {
        let source = Promise<Int>()
        let delivered = Recorder<Int>()
        source.future.onCompleteInline { delivered.record((try? $0.get()) ?? -1) }
        let middle = source.future.map { $0 + 1 }
        let end = middle.map { $0 * 2 }
        middle.cancel()
        #expect(isCancelled(await end.result.failure))
        #expect(!source.isCancelled)
        source.succeed(1)
        #expect(delivered.elements == [1])

        let inner = Promise<Int>()
        let innerWaiter = await Self.awaiting(inner.future)
        let chained = Future(value: 0).flatMap { _ in inner.future }
        chained.cancel()
        #expect(!inner.isCancelled)
        inner.succeed(3)
        #expect(await innerWaiter.value.success == 3)
    }
}
