import Foundation

extension CRUDError {
    /// What an error body says, as a description shows it: the messages about the whole request, then each field's.
    package struct BodySummary: Sendable {
        /// Messages that belong to no field.
        package var messages: [String]
        /// Each field's messages, in the order they are shown.
        package var fields: [(name: String, messages: [String])]

        /// Creates a summary.
        package init(messages: [String], fields: [(name: String, messages: [String])]) {
            self.messages = messages
            self.fields = fields
        }
    }

    /// Reads an error body into a ``BodySummary`` for descriptions. `CRUDKit`, which owns the error body reader
    /// (`ServerErrorDetails`), installs it when its first `API` is made; without it a description quotes the body.
    package static let bodyReader = Locked<(@Sendable (HTTPResponse) -> BodySummary?)?>(nil)

    /// The most characters of one message (or field name) a description shows.
    static let summaryMessageLength = 160
    /// The most fields (and messages per field) a description shows.
    static let summaryFields = 20

    /// The parsed messages of `response`'s body, each bounded, or `nil` when none were read.
    static func summary(of response: HTTPResponse) -> String? {
        guard let reader = bodyReader.withLock({ $0 }), let summary = reader(response) else { return nil }
        var parts = summary.messages.prefix(summaryFields).map(bounded)
        for field in summary.fields.prefix(summaryFields) {
            let messages = field.messages.prefix(summaryFields).map(bounded).joined(separator: " ")
            parts.append("\(bounded(field.name)): \(messages)")
        }
        if summary.fields.count > summaryFields {
            parts.append("and \(summary.fields.count - summaryFields) more fields")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// `text` on one line, cut to ``summaryMessageLength`` characters (with `…` when cut).
    private static func bounded(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > summaryMessageLength ? String(line.prefix(summaryMessageLength)) + "…" : line
    }
}
