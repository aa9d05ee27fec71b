import Foundation
import Testing

@testable import CRUDKit

@Suite struct PathBuilderTests {
    let builder = PathBuilder(baseURL: URL(string: "https://x.test/v1")!)

    @Test func joinsPathsUnderTheBasePath() throws {
        #expect(try builder.url(path: "people").absoluteString == "https://x.test/v1/people")
        #expect(try builder.url(path: "/people").absoluteString == "https://x.test/v1/people")
        #expect(try builder.url(path: "people/12").absoluteString == "https://x.test/v1/people/12")
        let slashed = PathBuilder(baseURL: URL(string: "https://x.test/v1/")!)
        #expect(try slashed.url(path: "/people").absoluteString == "https://x.test/v1/people")
        #expect(try slashed.url(path: "people//12").absoluteString == "https://x.test/v1/people/12")
        let root = PathBuilder(baseURL: URL(string: "https://x.test")!)
        #expect(try root.url(path: "people").absoluteString == "https://x.test/people")
    }

    @Test func segmentsStayOneSegment() throws {
        #expect(
            try builder.url(segments: ["people", "../admin"]).absoluteString == "https://x.test/v1/people/..%2Fadmin")
        #expect(try builder.url(segments: ["people", "a/b"]).absoluteString == "https://x.test/v1/people/a%2Fb")
        #expect(try builder.url(segments: ["people", ".."]).absoluteString == "https://x.test/v1/people/%2E%2E")
        #expect(try builder.url(segments: ["people", "."]).absoluteString == "https://x.test/v1/people/%2E")
        #expect(
            try builder.url(segments: ["people", "a b+c&d=e?f#g%"]).absoluteString
                == "https://x.test/v1/people/a%20b%2Bc%26d%3De%3Ff%23g%25")
        #expect(try builder.url(segments: ["people", "Zoë"]).absoluteString == "https://x.test/v1/people/Zo%C3%AB")
        let url = try builder.url(segments: ["people", "../admin"])
        #expect(url.pathComponents.count == 4)  // "/", "v1", "people", "../admin"
    }

    @Test func pathStringsCannotClimbOutWithDotSegments() throws {
        #expect(try builder.url(path: "people/../admin").absoluteString == "https://x.test/v1/people/%2E%2E/admin")
    }

    @Test func anEmptySegmentIsRefused() async {
        let error = await crudError { try builder.url(segments: ["people", ""]) }
        #expect(error?.caseName == "invalidRequest")
    }

    @Test func trailingSlashRules() throws {
        let always = PathBuilder(baseURL: testBase, trailingSlash: .always)
        let never = PathBuilder(baseURL: testBase, trailingSlash: .never)
        #expect(try always.url(path: "people").absoluteString == "https://api.example.com/v1/people/")
        #expect(try always.url(segments: ["people", "1"]).absoluteString == "https://api.example.com/v1/people/1/")
        #expect(try never.url(path: "people/").absoluteString == "https://api.example.com/v1/people")
        #expect(try builder.url(path: "people/").absoluteString == "https://x.test/v1/people/")
        #expect(try builder.url(path: "people").absoluteString == "https://x.test/v1/people")
        #expect(try always.url(path: "").absoluteString == "https://api.example.com/v1/")
        #expect(
            try always.url(path: "people", query: ["a": "1"]).absoluteString
                == "https://api.example.com/v1/people/?a=1")
    }

    @Test func absoluteURLsBypassTheBase() async throws {
        let other = URL(string: "https://cdn.example.org/page?x=1")!
        #expect(try builder.url(for: .url(other)).absoluteString == "https://cdn.example.org/page?x=1")
        #expect(
            try builder.url(for: .url(other), query: ["y": "2"]).absoluteString
                == "https://cdn.example.org/page?x=1&y=2")
        #expect(try builder.url(path: "https://cdn.example.org/a/").absoluteString == "https://cdn.example.org/a/")
        let noBase = PathBuilder(baseURL: nil)
        #expect(try noBase.url(for: .url(other)) == other)
        #expect((await crudError { try noBase.url(path: "people") })?.caseName == "invalidRequest")
    }

    @Test func queryComponentsArePercentEncoded() throws {
        let url = try builder.url(
            path: "search", query: ["q": "a+b & c=d", "name": "Zoë", "k": ["1", "2"], "p": ["x": "y"]])
        #expect(
            url.absoluteString
                == "https://x.test/v1/search?q=a%2Bb%20%26%20c%3Dd&name=Zo%C3%AB&k%5B%5D=1&k%5B%5D=2&p%5Bx%5D=y")
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.queryItems?.first?.value == "a+b & c=d")
        let repeated = PathBuilder(baseURL: testBase, queryStyle: .repeatedKeys)
        #expect(
            try repeated.url(path: "people", query: ["tag": ["a", "b"]]).absoluteString
                == "https://api.example.com/v1/people?tag=a&tag=b")
    }

    @Test func theBaseQueryIsKept() throws {
        let keyed = PathBuilder(baseURL: URL(string: "https://x.test/v1?key=k")!)
        #expect(try keyed.url(path: "people").absoluteString == "https://x.test/v1/people?key=k")
        #expect(
            try keyed.url(path: "people", query: ["a": "1"]).absoluteString
                == "https://x.test/v1/people?key=k&a=1")
    }
}
