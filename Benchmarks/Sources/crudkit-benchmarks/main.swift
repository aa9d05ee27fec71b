// The benchmark runner: each suite prints CRUDKit's figures beside a baseline measured in the same run.
let options = BenchmarkOptions(arguments: CommandLine.arguments)

let suites: [(name: String, run: (BenchmarkOptions) async throws -> Bool)] = [
    ("future", runFutureBenchmarks),
    ("json", runJSONBenchmarks),
    ("http", runHTTPBenchmarks),
    ("client", runClientPipelineBenchmark),
    ("crud", runCRUDBenchmarks),
    ("cache", runCacheBenchmarks),
    ("scaling", runScalingBenchmarks),
    ("stores", runStoreBenchmarks),
]

print("CRUDKit benchmarks\(options.smoke ? " (smoke run: figures are not meaningful)" : "")")
var allMet = true
for suite in suites where options.suites.isEmpty || options.suites.contains(suite.name) {
    allMet = try await suite.run(options) && allMet
}
print("")
if options.smoke {
    print("Smoke run finished: every suite ran; targets are judged only in a full run.")
} else {
    print(allMet ? "All targets met." : "Some targets were missed (see MISSED above).")
}
