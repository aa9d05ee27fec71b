import CRUDKitCore

extension HTTPResponse {
    /// What `If-Range` may carry to continue this answer's body: its strong `ETag`, else its `Last-Modified`.
    ///
    /// Used by ``DownloadTask`` and by the client's resumable requests.
    package var rangeValidator: String? {
        headers["ETag"].flatMap { $0.hasPrefix("\"") ? $0 : nil } ?? headers["Last-Modified"]
    }
}
