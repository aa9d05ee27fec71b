import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// Counts the bytes of one direction of a transfer and tells an observer through a ``CRUDKit/ProgressThrottle``.
struct ProgressReporter {
    let expected: Int64?
    let observer: (@Sendable (TransferProgress) -> Void)?
    var completed: Int64 = 0
    var throttle = ProgressThrottle()

    init(expected: Int64?, observer: (@Sendable (TransferProgress) -> Void)?) {
        self.expected = expected
        self.observer = observer
    }

    /// Counts `count` more bytes, reporting them when the throttle lets them through.
    mutating func add(_ count: Int) {
        completed += Int64(count)
        guard let observer else { return }
        let progress = TransferProgress(completedBytes: completed, expectedBytes: expected)
        if throttle.admit(progress, now: DispatchTime.now().uptimeNanoseconds) { observer(progress) }
    }

    /// Reports the final count, unless it was the last one reported.
    mutating func finish() {
        guard let observer else { return }
        let progress = TransferProgress(completedBytes: completed, expectedBytes: expected ?? completed)
        if throttle.admit(progress, final: true, now: DispatchTime.now().uptimeNanoseconds) { observer(progress) }
    }
}
