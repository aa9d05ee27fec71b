import CRUDKit
import Foundation
import Testing

/// The Django REST framework server of `Tests/Interop/drf`, as `.ci/interop-server.sh start` exports it.
///
/// Every suite of this target carries ``enabled``: without `CRUDKIT_DRF_URL` the suites are skipped, and
/// `swift test` says so with the reason below. With it, they run and must pass; `DRFServerTests` fails
/// first and plainly when the variable is set but nothing answers there (so CI cannot pass without the server).
enum DRFServer {
    /// `CRUDKIT_DRF_URL`, e.g. `http://127.0.0.1:52017` (no trailing slash); `nil` when unset or empty.
    static let urlText: String? = {
        guard let text = ProcessInfo.processInfo.environment["CRUDKIT_DRF_URL"], !text.isEmpty else { return nil }
        return text
    }()

    /// `CRUDKIT_DRF_TOKEN`: the 40-hex key of the token user (for `/secure-people/`).
    static let token: String? = {
        guard let text = ProcessInfo.processInfo.environment["CRUDKIT_DRF_TOKEN"], !text.isEmpty else { return nil }
        return text
    }()

    /// Whether the interop suites run.
    static var isConfigured: Bool { urlText != nil }

    /// The trait every interop suite carries.
    static var enabled: ConditionTrait {
        .enabled(
            if: isConfigured,
            Comment(
                rawValue:
                    "CRUDKIT_DRF_URL is not set, so the Django REST framework interop suite is skipped; run it with "
                    + "eval \"$(.ci/interop-server.sh start)\" && swift test --filter CRUDKitInteropTests; "
                    + ".ci/interop-server.sh stop"))
    }

    /// The server's base URL.
    static func baseURL() throws -> URL {
        let text = try #require(urlText, "CRUDKIT_DRF_URL is not set")
        return try #require(URL(string: text), "CRUDKIT_DRF_URL is not a URL: \(text)")
    }

    /// The token user's key.
    static func requireToken() throws -> String {
        try #require(token, "CRUDKIT_DRF_TOKEN is not set (.ci/interop-server.sh start exports it)")
    }
}
