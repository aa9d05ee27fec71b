/// The keys ``JSONByteEncoder`` has written in one document: each converted once (snake_case when asked), escaped
/// and quoted once with its colon, and numbered by its converted text, so that an object can tell a key it
/// already holds with one bit.
///
/// The models of an array encode the same keys in the same order, so a key is usually found with one comparison
/// at the position after the last one found, without hashing it.
struct JSONByteEncoderKeys {
    /// A key as the model names it, and what is written for it.
    struct Entry {
        /// The key as the model names it.
        let name: String
        /// `"converted_name":`, escaped as ``JSONWriter`` escapes strings.
        let bytes: [UInt8]
        /// The same number for every name with the same converted text (numbered from 0).
        let id: Int
    }

    private let convertsSnakeCase: Bool
    private(set) var entries: [Entry] = []
    /// Where the next key is expected in ``entries`` (the one after the last found).
    private var next = 0
    /// Entries by name, searched when the first ``scanLimit`` entries do not hold the key.
    private var byName: [JSONByteKey: Int] = [:]
    /// The ids of the converted texts seen so far.
    private var ids: [JSONByteKey: Int] = [:]
    /// How many entries are searched one by one before hashing the key.
    private static let scanLimit = 64

    init(convertsSnakeCase: Bool) {
        self.convertsSnakeCase = convertsSnakeCase
    }

    /// The position in ``entries`` of `name`'s entry, which is made on first use.
    mutating func entry(for name: String) -> Int {
        let length = name.utf8.count
        if next < entries.count, JSON.Object.sameKey(entries[next].name, name, length: length) {
            next += 1
            return next - 1
        }
        for position in 0..<min(entries.count, Self.scanLimit)
        where JSON.Object.sameKey(entries[position].name, name, length: length) {
            next = position + 1
            return position
        }
        if entries.count > Self.scanLimit, let position = byName[JSONByteKey(name)] {
            next = position + 1
            return position
        }
        let converted = convertsSnakeCase ? JSONKeyConversion.snakeCase(fromCamelCase: name) : name
        let id: Int
        if let known = ids[JSONByteKey(converted)] {
            id = known
        } else {
            id = ids.count
            ids[JSONByteKey(converted)] = id
        }
        var writer = JSONWriter(options: [], capacity: converted.utf8.count + 3)
        writer.writeString(converted)
        writer.append(UInt8(ascii: ":"))
        entries.append(Entry(name: name, bytes: writer.output, id: id))
        byName[JSONByteKey(name)] = entries.count - 1
        next = entries.count
        return entries.count - 1
    }
}
