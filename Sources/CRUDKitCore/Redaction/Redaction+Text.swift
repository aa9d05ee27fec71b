import Foundation

extension Redaction {
    /// The shortest credential value ``redact(text:hiding:)`` masks wherever it appears; shorter ones would mask
    /// ordinary words and numbers.
    package static let minimumHiddenValueLength = 6

    /// `text` with every secret it shows replaced by `placeholder`: free text, a quoted body, a reason.
    ///
    /// Hidden are
    /// - each of `values` (at least `minimumHiddenValueLength` (6) characters) wherever it appears: the credentials
    ///   the request sent, which a server may echo;
    /// - the user info secret of a URL (`https://user:secret@…`, `https://secret@…`);
    /// - the value of a query parameter or form field that the redaction hides (`?token=…`,
    ///   `password=…&…`);
    /// - the value of a JSON (or Python-style) key that names a secret (`"refresh_token": "…"`, `'password': …`);
    /// - the rest of a `Name: value` line whose name the redaction hides (`Authorization: Bearer …`);
    /// - the credential after `Bearer` or `Basic`.
    ///
    /// - Complexity: O(*n*) in the length of `text`, plus one search per value.
    /// - Parameters:
    ///   - text: What would be shown.
    ///   - values: Secret values to mask wherever they appear.
    /// - Returns: The text with its secrets hidden.
    public func redact(text: String, hiding values: [String] = []) -> String {
        var text = text
        for value in values.sorted(by: { $0.utf8.count > $1.utf8.count })
        where value.utf8.count >= Self.minimumHiddenValueLength && text.contains(value) {
            text = text.replacingOccurrences(of: value, with: Self.placeholder)
        }
        var scanner = SecretScanner(bytes: Array(text.utf8), redaction: self)
        scanner.scan()
        guard !scanner.masks.isEmpty else { return text }
        return scanner.output()
    }
}

/// Finds the byte ranges of secrets in a text, by the rules of ``Redaction/redact(text:hiding:)``.
private struct SecretScanner {
    let bytes: [UInt8]
    let redaction: Redaction
    var masks: [Range<Int>] = []

    init(bytes: [UInt8], redaction: Redaction) {
        self.bytes = bytes
        self.redaction = redaction
    }

    private static let equals = UInt8(ascii: "="), colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
    private static let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
    private static let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
    /// The longest name looked at; longer runs are not names.
    private static let nameLimit = 128
    /// How far after a multipart part's name its blank line is looked for.
    private static let partHeaderLimit = 1024

