import Foundation

/// An `Encoder` that writes a model's JSON straight into one growing byte buffer, without building a ``JSON`` tree
/// first: the compact path of ``JSONCoding/encode(_:)``.
///
/// Its bytes are those of ``JSONTreeEncoder`` followed by ``JSONWriter`` (it writes through the writer's own string
/// and number primitives) for every model that fills its containers in order. What a stream cannot take back — a
/// container written to after a later sibling was begun, a key encoded twice, `superEncoder()`, a value replaced,
/// an encoder or container used after its value ended, or any error — marks the encoder failed, and
/// ``encode(_:coding:)`` encodes the whole value again on the tree encoder, whose result or error is then the
/// answer.
///
/// One encoder serves every level: an explicit stack of frames holds the values, arrays and objects being written,
/// and each container remembers its frame's position and number, so a container whose frame has ended is
/// recognised. Like the tree encoder it refuses to go deeper than the thread's stack holds (``StackLimit``).
final class JSONByteEncoder: Encoder {
    /// A value being encoded, or an array or object being written.
    struct Frame {
        /// What the frame holds so far.
        enum Kind {
            /// A value that has written nothing yet (`{}` if it ends so).
            case pending
            /// A value written whole (through a single-value container).
            case value
            case object
            case array
        }

        var kind: Kind
        /// A number no other frame of the document has, so a container of an ended frame is told apart.
        let id: Int
        /// The key or index of the value in its parent (`nil` at the root and for a single value's content).
        let key: (any CodingKey)?
        /// The members or elements written.
        var count = 0
        /// The ids (``JSONByteEncoderKeys/Entry/id``) of the keys written to an object: below 64 as bits.
        var seen: UInt64 = 0
        /// The ids of 64 and more written to an object.
        var moreSeen: Set<Int>?

        init(kind: Kind, id: Int, key: (any CodingKey)?) {
            self.kind = kind
            self.id = id
            self.key = key
        }
    }

    /// Thrown to unwind once the encoder has failed; the tree encoder then does the work.
    struct Restart: Error {}

    // Every mutable property is one this encoder alone touches, on one thread, never across a call that could touch
    // it again: the run-time exclusivity checks (a third of the time) are left out.
    @exclusivity(unchecked) var writer = JSONWriter(options: [], capacity: 256)
    @exclusivity(unchecked) private(set) var frames: [Frame] = []
    @exclusivity(unchecked) private var nextID = 0
    /// The frame of the value whose `encode(to:)` is running: what ``container(keyedBy:)`` and the other requests
    /// open. Frames above it are containers nested in that value.
    @exclusivity(unchecked) private var valueLevel = -1
    /// Whether the output can no longer be trusted (see the type's comment).
    @exclusivity(unchecked) private(set) var failed = false
    private let dates: JSONCoding.DateCoding
    /// Whether a keyed `encodeIfPresent(nil)` writes `null`.
    let writesNil: Bool
    private let writesDecimalsAsStrings: Bool
    @exclusivity(unchecked) private var keys: JSONByteEncoderKeys

    private init(coding: JSONCoding) {
        dates = coding.dates
        writesNil = coding.nilEncoding == .null
        writesDecimalsAsStrings = coding.writesDecimalsAsStrings
        keys = JSONByteEncoderKeys(convertsSnakeCase: coding.convertsSnakeCase)
    }

    /// The compact UTF-8 JSON of `value`: written directly, or by the tree encoder when the direct way failed.
    static func encode<T: Encodable>(_ value: T, coding: JSONCoding) throws -> Data {
        if let bytes = directBytes(value, coding: coding) { return Data(bytes) }
        return try JSONTreeEncoder.encodeRoot(value, coding: coding).data(options: coding.writing)
    }

    /// The compact UTF-8 JSON of `value` written directly; `nil` when the encoder failed.
    static func directBytes<T: Encodable>(_ value: T, coding: JSONCoding) -> [UInt8]? {
        let encoder = JSONByteEncoder(coding: coding)
        do {
            try encoder.box(value, key: nil)
        } catch {
            return nil
        }
        return encoder.failed ? nil : encoder.writer.output
    }

    /// Marks the encoder failed; returns the error to unwind with.
    func fail() -> Restart {
        failed = true
        return Restart()
    }

    // MARK: - Encoder

