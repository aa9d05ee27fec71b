import CoreMetrics
import Instrumentation
import Logging
import Tracing

/// Whether a backend is one of the ecosystems' no-op ones, read from its dynamic type: a comparison of two type
/// identities, where `is` goes through the runtime's dynamic cast (the larger part of a stage's pass-through check).
enum NoOpBackends {
    /// `NoOpInstrument` or `NoOpTracer`.
    static func isNoOp(_ instrument: any Instrument) -> Bool {
        let type = ObjectIdentifier(Swift.type(of: instrument))
        return type == ObjectIdentifier(NoOpInstrument.self) || type == ObjectIdentifier(NoOpTracer.self)
    }

    /// `NOOPMetricsHandler` (a final class).
    static func isNoOp(_ factory: any MetricsFactory) -> Bool {
        ObjectIdentifier(Swift.type(of: factory)) == ObjectIdentifier(NOOPMetricsHandler.self)
    }

    /// `SwiftLogNoOpLogHandler`, which drops every line (its level is `.critical` and cannot be changed).
    static func isNoOp(_ handler: any Logging.LogHandler) -> Bool {
        ObjectIdentifier(Swift.type(of: handler)) == ObjectIdentifier(SwiftLogNoOpLogHandler.self)
    }
}
