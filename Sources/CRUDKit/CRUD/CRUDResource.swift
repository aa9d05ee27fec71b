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
/// `people`, `people/12`. Override ``createPath``, ``readPath``, ``updatePath``, ``deletePath`` or ``listPath``
/// when one operation lives elsewhere; every call of that operation uses it.
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
    /// | ``responseKey`` (or the API's ``APIConventions/responseKey``) | bare | read under it, or bare |
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

    /// The key answers wrap a single object in while request bodies stay bare, as Laravel's API Resources do
    /// (`{…}` in, `{"data": {…}}` out); `nil` (the default) follows the API's ``APIConventions/responseKey``.
    ///
    /// An answer is read under it when it holds an object there, and as it is otherwise. ``objectKey``, when also
    /// set, wins; with ``requestKey`` it makes a server that wraps both ways under different keys.
    ///
    /// ```swift
    /// static let responseKey: String? = "data"   // POST {"first_name": "Ada"} → 201 {"data": {"id": 1, …}}
    /// ```
    static var responseKey: String? { get }

    /// The coding this model's requests and answers use instead of the API's ``APIConfiguration/coding``;
    /// `nil` (the default) follows the API.
    ///
    /// A model whose `CodingKeys` spell the wire keys themselves (`case idNumber = "id_Number"`) must not have its
    /// keys converted from snake_case; give it ``JSONCoding/camelCase`` (keys as declared):
    ///
    /// ```swift
    /// static let coding: JSONCoding? = .camelCase
    /// ```
    static var coding: JSONCoding? { get }

    /// The key (or key path, `"data.people"`) a list arrives under (`{"people": […]}`); `nil` (the default)
    /// lets the API's ``Pagination`` find the items.
    static var collectionKey: String? { get }

    /// The collection path ``Creatable/create()->Self`` posts to (default ``path``).
    static var createPath: String { get }
    /// The collection path single values are read from (default ``path``); the id is appended.
    static var readPath: String { get }
    /// The collection path updates go to (default ``path``); the id is appended.
    static var updatePath: String { get }
    /// The collection path deletes go to (default ``path``); the id is appended.
    static var deletePath: String { get }
    /// The collection path lists are read from (default ``path``).
    static var listPath: String { get }

    /// The API this model talks to; by default ``API/shared`` at the moment of each call.
    static var api: API { get }

    /// Whether this model's URLs end with `/`; `nil` (the default) follows the API's
    /// ``APIConfiguration/trailingSlash``.
    static var trailingSlash: TrailingSlash? { get }

    /// How lists of this model are paginated; `nil` (the default) follows the API's ``APIConventions/pagination``.
    static var pagination: Pagination? { get }

    /// Maps the value at `path` of a response document (the object itself, or under ``objectKey``).
    ///
    /// The default uses `Decodable` with the API's ``JSONCoding``, or ``JSONConvertible`` when the type is that
    /// (also when it is both). Implement it only for a third way of mapping.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the object sits (`""` for the document itself).
    ///   - coding: The API's coding settings.
    /// - Returns: The model.
    /// - Throws: The mapping's error, naming the key path.
    static func decodeResource(from json: JSON, at path: String, coding: JSONCoding) throws -> Self

    /// Maps the array at `path` of a response document; an error names the failing index (`results[3].age`).
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the array sits (`""` for the document itself).
    ///   - coding: The API's coding settings.
    /// - Returns: The models, in order.
    /// - Throws: The mapping's error, naming the key path.
    static func decodeResources(from json: JSON, at path: String, coding: JSONCoding) throws -> [Self]
}

extension CRUDResource {
    /// No wrapping key.
    public static var objectKey: String? { nil }
    /// No request-only wrapping key.
    public static var requestKey: String? { nil }
    /// `nil`: the API's ``APIConventions/responseKey``.
    public static var responseKey: String? { nil }
    /// `nil`: the API's coding.
    public static var coding: JSONCoding? { nil }
    /// No collection key: the API's ``Pagination`` finds the items.
    public static var collectionKey: String? { nil }
    /// ``path``.
    public static var createPath: String { path }
    /// ``path``.
    public static var readPath: String { path }
    /// ``path``.
    public static var updatePath: String { path }
    /// ``path``.
    public static var deletePath: String { path }
    /// ``path``.
    public static var listPath: String { path }
    /// ``API/shared``, read at each call (so `API.withShared(_:operation:)` and `CRUDKit.configure` apply).
    public static var api: API { API.shared }
    /// `nil`: the API's setting.
    public static var trailingSlash: TrailingSlash? { nil }
    /// `nil`: the API's setting.
    public static var pagination: Pagination? { nil }

    /// The collection path of `operation` (``readPath`` for ``CRUDOperation/read``, and so on).
    /// - Parameter operation: The operation.
    /// - Returns: The path under the base URL (or under a parent, for a scoped model).
    public static func path(for operation: CRUDOperation) -> String {
        switch operation {
        case .create: createPath
        case .read: readPath
        case .update: updatePath
        case .delete: deletePath
        case .list: listPath
        }
    }

    /// The id as a path segment, or an ``CRUDError/invalidRequest(reason:)`` naming the operation that needs it.
    func requireID(for operation: CRUDOperation) throws -> String {
        guard let id else {
            throw CRUDError.invalidRequest(
                reason: "\(Self.self) has no id, and \(operation.rawValue) needs one for its path")
        }
        return try Self.segment(for: id, operation: operation)
    }

    /// An id as a path segment; an empty one is refused (it would name the collection instead).
    static func segment(for id: ID, operation: CRUDOperation) throws -> String {
        let text = id.description
        guard !text.isEmpty else {
            throw CRUDError.invalidRequest(
                reason: "\(Self.self) has an empty id, and \(operation.rawValue) needs one for its path")
        }
        return text
    }
}
