import AsyncHTTPClient
import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// The state of one response of an ``AsyncHTTPClientTransport`` exchange, as a value.
///
/// AsyncHTTPClient hands the transport a response head and then the body's pieces as an `AsyncSequence`; each of
/// those events, and the end, a failure or a cancellation, is a `mutating` method returning the ``Action`` the
/// transport then performs (keep the piece in memory, write it to the file, report progress, fail). The machine
/// does no I/O and reads no clock (the time comes with the event, in uptime nanoseconds), so every event order can be checked without a
/// network. Its one terminal action, ``Action/finish(final:)``, ``Action/fail(_:)`` or ``Action/stop`` (a followed
/// redirect's body no longer read), is returned once: every later event returns ``Action/none``.
struct ResponseStateMachine {
    /// Where a 2xx body goes.
    enum Target: Equatable {
        /// Into `HTTPResponse.body`.
        case memory
        /// Into a new file that replaces the destination once complete.
        case file
        /// Into an existing file, after its first `offset` bytes for a `206` that continues there: one whose
        /// `Content-Range` starts at `rangeStart` (the `Range` asked for), or at `offset` when that is `nil`.
        case append(offset: Int64, rangeStart: Int64? = nil)
    }

    /// What the transport does after an event.
    enum Action {
        /// Nothing (the response already ended).
        case none
        /// Keep the body in memory; ``receivedPiece(count:now:)`` checks each piece against the size limit.
        case collect
        /// Write the body to the file, from byte `offset` (the file is truncated there), reporting `progress`
        /// first when the kept bytes count (a `206` that continues a download).
        case openFile(offset: Int64, progress: TransferProgress?)
        /// Keep the piece in memory, then report `progress` when the throttle lets it through.
        case keep(progress: TransferProgress?)
        /// Write the piece to the file, then report `progress` when the throttle lets it through.
        case write(progress: TransferProgress?)
        /// The body is complete: finish (move the file into place), then report `final` when given.
        case finish(final: TransferProgress?)
        /// Stop reading and throw `error`.
        case fail(CRUDError)
        /// Drop the piece: it belongs to the body of a redirect the follower follows.
        case drop
        /// Stop reading the body of a redirect the follower follows (its declared length or the bytes received
        /// passed the drain): answer with the head and no body, and let the connection close.
        case stop
    }

    /// Where the response is.
    enum Phase: Equatable {
        /// Waiting for the head.
        case head
        /// Reading the body into memory.
        case memory
        /// Reading the body into the file.
        case file
        /// Reading and dropping the body of a redirect the follower follows.
        case draining
        /// Ended (finished or failed).
        case ended
    }

    /// The largest body kept in memory, in bytes.
    let maximumBodySize: Int
    /// Where a 2xx body goes.
    let target: Target
    /// When the exchange must be over, in uptime nanoseconds (`NIODeadline.uptimeNanoseconds`); the body's pieces
    /// are checked against it (AsyncHTTPClient's own deadline covers the request and the head only).
    let deadline: UInt64
    /// The deadline in seconds, for its error; `nil` when there is none.
    let limit: TimeInterval?
    /// Whether progress is reported at all (an observer is set).
    let reportsProgress: Bool
    /// Whether the head says there is no body (a HEAD answer, a 1xx, a 204, a 304, a declared length of 0), so a
    /// decoder's complaint that the empty body is cut short is no failure (see
    /// `AsyncHTTPClientTransport.endsBodiless(_:bodiless:received:)`).
    let bodiless: Bool
    /// For a redirect the follower follows, the most bytes of its body read and dropped (see
    /// `HTTPRequest.followedRedirectDrain(status:headers:)`); `nil` when the body is the response's.
    let drain: Int?

    private(set) var phase = Phase.head
    /// The bytes counted so far (the kept bytes of a continued download included).
    private(set) var completed: Int64 = 0
    /// The bytes expected in all, when declared.
    private(set) var expected: Int64?
    private var throttle = ProgressThrottle()

    init(
        maximumBodySize: Int, target: Target, deadline: UInt64 = .max, limit: TimeInterval? = nil,
        reportsProgress: Bool, bodiless: Bool = false, drain: Int? = nil
    ) {
        self.drain = drain
        self.maximumBodySize = maximumBodySize
        self.bodiless = bodiless
        self.target = target
        self.deadline = deadline
        self.limit = limit
        self.reportsProgress = reportsProgress
    }

