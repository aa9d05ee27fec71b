import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Field errors and messages from each common error body shape.
@Suite struct FieldErrorTests {
    private func details(_ body: String, status: Int = 400, shape: ServerErrorShape = .automatic) -> ServerErrorDetails?
    {
        ServerErrorDetails(response: jsonResponse(body, status: status), shape: shape)
    }

    @Test func djangoRESTFramework() throws {
        let found = try #require(
            details(
                #"{"age": ["A valid integer is required."], "email": ["Enter a valid email address."], "non_field_errors": ["first_name and last_name must differ."]}"#
            ))
        #expect(
            found.fieldErrors == ["age": ["A valid integer is required."], "email": ["Enter a valid email address."]])
        #expect(found.messages == ["first_name and last_name must differ."])
        #expect(details(#"{"detail": "Invalid page."}"#, status: 404)?.message == "Invalid page.")
        let nested = try #require(
            details(#"{"address": {"city": ["Required."]}, "tags": [{}, {"name": ["Too long."]}]}"#))
        #expect(nested.fieldErrors == ["address.city": ["Required."], "tags[1].name": ["Too long."]])
    }

    @Test func rails() throws {
        let found = try #require(
            details(
                #"{"errors": {"age": ["must be greater than 0"], "base": ["is locked"], "name": "is taken"}}"#,
                status: 422))
        #expect(found.fieldErrors == ["age": ["must be greater than 0"], "name": ["is taken"]])
        #expect(found.messages == ["is locked"])
        #expect(details(#"{"errors": ["Name can't be blank"]}"#)?.messages == ["Name can't be blank"])
    }

    @Test func fastAPI() throws {
        let found = try #require(
            details(
                #"{"detail": [{"loc": ["body", "age"], "msg": "Input should be a valid integer", "type": "int_parsing"}, {"loc": ["body", "tags", 0], "msg": "bad"}, {"loc": ["body"], "msg": "whole"}]}"#,
                status: 422))
        #expect(found.fieldErrors == ["age": ["Input should be a valid integer"], "tags[0]": ["bad"]])
        #expect(found.messages == ["whole"])
    }

    @Test func jsonAPI() throws {
        let found = try #require(
            details(
                #"{"errors": [{"status": "422", "source": {"pointer": "/data/attributes/age"}, "title": "Invalid Attribute", "detail": "Age must be positive."}, {"source": {"parameter": "include"}, "detail": "Unknown."}, {"title": "Server trouble"}]}"#,
                status: 422))
        #expect(found.fieldErrors == ["age": ["Age must be positive."], "include": ["Unknown."]])
        #expect(found.messages == ["Server trouble"])
    }

    @Test func problemDetails() throws {
        let rfc9457 = try #require(
            details(
                ##"{"type": "https://example.net/validation-error", "title": "Your request is not valid.", "errors": [{"detail": "must be a positive integer", "pointer": "#/age"}, {"detail": "must be 'green', 'red' or 'blue'", "pointer": "#/profile/color"}]}"##
            ))
        #expect(
            rfc9457.fieldErrors == [
                "age": ["must be a positive integer"], "profile.color": ["must be 'green', 'red' or 'blue'"],
            ])
        #expect(rfc9457.messages == ["Your request is not valid."])
        let rfc7807 = try #require(
            details(
                #"{"type": "https://example.net/validation-error", "title": "Your request parameters didn't validate.", "invalid-params": [{"name": "age", "reason": "must be a positive integer"}]}"#
            ))
        #expect(rfc7807.fieldErrors == ["age": ["must be a positive integer"]])
        #expect(
            details(#"{"type": "about:blank", "title": "Not Found", "detail": "No person 12"}"#)?.message
                == "No person 12")
    }

    @Test func htmlAndEmptyBodiesHaveNoDetailsButKeepTheStatus() async throws {
        let html = HTTPResponse(
            status: 404, headers: ["Content-Type": "text/html"], body: Data("<h1>Not Found</h1>".utf8))
        #expect(ServerErrorDetails(response: html) == nil)
        let api = API(baseURL: testBase, transport: StubTransport().on(nil, "**", StubResponse(html)))
        let error = await crudError { try await Member.using(api).read(id: 1) }
        #expect(error?.isNotFound == true && error?.fieldErrors == [:] && error?.serverMessage == nil)
        #expect(error?.response?.body == html.body)
    }

    @Test func aFailedCreateCarriesTheFieldErrors() async throws {
        let server = InMemoryBackend.people()
        let api = server.api(conventions: .djangoREST)
        let error = await crudError {
            try await Member.using(api).create(Member(firstName: "A", lastName: "B", age: -1))
        }
        #expect(error?.status == 400)
        #expect(error?.fieldErrors == ["age": ["Ensure this value is greater than or equal to 0."]])
        #expect(api.serverErrors(in: try #require(error))?.fieldErrors.keys.sorted() == ["age"])
    }

    @Test func explicitShapes() {
        #expect(details(#"{"errors": {"age": ["x"]}}"#, shape: .rails)?.fieldErrors == ["age": ["x"]])
        #expect(details(#"{"age": ["x"]}"#, shape: .djangoREST)?.fieldErrors == ["age": ["x"]])
        #expect(
            details(#"{"detail": [{"loc": ["query", "q"], "msg": "x"}]}"#, shape: .fastAPI)?.fieldErrors == ["q": ["x"]]
        )
        #expect(
            details(#"{"errors": [{"source": {"pointer": "/data/attributes/a"}, "detail": "x"}]}"#, shape: .jsonAPI)?
                .fieldErrors == ["a": ["x"]])
        #expect(
            details(#"{"title": "t", "invalid-params": [{"name": "a", "reason": "x"}]}"#, shape: .problemDetails)?
                .fieldErrors == ["a": ["x"]])
    }
}

/// What the conventions presets set.
@Suite struct ConventionsTests {
    @Test func djangoRESTSetsSlashQueryStylePaginationErrorsAndToken() {
        let api = API(baseURL: testBase, conventions: .djangoREST, token: "abc")
        #expect(api.configuration.conventions.trailingSlash == .always)
        #expect(api.configuration.conventions.queryStyle == .repeatedKeys)
        #expect(api.configuration.conventions.pagination == .djangoREST)
        #expect(api.configuration.conventions.errorShape == .djangoREST)
        #expect(api.configuration.headers["Authorization"] == "Token abc")
        #expect(APIConventions.rails.authorization(token: "t")["Authorization"] == "Bearer t")
        #expect(API(baseURL: testBase).configuration.conventions == .standard)
    }
}
