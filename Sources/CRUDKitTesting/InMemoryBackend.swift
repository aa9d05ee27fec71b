import CRUDKit
import Foundation

/// An in-process REST server for tests: a ``Transport`` that stores what it is sent and answers like a
/// conventional JSON API, with no network.
///
/// Register the collections a test uses, plug the backend in where a `URLSessionTransport` would go, and the
/// code under test runs through its whole request pipeline (encoding, middleware, validation, decoding) in
/// microseconds:
///
/// ```swift
/// let backend = InMemoryBackend(style: .drf)
/// backend.register("people") { person, _ in
///     (person["last_name"].string ?? "").isEmpty ? ["last_name": ["This field is required."]] : [:]
/// }
/// backend.register("people/{id}/posts", parentKey: "person")
/// ```
///
/// What it does, per request (paths are matched on their last segments, so any base path works):
/// - `POST /people` stores the body (an `id` in it is ignored), assigns an id (``IDStrategy``) and answers 201
///   (``CreateAnswer``); `GET /people` lists with equality filters from the query (`?last_name=Lovelace`, and
///   `age__gte`, `__lte`, `__gt`, `__lt`, `__ne`, `__in` (comma-separated), `__contains`; a parameter naming a
///   field no stored object has is ignored, as most servers ignore unknown parameters), paginated per
///   ``Pagination``; `GET /people/12` reads; `PUT` replaces; `PATCH` merges (a `null` member sets the field to
///   `null`, nested objects merge as RFC 7396 says); `DELETE` answers 204 and deletes the children in nested
///   collections; `HEAD` is `GET` without a body; `OPTIONS` answers 200 with `Allow`; other methods 405.
/// - Unknown ids, unknown paths, and nested paths whose parent does not exist answer 404
///   `{"detail": "Not found."}` (in the framework's words under `.rails`, `.fastAPI` and `.vapor`). A missing or
///   extra trailing slash is handled as ``TrailingSlash`` says.
/// - Bodies are JSON (or form-encoded, read as strings); an empty body is `{}`; malformed JSON answers 400
///   `{"detail": "JSON parse error - …"}`; another `Content-Type` answers 415; a body that is not an object, and
///   the validator's field errors, answer in the ``ErrorShape`` of the style.
/// - With `objectKey`, objects are sent and accepted as `{"person": {…}}`; with `requestKey`, they are accepted
///   wrapped or bare and sent bare (Rails' `wrap_parameters`); with `collectionKey`, plain-array lists are
///   `{"people": […]}`.
/// - Conditional requests follow the style, as its framework does out of the box (``Style/entityTags``,
///   ``Style/notModified``, ``Style/honoursIfMatch``, ``Style/honoursIfUnmodifiedSince``). `Style()` is a server
///   that follows RFC 9110 to the letter: every single-object answer carries a strong `ETag` (a version that
///   changes on every write) and `Last-Modified`; a failed `If-Match`, `If-Unmodified-Since` (to the second) or
///   `If-None-Match` on PUT, PATCH and DELETE answers 412 `{"detail": "Precondition failed."}`; `If-None-Match`
///   (or `If-Modified-Since`) on GET answers 304 with no body when unchanged. The framework presets send no tag
///   (Rails: a weak one) and ignore the preconditions.
/// - A POST or PATCH with an `Idempotency-Key` already seen answers the first answer again (same status, headers
///   and body, plus `Idempotent-Replayed: true`) without applying it twice; the same key with a different
///   method, path or body answers 422.
/// - ``failNext(_:with:)``, ``failRandomly(rate:seed:faults:)`` and ``setLatency(_:)`` inject trouble; every
///   request (failed ones too) is in ``recorder``.
public final class InMemoryBackend: Transport {
    /// A custom route's answer, given the request and the backend that received it.
    typealias Action = @Sendable (StubRequest, InMemoryBackend) async throws -> StubResponse

    struct CustomRoute: Sendable {
        var method: HTTPMethod?
        var pattern: PathPattern
        var action: Action
    }

    struct Replay: Sendable {
        var fingerprint: String
        var body: Data
        var response: HTTPResponse
    }

    struct State: Sendable {
        var collections: [String: Collection] = [:]
        var tables: [TableKey: Table] = [:]
        var routes: [CustomRoute] = []
        var revision = 0
        var scripted: [Fault] = []
        var random: RandomFaults?
        var latency: (@Sendable (HTTPRequest) async throws -> Void)?
        var injected: [String: Int] = [:]
        var replays: [String: Replay] = [:]
    }

