// Values that carry secrets show no stored property through reflection: `dump(_:)`, a debugger's variables view and
// logging tools that walk a value with `Mirror` see only its redacted description (or its type), never a password
// field, a cookie value or a credential header.

extension FormParameters: CustomReflectable {
    /// No children: `dump(parameters)` prints the redacted ``description`` only (a `password` or `api_key`
    /// field's value is hidden).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension FormParameters.Field: CustomReflectable {
    /// No children: `dump(field)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension MultipartForm: CustomReflectable {
    /// No children: `dump(form)` shows the type only, not the parts' values (a form may carry a password).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension CookieJar: CustomReflectable {
    /// No children: `dump(jar)` shows the type only, not the stored cookies' values.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension URLSessionTransport: CustomReflectable {
    /// No children: `dump(transport)` shows the type only, not its cookie jar or the requests in flight.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension DownloadTask: CustomReflectable {
    /// No children: `dump(task)` shows the type only, not the request's credential headers.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
