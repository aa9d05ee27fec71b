import CRUDKit
import Foundation

// The JSON suite: parse, write and model mapping on a generated array of person objects (about 5 MB for
// 20,000 people), each figure beside the Foundation baseline measured in the same run.

/// The model the Codable rows decode and encode.
private struct BenchPerson: Codable, Equatable {
    struct Address: Codable, Equatable {
        var street: String
        var city: String
        var postalCode: String
    }
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String
    var age: Int
    var score: Double
    var isActive: Bool
    var favoriteColor: String?
    var createdAt: Date
    var tags: [String]
    var address: Address
}

/// The same model mapped by hand.
extension BenchPerson: JSONConvertible {
    init(json: JSON) throws {
        id = try json.required("id")
        firstName = try json.required("first_name")
        lastName = try json.required("last_name")
        email = try json.required("email")
        age = try json.required("age")
        score = try json.required("score")
        isActive = try json.required("is_active")
        favoriteColor = try json.optional("favorite_color")
        createdAt = try json.required("created_at")
        tags = try json.required("tags")
        let address = try json.required("address", as: JSON.self)
        self.address = Address(
            street: try address.required("street"),
            city: try address.required("city"),
            postalCode: try address.required("postal_code")
        )
    }
}

private func makePeople(_ count: Int) -> [BenchPerson] {
    let firstNames = ["Ada", "Grace", "Alan", "Barbara", "Edsger", "Frances", "Donald", "Margaret", "Ken", "Radia"]
    let lastNames = ["Lovelace", "Hopper", "Turing", "Liskov", "Dijkstra", "Allen", "Knuth", "Hamilton", "Thompson"]
    let colors = ["green", "blue", "red", "purple", "orange"]
    let cities = ["London", "Paris", "Zürich", "New York", "São Paulo", "Tokyo", "Nairobi"]
    var generator = SplitMix(seed: 42)
    return (0..<count).map { index in
        let first = firstNames[Int(generator.next() % UInt64(firstNames.count))]
        let last = lastNames[Int(generator.next() % UInt64(lastNames.count))]
        return BenchPerson(
            id: 9_007_199_254_740_993 + Int64(index),
            firstName: first,
            lastName: last,
            email: "\(last.lowercased())\(index)@example.com",
            age: 18 + Int(generator.next() % 70),
            score: Double(generator.next() % 100_000) / 1000,
            isActive: generator.next() % 2 == 0,
            favoriteColor: index % 4 == 0 ? nil : colors[index % colors.count],
            createdAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(index * 3600) + (index % 2 == 0 ? 0.25 : 0)),
            tags: ["customer", index % 3 == 0 ? "says \"hi\"" : "vip"],
            address: .init(
                street: "\(index % 300) Engine Road",
                city: cities[index % cities.count],
                postalCode: String(format: "%05d", index % 99_999)
            )
        )
    }
}

private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads every field of every person from our tree; returns a checksum so nothing is optimised away.
private func readEveryField(_ json: JSON) -> Int {
    var checksum = 0
    for person in (json.array ?? []) {
        checksum &+= Int(truncatingIfNeeded: (person["id"].int64 ?? 0))
        checksum &+= (person["first_name"].string ?? "").utf8.count + (person["last_name"].string ?? "").utf8.count
        checksum &+= (person["email"].string ?? "").utf8.count + (person["age"].int ?? 0)
        checksum &+= Int((person["score"].double ?? 0)) + ((person["is_active"].bool ?? false) ? 1 : 0)
        checksum &+= person["favorite_color"].string?.utf8.count ?? 0
        checksum &+= (person["created_at"].string ?? "").utf8.count
        for tag in (person["tags"].array ?? []) { checksum &+= (tag.string ?? "").utf8.count }
        let address = person["address"]
        checksum &+= (address["street"].string ?? "").utf8.count + (address["city"].string ?? "").utf8.count
        checksum &+= (address["postal_code"].string ?? "").utf8.count
    }
    return checksum
}

