#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `Locked` for `@inlinable` code: the same storage (`LockedStorage`, one allocation holding the value and
/// its platform lock) and the same `withLock`, but visible to the inlinable code that lets callers specialize
/// `Future<Value>`.
///
/// `Locked` is `package`, which `@inlinable` public code cannot name. Without specialization every `Future`
/// call pays for generic metadata look-ups, which made a chain of ten `map`s about 20× slower (measured in
/// the Benchmarks package). If `Locked` and its members become `@usableFromInline`, this type can go.
// Safety: `InlinableLocked` is `@unchecked Sendable` because the only access to the stored value is through
// `withLock`, which holds the platform lock stored beside it (`PlatformLock`) for the whole closure.
@usableFromInline
struct InlinableLocked<Value>: @unchecked Sendable {
    @usableFromInline let storage: LockedStorage<Value>

    /// Creates a lock guarding `value`, exactly as `Locked.init` does.
    @inlinable
    init(_ value: Value) {
        let buffer = LockedStorage<Value>.create(minimumCapacity: 1) { _ in value }
        storage = unsafeDowncast(buffer, to: LockedStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #else
            lock.initialize(to: pthread_mutex_t())
            pthread_mutex_init(lock, nil)
            #endif
        }
    }

    /// Runs `body` with exclusive access to the guarded value and returns its result.
    @inlinable
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, lock in
            #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #else
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            #endif
            return try body(&value.pointee)
        }
    }
}
