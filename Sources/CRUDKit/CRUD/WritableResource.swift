import Foundation

/// A ``CRUDResource`` that can be sent to the server: the base of ``Creatable`` and ``Updatable``.
///
/// `Encodable` models are written with the API's ``JSONCoding``; ``JSONAttributable`` models with their
/// ``JSONAttributable/attributes``. When a type is both, its attributes win (as its hand mapping wins for
/// reading).
///
/// A `nil` optional property of an `Encodable` model is left out of a `POST` body (the server's default applies),
/// written as `null` in a `PUT` body (a replacement clears what you cleared; see ``putNilEncoding``) and becomes
/// `null` in a `PATCH` diff (see ``Updatable/update(from:)->Self``). ``JSONAttribute/absent`` is never sent.
///
/// ```swift
/// ada.favoriteColor = nil
/// try await ada.update()   // PUT {"id": 12, "first_name": "Ada", …, "favorite_color": null}
/// ```
public protocol WritableResource: CRUDResource {
    /// What a `nil` optional property becomes in this model's `PUT` body; `nil` (the default) follows the API's
    /// ``APIConventions/putNilEncoding`` (`null` unless changed). Say ``JSONCoding/NilEncoding/omit`` for a
    /// server that treats a `PUT` as a partial update and must not see `null`s.
    static var putNilEncoding: JSONCoding.NilEncoding? { get }

    /// The JSON object that represents this value in a request body, without ``CRUDResource/objectKey``.
    /// - Parameter coding: The API's coding settings.
    /// - Returns: The value as JSON.
    /// - Throws: An `EncodingError` when a property cannot be encoded.
    func resourceJSON(coding: JSONCoding) throws -> JSON
}

extension WritableResource {
    /// `nil`: the API's ``APIConventions/putNilEncoding``.
    public static var putNilEncoding: JSONCoding.NilEncoding? { nil }

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

// MARK: - Default mappings

extension WritableResource where Self: Encodable {
    /// The value encoded with `coding` (`firstName` as `first_name` by default; `nil` optionals left out, or
    /// `null` when ``JSONCoding/nilEncoding`` says so, as it does for a `PUT`).
    /// - Parameter coding: The API's coding settings.
    /// - Returns: The value as JSON.
    /// - Throws: An `EncodingError` when a property cannot be encoded.
    public func resourceJSON(coding: JSONCoding) throws -> JSON {
        try coding.encodeJSON(self)
    }
}

extension WritableResource where Self: JSONAttributable {
    /// The value's ``JSONAttributable/attributes`` (keys as written, `.absent` ones left out).
    /// - Parameter coding: Not used: the attributes say exactly what is sent.
    /// - Returns: The value as JSON.
    public func resourceJSON(coding: JSONCoding) throws -> JSON {
        jsonValue
    }
}

extension WritableResource where Self: JSONAttributable & Encodable {
    /// The value's ``JSONAttributable/attributes``: for a type that is both, the hand mapping wins.
    /// - Parameter coding: Not used: the attributes say exactly what is sent.
    /// - Returns: The value as JSON.
    public func resourceJSON(coding: JSONCoding) throws -> JSON {
        jsonValue
    }
}
