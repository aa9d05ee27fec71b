/// Refuses header fields that would break or smuggle into the request: a name that is not an HTTP token, or a value
/// with CR, LF or NUL.
package enum HeaderValidation {
    /// Checks every field of `headers`.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` naming the first bad field.
    package static func check(_ headers: HTTPHeaders) throws {
        for field in headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenByte) else {
                throw CRUDError.invalidRequest(reason: "the header name `\(field.name)` is not a valid HTTP token")
            }
            if field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
                throw CRUDError.invalidRequest(
                    reason: "the value of the header `\(field.name)` contains a line break (CR or LF) or NUL")
            }
        }
    }

    /// `tchar` of RFC 9110: visible ASCII except the separators.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