    /// The head arrived with `status`, its declared `Content-Length` and its `Content-Range`.
    mutating func receivedHead(status: Int, contentLength: Int64?, contentRange: String?, now: UInt64) -> Action {
        guard phase == .head else { return .none }
        if let drain {
            // A redirect that is followed: its body is dropped, whatever its size, not held within the size limit. A
            // short one is read to its end, so the connection carries the next hop; a longer one is not read.
            // (`0`: a coded body, counted only once decoded, is not read at all.)
            if (drain == 0 && !bodiless) || (contentLength ?? 0) > drain {
                phase = .ended
                return .stop
            }
            phase = .draining
            return .collect
        }
        let success = (200..<300).contains(status)
        switch target {
        case .append(let offset, let rangeStart) where success:
            var base: Int64 = 0
            if status == 206, offset > 0 {
                let range = contentRange ?? ""
                guard Self.firstByte(of: range) == rangeStart ?? offset else {
                    return fail(
                        .transport(
                            TransportFailure(
                                .protocolViolation, underlying: HTTPClientError.invalidHeaderFieldValues([range]))))
                }
                base = offset
            }
            phase = .file
            // A server's declared length plus the kept bytes may not fit (`Content-Length: 9223372036854775800`).
            expected = contentLength.flatMap { length in
                let (sum, overflow) = length.addingReportingOverflow(base)
                return overflow ? nil : sum
            }
            let progress = base > 0 ? count(Int(base), now: now) : nil
            return .openFile(offset: base, progress: progress)
        case .file where success:
            phase = .file
            expected = contentLength
            return .openFile(offset: 0, progress: nil)
        default:
            if let contentLength, contentLength > maximumBodySize {
                return fail(.responseTooLarge(limit: maximumBodySize))
            }
            phase = .memory
            expected = contentLength
            return .collect
        }
    }

    /// A piece of `count` bytes arrived at `now`: past the deadline or the size limit it fails; otherwise keep or
    /// write it.
    mutating func receivedPiece(count: Int, now: UInt64) -> Action {
        switch phase {
        case .head, .ended:
            return .none
        case .memory:
            if let limit, now > deadline { return fail(.timedOut(.deadline(limit))) }
            if completed + Int64(count) > Int64(maximumBodySize) {
                return fail(.responseTooLarge(limit: maximumBodySize))
            }
            return .keep(progress: self.count(count, now: now))
        case .file:
            if let limit, now > deadline { return fail(.timedOut(.deadline(limit))) }
            return .write(progress: self.count(count, now: now))
        case .draining:
            if let limit, now > deadline { return fail(.timedOut(.deadline(limit))) }
            completed += Int64(count)
            guard completed > Int64(drain ?? 0) else { return .drop }
            phase = .ended
            return .stop
        }
    }

    /// The body ended: the final report (unless it was the last one reported).
    mutating func bodyEnded(now: UInt64) -> Action {
        if phase == .draining {
            phase = .ended
            return .finish(final: nil)
        }
        guard phase == .memory || phase == .file else { return .none }
        phase = .ended
        guard reportsProgress else { return .finish(final: nil) }
        let progress = TransferProgress(completedBytes: completed, expectedBytes: expected ?? completed)
        let admitted = throttle.admit(progress, final: true, now: now)
        return .finish(final: admitted ? progress : nil)
    }

    /// Reading or writing failed with `error` (already mapped to a ``CRUDKit/CRUDError``), or the calling task was
    /// cancelled: the failure, once.
    mutating func failed(_ error: CRUDError) -> Action { fail(error) }

    private mutating func fail(_ error: CRUDError) -> Action {
        guard phase != .ended else { return .none }
        phase = .ended
        return .fail(error)
    }

    /// The first byte position of a valid `Content-Range: bytes <first>-<last>/<total or *>` value (digits only,
    /// `first ≤ last < total`), or `nil`.
    static func firstByte(of contentRange: String) -> Int64? {
        guard contentRange.hasPrefix("bytes ") else { return nil }
        let halves = contentRange.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = digits(bounds[0]), let last = digits(bounds[1]), first <= last else {
            return nil
        }
        if halves[1] != "*" {
            guard let total = digits(halves[1]), last < total else { return nil }
        }
        return first
    }

    /// The value of a non-empty run of ASCII digits that fits in `Int64`.
    static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// Counts `bytes` more; the progress when the throttle lets it through.
    private mutating func count(_ bytes: Int, now: UInt64) -> TransferProgress? {
        completed += Int64(bytes)
        guard reportsProgress else { return nil }
        let progress = TransferProgress(completedBytes: completed, expectedBytes: expected)
        return throttle.admit(progress, now: now) ? progress : nil
    }
}
