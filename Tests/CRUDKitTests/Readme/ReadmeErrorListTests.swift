import Foundation
import Testing

@testable import CRUDKit

/// README's list of `CRUDError` cases, compiled as an exhaustive `switch` (a new case stops this file compiling
/// until README names it) and compared with the list README prints.
@Suite struct ReadmeErrorListTests {
    /// The case names in README's order; the `switch` has no `default`, so every case must be here.
    static func readmeName(of error: CRUDError) -> String {
        switch error {
        case .invalidRequest: "invalidRequest"
        case .transport: "transport"
        case .timedOut: "timedOut"
        case .cancelled: "cancelled"
        case .httpStatus: "httpStatus"
        case .conflict: "conflict"
        case .validation: "validation"
        case .decoding: "decoding"
        case .responseTooLarge: "responseTooLarge"
        case .tooManyRedirects: "tooManyRedirects"
        case .writeAccepted: "writeAccepted"
        case .incompleteList: "incompleteList"
        }
    }

    /// The names the `switch` above answers, in README's order.
    static let names = [
        "invalidRequest", "transport", "timedOut", "cancelled", "httpStatus", "conflict", "validation", "decoding",
        "responseTooLarge", "tooManyRedirects", "writeAccepted", "incompleteList",
    ]

    @Test func theSwitchAnswersTheListedNames() {
        let response = HTTPResponse(status: 500)
        let samples: [CRUDError] = [
            .invalidRequest(reason: ""), .cancelled, .httpStatus(response), .conflict(response),
            .validation(message: "", response: response), .responseTooLarge(limit: 1), .tooManyRedirects(limit: 1),
            .writeAccepted(response, failure: .cancelled),
        ]
        for sample in samples {
            #expect(Self.names.contains(Self.readmeName(of: sample)))
            #expect(sample.caseName.prefix { $0 != "(" } == Self.readmeName(of: sample))
        }
    }

    @Test func readmeListsEveryCase() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "every failure is a `CRUDError` ("))
        let end = try #require(readme[start.upperBound...].firstIndex(of: ")"))
        let listed = readme[start.upperBound..<end]
            .replacingOccurrences(of: "\n", with: " ")
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "and ", with: "") }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }
        #expect(listed == Self.names)
    }
}
