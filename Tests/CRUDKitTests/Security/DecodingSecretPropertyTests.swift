import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A server that answers `200` (or `201`) with an unreadable body echoing the request — its token, its API key, a
/// query value the API's own ``Redaction`` hides, and secret JSON keys written with escapes (`"tok\u0065n"`) — never
/// gets those secrets, nor a part of one cut at the quote's 200 bytes, into a description of the decoding error, at
/// any of the places CRUDKit reads an answer.
@Suite struct DecodingSecretPropertyTests {
    struct Item: CRUDModel, Codable, Hashable {
        static let path = "items"
        var id: Int?
        var name: String
    }

    /// Each way CRUDKit reads an answer: a typed `send`, a model read (not JSON / the wrong shape), a create's
    /// answer, a list (not JSON / the wrong shape), a page of `all()`, and the two kinds of actions.
    enum Site: CaseIterable, Sendable {
        case typedGet, readText, readShape, createShape, createText, listText, listShape, allPages
        case collectionAction, memberAction, jsonAction

        var isJSON: Bool {
            switch self {
            case .readText, .createText, .listText: false
            default: true
            }
        }
    }

    /// Escaped spellings of secret key names (`x\/api\/key` reads `x/api/key`, which ends in `key`).
    static let escapedKeys = [
        #"tok\u0065n"#, #"\u0070assword"#, #"api\u005fkey"#, #"s\u0065cret"#, #"\u0054OKEN"#,
        #"acc\u0065ss_tok\u0065n"#,
        #"p\u0061ss\u0077ord"#, #"\u0074\u006f\u006b\u0065\u006e"#, #"x\/api\/key"#,
    ]

    /// The secrets of one case: the bearer token, the API key, the `pin` query value, and the values of two escaped
    /// secret keys (one quoted inside a JSON string, so escaped twice).
    struct Secrets {
        var token: String
        var apiKey: String
        var pin: String
        var escaped: String
        var doublyEscaped: String
        var all: [String] { [token, apiKey, pin, escaped, doublyEscaped] }
    }

    /// The body the server answers: padding of `pad` bytes (so the secrets fall before, across and after the
    /// 200-byte cut), then the echo of the request.
    static func body(for request: HTTPRequest, site: Site, pad: Int, key: String, secrets: Secrets) -> String {
        let authorization = request.headers["Authorization"]?.split(separator: " ").last.map(String.init) ?? ""
        let echo =
            "Session \(authorization) for key \(request.headers["X-API-Key"] ?? "") refused. You asked: "
            + "\(request.method.rawValue) \(request.url.absoluteString)"
        let padding = String(repeating: "x", count: pad)
        let escapedPair = #""\#(key)": "\#(secrets.escaped)""#
        let twice = key.replacingOccurrences(of: "\\", with: "\\\\")
        let doublyEscapedPair = #"{\"\#(twice)\": \"\#(secrets.doublyEscaped)\"}"#
        guard site.isJSON else { return "\(padding) \(echo) {\(escapedPair)} \(doublyEscapedPair)" }
        // No `name`: no model can be read from it.
        let object =
            #"{"pad": "\#(padding)", "message": "\#(echo)", \#(escapedPair), "inner": "\#(doublyEscapedPair)"}"#
        return site == .listShape || site == .allPages || site == .collectionAction ? "[\(object)]" : object
    }

    /// Runs `site` against an API whose server answers every request with ``body(for:site:pad:key:secrets:)``;
    /// the error it fails with.
    static func failure(at site: Site, pad: Int, key: String, secrets: Secrets) async throws -> CRUDError {
        let stubs = StubTransport()
        let handler: @Sendable (StubRequest) -> StubResponse = { request in
            let text = body(for: request.request, site: site, pad: pad, key: key, secrets: secrets)
            return .json(text: text, status: request.request.method == .post && site != .memberAction ? 201 : 200)
        }
        for pattern in ["items", "items/:id", "items/:id/:action"] { stubs.on(nil, pattern, handler: handler) }
        let api = API(
            configuration: APIConfiguration(
                baseURL: URL(string: "https://api.example.com/v1"),
                headers: ["Authorization": "Bearer \(secrets.token)", "X-API-Key": secrets.apiKey],
                query: ["pin": .string(secrets.pin)], transport: stubs,
                redaction: Redaction(queryParameters: ["pin"])))
        let scope = Item.using(api)
        do {
            switch site {
            case .typedGet: _ = try await api.get("items/7", as: Item.self)
            case .readText, .readShape: _ = try await scope.read(id: 7)
            case .createShape, .createText: _ = try await scope.create(Item(name: "Ada"))
            case .listText, .listShape: _ = try await scope.list()
            case .allPages: for try await _ in scope.all() {}
            case .collectionAction: _ = try await scope.action(.get, "search", as: .models(Item.self))
            case .memberAction:
                _ = try await scope.action(.post, "activate", on: Item(id: 7, name: "A"), as: .model(Item.self))
            case .jsonAction: _ = try await scope.action(.get, "search", as: .model(Item.self))
            }
        } catch let error as CRUDError {
            return error
        }
        Issue.record("\(site) succeeded")
        return .cancelled
    }