    var codingPath: [any CodingKey] { path(to: valueLevel) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The keys from the root to the frame at `level`.
    func path(to level: Int) -> [any CodingKey] {
        guard level >= 0, level < frames.count else { return [] }
        return frames[...level].compactMap(\.key)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (level, id) = openValue(as: .object, UInt8(ascii: "{"))
        return KeyedEncodingContainer(JSONByteKeyedEncodingContainer<Key>(encoder: self, level: level, id: id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (level, id) = openValue(as: .array, UInt8(ascii: "["))
        return JSONByteUnkeyedEncodingContainer(encoder: self, level: level, id: id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        let level = valueLevel
        guard !failed, level >= 0, level < frames.count else {
            failed = true
            return JSONByteSingleValueContainer(encoder: self, level: -1, id: -1)
        }
        return JSONByteSingleValueContainer(encoder: self, level: level, id: frames[level].id)
    }

    /// Makes the running value an object or array, or re-opens the one it already is (the tree encoder adds to the
    /// same builder); anything else replaces a value, which only the tree can do.
    private func openValue(as kind: Frame.Kind, _ opening: UInt8) -> (level: Int, id: Int) {
        let level = valueLevel
        guard !failed, level >= 0, level < frames.count else {
            failed = true
            return (-1, -1)
        }
        if frames[level].kind == .pending {
            // Nothing nested is open above a value that has written nothing.
            frames[level].kind = kind
            writer.append(opening)
        } else if frames[level].kind != kind {
            failed = true
        }
        return (level, frames[level].id)
    }

    // MARK: - Frames

    /// Makes the frame at `level` (which must be frame `id`, of the running value or nested in it) the one being
    /// written, ending the containers opened after it; `false` when it cannot be.
    @inline(__always)
    func enter(_ level: Int, _ id: Int) -> Bool {
        guard !failed, level >= valueLevel, level < frames.count, frames[level].id == id else { return false }
        while frames.count > level + 1 { closeTop() }
        return true
    }

    /// Ends the last frame (a nested container: its opening bracket is written).
    private func closeTop() {
        let frame = frames.removeLast()
        switch frame.kind {
        case .array: writer.append(UInt8(ascii: "]"))
        case .object: writer.append(UInt8(ascii: "}"))
        case .pending: writer.appendASCII("{}")
        case .value: break
        }
    }

    /// Begins an object member in the frame at `level`: the comma, the key and its colon. A key already written to
    /// the object fails (the tree keeps the last value).
    func beginMember(_ name: String, level: Int, id: Int) throws {
        guard enter(level, id) else { throw fail() }
        let position = keys.entry(for: name)
        let keyID = keys.entries[position].id
        if keyID < 64 {
            let bit: UInt64 = 1 << UInt64(keyID)
            guard frames[level].seen & bit == 0 else { throw fail() }
            frames[level].seen |= bit
        } else {
            guard frames[level].moreSeen?.insert(keyID).inserted ?? true else { throw fail() }
            if frames[level].moreSeen == nil { frames[level].moreSeen = [keyID] }
        }
        if frames[level].count > 0 { writer.append(UInt8(ascii: ",")) }
        frames[level].count += 1
        writer.append(keys.entries[position].bytes)
    }

    /// Begins an array element in the frame at `level`: the comma. Returns the element's index.
    func beginElement(level: Int, id: Int) throws -> Int {
        guard enter(level, id) else { throw fail() }
        let index = frames[level].count
        if index > 0 { writer.append(UInt8(ascii: ",")) }
        frames[level].count = index + 1
        return index
    }

    /// Begins the only value of the single-value container of frame `level`; writing a second one fails (the tree
    /// keeps the last).
    func beginSingleValue(level: Int, id: Int) throws {
        guard enter(level, id), frames.count == level + 1, frames[level].kind == .pending else { throw fail() }
        frames[level].kind = .value
    }

    /// Opens an array or object nested in the member or element just begun; `(-1, -1)` after a failure.
    func openNested(_ kind: Frame.Kind, key: any CodingKey) -> (level: Int, id: Int) {
        guard !failed else { return (-1, -1) }
        frames.append(Frame(kind: kind, id: nextID, key: key))
        nextID += 1
        writer.append(kind == .array ? UInt8(ascii: "[") : UInt8(ascii: "{"))
        return (frames.count - 1, nextID - 1)
    }

    /// The elements written to the array of frame `level`.
    func count(level: Int, id: Int) -> Int {
        guard !failed, level >= 0, level < frames.count, frames[level].id == id else {
            failed = true
            return 0
        }
        return frames[level].count
    }

    // MARK: - Values

    /// Writes any `Encodable` at the current position (a member's or element's key is written already).
    ///
    /// Any error on the way (a date or decimal that cannot be written, a model's own error) marks the encoder
    /// failed before it leaves: a model may catch it and go on, and the key or comma already written must not
    /// stay in the output (the tree encoder, run again from the root, leaves the member out).
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws {
        do {
            try boxUnguarded(value, key: key)
        } catch {
            failed = true
            throw error
        }
    }

    /// ``box(_:key:)`` without marking the encoder failed on an error.
    private func boxUnguarded<T: Encodable>(_ value: T, key: (any CodingKey)?) throws {
        if T.self == JSON.self, let json = value as? JSON { return try writeJSON(json) }
        if T.self == Date.self, let date = value as? Date {
            return try writeJSON(JSONTreeEncoder.boxDate(date, dates: dates, at: .root))
        }
        if T.self == URL.self, let url = value as? URL { return writer.writeString(url.absoluteString) }
        if T.self == Data.self, let data = value as? Data { return writer.writeString(data.base64EncodedString()) }
        if T.self == Decimal.self, let decimal = value as? Decimal {
            return try writeJSON(JSONTreeEncoder.boxDecimal(decimal, asString: writesDecimalsAsStrings, at: .root))
        }
        guard !failed else { throw Restart() }
        let level = frames.count
        if level > StackLimit.checkedDepth { try checkStack() }
        frames.append(Frame(kind: .pending, id: nextID, key: key))
        nextID += 1
        if T.self is any JSONByteStringKeyedDictionary.Type,
            let dictionary = value as? any JSONByteStringKeyedDictionary
        {
            frames[level].kind = .object
            writer.append(UInt8(ascii: "{"))
            try dictionary.encodeWithoutKeyConversion(to: self)
        } else {
            let outer = valueLevel
            valueLevel = level
            try value.encode(to: self)
            valueLevel = outer
        }
        // A model that caught an error and went on leaves frames that cannot be trusted.
        guard !failed else { throw Restart() }
        while frames.count > level { closeTop() }
    }

    /// Writes a finished value as the whole of the running value (``JSON``'s own `encode(to:)`, which keeps its
    /// member order here as in the tree encoder).
    func storeValue(_ json: JSON) throws {
        let level = valueLevel
        guard !failed, level >= 0, level < frames.count else { throw fail() }
        try beginSingleValue(level: level, id: frames[level].id)
        try writeJSON(json)
    }

    /// Writes a finished value; a non-finite number fails (the tree reports it with its path).
    func writeJSON(_ json: JSON) throws {
        do {
            try writer.write(json)
        } catch {
            throw fail()
        }
    }

    /// Refuses to go deeper when the thread's stack is nearly used up; the tree encoder, run from the root with
    /// the whole stack, then reports it (or manages).
    @inline(never)
    private func checkStack() throws {
        if StackLimit.isNearlyExhausted() { throw fail() }
    }

    func write(_ value: Bool) { value ? writer.appendASCII("true") : writer.appendASCII("false") }

    func write(_ value: Double) throws {
        guard writer.writeFinite(value) else { throw fail() }
    }

    func write(_ value: Float) throws {
        guard value.isFinite, writer.writeFinite(JSONTreeEncoder.widened(value)) else { throw fail() }
    }

    func write<I: FixedWidthInteger>(_ value: I) {
        if let exact = Int64(exactly: value) {
            writer.writeInteger(exact)
        } else {
            _ = writer.writeNumber(JSON.Number(exactly: value))
        }
    }
}

/// `[String: Value]` dictionaries are written without key conversion and in ascending key order, as
/// ``JSONTreeEncoder`` writes them.
protocol JSONByteStringKeyedDictionary {
    func encodeWithoutKeyConversion(to encoder: JSONByteEncoder) throws
}

extension Dictionary: JSONByteStringKeyedDictionary where Key == String, Value: Encodable {
    func encodeWithoutKeyConversion(to encoder: JSONByteEncoder) throws {
        var first = true
        for (key, value) in sorted(by: { $0.key < $1.key }) {
            if !first { encoder.writer.append(UInt8(ascii: ",")) }
            first = false
            encoder.writer.writeString(key)
            encoder.writer.append(UInt8(ascii: ":"))
            try encoder.box(value, key: JSONCodingKey(stringValue: key))
        }
    }
}
