import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Django REST framework (`DecimalField`, `COERCE_DECIMAL_TO_STRING`) and Rails (`BigDecimal#as_json`) send decimal
/// amounts as JSON strings (`"price": "12.50"`), so that no JSON parser reads them as a `Double`. A `Decimal`
/// reads such a string exactly; anything but exactly one JSON number is still refused.
@Suite struct DecimalStringTests {
    struct Item: Codable, Hashable {
        var price: Decimal
        var discount: Decimal?
    }

    private func decode(_ price: String) throws -> Item {
        try JSONCoding.default.decode(Item.self, from: try JSON(string: #"{"price": \#(price)}"#))
    }

    @Test(arguments: [
        ("\"12.50\"", "12.5"), ("\"0.00\"", "0"), ("\"-3\"", "-3"), ("\"1e3\"", "1000"),
        ("\"1234567890.123456789\"", "1234567890.123456789"),
        ("\"99999999999999999999999999999999999999\"", "99999999999999999999999999999999999999"),
        ("12.50", "12.5"),
    ])
    func aDecimalReadsAnAmountSentAsAString(json: String, expected: String) throws {
        let item = try decode(json)
        #expect(item.price == Decimal(string: expected, locale: Locale(identifier: "en_US_POSIX")))
        #expect(try JSON(string: json).decimal == item.price)
        #expect(try JSON(string: json).convert(Decimal.self) == item.price)
    }

    @Test(arguments: [
        "\" 12\"", "\"12 \"", "\"+1\"", "\"NaN\"", "\"Infinity\"", "\"abc\"", "\"\"", "\"1.\"", "\".5\"", "\"0x10\"",
        "\"012\"", "\"1,5\"", "\"١٢\"", "\"12abc\"", "\"-\"",
    ])
    func anythingButOneJSONNumberIsRefused(json: String) throws {
        #expect(throws: DecodingError.self) { try decode(json) }
        #expect(try JSON(string: json).decimal == nil)
        #expect(throws: JSONMappingError.self) { try JSON(string: json).convert(Decimal.self) }
    }

    @Test func anAmountTooPreciseForDecimalIsRefusedNotRounded() throws {
        let text = "\"1.000000000000000000000000000000000000001\""
        #expect(throws: DecodingError.self) { try decode(text) }
        #expect(try JSON(string: text).decimal == nil)
    }

    @Test func anOptionalAmountAndOtherTypesAreUnchanged() throws {
        let item = try JSONCoding.default.decode(
            Item.self, from: try JSON(string: #"{"price": "1.10", "discount": "0.25"}"#))
        #expect(item.discount == Decimal(string: "0.25", locale: Locale(identifier: "en_US_POSIX")))
        struct Count: Codable { var count: Int }
        #expect(throws: DecodingError.self) {
            try JSONCoding.default.decode(Count.self, from: try JSON(string: #"{"count": "12"}"#))
        }
        // Written back as a number: Django REST framework and Rails read a number for a decimal field too.
        #expect(try JSONCoding.default.encodeJSON(item) == ["price": 1.1, "discount": 0.25])
    }
}

/// Django REST framework, Rails and FastAPI read a JSON number as a `Double` before making it a decimal: DRF stored
/// `123456789012345678.91` sent as a number as `123456789012345680.00` (seen live, `Tests/Interop/drf`). Their
/// presets write `Decimal`s as strings, which those frameworks read exactly.
@Suite struct DecimalWritingTests {
    struct Account: CRUDModel, Codable, Hashable {
        static let path = "accounts"
        var id: Int?
        var owner: String
        var balance: Decimal
        var limit: Decimal?
    }

    /// The same account with a coding of its own.
    struct CamelAccount: CRUDModel, Codable, Hashable {
        static let path = "accounts"
        static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.coding = .camelCase } }
        var id: Int?
        var owner: String
        var balance: Decimal
    }

    private static let base = URL(string: "https://api.example.com/v1")!
    private static let amount = Decimal(string: "123456789012345678.91", locale: Locale(identifier: "en_US_POSIX"))!

    private static func backend(_ style: InMemoryBackend.Style) -> InMemoryBackend {
        let backend = InMemoryBackend(style: style)
        backend.register("accounts", ids: .incrementing)
        return backend
    }

    @Test(arguments: ["djangoREST", "rails", "fastAPI"])
    func theFrameworkPresetsWriteDecimalsAsStrings(preset: String) async throws {
        let (conventions, style): (APIConventions, InMemoryBackend.Style) =
            switch preset {
            case "djangoREST": (.djangoREST, .drf)
            case "rails": (.rails, .rails)
            default: (.fastAPI, .fastAPI)
            }
        let server = Self.backend(style)
        let accounts = Account.using(API(baseURL: Self.base, conventions: conventions, transport: server))

        var made = try await accounts.create(Account(owner: "Ada", balance: Self.amount, limit: 12.5))
        made.balance += 1
        _ = try await accounts.update(made)

        let post = try #require(server.recorder.requests(.post, "accounts").last)
        #expect(post.json["balance"] == "123456789012345678.91", "\(preset)")
        #expect(post.json["limit"] == "12.5", "\(preset)")
        let put = try #require(server.recorder.requests(.put, "accounts/:id").last)
        #expect(put.json["balance"] == "123456789012345679.91", "\(preset)")
        #expect(made.balance - 1 == Self.amount, "\(preset)")  // read back from the string the server stored
        #expect(try await accounts.read(id: 1).balance == Self.amount + 1, "\(preset)")
    }

    @Test(arguments: ["standard", "vapor", "jsonAPI"])
    func theOtherPresetsWriteNumbers(preset: String) async throws {
        let conventions: APIConventions =
            switch preset {
            case "standard": .standard
            case "vapor": .vapor
            default: .jsonAPI
            }
        let server = Self.backend(InMemoryBackend.Style())
        let accounts = Account.using(API(baseURL: Self.base, conventions: conventions, transport: server))

        _ = try await accounts.create(Account(owner: "Ada", balance: Self.amount))

        let post = try #require(server.recorder.requests(.post, "accounts").last)
        // JSON:API sends the model's fields as a resource object's attributes.
        let fields = preset == "jsonAPI" ? post.json["data"]["attributes"] : post.json
        #expect(fields["balance"].number != nil, "\(preset)")
        #expect(fields["balance"].decimal == Self.amount, "\(preset)")
        #expect(!conventions.writesDecimalsAsStrings)
    }

    @Test func everyBodyTheAPIEncodesFollowsTheConventions() async throws {
        let server = Self.backend(.drf)
        let api = API(baseURL: Self.base, conventions: .djangoREST, transport: server)

        _ = try await CamelAccount.using(api).create(CamelAccount(owner: "Ada", balance: Self.amount))
        _ = try await api.post("accounts/", body: .json(Account(owner: "Grace", balance: 0.1)))

        let posts = server.recorder.requests(.post, "accounts")
        #expect(posts.first?.json["balance"] == "123456789012345678.91")  // a model's own coding too
        #expect(posts.last?.json["balance"] == "0.1")
        #expect(api.configuration.coding == .default)  // the API's coding itself is left as it was
    }

    @Test func theCodingOptionWorksOnItsOwnAndWithEitherEngine() throws {
        for engine in [JSONCoding.Engine.native, .foundation] {
            let coding = JSONCoding(engine: engine, writesDecimalsAsStrings: true)
            let account = Account(owner: "Ada", balance: Self.amount, limit: nil)
            #expect(try coding.encodeJSON(account) == ["owner": "Ada", "balance": "123456789012345678.91"])
            // `JSONDecoder` (the `.foundation` engine) reads a `Decimal` only from a number; the native one reads both.
            #expect(try JSONCoding.default.decode(Account.self, from: coding.encode(account)) == account)
        }
        #expect(!JSONCoding.default.writesDecimalsAsStrings)
        #expect(try JSONCoding.default.encodeJSON(Account(owner: "Ada", balance: 1.5))["balance"] == 1.5)
    }
}
