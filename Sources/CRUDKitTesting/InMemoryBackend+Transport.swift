import CRUDKit
@_spi(TransportKit) import CRUDKitCore
import Foundation

extension InMemoryBackend {
    /// Handles `request` as the server would, in process.
    ///
    /// The request is recorded, the latency hook (if any) is awaited, then an injected failure applies or the
    /// request is answered by a custom route or by the collection rules.
    /// - Parameter request: The request.
    /// - Returns: The answer, with `url` set to the request's URL.
    /// - Throws: ``CRUDError/cancelled`` when the task is cancelled, `CRUDError/transport(underlying:)` for an
    ///   injected dropped connection or lost answer, or what the latency hook or a custom route throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let recorded = recorder.record(request)
        if let latency = state.withLock({ $0.latency }) {
            do {
                try await latency(request)
            } catch let error as CRUDError {
                throw error
            } catch is CancellationError {
                throw CRUDError.cancelled
            } catch {
                throw CRUDError.transport(underlying: error)
            }
        }
        if Task.isCancelled { throw CRUDError.cancelled }
        let time = now()
        let (outcome, fault) = state.withLock { state -> (Outcome, Fault?) in
            let fault = Self.nextFault(&state)
            switch fault {
            case .status(let status, let retryAfter):
                state.injected["status", default: 0] += 1
                let headers: HTTPHeaders = retryAfter.map { ["Retry-After": String($0)] } ?? [:]
                return (.answer(Self.detailResponse(status, "Injected failure.", headers: headers)), fault)
            case .dropConnection:
                state.injected["drop", default: 0] += 1
                return (.dropped, fault)
            case .loseAnswer:
                state.injected["lost", default: 0] += 1
            case nil:
                break
            }
            for route in state.routes.reversed() {
                if let method = route.method, method != request.method { continue }
                if let captures = route.pattern.match(recorded.target.segments) {
                    return (.action(route.action, captures), fault)
                }
            }
            return (.answer(Self.answerRemembering(recorded, style: style, time: time, state: &state)), fault)
        }
        var response: HTTPResponse
        switch outcome {
        case .dropped:
            throw Self.connectionLost()
        case .answer(let answer):
            response = answer
        case .action(let action, let captures):
            let stub: StubResponse
            do {
                stub = try await action(StubRequest(recorded: recorded, parameters: captures), self)
            } catch let error as CRUDError {
                throw error
            } catch {
                throw CRUDError.transport(underlying: error)
            }
            switch stub.outcome {
            case .response(let answer): response = answer
            case .failure(let error): throw error
            }
        }
        if fault == .loseAnswer { throw Self.connectionLost() }
        response.url = request.url
        return response
    }

    /// What the lock-held part of ``send(_:)`` decided.
    enum Outcome {
        case answer(HTTPResponse)
        case dropped
        case action(Action, [String: String])
    }

    /// Answers `recorded`, replaying the first answer for a repeated `Idempotency-Key` on POST and PATCH.
    static func answerRemembering(
        _ recorded: RecordedRequest, style: Style, time: Date, state: inout State
    )
        -> HTTPResponse
    {
        let request = recorded.request
        guard request.method == .post || request.method == .patch,
            let key = request.headers["Idempotency-Key"], !key.isEmpty
        else { return answer(recorded, style: style, time: time, state: &state) }
        let fingerprint = "\(request.method) \(recorded.path)"
        if let replay = state.replays[key] {
            guard replay.fingerprint == fingerprint, replay.body == recorded.body else {
                return detailResponse(422, "Idempotency-Key was already used for a different request.")
            }
            var response = replay.response
            response.headers["Idempotent-Replayed"] = "true"
            return response
        }
        let response = answer(recorded, style: style, time: time, state: &state)
        state.replays[key] = Replay(fingerprint: fingerprint, body: recorded.body, response: response)
        return response
    }
}
