import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    @Suite struct FormEncodingTests {
        @Test func percentEncodesReservedCharactersSpacesAndUnicode() {
            let parameters: FormParameters = ["q": "a b+c&d=e/f?g#h", "name": "Zoë 🙂", "safe": "AZaz09-._~"]

            #expect(
                parameters.percentEncoded()
                    == "q=a%20b%2Bc%26d%3De%2Ff%3Fg%23h&name=Zo%C3%AB%20%F0%9F%99%82&safe=AZaz09-._~"
            )
        }

        @Test func writesListsAndNestedFieldsWithBrackets() {
            let parameters: FormParameters = [
                "tags": ["a", "b"],
                "person": ["name": "Ada", "address": ["city": "Paris"]],
                "people": [["name": "x"], ["name": "y"]],
                "empty": [],
                "n": 3, "ratio": 1.5, "on": true,
            ]

            #expect(
                parameters.flattened().map { "\($0.name)=\($0.value)" } == [
                    "tags[]=a", "tags[]=b", "person[name]=Ada", "person[address][city]=Paris",
                    "people[][name]=x", "people[][name]=y", "n=3", "ratio=1.5", "on=true",
                ])
            #expect(parameters.percentEncoded().hasPrefix("tags%5B%5D=a&tags%5B%5D=b&person%5Bname%5D=Ada&"))
        }

        @Test func repeatedKeyStyleForDjangoFilters() {
            let parameters: FormParameters = ["status": ["open", "closed"], "page": 2]

            #expect(parameters.percentEncoded(style: .repeatedKeys) == "status=open&status=closed&page=2")
        }

        @Test func decodesWhatItEncodes() {
            let parameters: FormParameters = ["a b": "c+d&e", "tags": ["é", "="]]

            let pairs = FormParameters.decodePairs(parameters.percentEncoded())

            #expect(pairs.map(\.name) == ["a b", "tags[]", "tags[]"])
            #expect(pairs.map(\.value) == ["c+d&e", "é", "="])
        }

        /// `&`, `=` and `+` followed by a combining mark (one Character with it) are still read as the separators
        /// and the space they are.
        @Test func decodesSeparatorsFollowedByCombiningMarks() {
            let pairs = FormParameters.decodePairs("a=1&\u{0301}b=\u{0301}2&c=%zz+\u{0301}")

            #expect(pairs.map(\.name) == ["a", "\u{0301}b", "c"])
            #expect(pairs.map(\.value) == ["1", "\u{0301}2", "%zz \u{0301}"])
        }

        @Test func dictionaryInitialiserSortsByName() {
            let parameters = FormParameters(["b": "2", "a": "1"])
            #expect(parameters.percentEncoded() == "a=1&b=2")
        }

        @Test func appendsToAnExistingQuery() throws {
            var request = HTTPRequest(url: try #require(URL(string: "https://api.example.com/people?page=2#top")))

            try request.appendQuery(["name": "Ada Lovelace", "tags": ["x"]])

            #expect(
                request.url.absoluteString
                    == "https://api.example.com/people?page=2&name=Ada%20Lovelace&tags%5B%5D=x#top")
        }

        @Test func queryAndFormBodyArriveByteForByte() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            let transport = URLSessionTransport()
            var request = HTTPRequest(method: .post, url: server.baseURL.appendingPathComponent("search"))
            try request.appendQuery(["q": "a b+c", "tags": ["x", "ü"]])
            request.setFormBody(["name": "Ada & Co", "person": ["age": 36]])

            let response = try await transport.send(request)

            #expect(response.status == 200)
            let received = try #require(server.requests.first)
            #expect(received.target == "/search?q=a%20b%2Bc&tags%5B%5D=x&tags%5B%5D=%C3%BC")
            #expect(received.text == "name=Ada%20%26%20Co&person%5Bage%5D=36")
            #expect(received.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(received.headers["Content-Length"] == "\(received.bodyLength)")
        }

        @Test func jsonBodyIsSentAsGivenWithJSONHeaders() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            let json = Data(#"{"firstName":"Ada","tags":["a"]}"#.utf8)

            _ = try await URLSessionTransport().send(
                .json(.post, url: server.baseURL.appendingPathComponent("people"), body: json))

            let received = try #require(server.requests.first)
            #expect(received.body == json)
            #expect(received.headers["Content-Type"] == "application/json")
            #expect(received.headers["Accept"] == "application/json")
        }
    }
}
