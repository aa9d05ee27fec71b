import Foundation
import Testing

@testable import CRUDKit

/// The error bodies of Rails, Vapor and Django REST framework as those frameworks send them (issue 15).
@Suite struct ConventionErrorBodyTests {
    private func details(_ body: String, status: Int = 400, shape: ServerErrorShape = .automatic) -> ServerErrorDetails?
    {
        ServerErrorDetails(response: jsonResponse(body, status: status), shape: shape)
    }

    /// Rails scaffold: `render json: @person.errors, status: :unprocessable_entity` sends the bare hash.
    @Test(arguments: [ServerErrorShape.rails, .automatic])
    func railsBareHashIsFieldErrors(shape: ServerErrorShape) throws {
        let found = try #require(
            details(#"{"age": ["must be greater than or equal to 0"]}"#, status: 422, shape: shape))
        #expect(found.fieldErrors == ["age": ["must be greater than or equal to 0"]])
        #expect(found.messages.isEmpty)
    }

    /// Rails production 404 with `Accept: application/json`.
    @Test(arguments: [ServerErrorShape.rails, .automatic])
    func railsProductionNotFound(shape: ServerErrorShape) throws {
        let found = try #require(details(#"{"status": 404, "error": "Not Found"}"#, status: 404, shape: shape))
        #expect(found.message == "Not Found")
        #expect(found.fieldErrors.isEmpty)
    }

    /// Vapor's `ErrorMiddleware`: `{"error": true, "reason": "…"}` is the message, not a field named `reason`; a
    /// `Validatable` failure's joined reason is also split into its fields (issue 25, item 4).
    @Test func vaporReasonIsTheMessageAndItsFieldErrors() throws {
        let reason = "age is less than minimum of 0, email is not a valid email address"
        let found = try #require(details(#"{"error": true, "reason": "\#(reason)"}"#))
        #expect(found.fieldErrors == ["age": ["is less than minimum of 0"], "email": ["is not a valid email address"]])
        #expect(found.message == reason)
        #expect(found.messages == [reason])
        let listed = try #require(
            details(#"{"error": true, "reason": "role is not admin, user, or guest, name is empty"}"#))
        #expect(listed.fieldErrors == ["role": ["is not admin, user, or guest"], "name": ["is empty"]])
        for other in ["Not Found", "Unauthorized", "Value of type 'String' required for key 'email'.", "a, b is c"] {
            let plain = try #require(details(#"{"error": true, "reason": "\#(other)"}"#, status: 400))
            #expect(plain.fieldErrors.isEmpty, "\(other)")
            #expect(plain.message == other)
        }
        let missing = try #require(details(#"{"error": true, "reason": "Not Found"}"#, status: 404))
        #expect(missing.message == "Not Found" && missing.fieldErrors.isEmpty)
    }

    /// A DRF 400 with three field errors: the summary names all three, not only the first.
    @Test func summaryNamesEveryField() throws {
        let found = try #require(
            details(
                #"{"first_name": ["This field may not be blank."], "age": ["A valid integer is required."], "email": ["Enter a valid email address.", "Too long."]}"#
            ))
        #expect(
            found.message
                == "age: A valid integer is required.; email: Enter a valid email address. Too long.; first_name: This field may not be blank."
        )
    }
}
