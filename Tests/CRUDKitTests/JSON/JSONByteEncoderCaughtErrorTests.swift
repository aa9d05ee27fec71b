import Foundation
import Testing

@testable import CRUDKitJSON

/// A model may catch the error of one of its members (`try?`) and go on. The byte encoder has written the member's
/// key (or the element's comma) by then; the output must still be the tree encoder's, which leaves the member out
/// (red-team finding: `{"a":1,"b":,"c":3}` and `[1,,3]` for a date outside 0000–9999, an infinite date and
/// `Decimal.nan`; and a child that wrote part of itself before throwing kept that part).
@Suite struct JSONByteEncoderCaughtErrorTests {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Boom: Error {}

    /// Catches the error of its middle member and writes one more after it.
    struct CaughtBadValue: Encodable {
        enum Bad: CaseIterable { case date, infiniteDate, decimal }
        var bad: Bad
        var unkeyed: Bool

        func encode(to encoder: any Encoder) throws {
            let value: any Encodable =
                switch bad {
                case .date: Date(timeIntervalSince1970: 1e12)
                case .infiniteDate: Date(timeIntervalSince1970: .infinity)
                case .decimal: Decimal.nan
                }
            if unkeyed {
                var container = encoder.unkeyedContainer()
                try container.encode(1)
                try? container.encode(value)
                try container.encode(3)
            } else {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: Key("a"))
                try? container.encode(value, forKey: Key("b"))
                try container.encode(3, forKey: Key("c"))
            }
        }
    }

    /// Writes part of itself, then throws.
    struct PartialThrower: Encodable {
        enum Way: CaseIterable { case nothing, singleValue, keyedMember, unkeyedElement }
        var way: Way

        func encode(to encoder: any Encoder) throws {
            switch way {
            case .nothing: break
            case .singleValue:
                var container = encoder.singleValueContainer()
                try container.encode(5)
            case .keyedMember:
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: Key("x"))
            case .unkeyedElement:
                var container = encoder.unkeyedContainer()
                try container.encode(1)
            }
            throw Boom()
        }
    }

    /// Catches the error of its last member.
    struct CatchesLastMember: Encodable {
        var way: PartialThrower.Way
        var unkeyed: Bool

        func encode(to encoder: any Encoder) throws {
            if unkeyed {
                var container = encoder.unkeyedContainer()
                try container.encode("first")
                try? container.encode(PartialThrower(way: way))
            } else {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode("first", forKey: Key("a"))
                try? container.encode(PartialThrower(way: way), forKey: Key("b"))
            }
        }
    }

    @Test func aCaughtDateOrDecimalErrorLeavesNoHalfWrittenMember() throws {
        #expect(
            JSONByteEncoderTests.encoded(CaughtBadValue(bad: .decimal, unkeyed: false), .default) == #"{"a":1,"c":3}"#)
        #expect(JSONByteEncoderTests.encoded(CaughtBadValue(bad: .date, unkeyed: true), .default) == "[1,3]")
        for bad in CaughtBadValue.Bad.allCases {
            for unkeyed in [false, true] {
                let value = CaughtBadValue(bad: bad, unkeyed: unkeyed)
                for coding in JSONByteEncoderTests.codings {
                    let bytes = JSONByteEncoderTests.encoded(value, coding)
                    #expect(bytes == JSONByteEncoderTests.tree(value, coding), "\(bad), unkeyed: \(unkeyed), \(coding)")
                    #expect(
                        (try? JSONSerialization.jsonObject(with: Data(bytes.utf8))) != nil,
                        "not JSON: \(bytes) (\(bad), unkeyed: \(unkeyed))")
                }
            }
        }
    }

    @Test func aCaughtErrorOfTheLastMemberLeavesNothingOfItBehind() throws {
        for way in PartialThrower.Way.allCases {
            for unkeyed in [false, true] {
                let value = CatchesLastMember(way: way, unkeyed: unkeyed)
                for coding in JSONByteEncoderTests.codings {
                    let bytes = JSONByteEncoderTests.encoded(value, coding)
                    #expect(bytes == JSONByteEncoderTests.tree(value, coding), "\(way), unkeyed: \(unkeyed), \(coding)")
                    #expect(
                        (try? JSONSerialization.jsonObject(with: Data(bytes.utf8))) != nil,
                        "not JSON: \(bytes) (\(way), unkeyed: \(unkeyed))")
                }
            }
        }
    }
}
