import Foundation

/// A ``CRUDResource`` that can be sent to the server: the base of ``Creatable`` and ``Updatable``.
///
/// `Encodable` models are written with the API's ``JSONCoding``; ``JSONAttributable`` models with their
/// ``JSONAttributable/attributes``. When a type is both, its attributes win (as its hand mapping wins for
/// reading).
///
/// A `nil` optional property of an `Encodable` model is left out of a `POST` body (the server's default applies),
/// written as `null` in a `PUT` body (a replacement clears what you cleared; see
/// ``APIConventions/putNilEncoding``) and becomes
/// `null` in a `PATCH` diff (see ``Updatable/update(from:)->Self``). ``JSONAttribute/absent`` is never sent.
///
/// ```swift
/// ada.favoriteColor = nil
/// try await ada.update()   // PUT {"id": 12, "first_name": "Ada", …, "favorite_color": null}
/// ```
public protocol WritableResource: CRUDResource {}

extension WritableResource {
    /// The JSON object that represents this value in a request body, without ``CRUDResource/objectKey``: its
    /// ``JSONAttributable/attributes`` when it is ``JSONAttributable`` (also when it is `Encodable` too: the hand
    /// mapping wins), else the value encoded with `coding` (`firstName` as `first_name` by default; `nil` optionals
    /// left out, or `null` when ``JSONCoding/nilEncoding`` says so, as it does for a `PUT`).
    /// - Parameter coding: The coding settings of the call.
    /// - Returns: The value as JSON.
    /// - Throws: An `EncodingError` when a property cannot be encoded; ``CRUDError/invalidRequest(reason:)`` for a
    ///   type that is neither.
    package func resourceJSON(coding: JSONCoding) throws -> JSON {
        if let attributable = self as? any JSONAttributable { return attributable.jsonValue }
        if let encodable = self as? any Encodable { return try coding.encodeJSON(encodable) }
        throw Self.unmappable("JSONAttributable or Encodable")
    }

    /// The body of a request: ``resourceJSON(coding:)`` wrapped in ``CRUDResource/objectKey`` (or
    /// ``CRUDResource/requestKey``) when there is one.
    func requestJSON(coding: JSONCoding) throws -> JSON {
        Self.wrap(try encoded(coding: coding))
    }

    /// ``resourceJSON(coding:)`` with an encoding failure as ``CRUDError/invalidRequest(reason:)``.
    func encoded(coding: JSONCoding) throws -> JSON {
        do {
            return try resourceJSON(coding: coding)
        } catch let error as CRUDError {
            throw error
        } catch {
            throw CRUDError.invalidRequest(reason: "\(Self.self) could not be encoded as JSON: \(error)")
        }
    }

    /// `json` under ``CRUDResource/objectKey`` (or ``CRUDResource/requestKey``), or as it is.
    static func wrap(_ json: JSON) -> JSON {
        guard let key = objectKey ?? requestKey else { return json }
        var object = JSON.Object()
        object[key] = json
        return .object(object)
    }
}
