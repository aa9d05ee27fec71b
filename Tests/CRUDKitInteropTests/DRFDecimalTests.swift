import CRUDKit
import Foundation
import Testing

/// A decimal amount survives the trip to DRF and back: DRF renders a `DecimalField` as a string (`"12.50"`) and
/// reads a JSON number as a Python `float` first, so `123456789012345678.91` sent as a number was stored as
/// `123456789012345680.00`. The `.djangoREST` preset writes decimals as strings; a `Decimal` reads them.
@Suite("DRF interop: decimal amounts", DRFServer.enabled)
struct DRFDecimalTests {
    private static let amount = Decimal(string: "123456789012345678.91", locale: Locale(identifier: "en_US_POSIX"))!

    @Test func aLargeAmountComesBackToTheCent() async throws {
        try await withDRF { drf in
            let accounts = Profile.using(drf.api)

            var made = try await accounts.create(Profile(name: drf.tag, balance: Self.amount))
            #expect(made.balance == Self.amount)
            made.balance += Decimal(string: "0.09")!
            let updated = try await accounts.update(made)

            #expect(updated.balance == Self.amount + Decimal(string: "0.09")!)
            let stored = try await accounts.read(id: try #require(made.id))
            #expect(stored.balance == Decimal(string: "123456789012345679", locale: Locale(identifier: "en_US_POSIX")))
            let raw = try await drf.api.get("profiles/\(try #require(made.id))/", as: JSON.self)
            #expect(raw["balance"] == "123456789012345679.00")
            _ = try await accounts.delete(id: try #require(stored.id))
        }
    }

    @Test func anAmountSentAsANumberIsRoundedByDRF() async throws {
        // What happened before the fix, and what `writesDecimalsAsStrings = false` still does against DRF.
        try await withDRF { drf in
            let numbers = drf.api.with { $0.conventions.writesDecimalsAsStrings = false }
            let accounts = Profile.using(numbers)

            let made = try await accounts.create(Profile(name: drf.tag, balance: Self.amount))

            #expect(made.balance == Decimal(string: "123456789012345680", locale: Locale(identifier: "en_US_POSIX")))
            #expect(made.balance != Self.amount)
            _ = try await accounts.delete(id: try #require(made.id))
        }
    }
}
