#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Runs the work of completing futures in constant stack.
///
/// Completing one future runs its observers, which complete the futures derived from it, which run theirs:
/// done by plain calls, a chain of 30,000 `map`s needs 30,000 nested frames. Instead, the first completion on a
/// thread runs its work here and, while it runs, every completion nested inside it (on the same thread) is put in
/// this thread's queue and run after it, one after the other. The outermost call returns once the queue is
/// empty, so a completion has still handed its outcome to every inline observer by the time it returns.
@usableFromInline
final class CompletionTrampoline {
    /// Work waiting behind the completion that is running.
    private var queue: [() -> Void] = []
    /// Whether this thread is inside a completion.
    private var isRunning = false

    private init() {}

    /// Runs `work` now, or after the completion this thread is running when it is nested in one.
    @usableFromInline
    static func run(_ work: @escaping () -> Void) {
        let trampoline = current
        if trampoline.isRunning {
            trampoline.queue.append(work)
            return
        }
        trampoline.isRunning = true
        work()
        var index = 0
        while index < trampoline.queue.count {
            let next = trampoline.queue[index]
            index += 1
            next()
        }
        if index > 0 { trampoline.queue.removeAll(keepingCapacity: index <= 64) }
        trampoline.isRunning = false
    }

    /// This thread's trampoline, made on first use and released when the thread ends.
    private static var current: CompletionTrampoline {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<CompletionTrampoline>.fromOpaque(pointer).takeUnretainedValue()
        }
        let trampoline = CompletionTrampoline()
        pthread_setspecific(key, Unmanaged.passRetained(trampoline).toOpaque())
        return trampoline
    }

    /// The thread-local slot that holds each thread's trampoline.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        pthread_key_create(&key) { pointer in
            Unmanaged<CompletionTrampoline>.fromOpaque(pointer).release()
        }
        #else
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<CompletionTrampoline>.fromOpaque(pointer).release()
        }
        #endif
        return key
    }()
}
