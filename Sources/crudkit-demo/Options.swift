import CRUDKit
import Foundation

/// What the command line asked for.
struct Options: Sendable {
    /// The server to walk against; `nil` starts an in-process loopback server.
    var baseURL: URL?
    /// The collection path under the base URL.
    var path = "people"
    /// The trailing-slash rule; `nil` follows the conventions.
    var trailingSlash: TrailingSlash?
    /// The server's family: its conventions and what the walk does differently there.
    var preset = Preset.standard
    /// A step whose first request the loopback server fails with a 503 (`--fail-at`), to check that a failed walk
    /// deletes what it made; `futures:` or `async:` in front picks one walk, otherwise the first to reach it.
    var failAt: String?
    /// A token sent as `Authorization: <scheme> <token>`.
    var token: String?
    /// The page size asked for by the all-pages step, so that it crosses pages.
    var pageSize = 2
    /// Whether to print the help and stop.
    var showsHelp = false

    /// The server's conventions.
    var conventions: APIConventions { preset.conventions }

    /// The query parameter that asks for a page size on this server.
    var pageSizeParameter: String { preset.pageSizeParameter }

    /// The trailing-slash rule in force.
    var effectiveTrailingSlash: TrailingSlash { trailingSlash ?? conventions.trailingSlash }

    /// A command-line mistake, said in one line.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads `arguments` (without the program name); `--name value` and `--name=value` both work.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw UsageError(description: "\(name) needs a value")
                }
                return next
            }
            switch name {
            case "-h", "--help":
                options.showsHelp = true
            case "--base-url":
                let text = try value()
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                    ["http", "https"].contains(scheme), url.host != nil
                else { throw UsageError(description: "--base-url needs an http(s) URL, not \(text)") }
                options.baseURL = url
            case "--path":
                let path = try value().trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                guard !path.isEmpty else { throw UsageError(description: "--path needs a collection path") }
                options.path = path
            case "--trailing-slash":
                switch try value() {
                case "always": options.trailingSlash = .always
                case "never": options.trailingSlash = .never
                case let other: throw UsageError(description: "--trailing-slash is always or never, not \(other)")
                }
            case "--conventions":
                let name = try value()
                guard let preset = Preset.named(name) else {
                    let names = Preset.all.map(\.name).joined(separator: ", ")
                    throw UsageError(description: "--conventions is one of \(names), not \(name)")
                }
                options.preset = preset
            case "--fail-at":
                options.failAt = try value()
            case "--token":
                options.token = try value()
            case "--page-size":
                let text = try value()
                guard let size = Int(text), size > 0 else {
                    throw UsageError(description: "--page-size needs a positive number, not \(text)")
                }
                options.pageSize = size
            default:
                throw UsageError(description: "unknown argument \(argument)")
            }
        }
        if options.failAt != nil && options.baseURL != nil {
            throw UsageError(description: "--fail-at works with the loopback server only, not with --base-url")
        }
        return options
    }

    /// What `--help` prints.
    static let help = """
        crudkit-demo: walks a Person through every CRUDKit operation and checks each answer.

        With no arguments it starts a loopback HTTP server on 127.0.0.1 serving an in-memory `people`
        collection, then walks a Person through create, read, list, update (PUT), PATCH, all pages, a
        validation error, delete and a 404: once with async/await and once with Futures. It prints one line
        per HTTP exchange and a summary, and exits 1 if any step does not behave as expected. A walk that
        fails deletes the people it made before it exits.

        USAGE: swift run crudkit-demo [options]

        OPTIONS:
          --base-url URL               Walk against a real server instead of the loopback one.
          --path PATH                  The collection path (default: people).
          --conventions NAME           The server's conventions (default: standard): trailing slash,
                                       pagination and its page-size parameter, JSON keys, error bodies,
                                       token scheme. One of standard, drf (Django REST framework), rails,
                                       fastapi, vapor, laravel.
          --trailing-slash always|never
                                       Override the conventions' trailing-slash rule.
          --token TOKEN                Send `Authorization: <scheme> TOKEN` (Token for drf, Bearer otherwise).
          --page-size N                The page size the all-pages step asks for (default: 2), sent as
                                       per_page (standard, rails, laravel), page_size (drf), limit
                                       (fastapi) or per (vapor).
          --fail-at [async:|futures:]STEP
                                       Make the loopback server answer 503 to the first request of STEP
                                       (create, read, list, update, patch, all pages, validation, delete,
                                       404), to check that a failed walk deletes what it made.
          -h, --help                   Show this help.

        The server's collection must accept first_name, last_name, age (a negative age must be rejected
        with a field error or a message naming age), email and favorite_color (camelCase keys on vapor),
        and filter lists by ?last_name= (?lastName= on vapor). A vapor PATCH ignores null, so on vapor the
        PATCH step sets favoriteColor instead of clearing it.

        EXAMPLES:
          swift run crudkit-demo
          swift run crudkit-demo --conventions drf
          swift run crudkit-demo --conventions fastapi --page-size 1
          swift run crudkit-demo --base-url http://127.0.0.1:8000 --conventions drf
        """
}
