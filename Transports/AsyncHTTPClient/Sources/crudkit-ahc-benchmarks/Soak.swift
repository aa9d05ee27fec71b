// The soak: a long mixed run per transport over one loopback server — cached reads (304s), duplicate reads in flight
// together, uploads, downloads to a file, retried 503s, deadlines that run out, and cancellations — printing the heap
// (resident memory), open file descriptors and CRUDKit's private files at the start, every `--every` requests, after
// the warm-up (the first `--warmup` requests) and at the end, with the growth since the warm-up. Bounded by requests
// and, when `--seconds` is given, by time, whichever comes first:
//
//   swift run -c release crudkit-ahc-benchmarks --soak [--requests 200000] [--seconds 180] [--warmup 20000]
//       [--every 20000] [--transport ahc|urlsession]
import AsyncHTTPClient
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

enum Soak {
    /// Resident memory, open descriptors and files in CRUDKit's private directory, now.
    struct Figures: CustomStringConvertible {
        /// `VmRSS`: all resident memory.
        var heapBytes: Int
        /// `RssAnon`: the resident anonymous memory (the heap and stacks, not mapped files).
        var anonymousBytes: Int
        var descriptors: Int
        var privateFiles: Int

        /// A field of `/proc/self/status` in bytes (it is given in kB).
        static func status(_ field: String, in status: String) -> Int {
            for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
                return
                    (Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
                    ?? 0) * 1024
            }
            return 0
        }

