import CRUDKitOpenAPI
import Foundation

// crudkit-openapi-bench: generation time beside OpenAPIKit's parse time alone, for synthetic documents of 100
// and 1,000 schemas (`swift run -c release crudkit-openapi-bench [--sizes 100,1000] [--runs 3] [--write DIR]
// [--phase parse|generate]`). Each figure is the median of the runs with the fastest and slowest beside it, in
// CPU seconds of this process. With `--write DIR` it also writes each document and its generated models under DIR
// for a compile measurement; `--phase` runs only OpenAPIKit's parse or only the generation (without OpenAPIKit's
// check), so that the peak memory the process reports is that phase's.
let arguments = CommandLine.arguments
func value(of option: String) -> String? {
    arguments.firstIndex(of: option).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}
let writeFolder = value(of: "--write")
let sizes = value(of: "--sizes").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [100, 1_000]
let runs = max(1, value(of: "--runs").flatMap { Int($0) } ?? 3)
let phase = value(of: "--phase")

/// The CPU time `body` takes (this process, all threads): on a machine shared with other work, wall-clock time
/// measures the other work too.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}

/// `median (min–max)` of the times.
func summary(_ times: [Double]) -> String {
    guard !times.isEmpty else { return "-" }
    let sorted = times.sorted()
    let middle = sorted.count / 2
    let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    return String(format: "%.3f (%.3f–%.3f)", median, sorted[0], sorted[sorted.count - 1])
}

/// The peak resident set of this process so far, in MB (`ru_maxrss`: KB on Linux, bytes on macOS).
func peakMegabytes() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
    #else
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1_048_576
    #endif
}

print("CPU seconds, median (fastest–slowest) of \(runs) runs\(phase.map { ", phase \($0) only" } ?? "")")
print("schemas  bytes     OpenAPIKit parse      generate alone        generate + OpenAPIKit check  files")
for size in sizes {
    let document = SyntheticDocument.json(schemas: size)
    var parse: [Double] = []
    var alone: [Double] = []
    var generate: [Double] = []
    var result: GenerationResult?
    var unchecked = GeneratorOptions()
    unchecked.validates = false
    for _ in 0..<runs {
        if phase == nil || phase == "parse" {
            parse.append(try seconds { try Generator.validate(document) })
        }
        if phase == nil || phase == "generate" {
            alone.append(try seconds { result = try Generator.generate(document, options: unchecked) })
        }
        if phase == nil {
            generate.append(try seconds { result = try Generator.generate(document) })
        }
    }
    let files = result?.files.count ?? 0
    let columns = [summary(parse), summary(alone), summary(generate)].map {
        $0.padding(toLength: 21, withPad: " ", startingAt: 0)
    }
    print(
        String(size).padding(toLength: 9, withPad: " ", startingAt: 0)
            + String(document.count).padding(toLength: 10, withPad: " ", startingAt: 0)
            + columns.joined(separator: " ") + "        \(files)")
    if let writeFolder, let result {
        let folder = URL(fileURLWithPath: writeFolder).appendingPathComponent("schemas-\(size)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try document.write(to: folder.appendingPathComponent("openapi.json"))
        let sources = folder.appendingPathComponent("Models")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try Writer.write(result.files, to: sources, removingOthers: true)
    }
}
print(String(format: "peak resident set of this process: %.1f MB", peakMegabytes()))
