// libFuzzer target for CRUDKit's request encodings, linked with the CRUDKitCore and CRUDKitHTTP modules (see
// .ci/fuzz.sh). It turns arbitrary bytes into form fields (text, lists, nested fields), multipart text fields and
// header fields, and checks the properties the encodings promise:
//
// 1. Query and form encoding parse back: `FormParameters.decodePairs(p.percentEncoded(style))` gives exactly
//    `p.flattened(style)`, byte for byte, in order, for both array styles; the encoded text holds only unreserved
//    bytes, `%XX`, `&` and `=`; appended to a URL's query (`HTTPRequest.appendQuery`) it is kept verbatim after the
//    existing query; as a form body (`setFormBody`) it is the body.
// 2. Multipart encoding of text fields: the body is `--B CRLF head CRLF CRLF value CRLF` per part then `--B--`,
//    each value appears exactly once between its boundaries, byte for byte; names never break the head line;
//    `encodedLength()` equals the encoded size; a part content type with a control character is refused.
// 3. Header validation: a header name or value containing CR or LF (or any byte HTTP does not allow) is refused by
//    `HTTPRequest.validate()`, and an accepted one renders as exactly one header line.
//
// A failed property stops the process with `fatalError` so libFuzzer records the input (this is a test harness,
// not library code).

@_spi(TransportKit) import CRUDKitCore
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

@testable import CRUDKitCore
@testable import CRUDKitHTTP

/// libFuzzer's entry point: checks every property on the input `start[0..<count]`; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEncoding(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: start, count: count)))
    let parameters = reader.parameters(depth: 0)
    checkFormRoundTrip(parameters)
    checkMultipart(&reader)
    checkHeaders(&reader)
    return 0
}

// MARK: - Turning bytes into inputs

/// Reads structured values from the fuzzer's bytes; past the end every read is 0 (so recursion stops).
struct FuzzReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Pieces that matter to the encodings: separators, escapes, brackets, line breaks, non-ASCII.
    static let tokens: [String] = [
        "&", "=", "+", "%", "%2B", "%20", "%zz", "%25", "%", "[]", "[", "]", "?", "#", " ", "\r\n", "\r", "\n",
        "\"", "--", "\u{0}", "\u{7F}", "é", "e\u{301}", "😀", "中", "\u{FEFF}", "\u{10FFFF}", "\t", ";", "/", "\\",
        "--B", "\r\n--B", "name=\"x\"", "Content-Type: a", "%0D%0A", "%22", "\u{2028}", "ß", "İ", "\u{200D}",
        "👩‍👩‍👧", "x", "0", "~", "-", "_", ".", "*", "'", "(", ")", "!", "$", ",", ":", "@", "`", "^", "|",
    ]

    /// A string built from ASCII bytes, chosen tokens and raw (possibly invalid, then repaired) UTF-8.
    mutating func string() -> String {
        let pieces = Int(next() % 12)
        var text = ""
        for _ in 0..<pieces {
            let byte = next()
            switch byte {
            case 0..<0x80:
                text.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x80..<0xC0:
                text += Self.tokens[Int(byte & 0x3F) % Self.tokens.count]
            default:
                let length = Int(byte & 0x0F)
                let raw = (0..<length).map { _ in next() }
                text += String(decoding: raw, as: UTF8.self)
            }
        }
        return text
    }

    mutating func value(depth: Int) -> FormValue {
        let tag = depth < 4 ? next() % 4 : 0
        switch tag {
        case 1:
            return .list((0..<Int(next() % 4)).map { _ in value(depth: depth + 1) })
        case 2:
            return .fields(parameters(depth: depth + 1))
        default:
            return .string(string())
        }
    }

    mutating func parameters(depth: Int) -> FormParameters {
        var parameters = FormParameters()
        for _ in 0..<Int(next() % 5) { parameters.append(string(), value(depth: depth)) }
        return parameters
    }
}

// MARK: - Properties

func fail(_ message: String) -> Never {
    fatalError("encoding property failed: \(message)")
}

func checkFormRoundTrip(_ parameters: FormParameters) {
    for style in [FormParameters.ArrayStyle.brackets, .repeatedKeys] {
        let expected = parameters.flattened(style: style)
        let encoded = parameters.percentEncoded(style: style)
        checkAlphabet(encoded)
        let decoded = FormParameters.decodePairs(encoded)
        guard decoded.count == expected.count else {
            fail("decodePairs gave \(decoded.count) pairs for \(expected.count) in \(encoded.debugDescription)")
        }
        for (got, want) in zip(decoded, expected) {
            guard Array(got.name.utf8) == Array(want.name.utf8), Array(got.value.utf8) == Array(want.value.utf8) else {
                fail("\(want) came back as \(got) from \(encoded.debugDescription)")
            }
        }

        guard let base = URL(string: "http://example.com/p?x=1") else { fail("base URL") }
        var request = HTTPRequest(url: base)
        do {
            try request.appendQuery(parameters, style: style)
        } catch {
            fail("appendQuery refused \(encoded.debugDescription): \(error)")
        }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        let wanted = encoded.isEmpty ? "x=1" : "x=1&" + encoded
        guard query == wanted else { fail("the URL's query is \(query.debugDescription), not \(wanted)") }

        request.setFormBody(parameters, style: style)
        guard request.body.data == Data(encoded.utf8),
            request.headers["Content-Type"] == "application/x-www-form-urlencoded"
        else { fail("the form body differs from the encoded text") }
    }
}

