extension StringProtocol {
    /// The text with each Unicode scalar that `replacements` names written as its replacement.
    ///
    /// Works scalar by scalar on purpose: `replacingOccurrences(of:with:)` compares `Character`s, so a CR or a
    /// quote that forms one grapheme with the combining mark after it is not found and passes through unescaped
    /// (the encoding fuzzer found a multipart part name whose CR survived that way).
    package func replacingScalars(_ replacements: [Unicode.Scalar: String]) -> String {
        var result = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if let replacement = replacements[scalar] {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
