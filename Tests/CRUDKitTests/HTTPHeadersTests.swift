import Testing

@testable import CRUDKit

@Suite struct HTTPHeadersTests {
    @Test func namesCompareIgnoringCase() {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["content-type"] == "application/json")
        headers["CONTENT-TYPE"] = "text/plain"
        #expect(headers.count == 1)
        #expect(headers.fields.first?.name == "Content-Type")
        #expect(headers["Content-Type"] == "text/plain")
        headers["content-type"] = nil
        #expect(headers.isEmpty)
    }

    @Test func repeatedFieldsAreKeptWhenAdded() {
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        headers["Set-Cookie"] = "c=3"
        #expect(headers.values(for: "set-cookie") == ["c=3"])
    }

    @Test func mergingOverridesByName() {
        let base: HTTPHeaders = ["Accept": "application/json", "X-A": "1"]
        let merged = base.merging(["accept": "text/html"])
        #expect(merged["Accept"] == "text/html")
        #expect(merged["X-A"] == "1")
        #expect(merged == ["Accept": "text/html", "X-A": "1"])
    }

    @Test func methodIdempotence() {
        #expect(HTTPMethod.get.isIdempotent)
        #expect(HTTPMethod.put.isIdempotent)
        #expect(!HTTPMethod.post.isIdempotent)
        #expect(!HTTPMethod.patch.isIdempotent)
        #expect(HTTPMethod(rawValue: "delete") == .delete)
    }
}
