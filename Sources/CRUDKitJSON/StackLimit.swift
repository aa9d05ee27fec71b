#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How close the current thread is to the end of its stack, so that decoding and mapping a model nested deeper
/// than the stack can hold fails with an error instead of crashing the process.
///
/// The parser and the ``JSON`` operations never recurse per level, but `Codable` and hand mappings do: a
/// recursive model (`struct Comment { var replies: [Comment] }`) decodes each level inside its parent's
/// `init(from:)` or `init(json:)`, and no decoder can change that. On a 512 KB thread (Apple's dispatch and task
/// threads) a debug build ran out of stack after about 150 levels of such a model. The coders ask
/// ``isNearlyExhausted()`` before each nested model and refuse to go on with less than an eighth of the stack
/// (at most 64 KB) left.
///
/// The reading is the address of a local variable. AddressSanitizer's use-after-return mode
/// (`detect_stack_use_after_return=1`) moves such locals to a heap "fake stack", where no reading is judged: under
/// that mode the guard is off.
package enum StackLimit {
    /// Nesting up to this depth is not checked by the coders, which count their depth: shallow documents are the
    /// rule.
    package static let checkedDepth = 32

    /// A thread's stack: the lowest usable address (stacks grow down), the highest, and the bytes that must stay
    /// free. All zero when the platform does not tell.
    private struct Bounds {
        var lowest: UInt
        var highest: UInt
        var margin: UInt
    }

    /// Whether less than the margin is left below the caller's frame. The thread's stack is read on the first call
    /// on each thread and kept for the thread's life. A frame outside the thread's stack (the fake stack of
    /// AddressSanitizer's use-after-return check, say) is never judged.
    @inline(never)
    package static func isNearlyExhausted() -> Bool {
        var marker: UInt8 = 0
        let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        let bounds: Bounds
        if let stored = pthread_getspecific(boundsKey) {
            bounds = stored.load(as: Bounds.self)
        } else {
            bounds = readBounds()
            let storage = UnsafeMutablePointer<Bounds>.allocate(capacity: 1)
            storage.initialize(to: bounds)
            pthread_setspecific(boundsKey, storage)
        }
        return here >= bounds.lowest && here < bounds.highest && here - bounds.lowest < bounds.margin
    }

    /// The current thread's stack.
    private static func readBounds() -> Bounds {
        #if canImport(Darwin)
        let thread = pthread_self()
        let highest = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = UInt(pthread_get_stacksize_np(thread))
        guard highest > size else { return Bounds(lowest: 0, highest: 0, margin: 0) }
        return bounds(lowest: highest - size, size: size)
        #elseif canImport(Glibc) || canImport(Musl)
        guard let getAttributes = threadAttributes else { return Bounds(lowest: 0, highest: 0, margin: 0) }
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        defer { attributes.deallocate() }
        guard getAttributes(pthread_self(), attributes) == 0 else { return Bounds(lowest: 0, highest: 0, margin: 0) }
        defer { pthread_attr_destroy(attributes) }
        var address: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(attributes, &address, &size) == 0, let address, size > 0 else {
            return Bounds(lowest: 0, highest: 0, margin: 0)
        }
        return bounds(lowest: UInt(bitPattern: address), size: UInt(size))
        #else
        return Bounds(lowest: 0, highest: 0, margin: 0)
        #endif
    }

    private static func bounds(lowest: UInt, size: UInt) -> Bounds {
        Bounds(lowest: lowest, highest: lowest &+ size, margin: min(size / 8, 64 * 1024))
    }

    /// Where each thread keeps its ``Bounds`` (freed when the thread ends).
    private static let boundsKey: pthread_key_t = {
        var key: pthread_key_t = 0
        #if canImport(Darwin)
        pthread_key_create(&key) { $0.deallocate() }
        #else
        pthread_key_create(&key) { $0?.deallocate() }
        #endif
        return key
    }()

    #if canImport(Glibc) || canImport(Musl)
    /// `pthread_getattr_np`, a GNU extension the `Glibc` module does not declare, looked up once in the C library.
    private static let threadAttributes: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32)? =
        {
            guard let symbol = dlsym(nil, "pthread_getattr_np") else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32).self)
        }()
    #endif
}
