import Foundation
import Testing

@testable import CRUDKit

@Suite struct CRUDErrorDecodingTests {
    struct Person: Decodable { var age: Int }

    private func failure(_ error: CRUDError) -> CRUDError.DecodingFailure? {
        if case .decoding(let failure) = error { return failure }
        return nil
    }

    @Test func everyMappingFailureBecomesADecodingError() throws {
        let body = try JSONMappingTests.fixture("json-drf-bad-age")
        let codable = #expect(throws: DecodingError.self) {
            try JSONCoding.default.decode([Person].self, from: body, at: "results")
        }
        let hand = #expect(throws: JSONMappingError.self) {
            try JSON(data: body).convert([JSONMappingTests.HandPerson].self, at: "results")
        }
        for error in [codable as (any Error)?, hand] {
            let thrown = try #require(error)
            let mapped = try #require(failure(CRUDError.decoding(thrown, body: body)))
            #expect(mapped.keyPath == "results[3].age")
            #expect(mapped.expected == "Int")
            #expect(mapped.found == #"a string "forty""#)
            #expect(mapped.bodySnippet == String(decoding: body.prefix(200), as: UTF8.self))
        }
    }

    @Test func malformedBodiesAndOtherErrors() throws {
        let body = Data("{\"a\": [1,]}".utf8)
        let parse = #expect(throws: JSONError.self) { try JSON(data: body) }
        let thrown = try #require(parse)
        let mapped = try #require(failure(CRUDError.decoding(thrown, body: body)))
        #expect(mapped.keyPath == "")
        #expect(mapped.expected == "a value after ','")
        #expect(mapped.found.contains("line 1, column 9"))
        struct Other: Error {}
        #expect(failure(CRUDError.decoding(Other(), body: body))?.expected == "a decodable body")
        #expect(failure(CRUDError.decoding(CRUDError.cancelled, body: body)) == nil)
    }
}
