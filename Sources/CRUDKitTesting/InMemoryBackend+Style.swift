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
        /// Which entity tag single-object answers carry.
        public var entityTags: EntityTags
        /// Whether single-object answers carry `Last-Modified`.
        public var sendsLastModified: Bool
        /// When a `GET` or `HEAD` of an object answers 304.
        public var notModified: NotModified
        /// Whether `If-Match` (and `If-None-Match`) on a PUT, PATCH or DELETE answers 412 when it fails, as an app
        /// that checks it does; `false` ignores both, as the frameworks do out of the box.
        public var honoursIfMatch: Bool
        /// Whether `If-Unmodified-Since` on a PUT, PATCH or DELETE answers 412 when the object changed after that
        /// second (and no `If-Match` was sent); `false` ignores it, as the frameworks do out of the box.
        public var honoursIfUnmodifiedSince: Bool
        /// The read-only timestamps every stored object gets, or `nil` for none.
        public var timestamps: Timestamps?
        /// Whether a POST, PUT or PATCH with nothing to write (an empty object, or no registered column) answers
        /// 400 `{"status": 400, "error": "Bad Request"}`, as Rails' `params.require(:person)` does.
        public var rejectsEmptyWrites: Bool
        /// Whether a method a path does not serve answers 405 with `Allow` (`true`), or 404 as a router without
        /// that route does (`false`: Rails, Vapor).
        public var answersMethodNotAllowed: Bool
        /// How nested collections (`people/{id}/posts`) are split into pages, or `nil` for as ``pagination``.
        public var nestedPagination: Pagination?
        /// The key every single-object answer is wrapped in while request bodies stay bare (``laravel``: `data`);
        /// `nil` for none.
        public var responseKey: String? = nil
        /// Whether requests and answers are JSON:API documents, checked and answered as ``jsonAPI`` describes.
        public var speaksJSONAPI = false

        /// Creates a style; the defaults describe a plain JSON server that follows RFC 9110 to the letter: no
        /// trailing slash, no pagination, 422 `{"errors": {…}}`, 201 with the object on create, 200 with the object
        /// on update, strong `ETag`s and `Last-Modified` with 304s, `If-Match` and `If-Unmodified-Since` honoured.
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
        ///   - entityTags: Which entity tag single-object answers carry.
        ///   - sendsLastModified: Whether single-object answers carry `Last-Modified`.
        ///   - notModified: When a `GET` or `HEAD` answers 304.
        ///   - honoursIfMatch: Whether a failed `If-Match` (or `If-None-Match`) on a write answers 412.
        ///   - honoursIfUnmodifiedSince: Whether a failed `If-Unmodified-Since` on a write answers 412.
        ///   - timestamps: The read-only timestamps stored objects get, or `nil`.
        ///   - rejectsEmptyWrites: Whether a write with nothing to write answers 400.
        ///   - answersMethodNotAllowed: Whether an unserved method answers 405 (`true`) or 404.
        ///   - nestedPagination: How nested collections are paginated, or `nil` for as `pagination`.
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
            defaultIDs: IDStrategy = .incrementing,
            entityTags: EntityTags = .strong,
            sendsLastModified: Bool = true,
            notModified: NotModified = .rfc9110,
            honoursIfMatch: Bool = true,
            honoursIfUnmodifiedSince: Bool = true,
            timestamps: Timestamps? = nil,
            rejectsEmptyWrites: Bool = false,
            answersMethodNotAllowed: Bool = true,
            nestedPagination: Pagination? = nil
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
            self.entityTags = entityTags
            self.sendsLastModified = sendsLastModified
            self.notModified = notModified
            self.honoursIfMatch = honoursIfMatch
            self.honoursIfUnmodifiedSince = honoursIfUnmodifiedSince
            self.timestamps = timestamps
            self.rejectsEmptyWrites = rejectsEmptyWrites
            self.answersMethodNotAllowed = answersMethodNotAllowed
            self.nestedPagination = nestedPagination
        }

        /// Django REST framework as configured in `Tests/Interop/drf` (and compared with it in CI by
        /// `DRFFidelityTests`): `/people/12/` (a missing slash answers 301), the `{count, next, previous, results}`
        /// envelope with `page`/`page_size`, field errors as 400 `{"age": ["…"]}`, 201 with the object, no
        /// `Location`; a PUT keeps the stored value of a key it leaves out (a serializer saves only the fields it was
        /// given), and a PATCH replaces a nested object (a `JSONField`) with the one it carries. No `ETag`, no
        /// `Last-Modified`, no 304, and `If-Match`/`If-Unmodified-Since` are ignored: DRF sends and checks none of
        /// them unless the app adds it (set ``entityTags``, ``honoursIfMatch``… to model such an app).
        public static let drf = Style(
            trailingSlash: .always, pagination: .envelope(), errors: .drf, createAnswer: .object,
            putOmissions: .kept, patchMergesObjects: false, entityTags: .none, sendsLastModified: false,
            notModified: .never, honoursIfMatch: false, honoursIfUnmodifiedSince: false)

        /// A Rails 6.1 API scaffold (`rails g scaffold`, api-pagination with kaminari) as it answers out of the
        /// box: a trailing slash or none, `page`/`per_page` with a plain array, `Link`, `Total` and `Per-Page` (the
        /// size asked, uncapped: see ``Pagination/apiPagination(pageSize:maxPageSize:)``), 422 with the bare errors
        /// hash (``ErrorShape/railsScaffold``), 201 with the object and a `Location` header, `created_at` and
        /// `updated_at` in every object; an empty POST, PUT or PATCH body answers 400
        /// `{"status":400,"error":"Bad Request"}` (`params.require`), a missing object or route 404
        /// `{"status":404,"error":"Not Found"}` (an empty `text/html` body unless the request accepts JSON), and an
        /// unrouted method 404 too. A PUT keeps the stored value of a key it leaves out (`update(person_params)`
        /// assigns only the keys given), and a PATCH replaces a nested object (a `jsonb` column). Answers carry a
        /// weak `ETag` digesting the body and a `GET` whose `If-None-Match` is exactly that tag answers 304
        /// (`Rack::ETag`, `Rack::ConditionalGet`); there is no `Last-Modified`, and `If-Match` and
        /// `If-Unmodified-Since` are ignored.
        public static let rails = Style(
            trailingSlash: .either, pagination: .apiPagination(), errors: .railsScaffold,
            createAnswer: .objectWithLocation, putOmissions: .kept, patchMergesObjects: false, entityTags: .weak,
            sendsLastModified: false, notModified: .exactTag, honoursIfMatch: false, honoursIfUnmodifiedSince: false,
            timestamps: .rails, rejectsEmptyWrites: true, answersMethodNotAllowed: false)

        /// FastAPI: no trailing slash (a slashed path answers 307 to the bare one), `offset`/`limit` with a plain array, `Link` and `x-total-count` (see
        /// ``Pagination/offsetLinkHeader(limit:maxLimit:)``), 422 `{"detail": [{"loc": …}]}`, 201 with the object;
        /// a PUT replaces the whole object (a key it leaves out falls back to its default), and a PATCH replaces a
        /// nested object with the one it carries (`model_copy(update:)` is shallow). An unknown path answers 404
        /// `{"detail": "Not Found"}` and an unserved method 405 `{"detail": "Method Not Allowed"}` (Starlette's
        /// words), and a body the model cannot read 422 in pydantic's shape (`missing`, `json_invalid`,
        /// `model_attributes_type`). No `ETag`, no `Last-Modified`, no 304; conditional headers are ignored.
        public static let fastAPI = Style(
            trailingSlash: .redirectsToNone, pagination: .offsetLinkHeader(), errors: .fastAPI,
            patchMergesObjects: false,
            entityTags: .none, sendsLastModified: false, notModified: .never, honoursIfMatch: false,
            honoursIfUnmodifiedSince: false)

        /// Vapor 4 with Fluent: a trailing slash or none, `{"items", "metadata": {"page", "per", "total"}}` for
        /// `?page=&per=` (see ``Pagination/vaporPage(per:maxPer:)``) on top-level collections and a plain array on
        /// nested ones (a route returning `[Post]`), 400 `{"error": true, "reason": "…"}` (reasons in column
        /// order when the collection registers columns) and 404 `{"error": true, "reason": "Not Found"}` for a
        /// missing object, route or method, 200 with the created object and no `Location`, upper-case UUID ids,
        /// `createdAt` and `updatedAt` (`@Timestamp` properties, ISO 8601 without a fraction), a PUT that replaces
        /// the whole object and a PATCH that ignores `null` and replaces a nested object with the one it carries.
        /// No `ETag`, no `Last-Modified`, no 304; conditional headers are ignored.
        public static let vapor = Style(
            trailingSlash: .either, pagination: .vaporPage(), errors: .vapor, createAnswer: .objectWith200,
            patchNulls: .ignore, patchMergesObjects: false, defaultIDs: .uppercaseUUID, entityTags: .none,
            sendsLastModified: false, notModified: .never, honoursIfMatch: false, honoursIfUnmodifiedSince: false,
            timestamps: .vapor, answersMethodNotAllowed: false, nestedPagination: Pagination.none)
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
        /// `/people/12`: a path ending with `/` answers **307** with an absolute `Location` without it (query
        /// kept) and no body, for any method, as Starlette's `redirect_slashes` does (FastAPI); nothing is
        /// created, changed or deleted.
        case redirectsToNone
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
