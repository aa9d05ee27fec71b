import CRUDKitCore
import Foundation

extension MultipartForm {
    /// Writes the body through `sink` piece by piece; file parts are read 1 MB at a time (or only measured,
    /// when `fileSize` is given).
    ///
    /// Every part is checked for the delimiter (`--` and the boundary) before its bytes go to `sink`; a file part
    /// chunk by chunk as it is read (a delimiter split across two chunks included). Only measuring a file does not
    /// read it, so does not check it.
    func encode(_ sink: (Data) throws -> Void, fileSize: ((URL) throws -> Int)? = nil) throws {
        try validateBoundary()
        let delimiter = Data("--\(boundary)".utf8)
        for part in parts {
            let head = try head(of: part)
            // The head's first line is the delimiter itself; the rest is the part's own.
            let fields = Data(head.utf8).dropFirst(delimiter.count + 2)
            guard fields.range(of: delimiter) == nil else { throw Self.boundaryOccurs(in: part) }
            try sink(Data(head.utf8))
            switch part.content {
            case .data(let data):
                guard data.range(of: delimiter) == nil else { throw Self.boundaryOccurs(in: part) }
                try sink(data)
            case .file(let url):
                if let fileSize {
                    try sink(Data(count: try fileSize(url)))
                } else {
                    var scan = DelimiterScan(delimiter: delimiter)
                    try Self.copy(url) { chunk in
                        guard !scan.finds(in: chunk) else { throw Self.boundaryOccurs(in: part) }
                        try sink(chunk)
                    }
                }
            }
            try sink(Data("\r\n".utf8))
        }
        try sink(Data("--\(boundary)--\r\n".utf8))
    }

    private func head(of part: Part) throws -> String {
        var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
        if let filename = part.filename { head += "; filename=\"\(Self.escape(filename))\"" }
        head += "\r\n"
        if let contentType = part.contentType {
            guard contentType.utf8.allSatisfy({ $0 >= 32 && $0 != 127 }) else {
                throw CRUDError.invalidRequest(
                    reason: "the content type of part \(part.name) contains CR, LF or controls")
            }
            head += "Content-Type: \(contentType)\r\n"
        }
        return head + "\r\n"
    }

    private func validateBoundary() throws {
        let allowed = Set("'()+_,-./:=?".utf8)
        let valid =
            (1...70).contains(boundary.utf8.count)
            && boundary.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || allowed.contains($0)
            }
        guard valid else { throw CRUDError.invalidRequest(reason: "the multipart boundary \(boundary) is not valid") }
    }

    /// The error for a part that contains the delimiter.
    private static func boundaryOccurs(in part: Part) -> CRUDError {
        CRUDError.invalidRequest(
            reason:
                "the multipart boundary occurs in part \(escape(part.name)): choose a boundary its bytes do not contain"
        )
    }

    /// Escapes `"`, CR and LF as browsers do in `Content-Disposition` parameters.
    private static func escape(_ text: String) -> String {
        text.replacingScalars(["\"": "%22", "\r": "%0D", "\n": "%0A"])
    }

    static func size(of url: URL) throws -> Int {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            throw CRUDError.invalidRequest(reason: "cannot read the file \(url.path): \(error.localizedDescription)")
        }
    }

    private static func copy(_ url: URL, to sink: (Data) throws -> Void) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw CRUDError.invalidRequest(reason: "cannot read the file \(url.path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw CRUDError.invalidRequest(
                    reason: "cannot read the file \(url.path): \(error.localizedDescription)")
            }
            if chunk.isEmpty { return }
            try sink(chunk)
        }
    }
}

/// A search for a delimiter in a stream read in chunks: finds it inside a chunk or across the end of one chunk and the
/// start of the next, keeping only the last `delimiter.count - 1` bytes between chunks.
struct DelimiterScan {
    let delimiter: Data
    /// The end of the bytes scanned so far, shorter than the delimiter.
    private var tail = Data()

    init(delimiter: Data) {
        self.delimiter = delimiter
    }

    /// Whether the delimiter ends within `chunk` (starting in it or in the bytes before it).
    mutating func finds(in chunk: Data) -> Bool {
        guard !delimiter.isEmpty else { return false }
        let keep = delimiter.count - 1
        // Across the junction: the kept tail and just enough of the chunk to complete a delimiter begun in it.
        var junction = tail
        junction.append(chunk.prefix(keep))
        if junction.range(of: delimiter) != nil || chunk.range(of: delimiter) != nil { return true }
        junction.append(chunk.dropFirst(keep).suffix(keep))
        tail = Data(junction.suffix(keep))
        return false
    }
}
