#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Runs the work of completing futures in bounded stack.
///
/// Completing one future runs its observers, which complete the futures derived from it, which run theirs:
/// done by plain calls, a chain of 30,000 `map`s needs 30,000 nested frames. Here a completion runs at once, with
/// no allocation, when this thread is running fewer than ``maximumInlineDepth`` completions one inside the other
/// (every common chain); a completion nested deeper is put in this thread's queue and runs after the outermost
/// one has finished, at depth 1 again, one after the other. So the stack never holds more than
/// ``maximumInlineDepth`` completions, whatever the length of the chain, and the outermost call returns once the
/// queue is empty: a completion has handed its outcome to every inline observer by the time it returns.
///
/// ```swift
/// if let trampoline = CompletionTrampoline.enter() {
///     work()  // at once, nested in the completions this thread is running
///     trampoline.leave()
/// } else {
///     CompletionTrampoline.enqueue(work)  // too deep: after the outermost completion
/// }
/// ```
@usableFromInline
package final class CompletionTrampoline {
    /// How many completions may run one inside the other on a thread before the next one waits. Each level
    /// costs a few frames plus what the observer itself uses; 16 levels keep that far below a 512 KB stack and
    /// cover every chain of up to 15 derived futures without queueing.
    package static let maximumInlineDepth = 16

    /// Work waiting for the outermost completion to finish.
    private var queue: [() -> Void] = []
    /// How many completions this thread is running, one inside the other.
    private var depth = 0

    private init() {}

    /// This thread's trampoline, entered, when a completion may run now; `nil` when this thread is already
    /// ``maximumInlineDepth`` completions deep, so the completion must be given to ``enqueue(_:)`` instead.
    /// Every non-`nil` answer must be followed by ``leave()`` once the completion has run.
    @usableFromInline
    static func enter() -> CompletionTrampoline? {
        let trampoline = current
        guard trampoline.depth < maximumInlineDepth else { return nil }
        trampoline.depth += 1
        return trampoline
    }

    /// Ends a completion begun with ``enter()``; the outermost one then runs the queued work, in order.
    @usableFromInline
    func leave() {
        guard depth == 1 else {
            depth -= 1
            return
        }
        // Still at depth 1 while the queue drains: each queued completion may nest again, and what it queues
        // in turn is appended and run by this same loop.
        var index = 0
        while index < queue.count {
            let next = queue[index]
            index += 1
            next()
        }
        if index > 0 { queue.removeAll(keepingCapacity: index <= 64) }
        depth = 0
    }

    /// Runs `work` after the outermost completion of this thread; call it only when ``enter()`` answered `nil`.
    @usableFromInline
    static func enqueue(_ work: @escaping () -> Void) {
        current.queue.append(work)
    }

    /// How many completions the calling thread is running, one inside the other (0 outside any).
    package static var currentDepth: Int { current.depth }

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
