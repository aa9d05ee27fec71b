import Foundation

/// What a ``RequestHandle`` steers: whether its request may go on the wire, the read attempt it cancels to pause,
/// and the bytes a paused `GET` keeps (in a temporary file) with the validator that lets it continue them.
///
/// The end of the API's middleware chain hands every exchange of the handle's request here
/// (``exchange(_:observer:transport:)``); the cache and coalescing stages leave its reads alone.
package final class HandleControl: Sendable {
    private enum Phase {
        case running, paused, ended, cancelled
    }

    private struct State {
        var phase: Phase
        /// The method of a write on the wire, which cannot be paused.
        var writing: HTTPMethod?
        /// The read attempt in flight, cancelled by a pause.
        var attempt: Task<HTTPResponse, any Error>?
        /// Whether a pause cancelled the attempt in flight (it may be resumed before the attempt has unwound).
        var interrupted = false
        /// Whether the body passed the transport's maximum response size.
        var exceeded = false
        /// Which attempt's response head counts (a cancelled attempt's late head does not).
        var generation = 0
        /// The strong `ETag` or `Last-Modified` of the answer whose bytes the file holds.
        var validator: String?
        var waiters: [UUID: CheckedContinuation<Void, any Error>] = [:]
    }

    private let state: Locked<State>
    /// Where a `GET`'s body goes as it arrives, so a pause keeps it: a name in CRUDKit's private directory, which
    /// the transport creates owner-only (see ``PrivateFiles``); why not when the directory cannot be made.
    private let file: Result<URL, CRUDError>

    init(paused: Bool) {
        state = Locked(State(phase: paused ? .paused : .running))
        file = Result { try PrivateFiles.newName("handle") }.mapError { $0 as? CRUDError ?? .transport(underlying: $0) }
    }

    /// The file a `GET`'s body goes to (for tests: it is owner-only while the body arrives and gone at the end).
    package var keptFile: URL? { try? file.get() }

    // MARK: - Steering

    /// Pauses, or answers why not (`nil` when paused).
    func pause() -> String? {
        let (reason, attempt) = state.withLock { state -> (String?, Task<HTTPResponse, any Error>?) in
            switch state.phase {
            case .ended, .cancelled:
                return ("the request has already ended", nil)
            case .paused:
                return (nil, nil)
            case .running:
                if let method = state.writing {
                    let reason =
                        "a \(method.rawValue) already on the wire cannot be paused: the server may already be acting on it"
                    return (reason, nil)
                }
                state.phase = .paused
                state.interrupted = state.attempt != nil
                return (nil, state.attempt)
            }
        }
        attempt?.cancel()
        return reason
    }

    func resume() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard state.phase == .paused else { return [] }
            state.phase = .running
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func cancel() {
        let (waiters, attempt) = state.withLock {
            state -> ([CheckedContinuation<Void, any Error>], Task<HTTPResponse, any Error>?) in
            guard state.phase == .running || state.phase == .paused else { return ([], nil) }
            state.phase = .cancelled
            defer { state.waiters = [:] }
            return (Array(state.waiters.values), state.attempt)
        }
        attempt?.cancel()
        for waiter in waiters { waiter.resume(throwing: CRUDError.cancelled) }
    }

    /// Called once the request has completed, whichever way: removes the kept bytes.
    func end() {
        state.withLock { state in
            if state.phase != .cancelled { state.phase = .ended }
        }
        if case .success(let file) = file { try? FileManager.default.removeItem(at: file) }
    }

    /// Returns at once while running; waits while paused.
    /// - Throws: ``CRUDError/cancelled`` when the handle or the waiting task is cancelled.
    private func waitUntilRunning() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    switch state.phase {
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

    /// One exchange of the handle's request: a read through ``read(_:observer:transport:)``, a write through the
    /// transport once running, marked as on the wire.
    func exchange(
        _ request: HTTPRequest, observer: TransferObserver, transport: any Transport
    ) async throws
        -> HTTPResponse
    {
        switch request.method {
        case .get, .head, .options, "TRACE":
            return try await read(request, observer: observer, transport: transport)
        default:
            while true {
                try await waitUntilRunning()
                let started = state.withLock { state -> Bool in
                    guard state.phase == .running else { return false }
                    state.writing = request.method
                    return true
                }
                if started { break }
            }
            defer { state.withLock { $0.writing = nil } }
            return try await transport.send(request, observer: observer)
        }
    }

    /// Reads `request`, pausing by cancelling the attempt in flight and resuming by asking for the bytes not kept.
    private func read(
        _ request: HTTPRequest, observer: TransferObserver, transport: any Transport
    ) async throws
        -> HTTPResponse
    {
        let resumable = request.method == .get ? transport as? any ResumableTransport : nil
        var request = request
        if resumable != nil { request.headers["Accept-Encoding"] = "identity" }
        let file = resumable == nil ? nil : try self.file.get()
        let limit = resumable?.maximumResponseSize ?? Int.max
        let watched = TransferObserver(upload: observer.upload) { [weak self] progress in
            observer.download?(progress)
            if progress.completedBytes > limit { self?.exceed() }
        }
        while true {
            try await waitUntilRunning()
            let kept = keptBytes()
            var ranged = request
            if kept.offset > 0, let validator = kept.validator {
                ranged.headers["Range"] = "bytes=\(kept.offset)-"
                ranged.headers["If-Range"] = validator
            }
            let attempt = state.withLock { state -> Task<HTTPResponse, any Error>? in
                guard state.phase == .running else { return nil }
                state.generation += 1
                let generation = state.generation
                let task = Task { [ranged] in
                    guard let resumable, let file else { return try await transport.send(ranged, observer: watched) }
                    return try await resumable.receive(
                        ranged, into: file, continuingAt: kept.offset, observer: watched
                    ) { [weak self] head in
                        self?.learn(from: head, generation: generation)
                    }
                }
                state.attempt = task
                return task
            }
            guard let attempt else { continue }
            let outcome = await withTaskCancellationHandler {
                await attempt.result
            } onCancel: {
                attempt.cancel()
            }
            let interrupted = state.withLock { state -> Bool in
                defer { state.interrupted = false }
                state.attempt = nil
                return state.interrupted && state.phase != .cancelled
            }
            if state.withLock({ $0.exceeded }) { throw CRUDError.responseTooLarge(limit: limit) }
            switch outcome {
            case .success(var response):
                if kept.offset > 0, response.status == 416 {
                    state.withLock { $0.validator = nil }  // nothing left to continue from: start over
                    continue
                }
                guard let file, response.isSuccess else { return response }
                if keptBytes().size > limit { throw CRUDError.responseTooLarge(limit: limit) }
                do {
                    response.body = try Data(contentsOf: file)
                } catch {
                    throw CRUDError.transport(underlying: error)
                }
                if response.status == 206 {
                    response.status = 200
                    response.headers["Content-Range"] = nil
                }
                if response.headers["Content-Length"] != nil {
                    response.headers["Content-Length"] = String(response.body.count)
                }
                return response
            case .failure(let error):
                if interrupted && !Task.isCancelled { continue }
                throw error
            }
        }
    }

    /// The bytes in the file and the validator that lets a ranged request continue them.
    private func keptBytes() -> (offset: Int64, validator: String?, size: Int64) {
        let attributes = (try? file.get()).flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path) }
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let validator = state.withLock { $0.validator }
        return (validator == nil ? 0 : size, validator, size)
    }

    /// Stops a body that passed the transport's maximum response size.
    private func exceed() {
        let attempt = state.withLock { state -> Task<HTTPResponse, any Error>? in
            state.exceeded = true
            return state.attempt
        }
        attempt?.cancel()
    }

    private func learn(from head: HTTPResponse, generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.validator = head.rangeValidator
        }
    }
}
