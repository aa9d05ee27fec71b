/// The Future suite (to be filled by the Future work); returns whether every target was met.
func runFutureBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    true
}
