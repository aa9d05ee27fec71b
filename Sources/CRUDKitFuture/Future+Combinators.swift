import CRUDKitCore
import Dispatch

extension Future {
    /// A future with the value transformed by `transform`; a failure passes through unchanged.
    ///
    /// The transform runs on the thread that completes this future (no queue hop), so keep it short; an
    /// error it throws fails the new future. The new future uses this future's callback queue. Cancelling it
    /// withdraws its interest from this future (see ``cancel()``).
    ///
    /// ```swift
    /// let name: Future<String> = Person.read(id: 12).map { $0.firstName }
    /// ```
    /// - Parameter transform: Turns the value into the new future's value; may throw.
    /// - Returns: A future of the transformed value.
    @inlinable
    public func map<NewValue>(
        _ transform: @escaping @Sendable (Value) throws -> NewValue
    ) -> Future<NewValue> {
        if let result = completedResult {
            return Future<NewValue>(
                result: result.flatMap { value in Result { try transform(value) } },
                callbackQueue: callbackQueue)
        }
        let derived: Future<NewValue> = makeDerived()
        observe(key: ObserverKey(owner: derived)) { result in
            switch result {
            case .failure(let error):
                derived.complete(with: .failure(error))
            case .success(let value):
                // A cancelled future's transform never runs; see `isWanted`.
                guard derived.isWanted else { return }
                derived.complete(with: Result { try transform(value) })
            }
        }
        return derived
    }

    /// A future that continues with the future `transform` makes from the value; a failure passes through.
    ///
    /// ```swift
    /// let friends = Person.read(id: 12).flatMap { person in Friend.list(["person": "\(person.id)"]) }
    /// ```
    ///
    /// Cancelling the new future withdraws its interest from this future and from the one `transform` made.
    /// - Parameter transform: Makes the next future from the value; may throw to fail the result.
    /// - Returns: A future that completes as the future `transform` made does.
    @inlinable
    public func flatMap<NewValue>(
        _ transform: @escaping @Sendable (Value) throws -> Future<NewValue>
    ) -> Future<NewValue> {
        let derived: Future<NewValue> = makeDerived()
        observe(key: ObserverKey(owner: derived)) { result in
            switch result {
            case .failure(let error):
                derived.complete(with: .failure(error))
            case .success(let value):
                guard derived.isWanted else { return }
                do {
                    derived.follow(try transform(value))
                } catch {
                    derived.complete(with: .failure(error))
                }
            }
        }
        return derived
    }

    /// A future whose error is replaced by `transform`'s; a value passes through unchanged.
    ///
    /// ```swift
    /// let read = Person.read(id: 12).mapError { error in AppError.offline(underlying: error) }
    /// ```
    /// - Parameter transform: Turns the error into the one the new future fails with.
    /// - Returns: A future with the same value or the transformed error.
    @inlinable
    public func mapError(_ transform: @escaping @Sendable (any Error) -> any Error) -> Future<Value> {
        let derived: Future<Value> = makeDerived()
        observe(key: ObserverKey(owner: derived)) { result in
            switch result {
            case .success:
                derived.complete(with: result)
            case .failure(let error):
                guard derived.isWanted else { return }
                derived.complete(with: .failure(transform(error)))
            }
        }
        return derived
    }

    /// A future that succeeds with `transform`'s value when this one fails; a value passes through.
    ///
    /// ```swift
    /// let people = Person.list().recover { _ in [] }
    /// ```
    /// - Parameter transform: Turns the error into a value, or throws to fail the new future.
    /// - Returns: A future that succeeds unless `transform` throws.
    @inlinable
    public func recover(_ transform: @escaping @Sendable (any Error) throws -> Value) -> Future<Value> {
        let derived: Future<Value> = makeDerived()
        observe(key: ObserverKey(owner: derived)) { result in
            switch result {
            case .success:
                derived.complete(with: result)
            case .failure(let error):
                guard derived.isWanted else { return }
                derived.complete(with: Result { try transform(error) })
            }
        }
        return derived
    }

