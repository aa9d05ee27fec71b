import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkTests {
    /// Every way a server can break, through one ``API`` over the real URLSession transport against the
    /// ``FaultServer``: each case ends in its documented ``CRUDError``, never a hang or a crash.
    @Suite struct FaultInjectionTests {
        /// The transport's response limit for these tests: 1 MB.
        static let limit = 1 << 20

        private static func makeAPI(
            _ faults: FaultServer, timeout: TimeInterval = 20, retryPolicy: RetryPolicy = .none,
            validator: ClosureMiddleware? = nil, addsIdempotencyKeys: Bool = false
        ) -> API {
            API(
                configuration: APIConfiguration(
                    baseURL: faults.baseURL,
                    transport: URLSessionTransport(configuration: .init(maximumResponseSize: limit)),
                    timeout: timeout,
                    middleware: (addsIdempotencyKeys ? [IdempotencyKeyMiddleware()] as [any Middleware] : []) + [
                        RetryMiddleware(policy: retryPolicy), ValidationMiddleware(), CoalescingMiddleware(),
                    ])
            ).with { if let validator { $0.middleware.insert(validator, after: .validation) } }
        }

        /// Retries at once (1 ms apart, no jitter), at most 3 attempts.
        static let quickRetries = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), jitter: 0)

        /// The error `body` throws, or a recorded issue when it throws none or something other than a ``CRUDError``.
        private static func crudError(_ body: () async throws -> some Any) async -> CRUDError? {
            do {
                _ = try await body()
                Issue.record("no error was thrown")
            } catch let error as CRUDError {
                return error
            } catch {
                Issue.record("not a CRUDError: \(error)")
            }
            return nil
        }

        // MARK: - Broken connections

        /// The URLError code FoundationNetworking reports for each broken exchange on Linux: -1011 with libcurl's
        /// "Empty reply from server", and -1 (`unknown`) with "transfer closed with … remaining to read" for the
        /// others. Apple's stack reports other codes, so only the case is checked there.
        @Test(arguments: [
            ("before-status", URLError.Code.badServerResponse),
            ("mid-headers", URLError.Code.unknown),
            ("mid-body", URLError.Code.unknown),
            ("short-body", URLError.Code.unknown),
        ])
        func brokenConnectionsAreTransportErrors(path: String, code: URLError.Code) async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults)

            let error = await Self.crudError { try await api.get(path, as: FaultRecord.self) }

            guard case .transport(let failure) = error else {
                Issue.record("expected CRUDError.transport, got \(String(describing: error))")
                return
            }
            #if os(Linux)
            #expect((failure.underlying as? URLError)?.code == code, "\(failure.underlying)")
            #endif
            #expect(faults.attempts("/\(path)") == 1, "not retried without a retry policy")
        }

        /// A GET is retried after a broken connection (a transport error is retryable); the server saw each attempt.
        @Test func brokenConnectionIsRetriedForAGetWithARetryPolicy() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults, retryPolicy: Self.quickRetries)

            let error = await Self.crudError { try await api.get("short-body", as: FaultRecord.self) }

            #expect(error?.isTransport == true)
            #expect(faults.attempts("/short-body") == 3)
        }

        // MARK: - Time

        /// How long a request to `/never` takes to fail with `timeout`, and the error.
        private static func neverAnswered(timeout: TimeInterval) async throws -> (Duration, CRUDError?) {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults, timeout: timeout)
            let clock = ContinuousClock()
            let started = clock.now
            let error = await Self.crudError { try await api.get("never", as: FaultRecord.self) }
            return (clock.now - started, error)
        }

        @Test func aServerThatNeverAnswersTimesOutWithinOneAndAHalfTimesTheTimeout() async throws {
            let (elapsed, error) = try await Self.neverAnswered(timeout: 1)

            print("RELIABILITY timeout: configured_s=1 fired_after_s=\(elapsed.secondsValue)")
            #expect(error?.timeout == .idle(1))
            #expect(elapsed >= .milliseconds(950), "fired early")
            #expect(elapsed < .milliseconds(1500), "fired after more than 1.5x the configured 1 s")
        }

        /// FoundationNetworking on Linux truncates `URLRequest.timeoutInterval` to whole seconds
        /// (`Int(request.timeoutInterval) * 1000` milliseconds): 0.5 s used to become 0 ms and fail at once, and
        /// rounding up alone made it fire after 1 s. The transport keeps its own idle watchdog for fractional
        /// timeouts, so 0.5 s fires after 0.5 s.
        @Test func aSubSecondTimeoutFiresWithinOneAndAHalfTimesItsTime() async throws {
            let (elapsed, error) = try await Self.neverAnswered(timeout: 0.5)

            print("RELIABILITY timeout: configured_s=0.5 fired_after_s=\(elapsed.secondsValue)")
            #expect(error?.timeout == .idle(0.5))
            #expect(elapsed >= .milliseconds(450), "fired early")
            #expect(elapsed < .milliseconds(750), "fired after more than 1.5x the configured 0.5 s")
        }

        @Test func tooManyRequestsWaitsForRetryAfterThenSucceeds() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults, retryPolicy: Self.quickRetries)
            let clock = ContinuousClock()
            let started = clock.now

            let answer = try await api.get("throttled/get", as: Attempt.self)

            let elapsed = clock.now - started
            print("RELIABILITY retry-after: asked_s=1 waited_s=\(elapsed.secondsValue)")
            #expect(answer.attempt == 2)
            #expect(elapsed >= .milliseconds(900))
            #expect(elapsed < .seconds(3))
        }

        // MARK: - Retries and writes

        @Test func aGetIsRetriedAfterA500AndSucceeds() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults, retryPolicy: Self.quickRetries)

            let answer = try await api.get("flaky/get", as: Attempt.self)

            #expect(answer == Attempt(attempt: 2, key: nil))
            #expect(faults.attempts("/flaky/get") == 2)
        }

        @Test func aPostWithoutIdempotencyKeyIsNotRetried() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults, retryPolicy: Self.quickRetries)

            let error = await Self.crudError {
                try await api.post("flaky/post", body: .json(["name": "Ada"] as [String: String]))
            }

            #expect(error?.status == 500)
            if case .httpStatus(let response) = error {
                #expect(response.body == Data(#"{"error": "try again"}"#.utf8), "the body is kept")
            } else {
                Issue.record("expected CRUDError.httpStatus, got \(String(describing: error))")
            }
            #expect(faults.attempts("/flaky/post") == 1)
        }

        @Test func aPostWithAnIdempotencyKeyIsRetriedWithTheSameKey() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults, retryPolicy: Self.quickRetries)

            let answer = try await api.post(
                "flaky/keyed", body: .json(["name": "Ada"] as [String: String]),
                headers: ["Idempotency-Key": "create-ada-1"],
                as: Attempt.self)

            #expect(answer == Attempt(attempt: 2, key: "create-ada-1"))
            let keys = faults.server.requests.filter { $0.path == "/flaky/keyed" }.map { $0.headers["Idempotency-Key"] }
            #expect(keys == ["create-ada-1", "create-ada-1"])
        }

        /// With `addsIdempotencyKeys`, the API makes the key once per call, so every retry carries the same one.
        @Test func anAutomaticIdempotencyKeyStaysTheSameAcrossRetries() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults, retryPolicy: Self.quickRetries, addsIdempotencyKeys: true)

            let answer = try await api.post(
                "flaky/auto", body: .json(["name": "Ada"] as [String: String]), as: Attempt.self)

            let keys = faults.server.requests.filter { $0.path == "/flaky/auto" }.compactMap {
                $0.headers["Idempotency-Key"]
            }
            #expect(keys.count == 2)
            #expect(Set(keys).count == 1)
            #expect(answer.key == keys.first)
        }

        // MARK: - Bodies that are not what was expected

        @Test func malformedJSONIsADecodingErrorWithTheBody() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }

            let error = await Self.crudError { try await Self.makeAPI(faults).get("malformed", as: FaultRecord.self) }

            guard case .decoding(let failure) = error else {
                Issue.record("expected CRUDError.decoding, got \(String(describing: error))")
                return
            }
            #expect(failure.bodySnippet == #"{"id": 1, "name": "Ada"#)
            #expect(failure.keyPath == "")
        }

        @Test func aJSONErrorOn200IsRejectedByAValidationInterceptor() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            struct ServerSaidError: Error, CustomStringConvertible {
                var message: String
                var description: String { message }
            }
            let rejectErrorBodies = ClosureMiddleware.validate { response in
                if let json = try? JSON(data: response.body), case .string(let message) = json["error"] {
                    throw ServerSaidError(message: message)
                }
            }
            let api = Self.makeAPI(faults, validator: rejectErrorBodies)

            let error = await Self.crudError { try await api.get("error-on-200", as: FaultRecord.self) }

            guard case .validation(let message, let response) = error else {
                Issue.record("expected CRUDError.validation, got \(String(describing: error))")
                return
            }
            #expect(message == "quota exceeded")
            #expect(response.status == 200)
            #expect(
                try await api.get("people/3", as: FaultRecord.self) == FaultRecord(id: 3, name: "Person 3"),
                "others pass")
        }

        @Test func anHTMLErrorPageIsAnHTTPStatusErrorWithThePageKept() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }

            let error = await Self.crudError { try await Self.makeAPI(faults).get("html-502", as: FaultRecord.self) }

            guard case .httpStatus(let response) = error else {
                Issue.record("expected CRUDError.httpStatus, got \(String(describing: error))")
                return
            }
            #expect(response.status == 502)
            #expect(response.mediaType == "text/html")
            #expect(response.body == Data(FaultServer.htmlPage.utf8))
        }

        @Test func anHTMLPageOn200WhereJSONWasExpectedIsADecodingError() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }

            let error = await Self.crudError { try await Self.makeAPI(faults).get("html-200", as: FaultRecord.self) }

            guard case .decoding(let failure) = error else {
                Issue.record("expected CRUDError.decoding, got \(String(describing: error))")
                return
            }
            #expect(failure.bodySnippet.hasPrefix("<!DOCTYPE html>"))
            #expect(failure.keyPath == "")
        }

        /// The API reads the body whatever its `Content-Type` says (as URLSession and most clients do): a JSON body
        /// labelled `text/plain` decodes; a body that is not JSON is a decoding error. A validation interceptor
        /// makes the label binding when a caller wants that.
        @Test func aWrongContentTypeIsJudgedByTheBodyUnlessAValidatorChecksIt() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let lenient = Self.makeAPI(faults)
            let requireJSON = ClosureMiddleware.validate { response in
                guard response.mediaType == "application/json" else {
                    throw CRUDError.validation(
                        message: "expected application/json, got \(response.mediaType ?? "nothing")", response: response
                    )
                }
            }
            let strict = Self.makeAPI(faults, validator: requireJSON)

            #expect(try await lenient.get("text-json", as: FaultRecord.self) == FaultRecord(id: 7, name: "Ada"))
            let xml = await Self.crudError { try await lenient.get("xml", as: FaultRecord.self) }
            #expect(xml?.decodingFailure?.bodySnippet.hasPrefix("<person>") == true)
            let labelled = await Self.crudError { try await strict.get("text-json", as: FaultRecord.self) }
            guard case .validation(let message, let response) = labelled else {
                Issue.record("expected CRUDError.validation, got \(String(describing: labelled))")
                return
            }
            #expect(message == "expected application/json, got text/plain")
            #expect(response.mediaType == "text/plain")
        }

        @Test func jsonNestedDeeperThanTheLimitIsADecodingErrorNotACrash() async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }

            let error = await Self.crudError { try await Self.makeAPI(faults).get("deep", as: [JSON].self) }

            let failure = try #require(error?.decodingFailure)
            #expect(failure.found.contains("512"), "\(failure)")
        }

        // MARK: - Size

        /// The error is immediate and exact. Memory is not reliably bounded on Linux: FoundationNetworking hands
        /// received data to the delegate queue without back-pressure, so libcurl can read far past the limit (on
        /// loopback, sometimes the whole body) before the cancellation lands; measured growth was 0–11 MB for these
        /// 10 MB bodies and once 115 MB for a 100 MB one. Recorded as an intermittent known issue.
        @Test(arguments: ["big", "big-chunked"])
        func tenMegabytesOverAOneMegabyteLimitFailsClearlyWithBoundedMemory(path: String) async throws {
            let faults = try FaultServer()
            defer { faults.server.stop() }
            let api = Self.makeAPI(faults)
            _ = try await api.get("people/1", as: FaultRecord.self)
            let before = ProcessFigures.residentKilobytes()

            let error = await Self.crudError { try await api.get(path, as: Data.self) }

            let after = ProcessFigures.residentKilobytes()
            print(
                "RELIABILITY too-large \(path): body_kb=10240 limit_kb=1024 rss_before_kb=\(before) rss_after_kb=\(after)"
            )
            guard case .responseTooLarge(let limit) = error else {
                Issue.record("expected CRUDError.responseTooLarge, got \(String(describing: error))")
                return
            }
            #expect(limit == Self.limit)
            #expect(error?.localizedDescription == "The response was larger than the 1048576 byte limit.")
            if TestEnvironment.measuresResidentMemory {
                withKnownIssue("FoundationNetworking reads past the cancellation", isIntermittent: true) {
                    #expect(
                        after - before < 8 * 1024,
                        "resident memory grew by \(after - before) kB for a refused 10 MB body")
                }
            }
        }
    }
}

extension CRUDError {
    /// The failure of a ``CRUDError/decoding(_:)`` error.
    var decodingFailure: DecodingFailure? {
        if case .decoding(let failure) = self { return failure }
        return nil
    }
}

extension Duration {
    /// The duration in seconds, for printing.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
