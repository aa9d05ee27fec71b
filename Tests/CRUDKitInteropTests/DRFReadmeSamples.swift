import CRUDKit
import Foundation
import Testing

// The README "Talking to real servers" samples, compiled here so they cannot rot. The model is `Person` of
// Person.swift. `readmeSetup` installs the program-wide default API, so it is compiled but not run (the tests of
// this process run in parallel); `readmeUsage` runs against the DRF server with the same API as `API.shared` for
// its task.

private func readmeSetup(key: String) {
    let api = API(baseURL: URL(string: "http://127.0.0.1:8000")!, conventions: .djangoREST, token: key)
    API.shared = api
}

/// What the README's usage sample found out, for the test to check.
private struct ReadmeOutcome {
    var made: Person
    var ageErrors: [String]?
    var ruleMessage: String?
    var total: Int?
}

private func readmeUsage() async throws -> ReadmeOutcome {
    let made = try await Person(firstName: "Ada", lastName: "Lovelace", age: 36).create()  // POST /people/ → 201
    let adults = try await Person.list(["age__gte": 30, "page_size": 50])  // GET /people/?age__gte=30&page_size=50
    let page = try await Person.page()  // page.total is DRF's "count"
    for try await person in Person.all() {  // follows the "next" links
        if person.id == made.id { break }
    }
    var ageErrors: [String]?
    do {
        _ = try await Person(firstName: "Ada", lastName: "Lovelace", age: -1).create()
    } catch let error as CRUDError {
        ageErrors = error.fieldErrors["age"]  // ["Ensure this value is greater than or equal to 0."]
    }
    var ruleMessage: String?
    do {
        _ = try await Person(firstName: "Ada", lastName: "Ada").create()
    } catch let error as CRUDError {
        ruleMessage = error.serverMessage  // non_field_errors: "first_name and last_name must differ."
    }
    try await made.delete()  // DELETE /people/12/ → 204 → Okay
    _ = adults
    return ReadmeOutcome(made: made, ageErrors: ageErrors, ruleMessage: ruleMessage, total: page.total)
}

@Suite("DRF interop: README samples", DRFServer.enabled)
struct DRFReadmeSampleTests {
    @Test func usageSampleRunsAgainstTheServer() async throws {
        _ = readmeSetup
        try await withDRF { drf in
            let outcome = try await readmeUsage()
            drf.track(outcome.made)
            #expect(outcome.made.createdAt != nil)
            #expect(outcome.ageErrors == ["Ensure this value is greater than or equal to 0."])
            #expect(outcome.ruleMessage == "first_name and last_name must differ.")
            #expect((outcome.total ?? 0) >= 1)
        }
    }
}
