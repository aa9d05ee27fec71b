import CRUDKitOpenAPI
import Foundation
import Testing

/// The result of a body run on another thread.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Safety: no lock; written once by the thread before it signals the semaphore the reader waits on, which
    // orders the write before the read.
    var result: Result<T, any Error>?
}

/// A chain of components that each name the next (`S0: {$ref: S1}`, … `S9999: {$ref: S10000}`) used to be
/// declared by one nested call per link, so a long chain overflowed a small thread's stack. Components met while
/// another is being declared are now queued and declared by the outermost call.
@Suite struct DeepReferenceChainTests {
    /// Runs `body` on a thread with a 512 KB stack and returns its result.
    static func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.result = Result { try body() }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        return try #require(box.result).get()
    }

    @Test func aTenThousandLinkReferenceChainGeneratesOnA512KBThread() throws {
        let links = 10_000
        var schemas = (0..<links).map { ##""S\##($0)": {"$ref": "#/components/schemas/S\##($0 + 1)"}"## }
        schemas.append(##""S\##(links)": {"type": "object", "properties": {"x": {"type": "string"}}}"##)
        schemas.append(##""Holder": {"type": "object", "properties": {"s": {"$ref": "#/components/schemas/S0"}}}"##)
        let document = NeverSilentTests.document(schemas.joined(separator: ",\n"))
        let result = try Self.onSmallStack { try Generator.generate(document) }
        let holder = try NeverSilentTests.file(result, "Holder.swift")
        #expect(holder.contains("var s: S0?"))
        let first = try NeverSilentTests.file(result, "S0.swift")
        #expect(first.contains("typealias S0 = S1"))
    }
}
