import Foundation

@testable import CRUDKitJSON

extension JSONByteEncoderTests {
    /// A generated model: scalars of every kind, and objects and arrays filled either through nested containers or
    /// by encoding nested models.
    indirect enum Node: Encodable {
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        case float(Float)
        case string(String)
        case bool(Bool)
        case null
        /// `encodeIfPresent(nil)` in an object, `nil` elsewhere.
        case missing
        case date(Date)
        case decimal(Decimal)
        case url(URL)
        case json(JSON)
        case dictionary([String: Node])
        case object([(key: String, value: Node)], nested: Bool)
        case array([Node], nested: Bool)

        static let keys = [
            "id", "firstName", "first_name", "URLValue", "a", "é", "quote\"d", "line\nbreak", "myURLValue", "x2",
        ]
        static let strings = ["", "plain", "é😀", "\u{2028}", "\"\\", "\u{01}ctl", "/"]
        static let doubles: [Double] = [0.1, -0.0, 1e300, .leastNonzeroMagnitude, 3, -7.25, 1e21, 123456.789]

        static func random(_ generator: inout SeededGenerator, depth: Int) -> Node {
            func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
            let kind = Int(generator.next() % (depth > 0 ? 17 : 12))
            switch kind {
            case 0: return .int(Int64(bitPattern: generator.next()) >> Int64(generator.next() % 64))
            case 1: return .uint(generator.next())
            case 2: return .double(generator.next() % 97 == 0 ? .nan : pick(doubles))
            case 3: return .float(pick([0.1, .leastNonzeroMagnitude, 16_777_216, -3.5]))
            case 4: return .string(pick(strings))
            case 5: return .bool(generator.next() % 2 == 0)
            case 6: return .null
            case 7: return .missing
            case 8: return .date(Date(timeIntervalSince1970: pick([0, 1.5, 1_700_000_000.123456, -1e9, 1e12])))
            case 9: return .decimal(pick([Decimal(string: "123456789012345678.91"), Decimal(-1), Decimal.nan]) ?? 0)
            case 10:
                return .url(
                    pick([URL(string: "https://a.example/x?y=1"), URL(string: "relative/path")])
                        ?? URL(fileURLWithPath: "/"))
            case 11: return .json(pick([["b": 1, "a": [nil, 2.5]], "text", [], .object(JSON.Object([("k", "v")]))]))
            case 12:
                var members: [String: Node] = [:]
                for _ in 0..<generator.next() % 3 { members[pick(keys)] = random(&generator, depth: depth - 1) }
                return .dictionary(members)
            case 13, 14:
                let members = (0..<generator.next() % 5).map { _ in (pick(keys), random(&generator, depth: depth - 1)) }
                return .object(members.map { (key: $0.0, value: $0.1) }, nested: generator.next() % 2 == 0)
            default:
                let items = (0..<generator.next() % 4).map { _ in random(&generator, depth: depth - 1) }
                return .array(items, nested: generator.next() % 2 == 0)
            }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .object(let members, let nested):
                var container = encoder.container(keyedBy: AnyKey.self)
                try Self.write(members, nested: nested, into: &container)
            case .array(let items, let nested):
                var container = encoder.unkeyedContainer()
                try Self.write(items, nested: nested, into: &container)
            case .dictionary(let members):
                var container = encoder.singleValueContainer()
                try container.encode(members)
            default:
                var container = encoder.singleValueContainer()
                switch self {
                case .int(let value): try container.encode(value)
                case .uint(let value): try container.encode(value)
                case .double(let value): try container.encode(value)
                case .float(let value): try container.encode(value)
                case .string(let value): try container.encode(value)
                case .bool(let value): try container.encode(value)
                case .null, .missing: try container.encodeNil()
                case .date(let value): try container.encode(value)
                case .decimal(let value): try container.encode(value)
                case .url(let value): try container.encode(value)
                case .json(let value): try container.encode(value)
                default: break
                }
            }
        }

        static func write(
            _ members: [(key: String, value: Node)], nested: Bool, into container: inout KeyedEncodingContainer<AnyKey>
        ) throws {
            for (name, value) in members {
                let key = AnyKey(name)
                switch value {
                case .object(let inner, let innerNested) where nested:
                    var object = container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
                    try write(inner, nested: innerNested, into: &object)
                case .array(let inner, let innerNested) where nested:
                    var array = container.nestedUnkeyedContainer(forKey: key)
                    try write(inner, nested: innerNested, into: &array)
                case .missing: try container.encodeIfPresent(Int?.none, forKey: key)
                case .int(let number): try container.encode(number, forKey: key)
                case .uint(let number): try container.encodeIfPresent(number, forKey: key)
                case .double(let number): try container.encode(number, forKey: key)
                case .string(let text): try container.encode(text, forKey: key)
                case .bool(let flag): try container.encode(flag, forKey: key)
                case .null: try container.encodeNil(forKey: key)
                default: try container.encode(value, forKey: key)
                }
            }
        }

        static func write(_ items: [Node], nested: Bool, into container: inout any UnkeyedEncodingContainer) throws {
            for value in items {
                switch value {
                case .object(let inner, let innerNested) where nested:
                    var object = container.nestedContainer(keyedBy: AnyKey.self)
                    try write(inner, nested: innerNested, into: &object)
                case .array(let inner, let innerNested) where nested:
                    var array = container.nestedUnkeyedContainer()
                    try write(inner, nested: innerNested, into: &array)
                case .missing: try container.encode(Int?.none)
                case .int(let number): try container.encode(number)
                case .float(let number): try container.encode(number)
                case .string(let text): try container.encode(text)
                case .null: try container.encodeNil()
                default: try container.encode(value)
                }
            }
        }
    }
}
