@_spi(TransportKit) import CRUDKitCore
import Foundation

/// A request in flight that can be paused, resumed and cancelled: ``pause()``, ``resume()`` and ``cancel()``.
///
/// The request goes through the whole pipeline (interceptors, retries, validation, decoding) and starts at once.
///
/// - A `GET` paused in the middle of its body stops the transfer and keeps the bytes received; resumed, it asks
///   for the rest of the range its first answer covered (`Range: bytes=<first+kept>-<last>`, so a `Range` of your
///   own stays the frame) with `If-Range` carrying that answer's strong `ETag` (or strong `Last-Modified`). The
///   answer is appended only when it is a `206` with the same validator and exactly the range and total asked for;
///   another validator (or a weak or missing one), or any status but `206`, starts over from byte 0, and a `206`
///   with the same validator but other bytes fails with `CRUDError/transport(underlying:)` saying why. The body
///   you get is exactly the server's, with its status and `Content-Range` (a `206` stays a `206`). Keeping the
///   bytes needs a ``ResumableTransport`` (``URLSessionTransport`` and `AsyncHTTPClientTransport` are); over any
///   other transport the `GET` starts over. Such a `GET` is sent with `Accept-Encoding: identity` and skips the
///   response cache and read coalescing.
/// - A request paused before it is sent (or between two attempts) waits until resumed.
/// - A write (any method but `GET`, `HEAD`, `OPTIONS`, `TRACE`) already on the wire cannot be paused: the server
///   may already be acting on it. ``pause()`` answers ``PauseOutcome/notPausable(reason:)`` and the write goes on.
///
/// ```swift
/// let handle = api.handle(for: Request<Person>(.get, "people/1"))
/// handle.pause()
/// handle.resume()
/// let person = try await handle.value
/// ```
public final class RequestHandle<Value: Sendable>: Sendable {
    /// What ``RequestHandle/pause()`` did.
    public enum PauseOutcome: Sendable, Hashable {
        /// The request is paused (or already was); nothing more is transferred until ``RequestHandle/resume()``.
        case paused
        /// The request goes on, for the reason given: a write already on the wire, or a request that has ended.
        case notPausable(reason: String)
    }

    let control: HandleControl

    /// The file the request's `GET` body goes to, so a pause keeps it (see `PrivateFiles`).
    package var keptFile: URL? { control.keptFile }
    private let task: Task<Value, any Error>
    private let callbackQueue: DispatchQueue?

    init(control: HandleControl, callbackQueue: DispatchQueue?, work: @escaping @Sendable () async throws -> Value) {
        self.control = control
        self.callbackQueue = callbackQueue
        self.task = Task {
            defer { control.end() }
            return try await work()
        }
    }

    /// Stops the request where it is; see ``RequestHandle`` for what that means for each kind of request.
    /// - Returns: ``PauseOutcome/paused``, or why the request cannot be paused.
    @discardableResult
    public func pause() -> PauseOutcome {
        control.pause().map { .notPausable(reason: $0) } ?? .paused
    }

    /// Continues a paused request: a `GET` from the byte where it stopped, a request not yet sent by sending it.
    /// Does nothing unless the request is paused.
    public func resume() {
        control.resume()
    }

    /// Ends the request for good, paused or not, and releases its connection; ``value`` throws
    /// ``CRUDError/cancelled``.
    public func cancel() {
        control.cancel()
        task.cancel()
    }

    /// The answer, once the request has completed; cancelling the awaiting task cancels the request.
    /// - Throws: ``CRUDError``, ``CRUDError/cancelled`` after ``cancel()``.
    public var value: Value {
        get async throws {
            let task = self.task
            return try await withTaskCancellationHandler {
                do {
                    return try await task.value
                } catch let error as CRUDError {
                    throw error
                } catch is CancellationError {
                    throw CRUDError.cancelled
                } catch {
                    throw CRUDError.transport(underlying: error)
                }
            } onCancel: {
                self.cancel()
            }
        }
    }

    /// The answer as a ``Future``, calling back on the API's `callbackQueue`; cancelling it cancels the request.
    public var future: Future<Value> {
        Future(callbackQueue: callbackQueue) { try await self.value }
    }
}

extension API {
    /// Starts `request` and answers a handle that can pause, resume and cancel it (see ``RequestHandle``).
    ///
    /// ```swift
    /// let handle = api.handle(for: Request<Person>(.get, "people/1"))
    /// ```
    /// - Parameters:
    ///   - request: The request.
    ///   - paused: Whether the handle starts paused: nothing is sent until ``RequestHandle/resume()``.
    /// - Returns: The handle; its `value` is what `send(request)` answers.
    public func handle<Response: Sendable>(
        for request: Request<Response>, paused: Bool = false
    )
        -> RequestHandle<Response>
    {
        let control = HandleControl(paused: paused)
        return RequestHandle(control: control, callbackQueue: configuration.callbackQueue) {
            try await self.send(request, control: control)
        }
    }
}
