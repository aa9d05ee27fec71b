import Foundation

/// snake_case ↔ camelCase key conversion, with the same results as `JSONDecoder.KeyDecodingStrategy
/// .convertFromSnakeCase` and `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`, so both decoding engines
/// agree.
package enum JSONKeyConversion {
    /// `first_name` → `firstName`; `_id` and `name_` keep their outer underscores; a key without underscores is
    /// left as it is.
    package static func camelCase(fromSnakeCase key: String) -> String {
        guard key.utf8.contains(UInt8(ascii: "_")),
            let first = key.firstIndex(where: { $0 != "_" })
        else { return key }
        var last = key.index(before: key.endIndex)
        while last > first, key[last] == "_" { key.formIndex(before: &last) }
        let core = key[first...last]
        let words = core.split(separator: "_")
        guard words.count > 1 else { return key }
        var joined = words[0].lowercased()
        for word in words.dropFirst() { joined += word.capitalized }
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }

    /// `firstName` → `first_name`, `myURLValue` → `my_url_value`: a word starts at each capital, and a run of
    /// capitals is one word (its last capital starting the next word when a lowercase letter follows).
    package static func snakeCase(fromCamelCase key: String) -> String {
        var hasUppercase = false
        for byte in key.utf8 where byte >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) {
            hasUppercase = true
            break
        }
        guard hasUppercase else { return key }
        let scalars = Array(key.unicodeScalars)
        guard scalars.count > 1 else { return key.lowercased() }
        func isUpper(_ scalar: Unicode.Scalar) -> Bool {
            let category = scalar.properties.generalCategory
            return category == .uppercaseLetter || category == .titlecaseLetter
        }
        func isLower(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .lowercaseLetter }
        var words: [Range<Int>] = []
        var wordStart = 0
        var searchStart = 1
        while let upper = (searchStart..<scalars.count).first(where: { isUpper(scalars[$0]) }) {
            words.append(wordStart..<upper)
            guard let lower = (upper..<scalars.count).first(where: { isLower(scalars[$0]) }) else {
                wordStart = upper
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(upper..<(lower - 1))
                wordStart = lower - 1
            }
            searchStart = lower + 1
            if searchStart >= scalars.count { break }
        }
        words.append(wordStart..<scalars.count)
        return words.map { range in
            var word = String.UnicodeScalarView()
            word.append(contentsOf: scalars[range])
            return String(word).lowercased()
        }.joined(separator: "_")
    }
}
