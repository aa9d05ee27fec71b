import Foundation

/// A model that lives on a server under a collection path: the base of ``Creatable``, ``Readable``,
/// ``Updatable``, ``Deletable`` and ``Enumeratable``.
///
/// A conforming type names its collection and has an optional `id`; everything else has a default.
///
/// ```swift
/// struct Person: CRUDModel, Codable {
///     static let path = "people"
///     var id: Int?
///     var firstName: String
/// }
/// ```
///
/// The paths are derived from ``path`` and the id, each id percent-encoded as exactly one segment:
/// `people`, `people/12`. Implement ``path(for:)`` when one operation lives elsewhere; every call of that
/// operation uses it.
///
/// Settings come in two layers: the API's ``APIConventions`` (``APIConfiguration/conventions``), then this model's
/// ``conventions(from:)``, which gets the API's and returns them with the fields this model changes.
///
/// A model maps through `Codable` or through ``JSONConvertible`` (reading) and ``JSONAttributable`` (writing);
/// either is enough. When a type has both, the hand mapping wins: it is the one somebody wrote on purpose.
public protocol CRUDResource: Sendable {
    /// The type of the id: `Int`, `String`, `UUID`, or any type whose `description` is the id as it appears in
    /// the path (every `LosslessStringConvertible` type qualifies).
    associatedtype ID: Hashable & Sendable & CustomStringConvertible

    /// The collection's path under the API's base URL, such as `"people"` or `"admin/people"`.
    static var path: String { get }

    /// The id the server gave this value; `nil` before it is created.
    var id: ID? { get }

    /// The key a single object is wrapped in, both ways (`{"person": {…}}`); `nil` (the default) for none.
    ///
    /// Requests are wrapped under it. An answer is read under it when it holds an object there, and as it is
    /// otherwise (a bare answer, as ActiveResource's `remove_root` reads one): a Rails app with `wrap_parameters`
    /// answers `{"id": …}` to a `{"person": {…}}` create. The three root keys:
    ///
    /// | key | requests | answers |
    /// |---|---|---|
    /// | ``objectKey`` | wrapped | read under it, or bare |
    /// | ``requestKey`` | wrapped | bare, or under it when it is the only member |
    /// | ``APIConventions/responseKey`` (see ``conventions(from:)``) | bare | read under it, or bare |
    static var objectKey: String? { get }

    /// The key a request body is wrapped in when the server answers bare JSON, as Rails' `wrap_parameters` does
    /// (`{"person": {…}}` in, `{…}` out); `nil` (the default) for none.
    ///
    /// Requests are wrapped under it; an answer is read under it when it is an object whose only member is this
    /// key, and as it is otherwise, so either form is accepted. ``objectKey``, when also set, wins both ways.
    ///
    /// ```swift
    /// static let requestKey: String? = "person"   // POST {"person": {"first_name": "Ada"}} → 201 {"id": 1, …}
    /// ```
    static var requestKey: String? { get }

    /// The key (or key path, `"data.people"`) a list arrives under (`{"people": […]}`); `nil` (the default)
    /// lets the API's ``Pagination`` find the items.
    static var collectionKey: String? { get }

    /// The collection path of `operation`, under the API's base URL (or under a parent, for a scoped model); the
    /// id is appended for a single value. The default is ``path`` for every operation; implement it when one
    /// operation lives elsewhere:
    ///
    /// ```swift
    /// static func path(for operation: CRUDOperation) -> String {
    ///     operation == .read ? "things/lookup" : path
    /// }
    /// ```
    /// - Parameter operation: The operation.
    /// - Returns: The collection path, such as `"people"`.
    static func path(for operation: CRUDOperation) -> String

    /// The API this model talks to; by default ``API/shared`` at the moment of each call.
    ///
    /// A value read, created or listed through another API (``using(_:)``) or under a parent (``scoped(to:api:)``)
    /// writes back there, not here (see <doc:Models>, "Where a value's writes go").
    static var api: API { get }

    /// The collection path of the parent this model lives under, and only under: `"people"` for posts reached at
    /// `/people/{id}/posts`; `nil` (the default) when the model's ``path`` also works at the top level.
    ///
    /// With a parent path, an operation through a scope without a parent (`Post.read(id:)`, `Post.using(api)`, or
    /// an instance write of a value built by hand) is refused before sending, naming ``scoped(to:api:)``.
    ///
    /// ```swift
    /// static let parentPath: String? = "people"
    /// ```
    static var parentPath: String? { get }

    /// The conventions this model's requests and answers follow: the API's (`api`, its
    /// ``APIConfiguration/conventions``) with the fields this model changes; the default changes nothing.
    ///
    /// Every field the model sets wins over the API's, field by field; what it leaves alone follows the API. The
    /// model's trailing slash, query style, pagination, coding, `PUT` nil encoding, response key, nested-object
    /// diffing and decimal writing apply to its calls; ``APIConventions/errorShape`` and
    /// ``APIConventions/authorizationScheme`` stay the API's (``API/serverErrors(in:)`` and the `Authorization`
    /// header belong to the API, not to one model).
    ///
    /// A model whose `CodingKeys` spell the wire keys themselves (`case idNumber = "id_Number"`) must not have its
    /// keys converted from snake_case:
    ///
    /// ```swift
    /// static func conventions(from api: APIConventions) -> APIConventions {
    ///     api.with { $0.coding = .camelCase }
    /// }
    /// ```
    /// - Parameter api: The conventions of the API the call goes through.
    /// - Returns: The conventions of this model's calls.
    static func conventions(from api: APIConventions) -> APIConventions
}

extension CRUDResource {
    /// No wrapping key.
    public static var objectKey: String? { nil }
    /// No request-only wrapping key.
    public static var requestKey: String? { nil }
    /// No collection key: the API's ``Pagination`` finds the items.
    public static var collectionKey: String? { nil }
    /// ``API/shared``, read at each call (so `API.withShared(_:operation:)` and a newly set ``API/shared`` apply).
    public static var api: API { API.shared }
    /// No parent: the model's ``path`` works at the top level.
    public static var parentPath: String? { nil }
    /// ``path``, for every operation.
    /// - Parameter operation: The operation.
    /// - Returns: ``path``.
    public static func path(for operation: CRUDOperation) -> String { path }

    /// The API's conventions, unchanged.
    /// - Parameter api: The API's conventions.
    /// - Returns: `api`.
    public static func conventions(from api: APIConventions) -> APIConventions { api }

    /// The id as a path segment, or an ``CRUDError/invalidRequest(reason:)`` naming the operation that needs it.
    func requireID(for operation: CRUDOperation) throws -> String {
        guard let id else {
            throw CRUDError.invalidRequest(
                reason: "\(Self.self) has no id, and \(operation) needs one for its path")
        }
        return try Self.segment(for: id, operation: operation)
    }

    /// An id as a path segment; an empty one is refused (it would name the collection instead).
    static func segment(for id: ID, operation: CRUDOperation) throws -> String {
        let text = id.description
        guard !text.isEmpty else {
            throw CRUDError.invalidRequest(
                reason: "\(Self.self) has an empty id, and \(operation) needs one for its path")
        }
        return text
    }
}