/// The same reading over `JSONSerialization`'s Foundation objects.
private func readEveryField(_ object: Any) -> Int {
    var checksum = 0
    for person in object as? [[String: Any]] ?? [] {
        checksum &+= Int(truncatingIfNeeded: (person["id"] as? NSNumber)?.int64Value ?? 0)
        checksum &+=
            ((person["first_name"] as? String)?.utf8.count ?? 0) + ((person["last_name"] as? String)?.utf8.count ?? 0)
        checksum &+= ((person["email"] as? String)?.utf8.count ?? 0) + ((person["age"] as? Int) ?? 0)
        checksum &+= Int((person["score"] as? Double) ?? 0) + ((person["is_active"] as? Bool) == true ? 1 : 0)
        checksum &+= (person["favorite_color"] as? String)?.utf8.count ?? 0
        checksum &+= (person["created_at"] as? String)?.utf8.count ?? 0
        for tag in person["tags"] as? [String] ?? [] { checksum &+= tag.utf8.count }
        let address = person["address"] as? [String: Any] ?? [:]
        checksum &+= ((address["street"] as? String)?.utf8.count ?? 0) + ((address["city"] as? String)?.utf8.count ?? 0)
        checksum &+= (address["postal_code"] as? String)?.utf8.count ?? 0
    }
    return checksum
}

func runJSONBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    let people = makePeople(options.smoke ? 500 : 20_000)
    let coding = JSONCoding.default
    let foundationDecoder = coding.makeJSONDecoder()
    let foundationEncoder = coding.makeJSONEncoder()
    let tree = try JSON(encoding: people, coding: coding)
    let data = try tree.data()
    let megabytes = Double(data.count) / 1_000_000
    let iterations = options.smoke ? 1 : 3
    let rounds = options.smoke ? 1 : 5
    func throughput(_ nanoseconds: Double) -> Double { megabytes / (nanoseconds / 1e9) }
    printSuiteHeader("JSON (\(people.count) people, \(String(format: "%.1f", megabytes)) MB)")

    var sink = 0
    var allMet = true

    // `BENCH_PROFILE=<row>`: only CRUDKit's side of one row, in a loop, for `perf record` (no figures printed).
    if let row = ProcessInfo.processInfo.environment["BENCH_PROFILE"] {
        let repeats = Int(ProcessInfo.processInfo.environment["BENCH_PROFILE_REPEATS"] ?? "") ?? 100
        for _ in 0..<repeats {
            switch row {
            case "parse": sink &+= readEveryField(try JSON(data: data))
            case "decode": sink &+= try coding.decode([BenchPerson].self, from: data).count
            case "fromtree": sink &+= try tree.decode([BenchPerson].self).count
            case "encode": sink &+= try coding.encode(people).count
            case "totree": sink &+= try (JSON(encoding: people).array ?? []).count
            case "write": sink &+= try tree.data().count
            case "parse-foundation": sink &+= readEveryField(try JSONSerialization.jsonObject(with: data))
            case "decode-foundation": sink &+= try foundationDecoder.decode([BenchPerson].self, from: data).count
            case "fromtree-foundation":
                sink &+= try foundationDecoder.decode([BenchPerson].self, from: tree.data()).count
            case "encode-foundation": sink &+= try foundationEncoder.encode(people).count
            case "setup": break
            default:
                print(
                    "BENCH_PROFILE: one of parse, decode, fromtree, encode, totree, write, setup, or <row>-foundation")
                return false
            }
        }
        print("profiled \(row) \(repeats) times (\(sink))")
        return true
    }

    // `BENCH_JSON_ROWS=parse,decode,…` runs only those groups of rows (parse, write, decode, wide, tree, encode).
    let rows = Set(
        (ProcessInfo.processInfo.environment["BENCH_JSON_ROWS"] ?? "").split(separator: ",").map(String.init))
    func wants(_ group: String) -> Bool { rows.isEmpty || rows.contains(group) }

    // Parse + read every field.
    if wants("parse") {
        let oursParse = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= readEveryField(try JSON(data: data))
        }
        let baseParse = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= readEveryField(try JSONSerialization.jsonObject(with: data))
        }
        allMet =
            report(
                "parse into JSON + read every field", ours: throughput(oursParse), baseline: throughput(baseParse),
                baselineName: "JSONSerialization.jsonObject + reading every field", unit: .megabytesPerSecond,
                target: 10
            ) && allMet
        // The ceiling: one plain pass over the same bytes, as fast as memory and one compare per byte allow. No
        // parser reaches it; the fraction shows how far the parser is from the physical limit.
        let ceiling = nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= countQuotes(data)
        }
        report(
            "parse + read, as a fraction of the ceiling", ours: throughput(oursParse), baseline: throughput(ceiling),
            baselineName: "ceiling: counting quotes through withUnsafeBytes; the parser runs at "
                + String(format: "%.2f%%", 100 * ceiling / oursParse) + " of it", unit: .megabytesPerSecond, target: nil
        )

    }

    // Write.
    let baseWrite = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
        sink &+= try foundationEncoder.encode(people).count
    }
    if wants("write") {
        let oursWrite = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try tree.data().count
        }
        allMet =
            report(
                "write a JSON value (compact)", ours: throughput(oursWrite), baseline: throughput(baseWrite),
                baselineName: "JSONEncoder encoding the same people as structs", unit: .megabytesPerSecond, target: 3
            ) && allMet
        let foundationObject = try JSONSerialization.jsonObject(with: data)
        let serializationWrite = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try JSONSerialization.data(withJSONObject: foundationObject).count
        }
        report(
            "write a JSON value (compact)", ours: throughput(oursWrite), baseline: throughput(serializationWrite),
            baselineName: "JSONSerialization.data(withJSONObject:)", unit: .megabytesPerSecond, target: nil
        )

    }

    // Bytes → models.
    if wants("decode") {
        let oursDecode = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try coding.decode([BenchPerson].self, from: data).count
        }
        let baseDecode = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try foundationDecoder.decode([BenchPerson].self, from: data).count
        }
        allMet =
            report(
                "decode Codable models from bytes", ours: throughput(oursDecode), baseline: throughput(baseDecode),
                baselineName: "JSONDecoder (snake_case, ISO-8601 dates)", unit: .megabytesPerSecond, target: 3
            ) && allMet
        let oursConvert = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try JSON(data: data).convert([BenchPerson].self).count
        }
        report(
            "map JSONConvertible models from bytes", ours: throughput(oursConvert), baseline: throughput(baseDecode),
            baselineName: "JSONDecoder (snake_case, ISO-8601 dates)", unit: .megabytesPerSecond, target: nil
        )

    }

    // Keyed decoding with snake_case conversion over one wide object (issue 12, item 10: was quadratic).
    if wants("wide") {
        let wideCount = options.smoke ? 2_000 : 20_000
        var wideText = "{\"x_y\":0"
        for key in 0..<wideCount { wideText += ",\"\(key)\":\(key)" }
        wideText += "}"
        let wide = Data(wideText.utf8)
        let wideMegabytes = Double(wide.count) / 1_000_000
        let oursWide = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try coding.decode([String: Int].self, from: wide).count
        }
        let baseWide = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try foundationDecoder.decode([String: Int].self, from: wide).count
        }
        allMet =
            report(
                "decode [String: Int] with \(wideCount) keys + x_y", ours: wideMegabytes / (oursWide / 1e9),
                baseline: wideMegabytes / (baseWide / 1e9), baselineName: "JSONDecoder (snake_case)",
                unit: .megabytesPerSecond, target: 1
            ) && allMet

    }

    // JSON ↔ models.
    if wants("tree") {
        let oursFromTree = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try tree.decode([BenchPerson].self).count
        }
        let baseFromTree = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try foundationDecoder.decode([BenchPerson].self, from: tree.data()).count
        }
        allMet =
            report(
                "json.decode(Person.self)", ours: throughput(oursFromTree), baseline: throughput(baseFromTree),
                baselineName: "json.data() then JSONDecoder", unit: .megabytesPerSecond, target: 4
            ) && allMet
        let oursToTree = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try (JSON(encoding: people).array ?? []).count
        }
        let baseToTree = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try (JSON(data: foundationEncoder.encode(people)).array ?? []).count
        }
        allMet =
            report(
                "JSON(encoding: person)", ours: throughput(oursToTree), baseline: throughput(baseToTree),
                baselineName: "JSONEncoder then JSON(data:)", unit: .megabytesPerSecond, target: 1
            ) && allMet

    }

    // Models → bytes.
    if wants("encode") {
        let oursEncode = try nanosecondsPerIteration(iterations: iterations, rounds: rounds) {
            sink &+= try coding.encode(people).count
        }
        allMet =
            report(
                "encode Codable models to bytes", ours: throughput(oursEncode), baseline: throughput(baseWrite),
                baselineName: "JSONEncoder (snake_case, ISO-8601 dates)", unit: .megabytesPerSecond, target: 3
            ) && allMet

    }

    if sink == 42 { print("") }  // keeps the work observable
    return allMet
}

/// The ceiling pass: counts the quote bytes of `data` through `withUnsafeBytes`, touching every byte once.
@inline(never)
private func countQuotes(_ data: Data) -> Int {
    data.withUnsafeBytes { buffer in
        var quotes = 0
        for byte in buffer where byte == UInt8(ascii: "\"") { quotes &+= 1 }
        return quotes
    }
}
