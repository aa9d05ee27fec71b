/// A model with all five operations: ``Creatable``, ``Readable``, ``Updatable``, ``Deletable`` and
/// ``Enumeratable``.
///
/// ```swift
/// struct Person: CRUDModel, Codable {
///     static let path = "people"
///     var id: Int?
///     var firstName: String
///     var lastName: String
///     var favoriteColor: String?
/// }
/// ```
public typealias CRUDModel = Creatable & Readable & Updatable & Deletable & Enumeratable
