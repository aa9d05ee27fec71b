import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// The same raw requests (``FidelityStep/script(tag:)``: create, read, pages, PUT and PATCH, validation errors,
/// 404s, conditional headers, trailing slashes, wrong methods, nested posts) sent through `Transport.send` to the
/// live DRF server and to `InMemoryBackend(style: .drf)` set up as the server's models are: status, media type,
/// `ETag`/`Last-Modified`/`Location`, pagination signals, error shapes and what each write kept or cleared must
/// agree. A difference fails unless ``DRFFidelityAllowList`` (beside this file) lists it with its reason; a listed
/// difference that no longer occurs fails too, so the list stays true.
@Suite("DRF interop: InMemoryBackend(style: .drf) answers as the server does", DRFServer.enabled)
struct DRFFidelityTests {
    @Test func theDoubleAnswersTheScriptAsTheServerDoes() async throws {
        let base = try DRFServer.baseURL()
        let tag = "F" + UUID().uuidString.prefix(12).lowercased()
        let script = FidelityStep.script(tag: tag)

        let server = try await Self.run(script, base: base, transport: URLSessionTransport())
        let double = try await Self.run(script, base: base, transport: Self.backend())
        let allowed = DRFFidelityAllowList.entries

        var differences: [String] = []
        for key in Set(server.keys).union(double.keys).sorted() where server[key] != double[key] {
            differences.append(key)
            if DRFFidelityAllowList.reason(for: key) == nil {
                Issue.record("\(key): server \(server[key] ?? "(none)"), InMemoryBackend \(double[key] ?? "(none)")")
            }
        }
        for key in allowed.keys.sorted() where !differences.contains(where: { DRFFidelityAllowList.matches(key, $0) }) {
            Issue.record("DRFFidelityAllowList lists \(key), which no longer differs: remove it")
        }
        #expect(server.count > 300, "the script compares every point it names")
        print("DRF fidelity: \(script.count) requests, \(server.count) points compared, \(differences.count) allowed")
    }

    /// `InMemoryBackend(style: .drf)` with the interop server's models: their columns and defaults, the
    /// `created_at` of Person, and validators saying what the serializers say.
    static func backend() -> InMemoryBackend {
        let backend = InMemoryBackend(style: .drf)
        backend.register(
            "people", columns: ["first_name": "", "last_name": "", "age": nil, "email": "", "favorite_color": nil],
            timestamps: .init(created: "created_at", updated: nil, fractionDigits: 6)
        ) { person, isCreate in
            var errors: [String: [String]] = [:]
            for field in ["first_name", "last_name"] {
                switch person.value(forKey: field) {
                case nil where isCreate: errors[field] = ["This field is required."]
                case .some(.null): errors[field] = ["This field may not be null."]
                case .some(.string("")): errors[field] = ["This field may not be blank."]
                default: break
                }
            }
            if let age = person["age"].int, age < 0 {
                errors["age"] = ["Ensure this value is greater than or equal to 0."]
            }
            if person.value(forKey: "email") == .null { errors["email"] = ["This field may not be null."] }
            if errors.isEmpty, let first = person["first_name"].string, first == person["last_name"].string {
                errors[InMemoryBackend.nonFieldErrorsKey] = ["first_name and last_name must differ."]
            }
            return errors
        }
        backend.register("people/{person_pk}/posts", parentKey: "person", columns: ["title": "", "body": ""]) {
            post, isCreate in
            post.value(forKey: "title") == nil && isCreate ? ["title": ["This field is required."]] : [:]
        }
        return backend
    }

    /// Sends `script` through `transport`, and returns each answer's points by `"step: point"`.
    static func run(_ script: [FidelityStep], base: URL, transport: any Transport) async throws -> [String: String] {
        var ids: [String: String] = [:]
        var points: [String: String] = [:]
        for step in script {
            let response = try await transport.send(try step.request(base: base, ids: ids))
            let json = try? JSON(data: response.body)
            if let name = step.captures, let id = json?["id"], !id.isNull { ids[name] = id.description }
            for (point, value) in FidelityPoints.of(response, json: json, base: base, ids: ids) {
                points["\(step.name): \(point)"] = value
            }
        }
        return points
    }
}
