import CRUDKit
import Foundation

extension InMemoryBackend {
    /// The conventions the backend follows: trailing slash, pagination, error shape and how writes answer.
    ///
    /// Start from a preset (``drf``, ``rails``, ``fastAPI``) or from `Style()` and change what differs:
    ///
    /// ```swift
    /// var style = InMemoryBackend.Style.drf
    /// style.pagination = .envelope(pageSize: 2)
    /// let backend = InMemoryBackend(style: style)
    /// ```
    public struct Style: Sendable, Hashable {
        /// Whether paths end with `/`.
        public var trailingSlash: TrailingSlash
        /// How lists are split into pages.
        public var pagination: Pagination
        /// The body and status of validation failures.
        public var errors: ErrorShape
        /// What a successful POST answers.
        public var createAnswer: CreateAnswer
        /// What a successful PUT or PATCH answers.
        public var updateAnswer: UpdateAnswer
        /// What a PUT does to a stored key its body leaves out.
        public var putOmissions: PutOmissions
        /// What a PATCH does with a `null` member.
        public var patchNulls: PatchNulls
        /// Whether a PATCH merges a nested object into the stored one member by member (`true`: JSON Merge Patch,
        /// RFC 7396) or stores the object it carries in place of the old one (`false`: Rails, Django REST
        /// framework, FastAPI and Vapor, which replace a JSON column or nested struct with what they were sent).
        public var patchMergesObjects: Bool
        /// How collections registered without an ``IDStrategy`` of their own get ids.
        public var defaultIDs: IDStrategy
        /// Query parameters that are never read as filters (besides the pagination parameters).
        public var ignoredQueryParameters: Set<String>
        /// The key every single-object answer is wrapped in while request bodies stay bare (``laravel``: `data`);
        /// `nil` for none.
        public var responseKey: String? = nil

        /// Creates a style; the defaults describe a plain JSON server: no trailing slash, no pagination,
        /// Rails-shaped 422 errors, 201 with the object on create, 200 with the object on update.
        ///
        /// - Parameters:
        ///   - trailingSlash: Whether paths end with `/`.
        ///   - pagination: How lists are split into pages.
        ///   - errors: The shape of validation failures.
        ///   - createAnswer: What a successful POST answers.
        ///   - updateAnswer: What a successful PUT or PATCH answers.
        ///   - ignoredQueryParameters: Query parameters never read as filters.
        ///   - putOmissions: What a PUT does to a stored key its body leaves out.
        ///   - patchNulls: What a PATCH does with a `null` member.
        ///   - patchMergesObjects: Whether a PATCH merges nested objects member by member (`true`) or replaces them.
        ///   - defaultIDs: How collections registered without an id strategy get ids.
        public init(
            trailingSlash: TrailingSlash = .never,
            pagination: Pagination = .none,
            errors: ErrorShape = .rails,
            createAnswer: CreateAnswer = .object,
            updateAnswer: UpdateAnswer = .object,
            ignoredQueryParameters: Set<String> = ["format", "fields", "include", "sort", "ordering"],
            putOmissions: PutOmissions = .removed,
            patchNulls: PatchNulls = .clear,
            patchMergesObjects: Bool = true,
            defaultIDs: IDStrategy = .incrementing
        ) {
            self.trailingSlash = trailingSlash
            self.pagination = pagination
            self.errors = errors
            self.createAnswer = createAnswer
            self.updateAnswer = updateAnswer
            self.ignoredQueryParameters = ignoredQueryParameters
            self.putOmissions = putOmissions
            self.patchNulls = patchNulls
            self.patchMergesObjects = patchMergesObjects
            self.defaultIDs = defaultIDs
        }

        /// Django REST framework as configured in `Tests/Interop/drf`: `/people/12/` (a missing slash answers
        /// 301), the `{count, next, previous, results}` envelope with `page`/`page_size`, field errors as 400
        /// `{"age": ["…"]}`, 201 with the object, no `Location`; a PUT keeps the stored value of a key it leaves
        /// out (a serializer saves only the fields it was given), and a PATCH replaces a nested object (a
        /// `JSONField`) with the one it carries.
        public static let drf = Style(
            trailingSlash: .always, pagination: .envelope(), errors: .drf, createAnswer: .object,
            putOmissions: .kept, patchMergesObjects: false)