/// Only `A–Z a–z 0–9 - . _ ~`, `%` followed by two upper-case hex digits, `&` and `=`.
func checkAlphabet(_ encoded: String) {
    let bytes = Array(encoded.utf8)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case 65...90, 97...122, 48...57, 45, 46, 95, 126, 38, 61:
            index += 1
        case 37:
            let hex = Set("0123456789ABCDEF".utf8)
            guard index + 2 < bytes.count + 0, hex.contains(bytes[index + 1]), hex.contains(bytes[index + 2]) else {
                fail("a bad percent escape in \(encoded.debugDescription)")
            }
            index += 3
        default:
            fail("byte \(byte) left unencoded in \(encoded.debugDescription)")
        }
    }
}

func checkMultipart(_ reader: inout FuzzReader) {
    let boundary = "fuzz-" + String(reader.next() % 10) + "-boundary"
    var form = MultipartForm(boundary: boundary)
    var fields: [(name: String, value: String)] = []
    for _ in 0..<Int(reader.next() % 6) {
        let field = (name: reader.string(), value: reader.string())
        fields.append(field)
        form.append(name: field.name, value: field.value)
    }
    // A value holding the delimiter itself cannot be framed by any multipart writer; the library's default
    // boundary is random (a UUID), so such a collision is left out of the property.
    let delimiter = Array("\r\n--\(boundary)".utf8)
    if fields.contains(where: { contains(Array(("\r\n" + $0.value).utf8), delimiter) }) { return }

    let body: [UInt8]
    do {
        body = Array(try form.encodedData())
        guard try form.encodedLength() == body.count else { fail("encodedLength differs from the body") }
    } catch {
        fail("a text-only form failed to encode: \(error)")
    }
    var position = 0
    func expect(_ prefix: [UInt8], _ what: String) {
        guard body.count - position >= prefix.count, Array(body[position..<(position + prefix.count)]) == prefix else {
            fail("expected \(what) at byte \(position) of \(String(decoding: body, as: UTF8.self).debugDescription)")
        }
        position += prefix.count
    }
    for field in fields {
        expect(Array("--\(boundary)\r\n".utf8), "the boundary")
        // Scalar by scalar: `replacingOccurrences` compares Characters and misses a CR that forms one grapheme
        // with a following combining mark, the very bug this property once caught in the library.
        var escaped = ""
        for scalar in field.name.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        let head = Array("Content-Disposition: form-data; name=\"\(escaped)\"\r\n\r\n".utf8)
        guard !escaped.utf8.contains(13), !escaped.utf8.contains(10), !escaped.utf8.contains(34) else {
            fail("the part name \(field.name.debugDescription) can break its head line")
        }
        expect(head, "the head of part \(field.name.debugDescription)")
        // The value runs to the next delimiter; it must be exactly the field's value.
        guard let end = firstIndex(of: delimiter, in: body, from: position) else {
            fail("no delimiter after the value of \(field.name.debugDescription)")
        }
        guard Array(body[position..<end]) == Array(field.value.utf8) else {
            fail("the value of \(field.name.debugDescription) is not kept exactly once between its boundaries")
        }
        position = end
        expect(Array("\r\n".utf8), "the CRLF after a value")
    }
    expect(Array("--\(boundary)--\r\n".utf8), "the closing boundary")
    guard position == body.count else { fail("bytes after the closing boundary") }

    // A file part's content type with a control character is refused; a clean one is one header line.
    var files = MultipartForm(boundary: boundary)
    let contentType = reader.string()
    files.append(name: "f", data: Data(), filename: reader.string(), contentType: contentType)
    let clean = contentType.utf8.allSatisfy { $0 >= 32 && $0 != 127 }
    do {
        let encoded = try files.encodedData()
        guard clean else { fail("the content type \(contentType.debugDescription) was accepted") }
        let lines = String(decoding: encoded, as: UTF8.self).components(separatedBy: "\r\n")
        guard lines.count == 7, lines[2] == "Content-Type: \(contentType)" else {
            fail("a file part's head is not four lines: \(lines)")
        }
    } catch CRUDError.invalidRequest {
        guard !clean else { fail("the clean content type \(contentType.debugDescription) was refused") }
    } catch {
        fail("unexpected error \(error)")
    }
}

func checkHeaders(_ reader: inout FuzzReader) {
    let name = reader.string()
    let value = reader.string()
    guard let url = URL(string: "http://example.com/") else { fail("URL") }
    var headers = HTTPHeaders()
    headers.add(name: name, value: value)
    let request = HTTPRequest(url: url, headers: headers)
    let nameIsToken =
        !name.isEmpty
        && name.utf8.allSatisfy { byte in
            switch byte {
            case 48...57, 65...90, 97...122: true
            default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }
    let valueIsClean = value.utf8.allSatisfy { $0 == 9 || ($0 >= 32 && $0 != 127) }
    do {
        try request.validate()
        guard nameIsToken, valueIsClean else {
            fail("the header \(name.debugDescription): \(value.debugDescription) was accepted")
        }
        let line = "\(name): \(value)\r\n"
        guard line.utf8.filter({ $0 == 10 || $0 == 13 }).count == 2 else { fail("a header spans lines") }
    } catch CRUDError.invalidRequest {
        guard !(nameIsToken && valueIsClean) else {
            fail("the clean header \(name.debugDescription): \(value.debugDescription) was refused")
        }
    } catch {
        fail("unexpected error \(error)")
    }
}

// MARK: - Byte search

func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
    var index = start
    while index + needle.count <= haystack.count {
        if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
        index += 1
    }
    return nil
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool { firstIndex(of: needle, in: haystack, from: 0) != nil }
