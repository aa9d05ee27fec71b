import Foundation

/// Runs work on a thread of its own with a large stack, and waits for it. OpenAPIKit's decoders and Yams' composer
/// recurse once per level of a document (OpenAPIKit's `JSONSchema` decoding takes tens of kilobytes of stack per
/// nested schema in a debug build), so on the caller's thread a 512 KB stack would decide how deeply a document
/// may nest; ``NestingDepth`` bounds the depth, and this thread's stack holds that depth many times over.
enum LargeStack {
    /// The stack of the thread: 32 MB, reserved, and touched only as deep as the work goes.
    static let size = 32 * 1024 * 1024

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let slot = ResultSlot<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            slot.set(Result { try body() })
            done.signal()
        }
        thread.stackSize = size
        thread.start()
        done.wait()
        return try slot.get().get()
    }
}

/// The result of work done on another thread.
private final class ResultSlot<T: Sendable>: @unchecked Sendable {
    // Safety: `result` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var result: Result<T, any Error> = .failure(CancellationError())

    func set(_ value: Result<T, any Error>) { lock.withLock { result = value } }

    func get() -> Result<T, any Error> { lock.withLock { result } }
}
