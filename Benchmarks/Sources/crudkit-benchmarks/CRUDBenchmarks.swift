/// The CRUD suite (to be filled by the CRUD work); returns whether every target was met.
func runCRUDBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    true
}
