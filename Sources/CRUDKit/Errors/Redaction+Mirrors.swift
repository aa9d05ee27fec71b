// Values that carry secrets show no stored property through reflection: `dump(_:)`, a debugger's variables view and
// logging tools that walk a value with `Mirror` see only its redacted description (or its type), never a token, a
// credential header, a URL password or a secret query value.

extension API: CustomReflectable {
    /// No children: `dump(api)` shows the type only, not the configuration's token, headers or base URL password.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension APIConfiguration: CustomReflectable {
    /// No children: `dump(configuration)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Endpoint: CustomReflectable {
    /// No children: `dump(endpoint)` prints the redacted ``description`` only (a URL may hold a secret query value).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension RequestBody: CustomReflectable {
    /// No children: `dump(body)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Request: CustomReflectable {
    /// No children: `dump(request)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension PageRequest: CustomReflectable {
    /// No children: `dump(page)` prints the redacted ``description`` only (a `next` link may carry a token).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension LogEvent: CustomReflectable {
    /// No children: `dump(event)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension MiddlewareContext: CustomReflectable {
    /// No children: `dump(context)` shows the type only, not the API configuration it holds.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension ResponseCache: CustomReflectable {
    /// No children: `dump(cache)` shows the type only, not the stored bodies or the credentials they are keyed by.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension TokenRefresher: CustomReflectable {
    /// No children: `dump(refresher)` shows the type only, not the current token.
    public nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension RequestHandle: CustomReflectable {
    /// No children: `dump(handle)` shows the type only, not the request's credential headers.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
