/// Percent-encoding of URL path segments and query components.
///
/// Only the unreserved characters of RFC 3986 (`A-Z a-z 0-9 - . _ ~`) are kept; every other byte of the UTF-8
/// form is written as `%XX`. So `/`, `?`, `#`, `&`, `=`, `+`, `%` and spaces never change the structure of a URL.
package enum PercentEncoding {
    /// Encodes one path segment; the dot segments `.` and `..` are encoded too, so that no URL normalisation
    /// (in Foundation, a proxy or the server) can step out of the collection.
    package static func segment(_ text: String) -> String {
        if text == "." { return "%2E" }
        if text == ".." { return "%2E%2E" }
        return component(text)
    }

    /// Encodes a query name or value, or any other component.
    package static func component(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy(isUnreserved) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Encodes query items as `name=value&name=value`, in order; an item without a value is written as `name`.
    package static func query(_ items: some Sequence<(name: String, value: String?)>) -> String {
        var result = ""
        for item in items {
            if !result.isEmpty { result += "&" }
            result += component(item.name)
            if let value = item.value { result += "=" + component(value) }
        }
        return result
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
