import CRUDKit
import Foundation
import Testing

/// DRF's error bodies as CRUDKit reads them: `{"age": ["…"]}` as field errors, `non_field_errors` and `detail`
/// as messages.
@Suite("DRF interop: errors", DRFServer.enabled)
struct DRFErrorTests {
    @Test func fieldValidationErrorsAreFieldErrors() async throws {
        try await withDRF { drf in
            let error = await #expect(throws: CRUDError.self) { () async throws -> Person in
                try await Person(firstName: "Ada", lastName: drf.tag, age: -1).create()
            }
            let failure = try #require(error)
            #expect(failure.status == 400)
            #expect(failure.fieldErrors == ["age": ["Ensure this value is greater than or equal to 0."]])
            #expect(drf.api.serverErrors(in: failure)?.fieldErrors["age"] == failure.fieldErrors["age"])
            #expect(failure.serverErrors?.messages == [])
            #expect(failure.serverMessage == "age: Ensure this value is greater than or equal to 0.")
            guard case .httpStatus(let response) = failure else {
                Issue.record("expected .httpStatus, got \(failure)")
                return
            }
            #expect(response.mediaType == "application/json")
        }
    }

    @Test func severalFieldsAndMissingRequiredFields() async throws {
        try await withDRF { drf in
            let error = await #expect(throws: CRUDError.self) { () async throws -> Person in
                var person = Person(firstName: "", lastName: drf.tag)
                person.email = "not an address"
                return try await person.create()
            }
            #expect(
                error?.fieldErrors == [
                    "first_name": ["This field may not be blank."], "email": ["Enter a valid email address."],
                ])
        }
    }

    @Test func nonFieldErrorsAreMessages() async throws {
        try await withDRF { drf in
            let error = await #expect(throws: CRUDError.self) { () async throws -> Person in
                try await Person(firstName: drf.tag, lastName: drf.tag).create()
            }
            let failure = try #require(error)
            #expect(failure.status == 400)
            #expect(failure.fieldErrors.isEmpty)
            #expect(failure.serverErrors?.messages == ["first_name and last_name must differ."])
            #expect(failure.serverMessage == "first_name and last_name must differ.")
            #expect(
                drf.api.serverErrors(in: failure)
                    == ServerErrorDetails(messages: ["first_name and last_name must differ."]))
        }
    }

    @Test func patchIsValidatedAgainstTheStoredValues() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            var twin = ada
            twin.firstName = drf.tag  // now equal to the stored last name
            let error = await #expect(throws: CRUDError.self) { () async throws -> Person in
                try await twin.update(from: ada)
            }
            #expect(error?.serverMessage == "first_name and last_name must differ.")
            let stored: Person = try await ada.read()
            #expect(stored == ada)
        }
    }

    @Test func unknownIDIsNotFoundWithDRFsDetail() async throws {
        try await withDRF { _ in
            let error = await #expect(throws: CRUDError.self) { () async throws -> Person in
                try await Person.read(id: 999_999_999)
            }
            #expect(error?.isNotFound == true)
            #expect(error?.serverMessage == "No Person matches the given query.")
            #expect(error?.fieldErrors == [:])
        }
    }
}
