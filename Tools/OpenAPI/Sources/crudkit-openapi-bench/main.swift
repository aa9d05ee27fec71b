import CRUDKitOpenAPI
import Foundation

// crudkit-openapi-bench: generation time beside OpenAPIKit's parse time alone, for synthetic documents of 100
// and 1,000 schemas (`swift run -c release crudkit-openapi-bench [--write DIR]`). With `--write DIR` it also
// writes each document and its generated models under DIR for a compile measurement.
let arguments = CommandLine.arguments
let writeFolder = arguments.firstIndex(of: "--write").flatMap {
    arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
}
let sizes =
    arguments.firstIndex(of: "--sizes").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
    .map { $0.split(separator: ",").compactMap { Int($0) } } ?? [100, 1_000]

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

print("CPU seconds, best of 3")
print("schemas  bytes     OpenAPIKit parse  generate alone  generate + OpenAPIKit check  files")
for size in sizes {
    let document = SyntheticDocument.json(schemas: size)
    var parse = Double.infinity
    var alone = Double.infinity
    var generate = Double.infinity
    var result: GenerationResult?
    var unchecked = GeneratorOptions()
    unchecked.validates = false
    for _ in 0..<3 {
        parse = min(parse, try seconds { try Generator.validate(document) })
        alone = min(alone, try seconds { result = try Generator.generate(document, options: unchecked) })
        generate = min(generate, try seconds { result = try Generator.generate(document) })
    }
    let files = result?.files.count ?? 0
    print(
        String(
            format: "%7d  %8d  %14.3f s  %12.3f s  %25.3f s  %5d", size, document.count, parse, alone, generate,
            files))
    if let writeFolder, let result {
        let folder = URL(fileURLWithPath: writeFolder).appendingPathComponent("schemas-\(size)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try document.write(to: folder.appendingPathComponent("openapi.json"))
        let sources = folder.appendingPathComponent("Models")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try Writer.write(result.files, to: sources, removingOthers: true)
    }
}
