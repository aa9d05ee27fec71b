import CRUDKitTesting
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
        let ada = self.ada
        let transport = StubTransport().on(nil, "**") { request in
            request.request.url.path.hasSuffix("people") ? .json(text: "[\(ada)]") : .json(text: ada)
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
        let api = API(
            baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: ada)), callbackQueue: queue)
        let onQueue = await withCheckedContinuation { continuation in
            let future: Future<StubPerson> = api.get("people/1")
            future.onSuccess { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
        }
        #expect(onQueue == 7)
    }

    @Test func failuresArriveAsCRUDErrors() async {
        let api = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: "{}", status: 404)))
        let error = await withCheckedContinuation { continuation in
            api.get("people/9").onFailure { continuation.resume(returning: $0 as? CRUDError) }
        }
        #expect(error?.isNotFound == true)
    }

    @Test func cancellingTheFutureCancelsTheRequest() async {
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let (ended, endSignal) = AsyncStream<Bool>.makeStream()
        let transport = StubTransport().on(nil, "**") { _ in
            signal.yield()
            do {
                try await Task.sleep(nanoseconds: 3_600_000_000_000)
            } catch {
                endSignal.yield(Task.isCancelled)
                throw error
            }
            return .json(text: "{}")
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
