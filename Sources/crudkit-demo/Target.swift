import CRUDKit
import CRUDKitTesting
import Foundation

/// Where the walk goes: the loopback server the demo starts, or a real server from `--base-url`.
struct Target: Sendable {
    /// The URL paths are relative to.
    let baseURL: URL
    /// What the summary calls it.
    let description: String
    /// The loopback server, when the demo started one.
    let server: LoopbackServer?
    /// The loopback server's data, when the demo started one.
    let backend: InMemoryBackend?

    /// Starts a loopback server with an in-memory collection at `options.path` when there is no `--base-url`.
    static func start(_ options: Options) throws -> Target {
        if let baseURL = options.baseURL {
            return Target(baseURL: baseURL, description: baseURL.absoluteString, server: nil, backend: nil)
        }
        var style = options.preset.loopbackStyle(options.pageSize)
        style.trailingSlash = options.effectiveTrailingSlash == .always ? .always : .never
        let backend = InMemoryBackend(style: style)
        backend.register(options.path) { person, _ in
            guard let age = person["age"].int, age < 0 else { return [:] }
            return ["age": ["Ensure this value is greater than or equal to 0."]]
        }
        let server = LoopbackServer(backend: backend)
        try server.start()
        return Target(
            baseURL: server.baseURL, description: "a loopback server at \(server.baseURL.absoluteString)",
            server: server, backend: backend)
    }

    /// Stops the loopback server, if any.
    func stop() {
        server?.stop()
    }

    /// The API the walk uses: the conventions and trailing-slash rule asked for, a token if given, and the
    /// reporter as log handler.
    func api(_ options: Options, reporter: Reporter) -> API {
        var configuration = APIConfiguration(baseURL: baseURL)
        configuration.middleware.insert(LoggingMiddleware { event in reporter.log(event) })
        configuration.conventions = options.conventions
        if let trailingSlash = options.trailingSlash { configuration.conventions.trailingSlash = trailingSlash }
        if let token = options.token {
            configuration.headers = configuration.headers.merging(options.conventions.authorization(token: token))
        }
        configuration.timeout = 10
        return API(configuration: configuration)
    }
}
