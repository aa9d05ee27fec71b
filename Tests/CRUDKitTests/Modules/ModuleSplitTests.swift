import Foundation
import Testing

@testable import CRUDKit

/// What must not change for a user when CRUDKit's layers became modules (README, "Architecture").
@Suite struct ModuleSplitTests {
    /// `CRUDError` now lives in `CRUDKitCore`. Bridged to `NSError` (logs, crash reporters) it keeps its codes (Swift's
    /// defaults: payload cases first, in declaration order, then `cancelled`, 11 since `incompleteList` joined the
    /// payload cases) and its sentence as the localized
    /// description; only the domain names the new module (`CRUDKitCore.CRUDError`, CHANGELOG). A `CustomNSError`
    /// conformance that pinned the old domain would drop the sentence on Linux (its default `errorUserInfo` is
    /// empty), which this test catches.
    @Test func crudErrorBridgesToNSErrorWithItsCodesAndSentence() {
        let cancelled = CRUDError.cancelled as NSError
        #expect(cancelled.domain == String(reflecting: CRUDError.self))
        #expect(cancelled.code == 11)
        let invalid = CRUDError.invalidRequest(reason: "no id") as NSError
        #expect(invalid.code == 0)
        #expect(invalid.localizedDescription == "The request was not sent: no id.")
    }

    /// The names a user writes with the module's name in front still resolve through `import CRUDKit`.
    @Test func moduleQualifiedNamesStillResolve() {
        let json: CRUDKit.JSON = ["a": 1]
        let error: CRUDKit.CRUDError = .cancelled
        let future = CRUDKit.Future<Int>(value: 1)
        #expect(json["a"] == 1)
        #expect(error.isCancelled)
        #expect(future.isCompleted)
    }
}
