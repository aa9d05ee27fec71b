import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A PATCH must not drop what the user did not touch. Rails, Django REST framework, FastAPI and Vapor replace a
/// nested value (a JSON column, a nested struct) with the one a PATCH carries, so a member-by-member diff of a
/// nested object (`{"settings": {"theme": "light"}}`) silently deleted every other member of it on those servers.
/// The framework presets send a changed nested object whole; ``APIConventions/standard`` keeps the JSON Merge
/// Patch (RFC 7396) for servers that merge it.
@Suite struct PatchNestedObjectTests {
    struct Settings: Codable, Hashable {
        var theme: String
        var language: String
        var fontSize: Int?
    }

    struct Profile: CRUDModel, Codable, Hashable {
        static let path = "profiles"
        var id: Int?
        var name: String
        var settings: Settings
        var tags: [String]
    }

    private static let base = URL(string: "https://api.example.com/v1")!

    /// A backend with profile 1 stored, its keys written as `conventions` write them (`fontSize` for Vapor).
    private static func backend(
        _ style: InMemoryBackend.Style, conventions: APIConventions = .standard
    ) -> InMemoryBackend {
        let backend = InMemoryBackend(style: style)
        backend.register("profiles", ids: .incrementing)
        backend.insert(
            [
                "name": "Ada", "settings": ["theme": "dark", "language": "en", fontSizeKey(conventions): 14],
                "tags": ["a", "b"],
            ],
            into: "profiles")
        return backend
    }

    private static func fontSizeKey(_ conventions: APIConventions) -> String {
        conventions == .vapor ? "fontSize" : "font_size"
    }

    /// Each framework preset with the backend style that answers like that framework.
    static let frameworks: [String] = ["djangoREST", "rails", "fastAPI", "vapor"]

    private static func preset(_ name: String) -> (APIConventions, InMemoryBackend.Style) {
        switch name {
        case "djangoREST": (.djangoREST, .drf)
        case "rails": (.rails, .rails)
        case "fastAPI": (.fastAPI, .fastAPI)
        default: (.vapor, .vapor)
        }
    }

    @Test(arguments: frameworks)
    func aFrameworkPresetSendsAChangedNestedObjectWhole(preset: String) async throws {
        let (conventions, style) = Self.preset(preset)
        let server = Self.backend(style, conventions: conventions)
        let profiles = Profile.using(API(baseURL: Self.base, conventions: conventions, transport: server))
        let original = try await profiles.read(id: 1)
        var edited = original
        edited.settings.theme = "light"

        let saved = try await profiles.update(edited, from: original)

        let patch = try #require(server.recorder.requests(.patch, "profiles/:id").last)
        let key = Self.fontSizeKey(conventions)
        #expect(patch.json == ["settings": ["theme": "light", "language": "en", key: 14]], "\(conventions.name)")
        #expect(saved.settings == Settings(theme: "light", language: "en", fontSize: 14), "\(conventions.name)")
        #expect(try await profiles.read(id: 1).settings.language == "en", "\(conventions.name)")
    }

    @Test(arguments: frameworks)
    func theFrameworkBackendsReplaceANestedObject(preset: String) async throws {
        let (conventions, style) = Self.preset(preset)
        // What the frameworks do, seen live for DRF (Tests/Interop/drf, `/profiles/`): a PATCH stores the nested
        // object it carries in place of the old one.
        let server = Self.backend(style, conventions: conventions)
        let api = API(baseURL: Self.base, conventions: conventions, transport: server)

        _ = try await api.patch(
            conventions == .djangoREST ? "profiles/1/" : "profiles/1", body: .json(["settings": ["theme": "light"]]))

        #expect(server.record(in: "profiles", id: 1)?["settings"] == ["theme": "light"], "\(conventions.name)")
        #expect(server.record(in: "profiles", id: 1)?["settings"].object?.count == 1)
        #expect(server.record(in: "profiles", id: 1)?["tags"] == ["a", "b"])
    }

    @Test func theStandardConventionsSendAMergePatch() async throws {
        let server = Self.backend(InMemoryBackend.Style())
        let profiles = Profile.using(API(baseURL: Self.base, transport: server))
        let original = try await profiles.read(id: 1)
        var edited = original
        edited.settings.theme = "light"
        edited.settings.fontSize = nil

        let saved = try await profiles.update(edited, from: original)

        let patch = try #require(server.recorder.requests(.patch, "profiles/:id").last)
        #expect(patch.json == ["settings": ["theme": "light", "font_size": nil]])
        #expect(saved.settings == Settings(theme: "light", language: "en", fontSize: nil))
        #expect(server.record(in: "profiles", id: 1)?["settings"] == ["theme": "light", "language": "en"])
    }

    @Test func theSettingIsTheAPIsAndCanBeChanged() async throws {
        #expect(APIConventions.standard.diffsNestedObjects)
        for preset in [APIConventions.djangoREST, .rails, .fastAPI, .vapor, .jsonAPI] {
            #expect(!preset.diffsNestedObjects, "\(preset.name)")
        }
        var merging = APIConventions.djangoREST
        merging.diffsNestedObjects = true
        let server = Self.backend(InMemoryBackend.Style(trailingSlash: .always))
        let profiles = Profile.using(API(baseURL: Self.base, conventions: merging, transport: server))
        let original = try await profiles.read(id: 1)
        var edited = original
        edited.settings.language = "fr"

        #expect(try profiles.patch(for: edited, from: original) == ["settings": ["language": "fr"]])
        _ = try await profiles.update(edited, from: original)

        #expect(server.recorder.requests(.patch, "profiles/:id").last?.json == ["settings": ["language": "fr"]])
    }

    @Test func patchForShowsTheBodyTheConventionsSend() async throws {
        let server = Self.backend(.rails)
        let profiles = Profile.using(API(baseURL: Self.base, conventions: .rails, transport: server))
        let original = try await profiles.read(id: 1)
        var edited = original
        edited.settings.fontSize = 16
        edited.name = "Ada L."

        #expect(
            try profiles.patch(for: edited, from: original)
                == ["name": "Ada L.", "settings": ["theme": "dark", "language": "en", "font_size": 16]])
        #expect(try profiles.patch(for: original, from: original) == [:])
    }

    @Test func aVersionedUpdateOfChangesFollowsTheConventionsToo() async throws {
        let server = Self.backend(.drf)
        let profiles = Profile.using(API(baseURL: Self.base, conventions: .djangoREST, transport: server))
        var tagged = try await profiles.readTagged(id: 1)
        tagged.settings.theme = "light"

        let saved = try await tagged.updateChanges()

        #expect(
            server.recorder.requests(.patch, "profiles/:id").last?.json
                == ["settings": ["theme": "light", "language": "en", "font_size": 14]])
        #expect(saved.value.settings.language == "en")
        #expect(try await profiles.read(id: 1).settings.language == "en")
    }
}