        static func now() -> Figures {
            // Resident memory from `/proc/self/status`: glibc's `mallinfo2` is not in the Glibc module Swift imports.
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
            // CRUDKit's private directories of this process: `crudkit-<pid>-…` in the temporary directory.
            let temporary = FileManager.default.temporaryDirectory
            let mine = ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [])
                .filter { $0.hasPrefix("crudkit-\(getpid())-") }
            let files = mine.reduce(0) { count, name in
                count
                    + ((try? FileManager.default.contentsOfDirectory(
                        atPath: temporary.appendingPathComponent(name).path
                    ).count) ?? 0)
            }
            return Figures(
                heapBytes: Self.status("VmRSS", in: status), anonymousBytes: Self.status("RssAnon", in: status),
                descriptors: fds, privateFiles: files)
        }

        var description: String {
            String(
                format: "rss %.1f MB (anon %.1f MB), fds %d, private files %d", Double(heapBytes) / 1e6,
                Double(anonymousBytes) / 1e6, descriptors, privateFiles)
        }

        /// What grew from `start` to these figures.
        func growth(since start: Figures) -> String {
            String(
                format: "rss %+.1f MB, anon %+.1f MB, fds %+d, private files %+d",
                Double(heapBytes - start.heapBytes) / 1e6, Double(anonymousBytes - start.anonymousBytes) / 1e6,
                descriptors - start.descriptors, privateFiles - start.privateFiles)
        }
    }

    /// The kinds of request, in the order a round sends them.
    enum Kind: String, CaseIterable {
        case cachedRead, duplicateReads, upload, download, retried, deadline, cancelled
    }

    static func run(arguments: [String]) async throws {
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        let limit = value("--requests").flatMap(Int.init) ?? 200_000
        // Without `--seconds`, the run ends after `--requests` only.
        let seconds = value("--seconds").flatMap(Double.init) ?? .infinity
        let warmup = value("--warmup").flatMap(Int.init) ?? min(20_000, limit / 10)
        let every = max(1, value("--every").flatMap(Int.init) ?? 20_000)
        let which = value("--transport").map { [$0] } ?? ["ahc", "urlsession"]
        let server = soakServer()
        try server.start()
        defer { server.stop() }
        for name in which {
            let transport: any Transport
            var shutdown: (@Sendable () async throws -> Void)?
            if name == "urlsession" {
                transport = URLSessionTransport()
            } else {
                let ahc = AsyncHTTPClientTransport()
                transport = ahc
                shutdown = { try await ahc.shutdown() }
            }
            try await soak(
                name, transport: transport, server: server,
                bounds: Bounds(seconds: seconds, requests: limit, warmup: warmup, every: every))
            try await shutdown?()
        }
    }

    /// The server: `/items/<n>` with an ETag (304 on `If-None-Match`), `/upload`, `/file` (256 KB), `/flaky`
    /// (503 every other time), `/slow` (answers after 200 ms); it records no request.
    static func soakServer() -> LoopbackServer {
        let flaky = NIOLockedValueBox(0)
        let file = Data((0..<262_144).map { UInt8(truncatingIfNeeded: $0) })
        let respond: @Sendable (HTTPRequest) async throws -> HTTPResponse = { request in
            let path = request.url.path
            if path.hasPrefix("/items/") {
                if request.headers["If-None-Match"] == "\"v1\"" {
                    return HTTPResponse(status: 304, headers: ["ETag": "\"v1\""])
                }
                return HTTPResponse(
                    status: 200, headers: ["ETag": "\"v1\"", "Content-Type": "application/json"],
                    body: Data(#"{"id":1,"name":"soak"}"#.utf8))
            }
            if path == "/upload" { return HTTPResponse(status: 201, body: Data("{}".utf8)) }
            if path == "/file" { return HTTPResponse(status: 200, body: file) }
            if path == "/flaky" {
                return flaky.withLockedValue { count in
                    defer { count += 1 }; return count
                } % 2 == 0 ? HTTPResponse(status: 503) : HTTPResponse(status: 200, body: Data("{}".utf8))
            }
            if path == "/slow" {
                try await Task.sleep(for: .milliseconds(200))
                return HTTPResponse(status: 200)
            }
            return HTTPResponse(status: 404)
        }
        // Not recording requests: the server would keep every upload's body, and the soak measures the client.
        return LoopbackServer(recordsRequests: false) { .response(try await respond($0.httpRequest)) }
    }

    /// How long a soak runs and when it prints.
    struct Bounds {
        /// At most this long (`.infinity`: no time bound).
        var seconds: Double
        /// At most this many requests.
        var requests: Int
        /// The requests after which the warm-up figures are taken.
        var warmup: Int
        /// Figures are printed every this many requests.
        var every: Int
    }

    static func soak(_ name: String, transport: any Transport, server: LoopbackServer, bounds: Bounds) async throws {
        let limit = bounds.requests
        let cache = ResponseCache(byteLimit: 1 << 20)
        let api = API(baseURL: server.baseURL, transport: transport).with {
            $0.middleware.insert(RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .zero, jitter: 0)))
            $0.middleware.insert(CacheMiddleware(cache))
        }
        let resumable = transport as? any ResumableTransport
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-soak-\(UUID())")
        defer { try? FileManager.default.removeItem(at: destination) }
        let upload = Data(count: 65_536)
        // Warm up (connections, caches), then the start figures.
        for _ in 0..<200 { _ = try? await api.send(Request(.get, "items/0", decoder: .response)) }
        let start = Figures.now()
        say("soak \(name): start: \(start)")
        let clock = ContinuousClock()
        let began = clock.now
        let end = bounds.seconds.isFinite ? began + .milliseconds(Int(bounds.seconds * 1000)) : nil
        var sent = 0
        var failures: [String: Int] = [:]
        var round = 0
        var warm: Figures?
        var nextReport = bounds.every
        while sent < limit, end.map({ clock.now < $0 }) ?? true {
            round += 1
            let thisRound = round
            // One round: 64 requests in flight, every kind.
            let outcomes = await withTaskGroup(of: (Int, String?).self) { group in
                for slot in 0..<64 {
                    let kind = Kind.allCases[slot % Kind.allCases.count]
                    let key = (thisRound * 64 + slot) % 5_000
                    group.addTask {
                        do {
                            switch kind {
                            case .cachedRead:
                                _ = try await api.send(Request(.get, "items/\(key)", decoder: .response))
                                return (1, nil)
                            case .duplicateReads:
                                async let a = api.send(Request(.get, "items/dup\(thisRound)", decoder: .response))
                                async let b = api.send(Request(.get, "items/dup\(thisRound)", decoder: .response))
                                _ = try await (a, b)
                                return (2, nil)
                            case .upload:
                                var request = Request(.post, "upload", decoder: .response)
                                request.body = .data(upload)
                                _ = try await api.send(request)
                                return (1, nil)
                            case .download:
                                if let resumable, slot % 2 == 0 {
                                    let file = try await resumable.downloadTask(
                                        HTTPRequest(url: server.baseURL.appendingPathComponent("file"))
                                    ).finished
                                    try? FileManager.default.removeItem(at: file)
                                } else {
                                    let target = destination.appendingPathExtension("\(slot)")
                                    _ = try await transport.download(
                                        HTTPRequest(url: server.baseURL.appendingPathComponent("file")), to: target,
                                        observer: .none)
                                    try? FileManager.default.removeItem(at: target)
                                }
                                return (1, nil)
                            case .retried:
                                _ = try await api.send(Request(.get, "flaky", decoder: .response))
                                return (1, nil)
                            case .deadline:
                                var request = Request(.get, "slow", decoder: .response)
                                request.deadline = 0.02
                                _ = try? await api.send(request)
                                return (1, nil)
                            case .cancelled:
                                let task = Task { try await api.send(Request(.get, "slow", decoder: .response)) }
                                await Task.yield()
                                task.cancel()
                                _ = try? await task.value
                                return (1, nil)
                            }
                        } catch {
                            return (1, "\(kind.rawValue): \(error)".prefix(120).description)
                        }
                    }
                }
                var results: [(Int, String?)] = []
                for await result in group { results.append(result) }
                return results
            }
            for (count, failure) in outcomes {
                sent += count
                if let failure { failures[failure, default: 0] += 1 }
            }
            if warm == nil, sent >= bounds.warmup {
                let figures = Figures.now()
                warm = figures
                say("soak \(name): after the warm-up (\(sent) requests): \(figures)")
            }
            if sent >= nextReport {
                nextReport += bounds.every
                let elapsed = (clock.now - began) / .seconds(1)
                say("soak \(name): \(sent) requests, \(String(format: "%.0f", elapsed)) s: \(Figures.now())")
            }
        }
        let elapsed = (clock.now - began) / .seconds(1)
        // Idle connections and the coalescer settle; then the end figures.
        try await Task.sleep(for: .seconds(1))
        let finish = Figures.now()
        say(
            "soak \(name): end: \(finish) after \(sent) requests in \(String(format: "%.0f", elapsed)) s "
                + "(cache \(cache.count) entries / \(cache.totalBytes) B)")
        say("soak \(name): growth since the start: \(finish.growth(since: start))")
        if let warm {
            let perTenThousand =
                Double(finish.heapBytes - warm.heapBytes) / 1e6 / Double(max(1, sent - bounds.warmup)) * 10_000
            say(
                "soak \(name): growth since the warm-up: \(finish.growth(since: warm)) "
                    + "(rss \(String(format: "%+.2f", perTenThousand)) MB per 10,000 requests)")
        }
        let failed = failures.values.reduce(0, +)
        say("soak \(name): \(failed) unexpected failures\(failed == 0 ? "" : ": \(failures.prefix(5))")")
    }
}

/// Writes `line` to standard output at once (unbuffered), so that each figure shows as it is taken even when the
/// output goes to a file.
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
