import Dispatch
import Foundation
import Testing

@testable import CRUDKit

@Suite struct APIFutureTests {
    let ada = #"{"id": 1, "firstName": "Ada", "lastName": "Lovelace"}"#

    /// Code that is not `async` gets the `Future` overloads of the same names.
    private func synchronousCaller(_ api: API) -> (Future<StubPerson>, Future<HTTPResponse>, Future<[StubPerson]>) {
        let person: Future<StubPerson> = api.get("people/1")
        let response = api.delete("people/1")
        let list = api.send(Request<[StubPerson]>(.get, "people"))
        return (person, response, list)
    }

    @Test func syncCodeGetsFuturesOfTheSameCalls() async throws {
        let transport = StubTransport { request, _ in
            request.url.path.hasSuffix("people")
                ? jsonResponse("[\(ada)]") : jsonResponse(ada)
        }
        let api = API(baseURL: testBase, transport: transport)
        let (person, response, list) = synchronousCaller(api)
        #expect(try await person.value.firstName == "Ada")
        #expect(try await response.value.status == 200)
        #expect(try await list.value.count == 1)
        // Under `await`, the same names answer values.
        let direct: StubPerson = try await api.get("people/1")
        #expect(direct.lastName == "Lovelace")
    }

    @Test func callbacksRunOnTheAPIsQueue() async throws {
        let queue = DispatchQueue(label: "client-tests.callbacks")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let api = API(baseURL: testBase, transport: StubTransport(json: ada), callbackQueue: queue)
        let onQueue = await withCheckedContinuation { continuation in
            let future: Future<StubPerson> = api.get("people/1")
            future.onSuccess { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
        }
        #expect(onQueue == 7)
    }

    @Test func failuresArriveAsCRUDErrors() async {
        let api = API(baseURL: testBase, transport: StubTransport(status: 404, json: "{}"))
        let error = await withCheckedContinuation { continuation in
            api.get("people/9").onFailure { continuation.resume(returning: $0 as? CRUDError) }
        }
        #expect(error?.isNotFound == true)
    }

    @Test func cancellingTheFutureCancelsTheRequest() async {
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let (ended, endSignal) = AsyncStream<Bool>.makeStream()
        let transport = StubTransport { _, _ in
            signal.yield()
            do {
                try await Task.sleep(nanoseconds: 3_600_000_000_000)
            } catch {
                endSignal.yield(Task.isCancelled)
                throw error
            }
            return jsonResponse("{}")
        }
        let api = API(baseURL: testBase, transport: transport)
        let future: Future<HTTPResponse> = api.get("slow")
        for await _ in entered { break }
        future.cancel()
        var transportSawCancellation = false
        for await cancelled in ended {
            transportSawCancellation = cancelled
            break
        }
        #expect(transportSawCancellation)
        #expect(future.isCancelled)
        let error = await future.result
        #expect((try? error.get()) == nil)
    }
}