    /// Every piece of `secret` of 8 characters.
    static func pieces(of secret: String) -> [String] {
        let characters = Array(secret)
        return (0...(characters.count - 8)).map { String(characters[$0..<($0 + 8)]) }
    }

    @Test func echoedSecretsNeverAppearInADecodingError() async throws {
        var random = SeededGenerator(seed: 0xDEC0_D1E5)
        var checked = 0
        for round in 0..<36 {
            for site in Site.allCases {
                let secrets = Secrets(
                    token: SecretDescriptionPropertyTests.secret(&random),
                    apiKey: SecretDescriptionPropertyTests.secret(&random),
                    pin: SecretDescriptionPropertyTests.secret(&random),
                    escaped: SecretDescriptionPropertyTests.secret(&random),
                    doublyEscaped: SecretDescriptionPropertyTests.secret(&random))
                // From no padding to past the cut, so each secret lands before it, across it and after it.
                let pad = round * 7
                let key = Self.escapedKeys.randomElement(using: &random)!
                let error = try await Self.failure(at: site, pad: pad, key: key, secrets: secrets)
                var failure: CRUDError = error
                if case .writeAccepted(_, let inner) = error { failure = inner }
                guard case .decoding = failure else {
                    Issue.record("\(site) failed with \(error) instead of a decoding error")
                    continue
                }
                let event = LogEvent(kind: .failed(error), method: .get, url: "https://api.example.com/v1", attempt: 1)
                let described = SecretDescriptionPropertyTests.renderings(of: error) + [error.localizedDescription]
                #expect(described.allSatisfy { $0.contains("could not be read") }, "\(site)")
                let texts = described + SecretDescriptionPropertyTests.renderings(of: event)
                for text in texts {
                    checked += 1
                    for secret in secrets.all {
                        for piece in Self.pieces(of: secret) where text.contains(piece) {
                            Issue.record("\(site), pad \(pad), key \(key): \(piece) of \(secret) shown in \(text)")
                        }
                    }
                }
            }
        }
        #expect(checked > 0)
    }

    /// `CRUDError.decoding(_:body:)` made by hand (no request known) still redacts before it cuts: a secret JSON
    /// value across the 200-byte cut, under a plain or an escaped key, is hidden whole.
    @Test(arguments: [#"token"#, #"tok\u0065n"#, #"\u0070assword"#, #"api\u005Fkey"#])
    func aSecretAcrossTheCutIsHiddenWhole(key: String) {
        let secret = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
        for pad in 150...200 {
            let body = #"{"pad": "\#(String(repeating: "x", count: pad))", "\#(key)": "\#(secret)"}"#
            let error = CRUDError.decoding(
                JSONMappingError(keyPath: "name", expected: "String", found: "nothing"), body: Data(body.utf8))
            for piece in Self.pieces(of: secret) {
                #expect(!"\(error)".contains(piece), "pad \(pad): \(error)")
            }
        }
    }

    /// A body quoted JSON-escaped keys, one level and two, as a reader sees them: each is hidden.
    @Test(arguments: escapedKeys)
    func anEscapedSecretKeyIsRecognised(key: String) {
        let redaction = Redaction.standard
        let plain = redaction.redact(text: #"{"\#(key)": "s3cret-value"}"#)
        #expect(!plain.contains("s3cret-value"), "\(plain)")
        let twice = key.replacingOccurrences(of: "\\", with: "\\\\")
        let nested = redaction.redact(text: #"{"echo": "{\"\#(twice)\": \"s3cret-value\"}"}"#)
        #expect(!nested.contains("s3cret-value"), "\(nested)")
        // An escaped name that names nothing secret stays visible.
        #expect(redaction.redact(text: #"{"n\u0061me": "Ada Lovelace"}"#).contains("Ada Lovelace"))
    }
}
