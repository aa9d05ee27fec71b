import CRUDKit
import Foundation

extension LoopbackServer {
    /// Serves a generated body, honouring `Range` (one range) and `If-Range`; returns whether to keep the connection.
    func serve(
        _ download: LoopbackDownload, to request: LoopbackRequest, keepAlive: Bool, on socket: HTTP1Socket
    )
        throws -> Bool
    {
        var headers: HTTPHeaders = ["Content-Type": download.contentType, "Accept-Ranges": "bytes"]
        if !download.honoursRanges { headers["Accept-Ranges"] = "none" }
        if let etag = download.etag { headers["ETag"] = etag }
        if let lastModified = download.lastModified { headers["Last-Modified"] = lastModified }
        if !keepAlive { headers["Connection"] = "close" }

        // A negative length is an empty body.
        let length = max(0, download.length)
        var range = 0..<length
        var status = 200
        if download.honoursRanges, let asked = request.headers["Range"], Self.validatorMatches(request, download) {
            guard let requested = Self.parseRange(asked, length: length) else {
                headers["Content-Range"] = "bytes */\(length)"
                try socket.write(Self.head(of: HTTPResponse(status: 416, headers: headers), length: 0))
                return keepAlive
            }
            range = requested
            status = 206
            headers["Content-Range"] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
        }
        try socket.write(Self.head(of: HTTPResponse(status: status, headers: headers), length: range.count))
        if request.method == "HEAD" { return keepAlive }

        var end = range.upperBound
        if let stall = download.stallAfter, request.headers["Range"] == nil { end = min(end, stall) }
        var offset = range.lowerBound
        while offset < end {
            let next = end - offset > 262_144 ? offset + 262_144 : end
            try socket.write(LoopbackDownload.bytes(offset..<next))
            offset = next
        }
        if end < range.upperBound {
            _ = socket.waitForClose(seconds: nil)
            return false
        }
        return keepAlive
    }

    private static func validatorMatches(_ request: LoopbackRequest, _ download: LoopbackDownload) -> Bool {
        guard let validator = request.headers["If-Range"] else { return true }
        if validator.hasPrefix("\"") { return download.etag == validator }
        return download.lastModified == validator
    }

    /// Parses `bytes=N-` or `bytes=N-M`; `nil` when unsatisfiable or not understood.
    private static func parseRange(_ value: String, length: Int) -> Range<Int>? {
        guard value.hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst(6)
        guard !spec.contains(",") else { return nil }
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int(bounds[0]), start >= 0, start < length else { return nil }
        if bounds[1].isEmpty { return start..<length }
        guard let last = Int(bounds[1]), last >= start else { return nil }
        // `last` may be `Int.max`: compared, never incremented.
        return start..<(last < length ? last + 1 : length)
    }
}
