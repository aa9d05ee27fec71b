import CRUDKitCore
import Dispatch

/// The program-wide queue for callbacks of futures that were given none: a private serial queue, so that
/// callbacks run in a command-line program without a main loop.
private let defaultQueue = Locked(DispatchQueue(label: "CRUDKit.Future.callbacks"))

extension Future where Value == Void {
    /// The queue that runs callbacks when neither the call (`on:`) nor the future's maker named one.
    ///
    /// By default a private serial queue, which needs no running main loop, so it works in command-line
    /// programs and servers. UI apps switch every callback to the main thread with one line at launch:
    ///
    /// ```swift
    /// Future.defaultCallbackQueue = .main
    /// ```
    ///
    /// Set it once, before making futures: a callback uses the default in force when it is registered.
    public static var defaultCallbackQueue: DispatchQueue {
        get { defaultQueue.withLock { $0 } }
        set { defaultQueue.withLock { $0 = newValue } }
    }
}

extension Future {
    /// The queue a callback registered now runs on: the one given, else the future's, else the default.
    @usableFromInline
    func resolvedQueue(_ queue: DispatchQueue?) -> DispatchQueue {
        queue ?? callbackQueue ?? defaultQueue.withLock { $0 }
    }
}
