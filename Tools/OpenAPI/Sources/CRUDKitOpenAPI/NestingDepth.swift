/// The nesting limit of the documents the generator reads, checked on the text before any parser sees it: Yams'
/// composer and OpenAPIKit's decoders recurse once per level, so a document nested thousands of levels deep would
/// otherwise overflow a small thread's stack, or be refused by a parser's own limit with a message that does not
/// say why ("not valid JSON").
enum NestingDepth {
    /// The deepest nesting of objects and arrays (JSON) or of mappings and sequences (YAML) read: about sixty
    /// schemas nested inline, far more than a real document has.
    static let limit = 128

    /// Throws ``NestingDepthError`` when the text nests deeper than `limit`.
    ///
    /// One pass over the bytes, without recursion. JSON is read exactly (brackets outside strings). YAML is
    /// estimated from its flow collections (`{`, `[` where a value starts, and everything inside them) plus its
    /// block collections (one level per indentation step and per `- ` of a sequence entry); quoted scalars,
    /// comments and block scalars (`|`, `>`) are skipped, so brackets inside text are not counted.
    static func check(_ text: String, limit: Int = limit) throws {
        let bytes = Array(text.utf8)
        let space = UInt8(ascii: " ")
        let newline = UInt8(ascii: "\n")
        var flowDepth = 0
        var blockIndents: [Int] = []
        var quote: UInt8?
        var escaped = false
        var blockScalarIndent: Int?
        var lineNumber = 0
        var start = 0
        func fail(_ column: Int) -> NestingDepthError {
            NestingDepthError(limit: limit, line: lineNumber, column: column + 1)
        }
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count, bytes[end] != newline { end += 1 }
            defer { start = end + 1 }
            var contentEnd = end
            if contentEnd > start, bytes[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
            var position = start
            while position < contentEnd, bytes[position] == space { position += 1 }
            let indent = position - start
            let blank = position == contentEnd
            if let scalarIndent = blockScalarIndent {
                if blank || indent > scalarIndent { continue }
                blockScalarIndent = nil
            }
            if blank { continue }
            // Block structure, outside flow collections and multi-line quoted scalars.
            var previous: UInt8? = nil  // the last byte that is not a space, on this line
            if quote == nil, flowDepth == 0, bytes[position] != UInt8(ascii: "#") {
                while let last = blockIndents.last, last > indent { blockIndents.removeLast() }
                // A line that starts a flow collection (`{`, `[`: JSON) is a value, not a block collection.
                let flowStart = bytes[position] == UInt8(ascii: "{") || bytes[position] == UInt8(ascii: "[")
                if !flowStart, blockIndents.last != indent { blockIndents.append(indent) }
                if blockIndents.count > limit { throw fail(indent) }
                // `- - a`: each sequence entry opens one more level at its content's column.
                while position < contentEnd, bytes[position] == UInt8(ascii: "-"),
                    position + 1 == contentEnd || bytes[position + 1] == space
                {
                    position += 1
                    while position < contentEnd, bytes[position] == space { position += 1 }
                    if position < contentEnd {
                        blockIndents.append(position - start)
                        if blockIndents.count + flowDepth > limit { throw fail(position - start) }
                    }
                    previous = UInt8(ascii: "-")
                }
            }
            while position < contentEnd {
                let byte = bytes[position]
                defer { position += 1 }
                if let open = quote {
                    if escaped {
                        escaped = false
                    } else if open == UInt8(ascii: "\"") && byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == open {
                        quote = nil
                        previous = byte
                    }
                    continue
                }
                if byte == space || byte == UInt8(ascii: "\t") { continue }
                // A value starts at the beginning of the content, after `:`, `-`, `?` and inside a flow collection.
                let valueStarts =
                    previous == nil || previous == UInt8(ascii: ":") || previous == UInt8(ascii: "-")
                    || previous == UInt8(ascii: "?") || previous == UInt8(ascii: ",")
                    || previous == UInt8(ascii: "[") || previous == UInt8(ascii: "{")
                switch byte {
                case UInt8(ascii: "#") where position == start || bytes[position - 1] == space:
                    position = contentEnd
                    continue
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    if valueStarts || flowDepth > 0 { quote = byte }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if valueStarts || flowDepth > 0 {
                        flowDepth += 1
                        if blockIndents.count + flowDepth > limit { throw fail(position - start) }
                    }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if flowDepth > 0 { flowDepth -= 1 }
                case UInt8(ascii: "|"), UInt8(ascii: ">"):
                    // A block scalar: its lines are text, however they are indented.
                    if flowDepth == 0, valueStarts {
                        blockScalarIndent = indent
                        position = contentEnd
                        continue
                    }
                default: break
                }
                previous = byte
            }
        }
    }
}

/// A document nested deeper than ``NestingDepth/limit``.
struct NestingDepthError: Error, Sendable, Hashable, CustomStringConvertible {
    var limit: Int
    var line: Int
    var column: Int

    var description: String {
        "nested more than \(limit) levels deep (objects and arrays) at line \(line), column \(column); "
            + "\(limit) levels is the most that is read"
    }
}
