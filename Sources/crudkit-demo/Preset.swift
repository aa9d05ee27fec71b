import CRUDKit
import CRUDKitTesting

/// A server family the walk can talk to: the library's ``APIConventions`` preset and what the walk must do
/// differently on such a server (the page-size parameter, the JSON keys it filters and patches, what create
/// answers, whether a `PATCH` can clear a field), with the in-memory backend style the loopback server imitates
/// it with.
struct Preset: Sendable {
    /// The name given to `--conventions`.
    var name: String
    /// The library's conventions.
    var conventions: APIConventions
    /// The query parameter that asks for a page size: each framework reads its own.
    var pageSizeParameter: String
    /// The JSON key of `lastName`, the list filter (`last_name`, or `lastName` on Vapor).
    var lastNameKey: String
    /// The JSON key of `favoriteColor`, the field the PATCH step changes.
    var favoriteColorKey: String
    /// The statuses a successful create may answer (Vapor answers 200, the others 201).
    var createdStatuses: Set<Int>
    /// Whether a `PATCH` with `null` clears a field (a Vapor `PATCH` DTO of optionals ignores `null`).
    var patchClears: Bool
    /// The loopback server's imitation, paging `pageSize` at a time.
    var loopbackStyle: @Sendable (_ pageSize: Int) -> InMemoryBackend.Style

    /// Every preset the walk can take, in the order `--help` lists them.
    static let all: [Preset] = [standard, drf, rails, fastAPI, vapor, laravel]

    /// The preset named `name` (case-insensitive; `django` and `djangoREST` mean `drf`).
    static func named(_ name: String) -> Preset? {
        let wanted = name.lowercased()
        let aliases = ["django": "drf", "djangorest": "drf"]
        return all.first { $0.name == (aliases[wanted] ?? wanted) }
    }

    /// Plain REST: `Link` header pagination with `?page=&per_page=`.
    static let standard = Preset(
        name: "standard", conventions: .standard, pageSizeParameter: "per_page", lastNameKey: "last_name",
        favoriteColorKey: "favorite_color", createdStatuses: [201], patchClears: true,
        loopbackStyle: { InMemoryBackend.Style(pagination: .linkHeader(pageSize: $0)) })

    /// Django REST framework: `?page=&page_size=` and the `{count, next, previous, results}` envelope.
    static let drf = Preset(
        name: "drf", conventions: .djangoREST, pageSizeParameter: "page_size", lastNameKey: "last_name",
        favoriteColorKey: "favorite_color", createdStatuses: [201], patchClears: true,
        loopbackStyle: { size in
            var style = InMemoryBackend.Style.drf
            style.pagination = .envelope(pageSize: size)
            return style
        })

    /// Rails with api-pagination: `?page=&per_page=`, a plain array with `Link` and `Total`.
    static let rails = Preset(
        name: "rails", conventions: .rails, pageSizeParameter: "per_page", lastNameKey: "last_name",
        favoriteColorKey: "favorite_color", createdStatuses: [201], patchClears: true,
        loopbackStyle: { size in
            var style = InMemoryBackend.Style.rails
            style.pagination = .apiPagination(pageSize: size)
            return style
        })

    /// FastAPI: `?offset=&limit=`, a plain array with `Link` and `x-total-count`.
    static let fastAPI = Preset(
        name: "fastapi", conventions: .fastAPI, pageSizeParameter: "limit", lastNameKey: "last_name",
        favoriteColorKey: "favorite_color", createdStatuses: [201], patchClears: true,
        loopbackStyle: { size in
            var style = InMemoryBackend.Style.fastAPI
            style.pagination = .offsetLinkHeader(limit: size)
            return style
        })

    /// Vapor 4 with Fluent: `?page=&per=`, `{items, metadata}`, camelCase keys, 200 on create, upper-case UUID
    /// ids, and a `PATCH` that ignores `null` (so the PATCH step sets a colour instead of clearing it).
    static let vapor = Preset(
        name: "vapor", conventions: .vapor, pageSizeParameter: "per", lastNameKey: "lastName",
        favoriteColorKey: "favoriteColor", createdStatuses: [200], patchClears: false,
        loopbackStyle: { size in
            var style = InMemoryBackend.Style.vapor
            style.pagination = .vaporPage(per: size)
            return style
        })

    /// Laravel: `?page=&per_page=`, `{data, links, meta}` lists, single objects answered as `{"data": {…}}` to bare
    /// requests, 422 `{"message", "errors"}`, and a PUT that keeps what it leaves out.
    static let laravel = Preset(
        name: "laravel", conventions: .laravel, pageSizeParameter: "per_page", lastNameKey: "last_name",
        favoriteColorKey: "favorite_color", createdStatuses: [201], patchClears: true,
        loopbackStyle: { size in
            var style = InMemoryBackend.Style.laravel
            style.pagination = .laravel(perPage: size)
            return style
        })
}
