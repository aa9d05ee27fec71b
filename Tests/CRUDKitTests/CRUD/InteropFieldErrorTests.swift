import CRUDKit
import Foundation
import Testing

/// Field errors of DRF models whose fields share a name with a member of another error shape (found by the DRF
/// interop suite: a `Post` has a `title`), read by the shape-guessing ``CRUDError/fieldErrors``.
@Suite struct InteropFieldErrorTests {
    private func failure(_ body: String) -> CRUDError {
        .httpStatus(
            HTTPResponse(
                status: 400, headers: ["Content-Type": "application/json"], body: Data(body.utf8),
                url: URL(string: "http://127.0.0.1:8000/people/1/posts/")))
    }

    @Test func drfTitleFieldIsAFieldErrorNotAProblemTitle() {
        let error = failure(#"{"title":["This field may not be blank."]}"#)
        #expect(error.fieldErrors == ["title": ["This field may not be blank."]])
        #expect(error.serverMessage == "title: This field may not be blank.")
    }

    @Test func drfTypeAndDetailListFieldsAreFieldErrors() {
        let error = failure(#"{"type":["\"x\" is not a valid choice."],"detail":["Too long."]}"#)
        #expect(error.fieldErrors == ["type": ["\"x\" is not a valid choice."]])
        #expect(error.serverErrors?.messages == ["Too long."])
    }

    @Test func problemDetailsAndFastAPIAreStillRecognised() {
        let problem = failure(
            #"{"type":"about:blank","title":"Invalid","invalid-params":[{"name":"age","reason":"negative"}]}"#)
        #expect(problem.fieldErrors == ["age": ["negative"]])
        #expect(problem.serverMessage == "Invalid")
        let fastAPI = failure(#"{"detail":[{"loc":["body","age"],"msg":"too small"}]}"#)
        #expect(fastAPI.fieldErrors == ["age": ["too small"]])
    }
}