    /// A future that continues with the future `transform` makes when this one fails; a value passes through.
    ///
    /// ```swift
    /// let person = Person.read(id: 12).recover { _ in cache.person(id: 12) }
    /// ```
    /// - Parameter transform: Makes a fallback future from the error; may throw to fail the result.
    /// - Returns: A future with this future's value or the fallback's outcome.
    @inlinable
    public func recover(_ transform: @escaping @Sendable (any Error) throws -> Future<Value>) -> Future<Value> {
        let derived: Future<Value> = makeDerived()
        observe(key: ObserverKey(owner: derived)) { result in
            switch result {
            case .success:
                derived.complete(with: result)
            case .failure(let error):
                guard derived.isWanted else { return }
                do {
                    derived.follow(try transform(error))
                } catch {
                    derived.complete(with: .failure(error))
                }
            }
        }
        return derived
    }

    /// A future of both values once both futures succeed; it fails with the first failure of either.
    ///
    /// ```swift
    /// Person.read(id: 1).zip(Person.read(id: 2)).onSuccess { first, second in … }
    /// ```
    /// Cancelling the new future withdraws its interest from both.
    /// - Parameter other: The second future.
    /// - Returns: A future of the pair of values.
    public func zip<Other>(_ other: Future<Other>) -> Future<(Value, Other)> {
        let derived = Future<(Value, Other)>(callbackQueue: callbackQueue)
        let values = Locked<(Value?, Other?)>((nil, nil))
        let firstKey = ObserverKey(owner: derived, slot: 0)
        let secondKey = ObserverKey(owner: derived, slot: 1)
        // Once the pair is decided (both values, or the first failure), neither input keeps an observer for it.
        let release: @Sendable () -> Void = {
            self.removeObserver(firstKey)
            other.removeObserver(secondKey)
        }
        observe(key: firstKey) { result in
            switch result {
            case .failure(let error):
                if derived.complete(with: .failure(error)) { release() }
            case .success(let value):
                let pair = values.withLock { values in
                    values.0 = value
                    return values.1.map { (value, $0) }
                }
                if let pair { derived.complete(with: .success(pair)) }
            }
        }
        other.observe(key: secondKey) { result in
            switch result {
            case .failure(let error):
                if derived.complete(with: .failure(error)) { release() }
            case .success(let value):
                let pair = values.withLock { values in
                    values.1 = value
                    return values.0.map { ($0, value) }
                }
                if let pair { derived.complete(with: .success(pair)) }
            }
        }
        // Completed while registering (an input had failed already): the other may have registered after that.
        if derived.isCompleted { release() }
        derived.addCancelHandler {
            self.withdrawInterest(of: firstKey)
            other.withdrawInterest(of: secondKey)
        }
        return derived
    }

    // MARK: - Plumbing

    /// A new pending future with this future's callback queue; cancelling it withdraws its interest from this
    /// future. The caller then observes this future (one closure: the observer) to complete it.
    ///
    /// Nothing else holds the new future until the caller returns it, so it cannot be cancelled before the
    /// caller's observer, and with it the interest that cancelling withdraws, is registered.
    @inlinable
    func makeDerived<NewValue>() -> Future<NewValue> {
        Future<NewValue>(callbackQueue: callbackQueue, upstream: self)
    }

    /// Completes this future as `upstream` completes; cancelling this one withdraws its interest (and its
    /// observer) from `upstream`.
    @inlinable
    func follow(_ upstream: Future<Value>) {
        let key = ObserverKey(owner: self, slot: 1)
        upstream.observe(key: key) { self.complete(with: $0) }
        addCancelHandler { upstream.withdrawInterest(of: key) }
    }

    /// Whether the future still wants its outcome: `false` once it has completed, by ``cancel()`` above all.
    ///
    /// A combinator checks it before it runs the caller's transform, under the future's lock, so a future
    /// cancelled before its input completed never runs the transform (a `flatMap` that was cancelled sends no
    /// request). Cancelling and the input completing race to one decision: if the check comes first, the transform
    /// runs and a cancel that lands during it cancels what the transform started (``follow(_:)``); if the
    /// cancel comes first, the transform never runs.
    @inlinable
    var isWanted: Bool {
        state.withLock { $0.result == nil }
    }
}
