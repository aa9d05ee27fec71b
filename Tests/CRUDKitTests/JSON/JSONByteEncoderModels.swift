import Foundation
import Testing

@testable import CRUDKitJSON

extension JSONByteEncoderTests {
    /// A key made at run time.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A value written through a single-value container.
    struct SingleValueWrapper: Encodable {
        var value: Double
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// A linked list made as it is encoded (so a deep one is never held, or freed, recursively).
    struct Countdown: Encodable {
        var remaining: Int
        enum CodingKeys: String, CodingKey { case remaining, next }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(remaining, forKey: .remaining)
            if remaining > 0 { try container.encode(Countdown(remaining: remaining - 1), forKey: .next) }
        }
    }

    /// The ways an `encode(to:)` can use its containers.
    enum Shape: CaseIterable {
        case inOrder, reopenedKeyed, memberAfterNested, reopenedUnkeyed, noContainer, singleValue, nestedInNested
        case unusedNested, nestedSingleValueModel, reportsPaths, jsonEncodedByHand
        case nestedWrittenAfterParent, nestedUnkeyedWrittenAfterParent, superEncoder, superEncoderForKey
        case unkeyedSuperEncoder, duplicateKey, duplicateNestedKey, keyedThenUnkeyed, singleThenKeyed
        case twoSingleValues, caughtError, reopenedWrittenAfterNestedIsStillInOrder

        /// Whether the byte encoder writes it itself.
        var isDirect: Bool {
            switch self {
            case .inOrder, .reopenedKeyed, .memberAfterNested, .reopenedUnkeyed, .noContainer, .singleValue,
                .nestedInNested, .unusedNested, .nestedSingleValueModel, .reopenedWrittenAfterNestedIsStillInOrder,
                .reportsPaths, .jsonEncodedByHand:
                return true
            default: return false
            }
        }
    }

    /// A model that uses its containers as its shape says.
    struct Shaped: Encodable {
        var shape: Shape

        func encode(to encoder: any Encoder) throws {
            switch shape {
            case .inOrder:
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("firstValue"))
                var object = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("b"))
                try object.encode("c", forKey: AnyKey("c"))
                var array = container.nestedUnkeyedContainer(forKey: AnyKey("d"))
                try array.encode(1)
                try array.encode(true)
                try container.encode(Date(timeIntervalSince1970: 1), forKey: AnyKey("e"))
            case .reopenedKeyed:
                var first = encoder.container(keyedBy: AnyKey.self)
                try first.encode(1, forKey: AnyKey("a"))
                var second = encoder.container(keyedBy: AnyKey.self)
                try second.encode(2, forKey: AnyKey("b"))
                try first.encode(3, forKey: AnyKey("c"))
            case .memberAfterNested:
                var container = encoder.container(keyedBy: AnyKey.self)
                var nested = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("x"))
                try nested.encode(1, forKey: AnyKey("z"))
                try container.encode(2, forKey: AnyKey("y"))
            case .reopenedUnkeyed:
                var first = encoder.unkeyedContainer()
                try first.encode(1)
                var second = encoder.unkeyedContainer()
                try second.encode(2)
                try first.encode(3)
                #expect(first.count == 3 && second.count == 3)
            case .noContainer:
                break
            case .singleValue:
                var container = encoder.singleValueContainer()
                try container.encode("s")
            case .nestedInNested:
                var container = encoder.container(keyedBy: AnyKey.self)
                var outer = container.nestedUnkeyedContainer(forKey: AnyKey("outer"))
                var inner = outer.nestedContainer(keyedBy: AnyKey.self)
                var innermost = inner.nestedUnkeyedContainer(forKey: AnyKey("innerList"))
                try innermost.encode(UInt64.max)
                try outer.encode(Int8(-1))
                var array = outer.nestedUnkeyedContainer()
                try array.encodeNil()
                try container.encode("after", forKey: AnyKey("after"))
            case .unusedNested:
                var container = encoder.container(keyedBy: AnyKey.self)
                _ = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("x"))
                _ = container.nestedUnkeyedContainer(forKey: AnyKey("y"))
            case .nestedSingleValueModel:
                var container = encoder.unkeyedContainer()
                try container.encode(SingleValueWrapper(value: 2))
                try container.encode(Shaped(shape: .noContainer))
                try container.encode(Shaped(shape: .singleValue))
            case .jsonEncodedByHand:
                let value: JSON = ["zeta": 1, "alpha": [2, ["y": 1, "x": nil]]]
                try value.encode(to: encoder)
            case .reportsPaths:
                func describe(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: "/") }
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(describe(encoder.codingPath), forKey: AnyKey("encoder"))
                try container.encode(describe(container.codingPath), forKey: AnyKey("container"))
                var list = container.nestedUnkeyedContainer(forKey: AnyKey("list"))
                try list.encode(describe(list.codingPath))
                var inner = list.nestedContainer(keyedBy: AnyKey.self)
                try inner.encode(describe(inner.codingPath), forKey: AnyKey("inner"))
                try container.encode(Shaped(shape: .singleValue), forKey: AnyKey("child"))
            case .nestedWrittenAfterParent:
                var container = encoder.container(keyedBy: AnyKey.self)
                var nested = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("x"))
                try container.encode(1, forKey: AnyKey("y"))
                try nested.encode(2, forKey: AnyKey("z"))
            case .nestedUnkeyedWrittenAfterParent:
                var container = encoder.unkeyedContainer()
                var nested = container.nestedUnkeyedContainer()
                try container.encode(1)
                try nested.encode(2)
            case .superEncoder:
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("a"))
                var base = container.superEncoder().container(keyedBy: AnyKey.self)
                try base.encode(2, forKey: AnyKey("b"))
            case .superEncoderForKey:
                var container = encoder.container(keyedBy: AnyKey.self)
                var base = container.superEncoder(forKey: AnyKey("parentValue")).singleValueContainer()
                try base.encode(2)
                try container.encode(1, forKey: AnyKey("a"))
            case .unkeyedSuperEncoder:
                var container = encoder.unkeyedContainer()
                var base = container.superEncoder().unkeyedContainer()
                try base.encode(2)
            case .duplicateKey:
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("a"))
                try container.encode("b", forKey: AnyKey("b"))
                try container.encode(2, forKey: AnyKey("a"))
            case .duplicateNestedKey:
                var container = encoder.container(keyedBy: AnyKey.self)
                _ = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("a"))
                var again = container.nestedUnkeyedContainer(forKey: AnyKey("a"))
                try again.encode(1)
            case .keyedThenUnkeyed:
                var keyed = encoder.container(keyedBy: AnyKey.self)
                try keyed.encode(1, forKey: AnyKey("a"))
                var unkeyed = encoder.unkeyedContainer()
                try unkeyed.encode(2)
            case .singleThenKeyed:
                var single = encoder.singleValueContainer()
                try single.encode(1)
                var keyed = encoder.container(keyedBy: AnyKey.self)
                try keyed.encode(2, forKey: AnyKey("a"))
            case .twoSingleValues:
                var single = encoder.singleValueContainer()
                try single.encode(1)
                try single.encode("two")
            case .caughtError:
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("a"))
                try? container.encode(Double.nan, forKey: AnyKey("b"))
                try container.encode(3, forKey: AnyKey("c"))
            case .reopenedWrittenAfterNestedIsStillInOrder:
                var first = encoder.container(keyedBy: AnyKey.self)
                var nested = first.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("n"))
                try nested.encode(1, forKey: AnyKey("inner"))
                var second = encoder.container(keyedBy: AnyKey.self)
                try second.encode(2, forKey: AnyKey("after"))
            }
        }
    }
}
