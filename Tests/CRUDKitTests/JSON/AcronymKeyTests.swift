import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Swift names acronyms in capitals (`imageURL`, `userID`, `isHTTPS`). With snake_case conversion (the default)
/// the encoder writes `image_url`, but `JSONDecoder`'s rule reads `image_url` back as `imageUrl`, which is not
/// `imageURL`: the property came back `nil`, and the next PUT sent `"image_url": null`, clearing the server's
/// value. CRUDKit's decoder also matches the key its encoder writes.
@Suite struct AcronymKeyTests {
    struct Photo: CRUDModel, Codable, Hashable {
        static let path = "photos"
        var id: Int?
        var title: String
        var imageURL: String?
        var ownerID: Int?
        var isHTTPS: Bool?
    }

    @Test func aModelWithAcronymsReadsBackWhatItWrites() throws {
        let photo = Photo(id: 1, title: "t", imageURL: "https://x/1.png", ownerID: 7, isHTTPS: true)
        let written = try JSONCoding.default.encode(photo)
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains(#""image_url":"https://x/1.png""#) && text.contains(#""owner_id":7"#), "\(text)")
        #expect(try JSONCoding.default.decode(Photo.self, from: written) == photo)
        // A server's own document, as Django or Rails writes it.
        let server = #"{"id": 1, "title": "t", "image_url": "https://x/1.png", "owner_id": 7, "is_https": true}"#
        let read = try JSONCoding.default.decode(Photo.self, from: Data(server.utf8))
        #expect(read.imageURL == "https://x/1.png")
        #expect(read.ownerID == 7)
        #expect(read.isHTTPS == true)
        // Through the JSON value too.
        #expect(try JSON(data: written).decode(Photo.self) == photo)
    }

    /// The key `JSONDecoder` matches still matches (`image_url` for a property named `imageUrl`), and a key written
    /// as the property is named is still found when no conversion applies.
    @Test func keysJSONDecoderMatchesStillMatch() throws {
        struct Plain: Codable, Equatable {
            var imageUrl: String?
            var name: String
        }
        let document = Data(#"{"image_url": "u", "name": "n"}"#.utf8)
        #expect(try JSONCoding.default.decode(Plain.self, from: document) == Plain(imageUrl: "u", name: "n"))
        let camel = Data(#"{"imageURL": "u", "title": "t"}"#.utf8)
        #expect(try JSONCoding.camelCase.decode(Photo.self, from: camel).imageURL == "u")
        #expect(try JSONCoding.default.decode(Photo.self, from: camel).imageURL == "u")
    }

    /// Read, change another field, save: the server keeps its `image_url` (it was cleared before).
    @Test func updateKeepsAnAcronymField() async throws {
        let backend = InMemoryBackend(style: .drf)
        backend.register("photos")
        backend.insert(["title": "old", "image_url": "https://x/1.png", "owner_id": 7], into: "photos")
        let api = API(
            baseURL: URL(string: "https://api.example.com/v1")!, conventions: .djangoREST, transport: backend)
        var photo = try await Photo.using(api).read(id: 1)
        #expect(photo.imageURL == "https://x/1.png")
        photo.title = "new"
        _ = try await Photo.using(api).update(photo)
        let stored = try #require(backend.record(in: "photos", id: 1))
        #expect(stored["image_url"] == "https://x/1.png")
        #expect(stored["owner_id"] == 7)
        #expect(stored["title"] == "new")
    }
}
