// CRUDKitTesting: test doubles for code that uses CRUDKit — an in-memory REST backend, a stub transport
// with a request recorder, and a loopback HTTP server for tests that go through the real URLSession stack.
@_exported import CRUDKit
