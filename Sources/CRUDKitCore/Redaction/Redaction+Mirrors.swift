// Values that carry secrets show no stored property through reflection: `dump(_:)`, a debugger's variables view and
// logging tools that walk a value with `Mirror` see only its redacted description, never the headers, URL or body
// the value keeps for the code that reads them.

extension CRUDError: CustomReflectable {
    /// No children: `dump(error)` prints the redacted ``description`` only (the stored response may carry
    /// cookies, a URL password or a secret query value).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension CRUDError.DecodingFailure: CustomReflectable {
    /// No children: `dump` prints the ``description`` only (the stored body excerpt may quote a credential).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension HTTPRequest: CustomReflectable {
    /// No children: `dump(request)` prints the redacted ``description`` only, not the `Authorization` header,
    /// the URL's password or the body.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension HTTPResponse: CustomReflectable {
    /// No children: `dump(response)` prints the redacted ``description`` only, not `Set-Cookie` or the URL's
    /// secrets.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension HTTPHeaders: CustomReflectable {
    /// No children: `dump(headers)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension HTTPHeaders.Field: CustomReflectable {
    /// No children: `dump(field)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
