import AsyncHTTPClient
import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation
import NIOCore
import NIOHTTP1

/// What an ``AsyncHTTPClientTransport`` exchange takes from a response head: the status, the headers copied, the
/// ``ResponseStateMachine`` that reads the body, and where the body goes.
///
/// Worked out synchronously, out of the exchange's async frames, and small: the task that reads the body starts
/// with it (see `AsyncHTTPClientTransport.exchange`).
struct ResponseHead: Sendable {
    /// The status code.
    let status: Int
    /// The response's fields, in order.
    let headers: CRUDKit.HTTPHeaders
    /// Whether the answer has no body whatever its `Content-Length` or `Content-Encoding` say: a HEAD answer, a
    /// 1xx, a 204, a 304, or a declared length of 0.
    let bodiless: Bool
    /// Reads the body.
    var machine: ResponseStateMachine
    /// Where the body goes: `nil` into memory; else into the file from byte `offset`, reporting the kept bytes
    /// (`progress`) first when given (see ``ResponseStateMachine/Action/openFile(offset:progress:)``).
    let file: (offset: Int64, progress: TransferProgress?)?
    /// Whether the body is not read at all: a redirect the follower follows whose declared length passes the drain
    /// (see ``ResponseStateMachine/Action/stop``); the answer is the head without a body.
    let skipsBody: Bool

    /// The head of the answer to `request`: `status` and `fields` as AsyncHTTPClient gave them.
    ///
    /// - Throws: The ``CRUDKit/CRUDError`` the head calls for (a declared length past the limit, a `Content-Range`
    ///   that does not continue the file).
    @inline(never)
    init(
        _ status: HTTPResponseStatus, _ fields: NIOHTTP1.HTTPHeaders, of request: HTTPRequest,
        transport: AsyncHTTPClientTransport, deadline: NIODeadline, limit: TimeInterval?, observer: TransferObserver,
        destination: URL?, appending: FileAppend?
    ) throws {
        // One pass over the response's fields: copied, and the three the transport reads picked out.
        var headers = CRUDKit.HTTPHeaders()
        var contentLength: String?
        var contentRange: String?
        // The codings listed, across every Content-Encoding line: how many are not `identity`, and the first
        // (what AsyncHTTPClient's decompressor reads).
        var codings = 0
        var firstCoding: Substring?
        for (name, value) in fields {
            headers.add(name: name, value: value)
            if contentLength == nil, AsyncHTTPClientTransport.nameIs(name, "content-length") {
                contentLength = value
            } else if contentRange == nil, AsyncHTTPClientTransport.nameIs(name, "content-range") {
                contentRange = value
            } else if AsyncHTTPClientTransport.nameIs(name, "content-encoding") {
                Self.count(codingsIn: value, into: &codings, first: &firstCoding)
            }
        }
        let status = Int(status.code)
        // A redirect the follower follows: its body is dropped (see `HTTPRequest.followedRedirectDrain`).
        let drain =
            (300..<400).contains(status) ? request.followedRedirectDrain(status: status, headers: headers) : nil
        // A HEAD answer, a 204 and a 304 have no body, whatever their Content-Length or Content-Encoding say.
        let bodiless =
            request.method == .head || status == 204 || status == 304 || (100..<200).contains(status)
            || contentLength.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } == 0
        // AsyncHTTPClient's decompressor undoes one coding, and only when the first listed is gzip or deflate:
        // `gzip, gzip`, `identity, gzip`, `x-gzip`, `br` would hand the caller bytes still encoded.
        let encoded = codings > 0
        if encoded, !bodiless, drain == nil, codings > 1 || !Self.isDecoded(firstCoding) {
            throw CRUDError.transport(
                TransportFailure(
                    .protocolViolation,
                    underlying: UndecodedContentCoding(codings: fields[canonicalForm: "content-encoding"])))
        }
        let success = (200..<300).contains(status)
        let target: ResponseStateMachine.Target
        if let appending, success {
            target = .append(offset: appending.offset, rangeStart: appending.rangeStart)
            appending.head(HTTPResponse(status: status, headers: headers, url: request.url))
        } else {
            target = destination != nil && success ? .file : .memory
        }
        // AsyncHTTPClient's deadline covers the request and the response head; the machine checks the body's
        // pieces against it as they arrive (a body that stalls instead is ended by the idle timeout).
        var machine = ResponseStateMachine(
            maximumBodySize: transport.configuration.maximumResponseSize, target: target,
            deadline: deadline.uptimeNanoseconds, limit: limit,
            reportsProgress: observer.download != nil, bodiless: bodiless, drain: drain)
        let action = machine.receivedHead(
            // A compressed body's Content-Length counts the compressed bytes, not the decoded ones it delivers.
            status: status, contentLength: encoded || bodiless ? nil : contentLength.flatMap(Int64.init),
            contentRange: contentRange,
            now: NIODeadline.now().uptimeNanoseconds)
        switch action {
        case .openFile(let offset, let progress): file = (offset, progress)
        case .fail(let error): throw error
        default: file = nil
        }
        if case .stop = action { skipsBody = true } else { skipsBody = false }
        self.status = status
        self.headers = headers
        self.bodiless = bodiless
        self.machine = machine
    }
}

extension ResponseHead {
    /// Adds the content codings one `Content-Encoding` value lists to `count` (those other than `identity`:
    /// `gzip, gzip` is two) and keeps the first listed of all in `first`.
    static func count(codingsIn value: String, into count: inout Int, first: inout Substring?) {
        for coding in value.split(separator: ",") {
            let name = coding.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            if first == nil { first = Substring(name) }
            if !AsyncHTTPClientTransport.nameIs(name, "identity") { count += 1 }
        }
    }

    /// Whether AsyncHTTPClient's decompressor undoes `coding`, the first one listed: gzip or deflate, in any case.
    static func isDecoded(_ coding: Substring?) -> Bool {
        guard let coding else { return false }
        let name = String(coding)
        return AsyncHTTPClientTransport.nameIs(name, "gzip") || AsyncHTTPClientTransport.nameIs(name, "deflate")
    }
}

/// An answer whose content codings AsyncHTTPClient's decompressor does not undo (more than one, one it does not
/// know such as `br` or `x-gzip`, or one listed after `identity`): the body is refused rather than handed on still
/// encoded.
struct UndecodedContentCoding: Error, CustomStringConvertible {
    /// The codings the answer listed, in order.
    let codings: [Substring]

    var description: String {
        "the answer's content codings (\(codings.joined(separator: ", "))) are not one AsyncHTTPClient decodes, so "
            + "the body would stay encoded"
    }
}
