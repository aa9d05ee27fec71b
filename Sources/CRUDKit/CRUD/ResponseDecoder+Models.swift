import Foundation

// The decoders of model answers, read the way the model's own operations read them.

extension ResponseDecoder where Value: CRUDResource {
    /// The model in the body, under its ``CRUDResource/objectKey`` when there is one, with the model's coding.
    /// - Parameter type: The model type (usually inferred).
    /// - Returns: The decoder.
    public static func model(_ type: Value.Type = Value.self) -> Self {
        Self { response, api in try ResourceScope<Value>(api: api).decodeOne(response) }
    }
}

extension ResponseDecoder {
    /// The models in the body: under the model's ``CRUDResource/collectionKey``, in an envelope (`results`, `data`,
    /// `items`), or a plain array.
    /// - Parameter type: The model type (usually inferred).
    /// - Returns: The decoder.
    public static func models<Model: CRUDResource>(_ type: Model.Type = Model.self) -> Self where Value == [Model] {
        Self { response, api in
            let scope = ResourceScope<Model>(api: api)
            let json = try scope.document(response)
            let path = Pagination.automatic.itemsPath(in: json, collectionKey: Model.collectionKey)
            do {
                return try Model.decodeResources(from: json, at: path, coding: scope.coding)
            } catch {
                throw CRUDError.decoding(error, in: response)
            }
        }
    }
}