        /// A Rails API: no trailing slash, api-pagination's `page`/`per_page` with a plain array, `Link`, `Total`
        /// and `Per-Page` (see ``Pagination/apiPagination(pageSize:maxPageSize:)``), 422 `{"errors": {…}}`, 201 with
        /// the object and a `Location` header; a PUT keeps the stored value of a key it leaves out
        /// (`update(person_params)` assigns only the keys given), and a PATCH replaces a nested object (a `jsonb`
        /// column) with the one it carries.
        public static let rails = Style(
            trailingSlash: .never, pagination: .apiPagination(), errors: .rails, createAnswer: .objectWithLocation,
            putOmissions: .kept, patchMergesObjects: false)

        /// FastAPI: no trailing slash, `offset`/`limit` with a plain array, `Link` and `x-total-count` (see
        /// ``Pagination/offsetLinkHeader(limit:maxLimit:)``), 422 `{"detail": [{"loc": …}]}`, 201 with the object;
        /// a PUT replaces the whole object (a key it leaves out falls back to its default), and a PATCH replaces a
        /// nested object with the one it carries (`model_copy(update:)` is shallow).
        public static let fastAPI = Style(
            trailingSlash: .never, pagination: .offsetLinkHeader(), errors: .fastAPI, patchMergesObjects: false)

        /// Vapor 4 with Fluent: no trailing slash, `{"items", "metadata": {"page", "per", "total"}}` for
        /// `?page=&per=` (see ``Pagination/vaporPage(per:maxPer:)``), 400 `{"error": true, "reason": "…"}` (and
        /// 404 `{"error": true, "reason": "Not Found"}`), 200 with the created object and no `Location`,
        /// upper-case UUID ids, a PUT that replaces the whole object and a PATCH that ignores `null` and replaces a
        /// nested object with the one it carries.
        public static let vapor = Style(
            trailingSlash: .never, pagination: .vaporPage(), errors: .vapor, createAnswer: .objectWith200,
            patchNulls: .ignore, patchMergesObjects: false, defaultIDs: .uppercaseUUID)
    }

    /// What a PATCH does with a member whose value is `null`.
    public enum PatchNulls: Sendable, Hashable {
        /// The field is cleared (JSON Merge Patch; Django REST framework, Rails, FastAPI with `exclude_unset`).
        case clear
        /// The member is ignored and the field keeps its value: a Vapor `PATCH` DTO of optionals, where `nil`
        /// means "not given".
        case ignore
    }

    /// Whether the backend's paths end with a slash.
    public enum TrailingSlash: Sendable, Hashable {
        /// `/people/12`: a path ending with `/` answers 404 `{"detail": "Not found."}`.
        case never
        /// `/people/12/` as Django REST framework wants: a path without it answers **301** with a relative
        /// `Location` (the slashed path, query kept) and no body, like Django's `APPEND_SLASH`; nothing is
        /// created, changed or deleted.
        case always
        /// Both forms are accepted.
        case either
    }

    /// What a successful POST to a collection answers.
    public enum CreateAnswer: Sendable, Hashable {
        /// 201 with the created object (Django REST framework, FastAPI).
        case object
        /// 201 with the created object and a `Location` header with its absolute URL (Rails).
        case objectWithLocation
        /// 201 with only a `Location` header and no body: the client must read the object back.
        case locationOnly
        /// 200 (not 201) with the created object and no `Location` (Vapor's default for a returned model).
        case objectWith200
    }

    /// What a PUT does to a stored key that its body leaves out.
    public enum PutOmissions: Sendable, Hashable {
        /// The key keeps its stored value (Django REST framework, Rails): only `null` clears a field.
        case kept
        /// The key is removed, as if the field fell back to its default (FastAPI and Vapor replace the whole
        /// object with the decoded body).
        case removed
    }

    /// What a successful PUT or PATCH answers.
    public enum UpdateAnswer: Sendable, Hashable {
        /// 200 with the object's new state.
        case object
        /// 204 with no body (the `ETag` and `Last-Modified` headers are still sent).
        case noContent
    }
}
