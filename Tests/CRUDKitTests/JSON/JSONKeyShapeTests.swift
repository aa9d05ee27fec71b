import Foundation
import Testing

@testable import CRUDKitJSON

/// The tree decoder converts the keys of objects with the same keys once and tries the key after the last one found
/// first (issue 24): neither may change which member a key reads.
@Suite struct JSONKeyShapeTests {
    private struct Pair: Decodable, Equatable {
        var firstName: String
        var lastName: String?
    }

    /// Reads its keys in the opposite order of the document's.
    private struct Backwards: Decodable, Equatable {
        var values: [Int]
        private enum Key: String, CodingKey { case aB, cD, eF }
        init(values: [Int]) { self.values = values }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            values = [
                try container.decode(Int.self, forKey: .eF), try container.decode(Int.self, forKey: .cD),
                try container.decode(Int.self, forKey: .aB),
            ]
        }
    }

    @Test func twoKeysConvertingAlikeReadTheFirstInEveryElement() throws {
        let json = try JSON(
            string: #"[{"first_name":"a","firstName":"b"},{"first_name":"c","firstName":"d"},{"firstName":"e"}]"#)
        let pairs = try json.decode([Pair].self)
        #expect(pairs == [Pair(firstName: "a"), Pair(firstName: "c"), Pair(firstName: "e")])
    }

    @Test func objectsWithTheSameNumberOfDifferentKeysAreNotConfused() throws {
        let json = try JSON(
            string:
                #"[{"first_name":"a","last_name":"b"},{"last_name":"c","first_name":"d"},{"first_name":"e","x_y":1}]"#
        )
        let pairs = try json.decode([Pair].self)
        #expect(
            pairs == [Pair(firstName: "a", lastName: "b"), Pair(firstName: "d", lastName: "c"), Pair(firstName: "e")])
    }

    @Test func keysReadInAnotherOrderFindTheirMembers() throws {
        let json = try JSON(string: #"[{"a_b":1,"c_d":2,"e_f":3},{"a_b":4,"c_d":5,"e_f":6},{"e_f":9,"a_b":7,"c_d":8}]"#)
        let decoded = try json.decode([Backwards].self)
        #expect(
            decoded == [Backwards(values: [3, 2, 1]), Backwards(values: [6, 5, 4]), Backwards(values: [9, 8, 7])])
    }

    @Test func anArrayElementThatFailsNamesItsIndex() throws {
        let json = try JSON(string: #"[{"first_name":"a"},{"first_name":1}]"#)
        let error = try #require(throws: DecodingError.self) { try json.decode([Pair].self) }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["Index 1", "firstName"])
        #expect(context.codingPath.first?.intValue == 1)
    }
}
