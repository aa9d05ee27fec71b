import CRUDKit
import Foundation
import Testing

/// A PATCH keeps what the user did not touch inside a nested object: DRF stores a `JSONField` as the PATCH sends
/// it (seen on the wire: `{"settings": {"theme": "light"}}` left `{"theme": "light"}`), so the `.djangoREST` preset
/// sends a changed nested object whole.
@Suite("DRF interop: PATCH of a nested object", DRFServer.enabled)
struct DRFPatchNestedTests {
    @Test func patchingOneMemberKeepsTheOthers() async throws {
        try await withDRF { drf in
            let profiles = Profile.using(drf.api)
            let original = try await profiles.create(
                Profile(name: drf.tag, settings: Profile.Settings(theme: "dark", language: "en")))
            var edited = original
            edited.settings.theme = "light"

            let saved = try await profiles.update(edited, from: original)

            #expect(saved.settings == Profile.Settings(theme: "light", language: "en"))
            let stored = try await profiles.read(id: try #require(original.id))
            #expect(stored.settings == Profile.Settings(theme: "light", language: "en"))
            let patch = try #require(drf.wire.exchanges(.patch).first)
            #expect(patch.status == 200)
            _ = try await profiles.delete(id: try #require(stored.id))
        }
    }

    @Test func aMemberByMemberPatchLosesTheOthersOnDRF() async throws {
        // What happened before the fix, and what `diffsNestedObjects = true` still does against DRF.
        try await withDRF { drf in
            let merging = drf.api.with { $0.conventions.diffsNestedObjects = true }
            let profiles = Profile.using(merging)
            let original = try await profiles.create(
                Profile(name: drf.tag, settings: Profile.Settings(theme: "dark", language: "en")))
            var edited = original
            edited.settings.theme = "light"

            let json = try await merging.patch(
                "profiles/\(try #require(original.id))/", body: .json(try profiles.patch(for: edited, from: original)),
                as: JSON.self)

            #expect(json["settings"] == ["theme": "light"])
            _ = try await profiles.delete(id: try #require(original.id))
        }
    }
}