    mutating func scan() {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var next = index + 1
            if byte == Self.equals {
                next = maskPairValue(at: index) ?? next
            } else if byte == Self.colon {
                if index + 2 < bytes.count && bytes[index + 1] == Self.slash && bytes[index + 2] == Self.slash {
                    maskUserInfo(from: index + 3)
                    next = index + 3
                } else {
                    next = maskKeyValue(at: index) ?? maskHeaderLine(at: index) ?? next
                }
            } else if byte | 0x20 == UInt8(ascii: "b") {
                next = maskSchemeCredential(at: index) ?? next
            }
            index = max(next, index + 1)
        }
    }

    /// The text with each mask replaced by the placeholder, overlapping masks merged.
    func output() -> String {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var position = 0
        for mask in masks.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if mask.lowerBound >= position {
                result += bytes[position..<mask.lowerBound]
                result += Redaction.placeholder.utf8
                position = mask.upperBound
            } else if mask.upperBound > position {
                position = mask.upperBound
            }
        }
        result += bytes[position...]
        return String(decoding: result, as: UTF8.self)
    }

    private mutating func mask(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if range.count == Redaction.placeholder.utf8.count
            && bytes[range].elementsEqual(Redaction.placeholder.utf8)
        {
            return
        }
        masks.append(range)
    }

    // MARK: - Rules

    /// `name=value` (a query, a form body, a cookie): the value of a secret name, up to a delimiter.
    private mutating func maskPairValue(at equals: Int) -> Int? {
        var start = equals
        while start > 0, equals - start < Self.nameLimit, Self.isParameterNameByte(bytes[start - 1]) { start -= 1 }
        guard start < equals else { return nil }
        let raw = String(decoding: bytes[start..<equals], as: UTF8.self)
        if raw.lowercased() == "name" { return maskMultipartValue(named: equals + 1) }
        guard redaction.hidesQueryParameter(raw.removingPercentEncoding ?? raw) else { return nil }
        var end = equals + 1
        if end < bytes.count, bytes[end] == Self.quote {
            end = closingQuote(after: end, quote: Self.quote)
            mask(equals + 2..<end)
            return end
        }
        while end < bytes.count, !Self.isValueDelimiter(bytes[end]) { end += 1 }
        mask(equals + 1..<end)
        return end
    }

    /// `Content-Disposition: form-data; name="password"`, a blank line, the value: the value of a secret part, up
    /// to the next boundary line.
    private mutating func maskMultipartValue(named open: Int) -> Int? {
        guard open < bytes.count, bytes[open] == Self.quote else { return nil }
        let close = closingQuote(after: open, quote: Self.quote)
        guard close < bytes.count else { return nil }
        let field = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        // The part's headers end within a few hundred bytes; looking no further keeps the scan linear.
        guard redaction.hidesQueryParameter(field),
            let blank = firstIndex(of: "\r\n\r\n", from: close, within: Self.partHeaderLimit)
        else { return nil }
        let end = firstIndex(of: "\r\n--", from: blank + 4) ?? bytes.count
        mask(blank + 4..<end)
        return end
    }

    /// `scheme://user:secret@host` or `scheme://secret@host`: the secret of the user info.
    private mutating func maskUserInfo(from authorityStart: Int) {
        var end = authorityStart
        var at: Int?
        var colon: Int?
        while end < bytes.count {
            let byte = bytes[end]
            if byte == Self.slash || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
                || Self.isTextDelimiter(byte)
            {
                break
            }
            if byte == UInt8(ascii: "@") { at = end }
            end += 1
        }
        guard let at, at > authorityStart else { return }
        for index in authorityStart..<at where bytes[index] == Self.colon {
            colon = index
            break
        }
        mask((colon.map { $0 + 1 } ?? authorityStart)..<at)
    }

    /// `"name": value` or `'name': value` (JSON, a Python dict): the value of a secret key.
    private mutating func maskKeyValue(at colon: Int) -> Int? {
        var keyEnd = colon - 1
        while keyEnd >= 0, bytes[keyEnd] == Self.space || bytes[keyEnd] == Self.tab { keyEnd -= 1 }
        guard keyEnd > 0, bytes[keyEnd] == Self.quote || bytes[keyEnd] == Self.apostrophe else { return nil }
        let quote = bytes[keyEnd]
        let escaped = bytes[keyEnd - 1] == Self.backslash
        let nameEnd = escaped ? keyEnd - 1 : keyEnd
        var keyStart = nameEnd - 1
        while keyStart >= 0, nameEnd - keyStart <= Self.nameLimit, bytes[keyStart] != quote { keyStart -= 1 }
        guard keyStart >= 0, bytes[keyStart] == quote else { return nil }
        let name = Self.unescaped(bytes[(keyStart + 1)..<nameEnd])
        guard redaction.hidesQueryParameter(name) || redaction.hidesHeader(name) else { return nil }
        var start = colon + 1
        while start < bytes.count, bytes[start] == Self.space || bytes[start] == Self.tab { start += 1 }
        guard start < bytes.count else { return nil }
        if escaped, start + 1 < bytes.count, bytes[start] == Self.backslash, bytes[start + 1] == quote {
            var end = start + 2
            while end < bytes.count, bytes[end] != Self.backslash, bytes[end] != quote { end += 1 }
            mask(start + 2..<end)
            return end
        }
        switch bytes[start] {
        case quote:
            let end = closingQuote(after: start, quote: quote)
            mask(start + 1..<end)
            return end
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let end = closingBracket(from: start)
            mask(start..<end)
            return end
        default:
            var end = start
            while end < bytes.count, !Self.isScalarDelimiter(bytes[end]) { end += 1 }
            mask(start..<end)
            return end
        }
    }

    /// `Name: value` where the header name hides its value: the rest of the line.
    private mutating func maskHeaderLine(at colon: Int) -> Int? {
        var start = colon
        while start > 0, colon - start < Self.nameLimit, Self.isHeaderNameByte(bytes[start - 1]) { start -= 1 }
        guard start < colon else { return nil }
        let name = String(decoding: bytes[start..<colon], as: UTF8.self)
        guard redaction.hidesHeader(name) else { return nil }
        var valueStart = colon + 1
        while valueStart < bytes.count, bytes[valueStart] == Self.space || bytes[valueStart] == Self.tab {
            valueStart += 1
        }
        var end = valueStart
        while end < bytes.count, !Self.isLineEnd(bytes[end]) { end += 1 }
        mask(valueStart..<end)
        return end
    }

    /// `Bearer <credential>` or `Basic <credential>`: the credential, when it is at least 8 characters long.
    private mutating func maskSchemeCredential(at index: Int) -> Int? {
        if index > 0, Self.isAlphanumeric(bytes[index - 1]) { return nil }
        var after: Int?
        for word in ["bearer", "basic"] {
            let end = index + word.utf8.count
            guard end < bytes.count else { continue }
            if zip(bytes[index..<end], word.utf8).allSatisfy({ $0 | 0x20 == $1 }) {
                after = end
                break
            }
        }
        guard var start = after, bytes[start] == Self.space else { return nil }
        while start < bytes.count, bytes[start] == Self.space { start += 1 }
        var end = start
        while end < bytes.count, Self.isToken68Byte(bytes[end]) { end += 1 }
        guard end - start >= 8 else { return nil }
        mask(start..<end)
        return end
    }

    // MARK: - Scanning helpers

    /// The index of the quote closing the string opened at `open` (an escaped quote does not close it), or the
    /// end of the text when it is cut.
    private func closingQuote(after open: Int, quote: UInt8) -> Int {
        var index = open + 1
        while index < bytes.count {
            if bytes[index] == Self.backslash {
                index += 2
                continue
            }
            if bytes[index] == quote { return index }
            index += 1
        }
        return bytes.count
    }

    /// The index just past the bracket closing the one at `open` (strings skipped), or the end of the text.
    private func closingBracket(from open: Int) -> Int {
        var depth = 0
        var index = open
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index + 1 }
            case Self.quote: index = closingQuote(after: index, quote: Self.quote)
            default: break
            }
            index += 1
        }
        return bytes.count
    }

    /// The first index at or after `start` (and before `start + limit`, if given) where `pattern` begins.
    private func firstIndex(of pattern: String, from start: Int, within limit: Int? = nil) -> Int? {
        let needle = Array(pattern.utf8)
        let last = min(bytes.count, limit.map { start + $0 } ?? bytes.count) - needle.count
        guard start <= last else { return nil }
        for index in start...last where bytes[index] == needle[0] {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }

    /// A key's name as its reader sees it: JSON escapes (`"tok\u0065n"`, `"pass\/word"`) decoded, as many times as
    /// a body quoting JSON inside a JSON string (`\\u0065`) escapes them, at most four.
    private static func unescaped(_ name: ArraySlice<UInt8>) -> String {
        var name = Array(name)
        for _ in 0..<4 where name.contains(backslash) {
            guard let decoded = decodingEscapes(name), decoded != name else { break }
            name = decoded
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The byte each one-character JSON escape stands for (`\n` for `n`, …).
    private static let simpleEscapes: [UInt8: UInt8] = [
        quote: quote, backslash: backslash, slash: slash, UInt8(ascii: "b"): 8, UInt8(ascii: "f"): 12,
        UInt8(ascii: "n"): newline, UInt8(ascii: "r"): carriageReturn, UInt8(ascii: "t"): tab,
    ]

    /// `name` with one level of JSON escapes decoded (`\uXXXX`, surrogate pairs included, and `\"`, `\\`, `\/`,
    /// `\b`, `\f`, `\n`, `\r`, `\t`); `nil` when an escape is malformed.
    private static func decodingEscapes(_ name: [UInt8]) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(name.count)
        var index = 0
        var pendingHigh: UInt32?
        while index < name.count {
            let byte = name[index]
            guard byte == backslash, index + 1 < name.count else {
                result.append(byte)
                index += 1
                continue
            }
            let escape = name[index + 1]
            guard escape == UInt8(ascii: "u") else {
                guard let decoded = simpleEscapes[escape] else { return nil }
                result.append(decoded)
                index += 2
                continue
            }
            guard index + 6 <= name.count,
                let code = UInt32(String(decoding: name[(index + 2)..<(index + 6)], as: UTF8.self), radix: 16)
            else { return nil }
            index += 6
            if (0xD800..<0xDC00).contains(code) {
                pendingHigh = code
                continue
            }
            var value = code
            if let high = pendingHigh, (0xDC00..<0xE000).contains(code) {
                value = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
            }
            pendingHigh = nil
            guard let scalar = Unicode.Scalar(value) else { return nil }
            result += Array(String(scalar).utf8)
        }
        return result
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isParameterNameByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "%")
    }

    private static func isHeaderNameByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isToken68Byte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "-._~+/=".utf8.contains(byte)
    }

    private static func isLineEnd(_ byte: UInt8) -> Bool {
        byte == newline || byte == carriageReturn || byte == UInt8(ascii: "<") || byte == quote || byte == backslash
    }

    private static func isTextDelimiter(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || isLineEnd(byte) || byte == apostrophe || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "`") || byte == UInt8(ascii: ")")
    }

    private static func isValueDelimiter(_ byte: UInt8) -> Bool {
        isTextDelimiter(byte) || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";")
            || byte == UInt8(ascii: ",")
    }

    private static func isScalarDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == space
            || byte == tab || byte == newline || byte == carriageReturn
    }
}
