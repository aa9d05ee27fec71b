import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitHTTP

/// The pause/resume machine of `RequestHandle` and `DownloadTask`, driven without I/O: every event order, and every
/// answer a hostile server can give to a resumed request (issue 28).
@Suite struct ResumeStateMachineTests {
    typealias Machine = ResumeStateMachine

    static let url = URL(string: "http://127.0.0.1:1/file")!

    static func head(_ status: Int, _ fields: [String: String] = [:]) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { headers[name] = value }
        return HTTPResponse(status: status, headers: headers, url: url)
    }

    /// A `200` of `length` bytes with a strong `ETag`.
    static func whole(_ length: Int64 = 100, etag: String = "\"v1\"") -> HTTPResponse {
        head(200, ["ETag": etag, "Content-Length": "\(length)"])
    }

    /// A `206` with `range` as its `Content-Range` and a matching `Content-Length`.
    static func partial(_ range: String, etag: String = "\"v1\"", length: String? = nil) -> HTTPResponse {
        var fields = ["ETag": etag, "Content-Range": range]
        fields["Content-Length"] = length ?? ContentRange(range)?.count.map(String.init)
        return head(206, fields)
    }

    static func request(range: String? = nil) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        if let range { request.headers["Range"] = range }
        return request
    }

    /// A machine whose read got `origin` as its first head and was paused after `kept` bytes: the attempt number
    /// of the next send, and the machine.
    static func paused(
        origin: HTTPResponse = whole(), request: HTTPRequest = request(), kept: Int64 = 50
    ) -> Machine {
        var machine = Machine()
        machine.beginRead(request, resumable: true)
        #expect(machine.nextAttempt(kept: 0) == .send(.init(id: 1, range: nil, ifRange: nil, offset: 0)))
        #expect(machine.receivedHead(origin, attempt: 1) == .accept)
        #expect(machine.pause() == .paused(cancel: 1))
        guard case .again = machine.attemptEnded(1, .failure(.cancelled), fileSize: kept) else {
            Issue.record("a paused attempt did not end with .again")
            return machine
        }
        #expect(machine.nextAttempt(kept: kept) == .wait)
        #expect(machine.resume() == true)
        return machine
    }

    /// The response and whether it comes from the file, or the failure's description.
    static func describe(_ ending: Machine.Ending) -> String {
        switch ending {
        case .again: return "again"
        case .finish(let response, let fromFile):
            let range = response.headers["Content-Range"].map { " \($0)" } ?? ""
            let length = response.headers["Content-Length"].map { " length \($0)" } ?? ""
            return "finish(\(response.status)\(range)\(length)\(fromFile ? " file" : ""))"
        case .fail(let error):
            if case .transport(let failure) = error, let mismatch = failure.underlying as? ResumeMismatch {
                return failure.reason == .protocolViolation ? "fail(\(mismatch.reason))" : "fail(\(failure.reason))"
            }
            if case .responseTooLarge(let limit) = error { return "fail(tooLarge \(limit))" }
            return error.isCancelled ? "fail(cancelled)" : "fail(\(error))"
        }
    }

    // MARK: - Continuing

    @Test func aContinuationUnderTheSameStrongETagIsAppendedAndStaysA200() {
        var machine = Self.paused()
        #expect(machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: "bytes=50-", ifRange: "\"v1\"", offset: 50)))
        let continuation = Self.partial("bytes 50-99/100")
        #expect(machine.receivedHead(continuation, attempt: 2) == .accept)
        let ending = machine.attemptEnded(2, .response(continuation), fileSize: 100)
        #expect(Self.describe(ending) == "finish(200 length 100 file)")
        if case .finish(let response, _) = ending { #expect(response.headers["ETag"] == "\"v1\"") }
    }

    @Test func aChangedETagStartsOverInsteadOfSplicing() {
        var machine = Self.paused()
        _ = machine.nextAttempt(kept: 50)
        #expect(machine.receivedHead(Self.partial("bytes 50-99/100", etag: "\"v2\""), attempt: 2) == .reject)
        // The rejected attempt may still complete before its cancellation lands: its answer is not used.
        #expect(
            Self.describe(machine.attemptEnded(2, .response(Self.partial("bytes 50-99/100")), fileSize: 100)) == "again"
        )
        #expect(machine.nextAttempt(kept: 100) == .send(.init(id: 3, range: nil, ifRange: nil, offset: 0)))
        #expect(machine.receivedHead(Self.whole(etag: "\"v2\""), attempt: 3) == .accept)
        #expect(
            Self.describe(machine.attemptEnded(3, .response(Self.whole(etag: "\"v2\"")), fileSize: 100))
                == "finish(200 length 100 file)")
    }

    @Test(arguments: ["W/\"v1\"", "\"v1", "\"v\"1\""])
    func aWeakOrMalformedETagIsNeverContinued(etag: String) {
        var machine = Self.paused(origin: Self.whole(etag: etag))
        #expect(machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))
    }

    @Test func aContinuationWithAWeakOrMissingETagStartsOver() {
        for answer in [
            Self.partial("bytes 50-99/100", etag: "W/\"v1\""), Self.head(206, ["Content-Range": "bytes 50-99/100"]),
        ] {
            var machine = Self.paused()
            _ = machine.nextAttempt(kept: 50)
            #expect(machine.receivedHead(answer, attempt: 2) == .reject)
            #expect(Self.describe(machine.attemptEnded(2, .failure(.cancelled), fileSize: 60)) == "again")
            #expect(machine.nextAttempt(kept: 60) == .send(.init(id: 3, range: nil, ifRange: nil, offset: 0)))
        }
    }

    @Test(
        arguments: [
            ("bytes 0-99/100", nil, "asked for bytes 50-99/100, the server answered bytes 0-99/100"),
            ("bytes 50-98/100", nil, "asked for bytes 50-99/100, the server answered bytes 50-98/100"),
            ("bytes 50-99/200", nil, "asked for bytes 50-99/100, the server answered bytes 50-99/200"),
            ("bytes 50-99/*", nil, "asked for bytes 50-99/100, the server answered bytes 50-99/*"),
            ("bytes 50-99/100", "9223372036854775800", "bytes 50-99/100 came with Content-Length 9223372036854775800"),
            (
                "bytes 50-99999999999999999999/100", "50",
                "asked for bytes 50-99/100, the server answered bytes 50-99999999999999999999/100"
            ),
            (
                "bytes 50-99/100, bytes 0-1/100", "50",
                "asked for bytes 50-99/100, the server answered bytes 50-99/100, bytes 0-1/100"
            ),
        ] as [(String, String?, String)])
    func aRangeNotAskedForUnderTheSameETagFailsSayingWhy(range: String, length: String?, reason: String) {
        var machine = Self.paused()
        _ = machine.nextAttempt(kept: 50)
        #expect(machine.receivedHead(Self.partial(range, length: length ?? "50"), attempt: 2) == .reject)
        #expect(Self.describe(machine.attemptEnded(2, .failure(.cancelled), fileSize: 50)) == "fail(\(reason))")
    }

    @Test func a200ToAContinuationIsTheNewWholeBody() {
        var machine = Self.paused()
        _ = machine.nextAttempt(kept: 50)
        let fresh = Self.whole(120, etag: "\"v2\"")
        #expect(machine.receivedHead(fresh, attempt: 2) == .accept)
        #expect(
            Self.describe(machine.attemptEnded(2, .response(fresh), fileSize: 120)) == "finish(200 length 120 file)")
    }

    @Test func a416ToAContinuationStartsOver() {
        var machine = Self.paused()
        _ = machine.nextAttempt(kept: 50)
        #expect(Self.describe(machine.attemptEnded(2, .response(Self.head(416)), fileSize: 50)) == "again")
        #expect(machine.nextAttempt(kept: 50) == .send(.init(id: 3, range: nil, ifRange: nil, offset: 0)))
    }

    @Test func anErrorStatusToAContinuationIsTheAnswer() {
        var machine = Self.paused()
        _ = machine.nextAttempt(kept: 50)
        #expect(Self.describe(machine.attemptEnded(2, .response(Self.head(404)), fileSize: 50)) == "finish(404)")
    }

    @Test func aContentCodedOriginIsNeverContinued() {
        var origin = Self.whole()
        origin.headers["Content-Encoding"] = "gzip"
        var machine = Self.paused(origin: origin)
        #expect(machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))
    }

    @Test func aWholeBodyWithoutADeclaredLengthIsNeverContinued() {
        var machine = Self.paused(origin: Self.head(200, ["ETag": "\"v1\""]))
        #expect(machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))
    }

    // MARK: - Last-Modified

    @Test func aStrongLastModifiedDateIsContinuedAndMustComeBackUnchanged() {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        let origin = Self.head(
            200, ["Last-Modified": modified, "Date": "Sun, 06 Nov 1994 08:49:38 GMT", "Content-Length": "100"])
        var machine = Self.paused(origin: origin)
        #expect(machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: "bytes=50-", ifRange: modified, offset: 50)))
        let same = Self.head(206, ["Last-Modified": modified, "Content-Range": "bytes 50-99/100"])
        #expect(machine.receivedHead(same, attempt: 2) == .accept)

        var tagged = Self.paused(origin: origin)
        _ = tagged.nextAttempt(kept: 50)
        var withETag = same
        withETag.headers["ETag"] = "\"new\""
        #expect(tagged.receivedHead(withETag, attempt: 2) == .reject)

        var redated = Self.paused(origin: origin)
        _ = redated.nextAttempt(kept: 50)
        let later = Self.head(
            206, ["Last-Modified": "Sun, 06 Nov 1994 08:49:39 GMT", "Content-Range": "bytes 50-99/100"])
        #expect(redated.receivedHead(later, attempt: 2) == .reject)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:36 GMT", "Sunday, 06-Nov-94 08:49:38 GMT", "",
    ])
    func aWeakLastModifiedDateIsNeverContinued(date: String) {
        let origin = Self.head(
            200, ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT", "Date": date, "Content-Length": "100"])
        var machine = Self.paused(origin: origin)
        #expect(machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))
    }

    @Test func httpDatesAreReadExactly() {
        #expect(IMFFixdate.seconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(IMFFixdate.seconds("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(IMFFixdate.seconds("Tue, 29 Feb 2000 12:00:00 GMT") == 951_825_600)
        #expect(IMFFixdate.seconds("Sun, 06 Nov 1994 08:49:37 UTC") == nil)
        #expect(IMFFixdate.seconds("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
        #expect(IMFFixdate.seconds("Sun, 06 Nov 1994 08:4a:37 GMT") == nil)
    }

    // MARK: - The caller's range and partial answers

    @Test func aCallersOwnRangeStaysTheFrameAndTheAnswerStaysA206() {
        let origin = Self.partial("bytes 100-199/1000")
        var machine = Self.paused(origin: origin, request: Self.request(range: "bytes=100-199"))
        #expect(
            machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: "bytes=150-199", ifRange: "\"v1\"", offset: 50)))
        let continuation = Self.partial("bytes 150-199/1000")
        #expect(machine.receivedHead(continuation, attempt: 2) == .accept)
        #expect(
            Self.describe(machine.attemptEnded(2, .response(continuation), fileSize: 100))
                == "finish(206 bytes 100-199/1000 length 100 file)")
    }

    @Test func aCallersOpenRangeIsContinuedToTheLastByteTheServerNamed() {
        var machine = Self.paused(
            origin: Self.partial("bytes 100-999/1000"), request: Self.request(range: "bytes=100-"))
        #expect(
            machine.nextAttempt(kept: 50) == .send(.init(id: 2, range: "bytes=150-", ifRange: "\"v1\"", offset: 50)))
    }

    @Test func a200ToTheContinuationOfACallersRangeStartsOverWithTheCallersRange() {
        var machine = Self.paused(
            origin: Self.partial("bytes 100-199/1000"), request: Self.request(range: "bytes=100-199"))
        _ = machine.nextAttempt(kept: 50)
        #expect(machine.receivedHead(Self.whole(1000), attempt: 2) == .reject)
        #expect(Self.describe(machine.attemptEnded(2, .failure(.cancelled), fileSize: 80)) == "again")
        #expect(machine.nextAttempt(kept: 80) == .send(.init(id: 3, range: nil, ifRange: nil, offset: 0)))
    }

    @Test func a206ToARequestWithoutRangeReachesTheCallerAsA206() {
        var machine = Machine()
        machine.beginRead(Self.request(), resumable: true)
        _ = machine.nextAttempt(kept: 0)
        let answer = Self.partial("bytes 0-49/100")
        #expect(machine.receivedHead(answer, attempt: 1) == .accept)
        #expect(
            Self.describe(machine.attemptEnded(1, .response(answer), fileSize: 50))
                == "finish(206 bytes 0-49/100 length 50 file)")
    }

    @Test func aPaused206WithoutRangeIsContinuedWithinItsOwnRange() {
        var machine = Self.paused(origin: Self.partial("bytes 0-49/100"), kept: 20)
        #expect(
            machine.nextAttempt(kept: 20) == .send(.init(id: 2, range: "bytes=20-49", ifRange: "\"v1\"", offset: 20)))
        let continuation = Self.partial("bytes 20-49/100")
        #expect(machine.receivedHead(continuation, attempt: 2) == .accept)
        #expect(
            Self.describe(machine.attemptEnded(2, .response(continuation), fileSize: 50))
                == "finish(206 bytes 0-49/100 length 50 file)")
    }

    @Test func aReassembledBodyOfTheWrongSizeFails() {
        var machine = Self.paused()
        _ = machine.nextAttempt(kept: 50)
        let continuation = Self.head(206, ["ETag": "\"v1\"", "Content-Range": "bytes 50-99/100"])
        #expect(machine.receivedHead(continuation, attempt: 2) == .accept)
        #expect(
            Self.describe(machine.attemptEnded(2, .response(continuation), fileSize: 70))
                == "fail(the reassembled body has 70 bytes where the server declared 100)")
    }

    // MARK: - Numbers near Int64.max

    @Test func hugeNumbersNeverTrap() {
        let max = Int64.max
        #expect(ContentRange("bytes 0-\(max)/*")?.count == nil)
        #expect(ContentRange("bytes 0-\(max - 1)/\(max)")?.count == max)
        #expect(ContentRange("bytes 0-9223372036854775808/*") == nil)
        #expect(ContentRange("bytes 5-4/10") == nil)
        #expect(ContentRange("bytes 0-9/9") == nil)
        #expect(ContentRange("bytes +1-9/10") == nil)
        #expect(ContentRange.digits("9223372036854775807") == max)
        #expect(ContentRange.digits("9223372036854775808") == nil)

        // A whole body of Int64.max bytes, paused near its end.
        var near = Self.paused(origin: Self.whole(max), kept: max - 2)
        #expect(
            near.nextAttempt(kept: max - 2)
                == .send(.init(id: 2, range: "bytes=\(max - 2)-", ifRange: "\"v1\"", offset: max - 2)))
        #expect(near.receivedHead(Self.partial("bytes \(max - 2)-\(max - 1)/\(max)"), attempt: 2) == .accept)

        // A range whose length does not fit: never continued.
        var unbounded = Self.paused(origin: Self.head(206, ["ETag": "\"v1\"", "Content-Range": "bytes 0-\(max)/*"]))
        #expect(unbounded.nextAttempt(kept: 50) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))

        // More bytes kept than the frame holds: start over.
        var over = Self.paused(kept: 100)
        #expect(over.nextAttempt(kept: 100) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))
    }

    // MARK: - Steering in every order

    @Test func pauseBeforeTheHeadKeepsNothingNewAndAsksAgain() {
        var machine = Machine()
        machine.beginRead(Self.request(), resumable: true)
        _ = machine.nextAttempt(kept: 0)
        #expect(machine.pause() == .paused(cancel: 1))
        #expect(Self.describe(machine.attemptEnded(1, .failure(.cancelled), fileSize: 0)) == "again")
        #expect(machine.nextAttempt(kept: 0) == .wait)
        #expect(machine.resume() == true)
        #expect(machine.nextAttempt(kept: 0) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))

        // Paused again before the continuation's head: the same range is asked for again.
        var continuing = Self.paused()
        _ = continuing.nextAttempt(kept: 50)
        #expect(continuing.pause() == .paused(cancel: 2))
        #expect(Self.describe(continuing.attemptEnded(2, .failure(.cancelled), fileSize: 50)) == "again")
        #expect(continuing.resume() == true)
        #expect(
            continuing.nextAttempt(kept: 50) == .send(.init(id: 3, range: "bytes=50-", ifRange: "\"v1\"", offset: 50)))
    }

    @Test func pauseAfterTheEndIsRefusedAndAnAnswerThatBeatThePauseIsKept() {
        var machine = Machine()
        machine.beginRead(Self.request(), resumable: true)
        _ = machine.nextAttempt(kept: 0)
        _ = machine.receivedHead(Self.whole(), attempt: 1)
        #expect(machine.pause() == .paused(cancel: 1))
        #expect(
            Self.describe(machine.attemptEnded(1, .response(Self.whole()), fileSize: 100))
                == "finish(200 length 100 file)")
        machine.end()
        #expect(machine.pause() == .refused("the request has already ended"))
        #expect(machine.resume() == false)
        #expect(machine.cancel() == (false, nil))
    }

    @Test func cancelAtEachPointEndsWithCancelled() {
        // Before the first attempt (a handle created paused).
        var early = Machine(paused: true)
        early.beginRead(Self.request(), resumable: true)
        #expect(early.nextAttempt(kept: 0) == .wait)
        #expect(early.cancel() == (true, nil))
        #expect(early.nextAttempt(kept: 0) == .stop)

        // With an attempt in flight, before and after its head.
        for headFirst in [false, true] {
            var machine = Machine()
            machine.beginRead(Self.request(), resumable: true)
            _ = machine.nextAttempt(kept: 0)
            if headFirst { _ = machine.receivedHead(Self.whole(), attempt: 1) }
            #expect(machine.cancel() == (true, 1))
            #expect(machine.pause() == .refused("the request has already ended"))
            #expect(Self.describe(machine.attemptEnded(1, .response(Self.whole()), fileSize: 100)) == "fail(cancelled)")
        }

        // While paused with bytes kept.
        var paused = Self.paused()
        #expect(paused.pause() == .paused(cancel: nil))
        #expect(paused.cancel() == (true, nil))
        #expect(paused.nextAttempt(kept: 50) == .stop)

        // The awaiting task cancelled while a pause unwinds.
        var awaiting = Machine()
        awaiting.beginRead(Self.request(), resumable: true)
        _ = awaiting.nextAttempt(kept: 0)
        _ = awaiting.pause()
        #expect(
            Self.describe(awaiting.attemptEnded(1, .failure(.cancelled), fileSize: 0, callerCancelled: true))
                == "fail(cancelled)")
    }

    @Test func aWriteOnTheWireRefusesToPause() {
        var machine = Machine()
        #expect(machine.beginWrite(method: "POST") == true)
        guard case .refused(let reason) = machine.pause() else {
            Issue.record("a POST on the wire was paused")
            return
        }
        #expect(reason.contains("POST"))
        machine.endWrite()
        #expect(machine.pause() == .paused(cancel: nil))
        #expect(machine.beginWrite(method: "POST") == false)
    }

    @Test func aSizeLimitEndsTheAttemptWhateverItAnswers() {
        var machine = Machine()
        machine.beginRead(Self.request(), resumable: true)
        _ = machine.nextAttempt(kept: 0)
        #expect(machine.abortAttempt(.responseTooLarge(limit: 10)) == 1)
        #expect(Self.describe(machine.attemptEnded(1, .response(Self.whole()), fileSize: 100)) == "fail(tooLarge 10)")
    }

    @Test func aReadThatCannotBeContinuedIsSentAgainAndHeadsAreIgnored() {
        var machine = Machine()
        machine.beginRead(Self.request(), resumable: false)
        _ = machine.nextAttempt(kept: 0)
        #expect(machine.receivedHead(Self.whole(), attempt: 1) == .ignore)
        _ = machine.pause()
        #expect(Self.describe(machine.attemptEnded(1, .failure(.cancelled), fileSize: 0)) == "again")
        #expect(machine.resume() == true)
        #expect(machine.nextAttempt(kept: 999) == .send(.init(id: 2, range: nil, ifRange: nil, offset: 0)))
        #expect(
            Self.describe(machine.attemptEnded(2, .response(Self.whole()), fileSize: 0)) == "finish(200 length 100)")
    }

    @Test func aLateHeadOfAnEarlierAttemptIsIgnored() {
        var machine = Self.paused()
        _ = machine.nextAttempt(kept: 50)
        #expect(machine.receivedHead(Self.whole(etag: "\"v9\""), attempt: 1) == .ignore)
        #expect(machine.receivedHead(Self.partial("bytes 50-99/100"), attempt: 2) == .accept)
    }

    /// Every order of pause, resume, cancel, the head and the end around one attempt: exactly one outcome, never a
    /// send while paused or after a cancel, and a cancel always ends as cancelled.
    @Test func everyOrderOfEventsAroundOneAttempt() {
        enum Event: CaseIterable { case pause, resume, cancel, head, end }
        func permutations(_ events: [Event]) -> [[Event]] {
            guard events.count > 1 else { return [events] }
            return events.indices.flatMap { index in
                var rest = events
                let first = rest.remove(at: index)
                return permutations(rest).map { [first] + $0 }
            }
        }
        for order in permutations(Event.allCases) {
            var machine = Self.paused()
            guard case .send(let attempt) = machine.nextAttempt(kept: 50) else {
                Issue.record("no continuation was sent")
                continue
            }
            var cancelled = false
            var endings: [String] = []
            for event in order {
                switch event {
                case .pause: _ = machine.pause()
                case .resume: _ = machine.resume()
                case .cancel:
                    let changed = machine.cancel().cancelled
                    cancelled = cancelled || (changed && endings.isEmpty)
                case .head: _ = machine.receivedHead(Self.partial("bytes 50-99/100"), attempt: attempt.id)
                case .end:
                    endings.append(
                        Self.describe(
                            machine.attemptEnded(
                                attempt.id, .response(Self.partial("bytes 50-99/100")), fileSize: 100)))
                }
            }
            #expect(endings.count == 1, "\(order)")
            if cancelled {
                #expect(endings == ["fail(cancelled)"], "\(order)")
                #expect(machine.nextAttempt(kept: 100) == .stop, "\(order)")
            } else {
                // An answer whose head was never announced is judged at its end, the same way.
                #expect(endings == ["finish(200 length 100 file)"], "\(order)")
            }
            if machine.currentPhase == .paused { #expect(machine.nextAttempt(kept: 100) == .wait, "\(order)") }
        }
    }
}