    let state = Locked(State())
    /// The conventions the backend follows.
    public let style: Style
    /// The clock read for `Last-Modified`.
    let now: @Sendable () -> Date
    /// Every request received, in order, failed ones included.
    public let recorder: RequestRecorder

    /// Creates a backend with no collections.
    ///
    /// - Parameters:
    ///   - style: Trailing slash, pagination, error shape and write answers (a plain JSON server by default).
    ///   - recorder: Where requests are recorded (a new recorder by default).
    ///   - clock: The time used for `Last-Modified` (the system clock by default).
    public init(
        style: Style = Style(),
        recorder: RequestRecorder = RequestRecorder(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.style = style
        self.recorder = recorder
        self.now = clock
    }

    /// Registers a collection: its path, with `{name}` or `:name` for parent ids in nested collections.
    ///
    /// Registering a path again changes its settings and keeps its objects.
    ///
    /// ```swift
    /// backend.register("people", objectKey: "person", collectionKey: "people")
    /// backend.register("people/{person_id}/posts", ids: .uuid, parentKey: "person")
    /// ```
    /// - Parameters:
    ///   - path: The collection path, such as `people` or `people/{id}/posts`.
    ///   - ids: How created objects get their id; `nil` (the default) takes the style's
    ///     ``Style/defaultIDs`` (incrementing numbers, or upper-case UUIDs for ``Style/vapor``).
    ///   - idKey: The member that holds the id (`id`).
    ///   - objectKey: The key a single object is wrapped in (`{"person": {…}}`), or `nil` for none.
    ///   - collectionKey: The key a plain-array list is wrapped in (`{"people": […]}`), or `nil` for none.
    ///   - requestKey: A key request bodies may be wrapped in while answers stay bare, as Rails'
    ///     `wrap_parameters` does (`{"person": {…}}` or `{…}` in, `{…}` out), or `nil` for none.
    ///   - parentKey: For a nested collection, the member set to the parent's id in each created object (as
    ///     Django REST framework's `"person": 3`), or `nil` for none.
    ///   - columns: The columns every object has, in order, each with the value a create that leaves it out
    ///     stores (`nil` for an optional: `["first_name": "", "age": nil]`), or `nil` (the default) to store
    ///     whatever is sent. With columns, answers carry every column (as serializers, `as_json` and Codable
    ///     models write every field), members naming no column are dropped (as they ignore unknown fields), a
    ///     PUT that replaces the whole object puts a column it leaves out back to its default, and field errors
    ///     follow the columns' order (Vapor joins its reasons, DRF lists its fields in declaration order).
    ///   - pagination: How this collection's lists are split into pages, or `nil` (the default) for the
    ///     style's (``Style/pagination``, or ``Style/nestedPagination`` for a nested collection): a route that
    ///     returns a plain array where the others paginate.
    ///   - timestamps: This collection's timestamps (`Timestamps(created: "created_at", updated: nil,
    ///     fractionDigits: 6)` for a Django model with one `auto_now_add` field; both keys `nil` for none), or
    ///     `nil` (the default) for the style's ``Style/timestamps``.
    ///   - validate: Checks objects before they are stored; its errors answer in the style's ``ErrorShape``.
    public func register(
        _ path: String,
        ids: IDStrategy? = nil,
        idKey: String = "id",
        objectKey: String? = nil,
        collectionKey: String? = nil,
        requestKey: String? = nil,
        parentKey: String? = nil,
        columns: JSON? = nil,
        pagination: Pagination? = nil,
        timestamps: Timestamps? = nil,
        validate: Validator? = nil
    ) {
        let segments = PathPattern(path).segments
        let key = Collection.key(of: segments)
        state.withLock { state in
            let created = state.collections[key]?.created ?? 0
            state.collections[key] = Collection(
                segments: segments, key: key, ids: ids ?? style.defaultIDs, idKey: idKey, objectKey: objectKey,
                collectionKey: collectionKey, requestKey: requestKey, parentKey: parentKey, validate: validate,
                columns: columns?.object, pagination: pagination, timestamps: timestamps, created: created)
        }
    }

    /// Answers requests with `method` (any when `nil`) whose path matches `pattern` with `action` instead of the
    /// collection rules: custom actions such as `POST people/:id/activate` or `GET people/search`.
    ///
    /// Patterns are those of ``StubTransport``; a later route wins over an earlier one. Failures and latency
    /// apply to these requests too.
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - pattern: The path pattern.
    ///   - action: Builds the answer. To read or change the backend's objects, use the overload whose action
    ///     also gets the backend (`{ request, backend in … }`): a closure that captures the backend makes a
    ///     reference cycle, as the backend keeps its routes.
    public func on(
        _ method: HTTPMethod?, _ pattern: String, action: @escaping @Sendable (StubRequest) async throws -> StubResponse
    ) {
        on(method, pattern) { request, _ in try await action(request) }
    }

    /// Answers requests with `method` (any when `nil`) whose path matches `pattern` with `action`, which also gets
    /// the backend: a custom action that reads or changes the stored objects without capturing the backend (a
    /// closure that captures it makes a reference cycle, as the backend keeps its routes).
    ///
    /// The action runs outside the backend's lock, so it may call ``records(in:)``, ``record(in:id:)``,
    /// ``insert(_:into:)`` and the other methods. Patterns are those of ``StubTransport``; a later route wins over
    /// an earlier one. Failures and latency apply to these requests too.
    ///
    /// ```swift
    /// backend.on(.post, "people/:id/activate") { request, backend in
    ///     guard var person = backend.record(in: "people", id: request.parameters["id"] ?? "") else {
    ///         return .json(["detail": "Not found."], status: 404)
    ///     }
    ///     person["active"] = true
    ///     return .json(person)
    /// }
    /// ```
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - pattern: The path pattern.
    ///   - action: Builds the answer from the request and this backend.
    public func on(
        _ method: HTTPMethod?,
        _ pattern: String,
        action: @escaping @Sendable (StubRequest, InMemoryBackend) async throws -> StubResponse
    ) {
        state.withLock { $0.routes.append(CustomRoute(method: method, pattern: PathPattern(pattern), action: action)) }
    }

    // MARK: - Inspection

    /// The objects stored in the collection at `path` (such as `people` or `people/3/posts`), in creation order,
    /// unwrapped (no `objectKey`). An unknown path gives an empty array.
    ///
    /// - Parameter path: The collection path, with parent ids filled in.
    /// - Returns: The stored objects.
    public func records(in path: String) -> [JSON] {
        state.withLock { state in
            guard let (key, _) = Self.tableKey(for: path, in: state) else { return [] }
            return state.tables[key]?.rows.map { .object($0.object) } ?? []
        }
    }

    /// The object with `id` in the collection at `path`, or `nil`.
    ///
    /// - Parameters:
    ///   - path: The collection path, with parent ids filled in.
    ///   - id: The id, as it appears in a URL (`12`, `"4f…"`).
    /// - Returns: The stored object.
    public func record(in path: String, id: some LosslessStringConvertible) -> JSON? {
        state.withLock { state in
            guard let (key, _) = Self.tableKey(for: path, in: state) else { return nil }
            return state.tables[key]?[String(describing: id)].map { .object($0.object) }
        }
    }

    /// How many objects the collection at `path` holds.
    ///
    /// - Parameter path: The collection path, with parent ids filled in.
    /// - Returns: The number of stored objects.
    public func count(in path: String) -> Int {
        state.withLock { state in
            guard let (key, _) = Self.tableKey(for: path, in: state) else { return 0 }
            return state.tables[key]?.rows.count ?? 0
        }
    }

    /// Stores `object` in the collection at `path` without a request, validation or failure: test fixtures.
    ///
    /// The object keeps an id it has (and the id counter moves past a numeric one), or gets the next id.
    /// - Parameters:
    ///   - object: The object to store.
    ///   - path: The collection path, with parent ids filled in; it must be registered.
    /// - Returns: The stored object with its id, or `nil` when `path` is not a registered collection or `object`
    ///   is not a JSON object.
    @discardableResult
    public func insert(_ object: JSON, into path: String) -> JSON? {
        let time = now()
        return state.withLock { state -> JSON? in
            guard let (key, collection) = Self.tableKey(for: path, in: state), case .object(let members) = object
            else { return nil }
            let row = Self.store(
                members, in: key, collection: collection, style: style, time: time, state: &state, keepID: true)
            return .object(row.object)
        }
    }

    /// Removes every object, remembered idempotency key, scripted failure and recorded request; collections
    /// and custom routes stay registered and id counters restart.
    public func reset() {
        state.withLock { state in
            state.tables = [:]
            state.replays = [:]
            state.scripted = []
            state.random = nil
            state.injected = [:]
            for key in state.collections.keys { state.collections[key]?.created = 0 }
        }
        recorder.removeAll()
    }

    /// Where the collection at `path` keeps its objects.
    static func tableKey(for path: String, in state: State) -> (TableKey, Collection)? {
        let segments = path.split(separator: "/").map(String.init)
        for collection in state.collections.values {
            if let scope = collection.scope(of: segments[...]) {
                return (TableKey(collection: collection.key, scope: scope), collection)
            }
        }
        return nil
    }
}
