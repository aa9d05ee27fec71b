import CRUDKit
import Foundation

/// The per-operation overhead of the model layer: `Person.read(id:)` (path derivation, id encoding, the send
/// pipeline, mapping under the model's rules) through an in-process transport, against the hand-written
/// `api.get(Endpoint.segments(["people", "12"]), as: Person.self)` on the same API; and one page of
/// `Person.list()` (envelope recognised automatically) against `api.get(…)` decoding the envelope's `results` by
/// hand. The two run in interleaved rounds (the order swapped every round); a figure is the median of the rounds.
/// Returns whether every target was met (the target: the model layer costs at most 1.5× the raw call).
func runCRUDBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    printSuiteHeader("CRUD model layer (in-process transport)")
    let one = Data(
        #"{"id": 12, "first_name": "Ada", "last_name": "Lovelace", "favorite_color": "green", "age": 36}"#.utf8)
    var people: [String] = []
    for index in 0..<20 {
        people.append(#"{"id": \#(index), "first_name": "Ada", "last_name": "L\#(index)", "age": 36}"#)
    }
    let envelope = Data(
        #"{"count": 20, "next": null, "previous": null, "results": [\#(people.joined(separator: ","))]}"#.utf8)
    let api = API(
        baseURL: URL(string: "https://api.example.com/v1")!,
        transport: CRUDBenchTransport(one: one, list: envelope))
    let iterations = options.iterations(20_000)
    var met = true
    var sink = 0

    let (ours, baseline, ratios) = try await interleavedNanosecondsPerIteration(iterations: iterations / 4) {
        sink &+= try await BenchModel.using(api).read(id: 12).id ?? 0
    } baseline: {
        let person = try await api.get(Endpoint.segments(["people", "12"]), as: BenchModel.self)
        sink &+= person.id ?? 0
    }
    met =
        report(
            "Person.read(id:)", ours: ours / 1000, baseline: baseline / 1000,
            baselineName: "api.get(segments, as: Person.self) on the same API", unit: .microseconds,
            target: 1.5) && met
    printRatioSpread(ratios)

    let listIterations = options.iterations(5_000)
    let (oursList, baselineList, listRatios) = try await interleavedNanosecondsPerIteration(
        iterations: listIterations / 4
    ) {
        sink &+= try await BenchModel.using(api).list().count
    } baseline: {
        let response = try await api.get("people") as HTTPResponse
        sink &+= try api.configuration.conventions.coding.decode([BenchModel].self, from: response.body, at: "results")
            .count
    }
    met =
        report(
            "Person.list() (20 people, envelope)", ours: oursList / 1000, baseline: baselineList / 1000,
            baselineName: "api.get + decode(at: \"results\") by hand", unit: .microseconds, target: 1.5) && met
    printRatioSpread(listRatios)
    if sink == 42 { print("") }  // keeps the work from being optimised away
    return met
}

/// Prints the spread of the per-round ratios under a row.
private func printRatioSpread(_ ratios: [Double]) {
    guard let low = ratios.first, let high = ratios.last else { return }
    print(String(format: "    per-round ratio %.2f–%.2f×, %d interleaved rounds", low, high, ratios.count))
}

/// The model read by the benchmark.
private struct BenchModel: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var favoriteColor: String?
    var age: Int?
}

/// Answers a member path with one person and the collection with an envelope of twenty.
private struct CRUDBenchTransport: Transport {
    let one: Data
    let list: Data

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = request.url.path.hasSuffix("/people") ? list : one
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }
}
