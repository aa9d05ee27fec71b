import CRUDKitCore
import Foundation

/// The pause/resume state of a `RequestHandle` and of a ``DownloadTask``, as a value: the one mechanism both drive
/// (through ``ResumeDriver``).
///
/// Each event (pause, resume, cancel, a write going on the wire, an attempt starting, its 2xx head, its end) is a
/// `mutating` method that answers what the glue does next; the machine does no I/O (the glue tells it the bytes in
/// the file), so every event order is checked without a network.
///
/// **The resume rule.** The first 2xx answer of a read is its *origin*. A `200` with a declared `Content-Length`,
/// no content coding and a strong validator, or a `206` with a valid `Content-Range` and a strong validator, can be
/// continued: paused after `kept` bytes of its range `first-last`, the read asks for
/// `Range: bytes=(first+kept)-last` (`bytes=(first+kept)-` when `last` is the representation's last byte) with
/// `If-Range: <validator>`, so a caller's own `Range` stays the frame.
/// The answer is appended only when it is a `206` with the same strong validator and exactly
/// `Content-Range: bytes (first+kept)-last/<the origin's total>` (and a `Content-Length`, if any, that matches).
/// Another validator (or a weak or missing one), or any status but `206`, starts over with the caller's request
/// unchanged (a `200` to a read the caller sent without `Range` is itself the new start); a `206` with the same
/// validator but other bytes fails with ``CRUDError/transport(_:)`` (a ``TransportFailure/Reason/protocolViolation``)
/// saying what was asked and answered. A reassembled body keeps the origin's status and `Content-Range`: a `206`
/// stays a `206`, a `200` a `200`; an answer that was never continued reaches the caller as the server sent it.
package struct ResumeStateMachine: Sendable {
    /// Where the handle or download is.
    package enum Phase: Sendable, Hashable {
        /// Sending or receiving, or about to.
        case running
        /// Stopped by a pause; nothing goes on the wire until resumed.
        case paused
        /// Over (answered or failed).
        case ended
        /// Stopped for good by a cancel.
        case cancelled
    }

    /// What a pause did.
    package enum PauseOutcome: Sendable, Hashable {
        /// Paused; `cancel` is the attempt in flight to cancel (the bytes received stay in the file).
        case paused(cancel: Int?)
        /// Not paused, for this reason.
        case refused(String)
    }

    /// One attempt of a read: how the caller's request is sent, and where a `206`'s bytes go in the file.
    package struct Attempt: Sendable, Hashable {
        /// The attempt's number; heads and ends of other attempts are ignored.
        package var id: Int
        /// The `Range` to send instead of the caller's, with the `If-Range` that goes with it; `nil` sends the
        /// caller's request unchanged.
        package var range: String?
        /// The `If-Range` value sent with ``range``.
        package var ifRange: String?
        /// The bytes kept in the file that a `206` continues (0 when the request is sent unchanged).
        package var offset: Int64
    }

    /// What the read does next.
    package enum Next: Sendable, Hashable {
        /// Send this attempt.
        case send(Attempt)
        /// Wait until resumed.
        case wait
        /// Stop: the handle was cancelled or has ended.
        case stop
    }

    /// What becomes of a 2xx head.
    package enum Verdict: Sendable, Hashable {
        /// Its body is the one wanted (appended after the kept bytes for a continuation).
        case accept
        /// It does not continue the kept bytes: cancel the attempt; the read starts over, or fails when the machine
        /// says so at the attempt's end.
        case reject
        /// It belongs to an attempt that no longer counts.
        case ignore
    }

    /// How an attempt ended.
    package enum Outcome: Sendable {
        /// With a response (its body empty when a 2xx went to the file).
        case response(HTTPResponse)
        /// With an error.
        case failure(CRUDError)
    }

    /// What the read does after an attempt ended.
    package enum Ending: Sendable {
        /// Try again (the next ``nextAttempt(kept:)`` waits while paused).
        case again
        /// Answer `response`; when `fromFile`, its body is the file's bytes (its `Content-Length`, if any, already
        /// says how many).
        case finish(HTTPResponse, fromFile: Bool)
        /// Fail with this error.
        case fail(CRUDError)
    }

    /// The first 2xx answer of a read, which later answers may continue.
    struct Origin: Sendable, Hashable {
        var status: Int
        /// Its `Content-Range`, for a `206`.
        var contentRange: String?
        /// The bytes it covers and its validator, when it can be continued.
        var frame: ContentRange?
        var validator: RangeValidator?
    }

    /// A continuation asked for: the range and validator its `206` must carry.
    struct Continuation: Sendable, Hashable {
        var range: ContentRange
        var validator: RangeValidator
    }

    private(set) var phase: Phase
    /// The method of a write on the wire, which cannot be paused.
    private(set) var writing: String?
    /// The attempt in flight (its number), if any.
    private(set) var inFlight: Int?
    private var attempts = 0
    /// Whether a pause cancelled the attempt in flight.
    private var interrupted = false
    /// Whether the head of the attempt in flight was judged, and whether it was rejected.
    private var judged = false
    private var rejected = false
    /// A failure that ends the attempt in flight whatever it answers (a size limit).
    private var abort: CRUDError?

    /// Whether the read writes 2xx bodies to a file that later attempts may continue.
    private(set) var resumable = false
    /// Whether the caller's request carries its own `Range`.
    private var callerRange = false
    private(set) var origin: Origin?
    /// Whether the bytes in the file come from more than one answer.
    private(set) var continued = false
    /// What the attempt in flight asked to continue, if it did.
    private var asked: Continuation?

    /// A machine that starts running, or paused.
    package init(paused: Bool = false) {
        phase = paused ? .paused : .running
    }

    /// Where the handle or download is.
    package var currentPhase: Phase { phase }

    // MARK: - Steering

    /// Pauses: the attempt in flight is to be cancelled (keeping its bytes); a write on the wire or an ended
    /// request refuses.
    package mutating func pause() -> PauseOutcome {
        switch phase {
        case .ended, .cancelled:
            return .refused("the request has already ended")
        case .paused:
            return .paused(cancel: nil)
        case .running:
            if let method = writing {
                return .refused(
                    "a \(method) already on the wire cannot be paused: the server may already be acting on it")
            }
            phase = .paused
            interrupted = inFlight != nil
            return .paused(cancel: inFlight)
        }
    }

    /// Resumes; `true` when the handle was paused (waiters are to be woken).
    package mutating func resume() -> Bool {
        guard phase == .paused else { return false }
        phase = .running
        return true
    }

    /// Cancels for good: whether it was still running or paused, and the attempt in flight to cancel.
    package mutating func cancel() -> (cancelled: Bool, attempt: Int?) {
        guard phase == .running || phase == .paused else { return (false, nil) }
        phase = .cancelled
        return (true, inFlight)
    }

    /// The request has completed, whichever way.
    package mutating func end() {
        if phase != .cancelled { phase = .ended }
        writing = nil
    }

    /// Ends the attempt in flight with `error` whatever it answers (a body over the size limit); the attempt to
    /// cancel.
    package mutating func abortAttempt(_ error: CRUDError) -> Int? {
        guard inFlight != nil else { return nil }
        if abort == nil { abort = error }
        return inFlight
    }

    // MARK: - Writes

    /// A write is about to go on the wire: `true` when running (it then cannot be paused until ``endWrite()``).
    package mutating func beginWrite(method: String) -> Bool {
        guard phase == .running else { return false }
        writing = method
        return true
    }

    /// The write is no longer on the wire.
    package mutating func endWrite() {
        writing = nil
    }

    // MARK: - Reads

    /// A read of `request` begins: it is continued across pauses when `resumable` (a `GET` over a transport that
    /// writes into a file); otherwise a pause sends it again from the start.
    package mutating func beginRead(_ request: HTTPRequest, resumable: Bool) {
        self.resumable = resumable
        callerRange = request.headers["Range"] != nil
        origin = nil
        continued = false
        asked = nil
    }

    /// The next attempt, given the bytes now in the file (`kept`): the caller's request, or a continuation of the
    /// origin's bytes; wait while paused; stop when cancelled or ended.
    package mutating func nextAttempt(kept: Int64) -> Next {
        switch phase {
        case .paused: return .wait
        case .ended, .cancelled: return .stop
        case .running: break
        }
        attempts += 1
        inFlight = attempts
        interrupted = false
        judged = false
        rejected = false
        abort = nil
        asked = nil
        if resumable, let origin, let frame = origin.frame, let validator = origin.validator,
            let length = frame.count, kept > 0, kept < length,
            case (let start, let overflow) = frame.first.addingReportingOverflow(kept), !overflow
        {
            let range = ContentRange(first: start, last: frame.last, total: frame.total)
            asked = Continuation(range: range, validator: validator)
            // A frame that runs to the representation's end is asked for open-ended, as a caller's own would be.
            let last = frame.total.map { $0 - 1 } == frame.last ? "" : String(frame.last)
            return .send(
                Attempt(id: attempts, range: "bytes=\(start)-\(last)", ifRange: validator.ifRange, offset: kept))
        }
        self.origin = nil
        continued = false
        return .send(Attempt(id: attempts, range: nil, ifRange: nil, offset: 0))
    }

    /// The 2xx head of attempt `id` arrived, before any byte of its body is written.
    package mutating func receivedHead(_ head: HTTPResponse, attempt id: Int) -> Verdict {
        guard id == inFlight, !judged, resumable else { return .ignore }
        return judge(head)
    }

    /// Judges the head of the attempt in flight (see ``receivedHead(_:attempt:)``).
    private mutating func judge(_ head: HTTPResponse) -> Verdict {
        judged = true
        guard let asked else {
            origin = Self.origin(of: head)
            return .accept
        }
        if head.status == 206, Self.carries(asked.validator, head) {
            guard let reason = Self.mismatch(head, asked) else {
                continued = true
                return .accept
            }
            // The same representation, but not the bytes asked for: a broken server, whose bytes are not appended.
            abort = .transport(TransportFailure(.protocolViolation, underlying: ResumeMismatch(reason)))
        } else if head.status == 200, !callerRange {
            // The whole body again (the resource changed, or the server ignored the range): it is the new origin,
            // written from byte 0.
            origin = Self.origin(of: head)
            continued = false
            self.asked = nil
            return .accept
        }
        // Another validator, a weak or missing one, or not a 206 to a range the caller did not send: start over.
        origin = nil
        continued = false
        rejected = true
        return .reject
    }

    /// Attempt `id` ended with `outcome`, leaving `fileSize` bytes in the file; `callerCancelled` when the task
    /// awaiting the read was cancelled.
    package mutating func attemptEnded(
        _ id: Int, _ outcome: Outcome, fileSize: Int64, callerCancelled: Bool = false
    ) -> Ending {
        guard id == inFlight else { return .again }
        inFlight = nil
        defer {
            interrupted = false
            asked = nil
        }
        if phase == .cancelled || callerCancelled { return .fail(.cancelled) }
        if let abort {
            self.abort = nil
            return .fail(abort)
        }
        if rejected { return .again }
        switch outcome {
        case .failure(let error):
            return interrupted ? .again : .fail(error)
        case .response(var response):
            if asked != nil, response.status == 416 {
                // Nothing left to continue from: start over.
                origin = nil
                continued = false
                return .again
            }
            guard resumable, response.isSuccess else { return .finish(response, fromFile: false) }
            if !judged, judge(response) == .reject {
                // A 2xx whose head was never announced is judged now, the same way.
                if let abort {
                    self.abort = nil
                    return .fail(abort)
                }
                return .again
            }
            guard continued, let origin else { return .finish(response, fromFile: true) }
            if let expected = origin.frame?.count, expected != fileSize {
                let mismatch = ResumeMismatch(
                    "the reassembled body has \(fileSize) bytes where the server declared \(expected)")
                return .fail(.transport(TransportFailure(.protocolViolation, underlying: mismatch)))
            }
            response.status = origin.status
            response.headers["Content-Range"] = origin.contentRange
            if response.headers["Content-Length"] != nil { response.headers["Content-Length"] = String(fileSize) }
            return .finish(response, fromFile: true)
        }
    }

    // MARK: - Rules

    /// The origin a 2xx head makes: continuable when it declares its bytes, carries a strong validator and no
    /// content coding.
    static func origin(of head: HTTPResponse) -> Origin {
        var origin = Origin(status: head.status, contentRange: head.headers["Content-Range"])
        guard let validator = head.rangeValidator, !isEncoded(head) else { return origin }
        let length = head.headers["Content-Length"].map { ContentRange.digits($0) }
        switch head.status {
        case 200:
            guard let total = length ?? nil, total > 0 else { return origin }
            origin.frame = ContentRange(first: 0, last: total - 1, total: total)
        case 206:
            guard let range = head.headers["Content-Range"].flatMap(ContentRange.init),
                length == nil || length == range.count
            else { return origin }
            origin.frame = range
        default:
            return origin
        }
        origin.validator = validator
        return origin
    }

    /// Why `head`, a `206` with the validator asked for, is not exactly the continuation asked for (the range's
    /// first and last byte and total, a matching `Content-Length`, no content coding); `nil` when it is.
    static func mismatch(_ head: HTTPResponse, _ asked: Continuation) -> String? {
        let sent = head.headers["Content-Range"] ?? "no Content-Range"
        guard let range = head.headers["Content-Range"].flatMap(ContentRange.init) else {
            return "asked for \(asked.range.headerValue), the server answered \(sent)"
        }
        guard range == asked.range else {
            return "asked for \(asked.range.headerValue), the server answered \(range.headerValue)"
        }
        if let declared = head.headers["Content-Length"], ContentRange.digits(declared) != range.count {
            return "\(range.headerValue) came with Content-Length \(declared)"
        }
        if isEncoded(head) { return "\(range.headerValue) came with a content coding" }
        return nil
    }

    /// Whether `head` carries `validator` again: the same strong `ETag` byte for byte, or (for a date) no `ETag`
    /// and the same `Last-Modified`.
    static func carries(_ validator: RangeValidator, _ head: HTTPResponse) -> Bool {
        switch validator {
        case .entityTag(let tag):
            return head.headers["ETag"] == tag
        case .lastModified(let date):
            return head.headers["ETag"] == nil && head.headers["Last-Modified"] == date
        }
    }

    /// Whether `head` declares a content coding other than `identity` (ranges then count encoded bytes).
    private static func isEncoded(_ head: HTTPResponse) -> Bool {
        guard let coding = head.headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces) else { return false }
        return !coding.isEmpty && coding.lowercased() != "identity"
    }
}

/// Why a continued body was refused: the underlying error of a ``CRUDError/transport(_:)`` protocol violation.
package struct ResumeMismatch: LocalizedError, Sendable, CustomStringConvertible {
    /// What did not match.
    package let reason: String

    init(_ reason: String) { self.reason = reason }

    /// The reason.
    package var description: String { "a resumed body was refused: \(reason)" }

    /// The reason, as Foundation's descriptions read it.
    package var errorDescription: String? { description }
}
