import Foundation

extension HTTPRequest {
    /// Checks that the request can be sent safely: an `http` or `https` URL with a host, header names that are
    /// HTTP tokens, and header values without control characters (CR and LF above all, which would let a value
    /// inject headers).
    ///
    /// Transports call this before sending; call it yourself to fail early.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` naming the offending header or URL.
    @_spi(TransportKit) public func validate() throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw CRUDError.invalidRequest(reason: "the URL \(url.absoluteString) is not an absolute http(s) URL")
        }
        guard !method.rawValue.isEmpty, method.rawValue.utf8.allSatisfy(Self.isTokenByte) else {
            throw CRUDError.invalidRequest(reason: "the method \(method.rawValue.debugDescription) is not a token")
        }
        try validateHeaders()
    }

    /// The header part of `validate()`: names are tokens, values have no control characters.
    package func validateHeaders() throws {
        for field in headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw CRUDError.invalidRequest(
                    reason: "the header name \(field.name.debugDescription) contains characters HTTP does not allow"
                )
            }
            guard field.value.utf8.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw CRUDError.invalidRequest(
                    reason: "the value of header \(field.name) contains a control character such as CR or LF"
                )
            }
        }
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: true
        default: false
        }
    }
}
