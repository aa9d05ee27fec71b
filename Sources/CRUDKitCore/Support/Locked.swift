#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

#if canImport(Darwin)
@usableFromInline package typealias PlatformLock = os_unfair_lock
#else
@usableFromInline package typealias PlatformLock = pthread_mutex_t
#endif

/// Heap storage that holds a value and the platform lock guarding it in one allocation.
@usableFromInline
package final class LockedStorage<Value>: ManagedBuffer<Value, PlatformLock> {
    deinit {
        withUnsafeMutablePointers { _, lock in
            #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
            #endif
            lock.deinitialize(count: 1)
            _ = self
        }
    }
}

/// A value guarded by a lock: the one way CRUDKit shares mutable state between threads.
///
/// The `Mutex` of the Synchronization module needs macOS 15 / iOS 18; this small type gives the same
/// `withLock` discipline on every platform CRUDKit supports (`os_unfair_lock` on Apple platforms,
/// `pthread_mutex_t` elsewhere). Copies of a `Locked` share the same storage. It is `@usableFromInline` so that
/// `@inlinable` code (the `Future` hot path) can be specialised by callers.
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
// Safety: `Locked` is `@unchecked Sendable` because the only access to the stored value is through
// `withLock`, which holds the platform lock (`PlatformLock`) stored beside it for the whole closure.
@usableFromInline
package struct Locked<Value>: @unchecked Sendable {
    @usableFromInline package let storage: LockedStorage<Value>

    /// Creates a lock guarding `value`.
    @inlinable
    package init(_ value: Value) {
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
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
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
