/// Percent-encoding of URL path segments.
///
/// Only the unreserved characters of RFC 3986 (`A-Z a-z 0-9 - . _ ~`) are kept; every other byte of the UTF-8
/// form is written as `%XX` (the rule of `FormParameters.percentEncode(_:)`), so `/`, `?`, `#`, `%` and spaces
/// never change the structure of a URL.
package enum PercentEncoding {
    /// Encodes one path segment; the dot segments `.` and `..` are encoded too, so that no URL normalisation
    /// (in Foundation, a proxy or the server) can step out of the collection.
    package static func segment(_ text: String) -> String {
        if text == "." { return "%2E" }
        if text == ".." { return "%2E%2E" }
        return FormParameters.percentEncode(text)
    }
}
