import Foundation

/// A deterministic OpenAPI 3.1 document of a chosen size, for the benchmark and the large-document test: `n`
/// schemas, one resource (collection and member paths) per five schemas, properties of every mapped kind
/// (dates, date-only, UUIDs, int64, decimals, enums, nullable fields, `$ref`s to earlier schemas, nested objects,
/// dictionaries), and a discriminated union every fifty schemas.
public enum SyntheticDocument {
    /// The document as JSON bytes.
    /// - Parameter schemas: How many component schemas.
    /// - Returns: The document.
    public static func json(schemas: Int) -> Data {
        var paths: [String] = []
        var components: [String] = []
        for index in 0..<max(1, schemas) {
            let name = "Thing\(index)"
            if index % 50 == 49 {
                let first = "Thing\(index - 2)"
                let second = "Thing\(index - 1)"
                components.append(
                    """
                    "\(name)": {"oneOf": [{"$ref": "#/components/schemas/\(first)"}, \
                    {"$ref": "#/components/schemas/\(second)"}], "discriminator": {"propertyName": "kind", \
                    "mapping": {"a": "#/components/schemas/\(first)", "b": "#/components/schemas/\(second)"}}}
                    """)
                continue
            }
            let reference =
                index > 0 && index % 50 != 0
                ? ", \"previous\": {\"$ref\": \"#/components/schemas/Thing\(index - 1)\"}" : ""
            components.append(
                """
                "\(name)": {"type": "object", "description": "Thing number \(index).", \
                "required": ["id", "name", "created_at", "kind"], "properties": {\
                "id": {"type": "integer", "format": "int64", "readOnly": true}, \
                "kind": {"type": "string"}, \
                "name": {"type": "string", "description": "The name."}, \
                "created_at": {"type": "string", "format": "date-time", "readOnly": true}, \
                "born_on": {"type": "string", "format": "date"}, \
                "uuid": {"type": "string", "format": "uuid"}, \
                "amount": {"type": "string", "format": "decimal"}, \
                "status": {"type": "string", "enum": ["active", "inactive", "banned"]}, \
                "nickname": {"type": ["string", "null"]}, \
                "tags": {"type": "array", "items": {"type": "string"}}, \
                "labels": {"type": "object", "additionalProperties": {"type": "integer"}}, \
                "address": {"type": "object", "properties": {"street": {"type": "string"}, "zip": {"type": "string"}}}, \
                "secret": {"type": "string", "writeOnly": true}\(reference)}}
                """)
            if index % 5 == 0 {
                let collection = "things\(index)"
                paths.append(
                    """
                    "/\(collection)": {"get": {"operationId": "list\(index)", "responses": {"200": {"description": "ok", \
                    "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/\(name)"}}}}}}}, \
                    "post": {"operationId": "create\(index)", "requestBody": {"content": {"application/json": {"schema": \
                    {"$ref": "#/components/schemas/\(name)"}}}}, "responses": {"201": {"description": "created", "content": \
                    {"application/json": {"schema": {"$ref": "#/components/schemas/\(name)"}}}}}}}, \
                    "/\(collection)/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": \
                    {"type": "integer", "format": "int64"}}], "get": {"operationId": "read\(index)", "responses": {"200": \
                    {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/\(name)"}}}}}}, \
                    "delete": {"operationId": "delete\(index)", "responses": {"204": {"description": "gone"}}}}
                    """)
            }
        }
        let text = """
            {"openapi": "3.1.0", "info": {"title": "Synthetic", "version": "1"}, "paths": {\(paths.joined(separator: ", "))}, \
            "components": {"schemas": {\(components.joined(separator: ", "))}}}
            """
        return Data(text.utf8)
    }
}
