import CRUDKitCore
import Foundation

extension MultipartForm {
    /// Writes the body through `sink` piece by piece; file parts are read 1 MB at a time (or only measured,
    /// when `fileSize` is given).
    func encode(_ sink: (Data) throws -> Void, fileSize: ((URL) throws -> Int)? = nil) throws {
        try validateBoundary()
        for part in parts {
            try sink(Data(try head(of: part).utf8))
            switch part.content {
            case .data(let data):
                try sink(data)
            case .file(let url):
                if let fileSize {
                    try sink(Data(count: try fileSize(url)))
                } else {
                    try Self.copy(url, to: sink)
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
