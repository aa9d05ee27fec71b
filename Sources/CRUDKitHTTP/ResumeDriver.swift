@_spi(TransportKit) import CRUDKitCore
import Foundation

/// The glue around a ``ResumeStateMachine``: the one pause/resume mechanism of `RequestHandle` and ``DownloadTask``.
///
/// It keeps the machine behind its lock with the attempt in flight and the tasks waiting for a resume; each event
/// runs the machine under the lock and the glue performs what it answers outside it (cancel the attempt, wake the
/// waiters, send the next attempt through the transport).
package final class ResumeDriver: Sendable {
    private struct State {
        var machine: ResumeStateMachine
        /// The attempt in flight and its number.
        var attempt: (id: Int, task: Task<HTTPResponse, any Error>)?
        var waiters: [UUID: CheckedContinuation<Void, any Error>] = [:]
    }

    /// The lock guarding the machine, the attempt in flight and the waiters.
    private let state: Locked<State>

    /// A driver that starts running, or paused.
    package init(paused: Bool) {
        state = Locked(State(machine: ResumeStateMachine(paused: paused)))
    }

    /// Where the handle or download is.
    package var phase: ResumeStateMachine.Phase { state.withLock { $0.machine.currentPhase } }

    // MARK: - Steering

    /// Pauses, or answers why not (`nil` when paused): the attempt in flight is cancelled, its bytes kept.
    package func pause() -> String? {
        let (outcome, task) = state.withLock {
            state -> (ResumeStateMachine.PauseOutcome, Task<HTTPResponse, any Error>?) in
            let outcome = state.machine.pause()
            guard case .paused(let id?) = outcome, state.attempt?.id == id else { return (outcome, nil) }
            return (outcome, state.attempt?.task)
        }
        task?.cancel()
        if case .refused(let reason) = outcome { return reason }
        return nil
    }

    /// Resumes a paused handle or download; nothing otherwise.
    package func resume() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard state.machine.resume() else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Cancels for good: the attempt in flight is cancelled and every waiter throws ``CRUDError/cancelled``.
    /// - Returns: Whether it was running or paused until now.
    @discardableResult
    package func cancel() -> Bool {
        let (cancelled, task, waiters) = state.withLock {
            state -> (Bool, Task<HTTPResponse, any Error>?, [CheckedContinuation<Void, any Error>]) in
            let (cancelled, id) = state.machine.cancel()
            defer { state.waiters = [:] }
            let task = id != nil && state.attempt?.id == id ? state.attempt?.task : nil
            return (cancelled, task, Array(state.waiters.values))
        }
        task?.cancel()
        for waiter in waiters { waiter.resume(throwing: CRUDError.cancelled) }
        return cancelled
    }

    /// The handle or download has completed, whichever way.
    package func end() {
        state.withLock { $0.machine.end() }
    }

    /// Ends the attempt in flight with `error` (a body over a size limit).
    package func abort(_ error: CRUDError) {
        let task = state.withLock { state -> Task<HTTPResponse, any Error>? in
            guard let id = state.machine.abortAttempt(error), state.attempt?.id == id else { return nil }
            return state.attempt?.task
        }
        task?.cancel()
    }

    /// Returns at once while running; waits while paused.
    /// - Throws: ``CRUDError/cancelled`` when cancelled, ended, or the waiting task is cancelled.
    package func waitUntilRunning() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    switch state.machine.currentPhase {
                    case .running: return .success(())
                    case .ended, .cancelled: return .failure(CRUDError.cancelled)
                    case .paused:
                        if Task.isCancelled { return .failure(CRUDError.cancelled) }
                        state.waiters[id] = continuation
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CRUDError.cancelled)
        }
    }

    // MARK: - Exchanges

    /// Runs `write` once running, marked as on the wire (so a pause refuses) until it returns.
    package func write(
        method: String, _ write: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        while true {
            try await waitUntilRunning()
            if state.withLock({ $0.machine.beginWrite(method: method) }) { break }
        }
        defer { state.withLock { $0.machine.endWrite() } }
        return try await write()
    }

    /// Reads `request`, pausing by cancelling the attempt in flight and resuming by the machine's rule: when
    /// `continuable` and the transport is a ``ResumableTransport``, a 2xx body goes into `file` and a pause continues
    /// it; otherwise a pause sends the request again. Each attempt follows redirects through `redirects` (a ranged
    /// attempt keeps its `Range` and `If-Range` on the same origin, as ``RedirectPolicy`` keeps every header there).
    /// - Returns: The answer, and whether its body is the file's bytes (the response's own body is then empty).
    /// - Throws: ``CRUDError``; ``CRUDError/cancelled`` when cancelled.
    package func read(
        _ request: HTTPRequest, continuable: Bool, transport: any Transport, file: URL, observer: TransferObserver,
        redirects: RedirectFollower
    ) async throws -> (response: HTTPResponse, fromFile: Bool) {
        let resumable = continuable ? transport as? any ResumableTransport : nil
        var request = request
        if resumable != nil { request.headers["Accept-Encoding"] = "identity" }
        state.withLock { $0.machine.beginRead(request, resumable: resumable != nil) }
        while true {
            try await waitUntilRunning()
            let kept = resumable == nil ? 0 : Self.size(of: file)
            let next = state.withLock { state -> (id: Int, task: Task<HTTPResponse, any Error>)? in
                guard case .send(let attempt) = state.machine.nextAttempt(kept: kept) else { return nil }
                var sent = request
                if let range = attempt.range {
                    sent.headers["Range"] = range
                    sent.headers["If-Range"] = attempt.ifRange
                }
                let task = Task { [sent] in
                    try await redirects.follow(sent) { hop in
                        guard let resumable else { return try await transport.send(hop, observer: observer) }
                        return try await resumable.receive(
                            hop, into: file, continuingAt: attempt.offset, observer: observer
                        ) { [weak self] head in
                            self?.judge(head, attempt: attempt.id)
                        }
                    }
                }
                state.attempt = (attempt.id, task)
                return (attempt.id, task)
            }
            guard let next else { continue }
            let result = await withTaskCancellationHandler {
                await next.task.result
            } onCancel: {
                next.task.cancel()
            }
            let outcome: ResumeStateMachine.Outcome
            switch result {
            case .success(let response): outcome = .response(response)
            case .failure(let error as CRUDError): outcome = .failure(error)
            case .failure(is CancellationError): outcome = .failure(.cancelled)
            case .failure(let error): outcome = .failure(.transport(underlying: error))
            }
            let size = resumable == nil ? 0 : Self.size(of: file)
            let callerCancelled = Task.isCancelled
            let ending = state.withLock { state -> ResumeStateMachine.Ending in
                if state.attempt?.id == next.id { state.attempt = nil }
                return state.machine.attemptEnded(next.id, outcome, fileSize: size, callerCancelled: callerCancelled)
            }
            switch ending {
            case .again: continue
            case .finish(let response, let fromFile): return (response, fromFile)
            case .fail(let error): throw error
            }
        }
    }

    /// Judges a 2xx head of attempt `id`; a head that does not continue the kept bytes cancels its attempt.
    private func judge(_ head: HTTPResponse, attempt id: Int) {
        let task = state.withLock { state -> Task<HTTPResponse, any Error>? in
            guard state.machine.receivedHead(head, attempt: id) == .reject, state.attempt?.id == id else { return nil }
            return state.attempt?.task
        }
        task?.cancel()
    }

    /// The bytes in `file` (0 when it does not exist).
    package static func size(of file: URL) -> Int64 {
        PrivateFiles.size(of: file)
    }
}
