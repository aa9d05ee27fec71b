/// Whether a failure may go on to the retry step (StreemNetworking's `shouldContinue`).
public enum FailureDecision: Sendable, Hashable {
    /// Go on: later interceptors and the retry policy may retry.
    case proceed
    /// Fail now with the error, without any retry.
    case stop
}
