@_spi(TransportKit) import CRUDKitHTTP
import Foundation

extension ResponseCache {
    /// What a stored response is filed under: its URL, the request headers that choose what a server answers
    /// (`Authorization`, `Cookie`, `Accept`, `Accept-Language`) and every other header that carries a credential
    /// (an API key, a token header, one the request marks sensitive or whose name names a secret: the headers a
    /// redirect keeps from other origins), so one user's or one language's response is never served for another's.
    struct Key: Hashable, Sendable {
        let url: String
        let selectors: [String?]
        /// The other credential headers sent, as lower-cased name and value, sorted.
        let credentials: [String]

        /// The request headers that are part of every key.
        static let selectingHeaders = ["Authorization", "Cookie", "Accept", "Accept-Language"]

        init(_ request: HTTPRequest) {
            url = request.url.absoluteString
            selectors = Self.selectingHeaders.map { Self.value(of: $0, in: request.headers) }
            var credentials: [String] = []
            for field in request.headers where RedirectPolicy.carriesCredential(field.name, in: request) {
                let name = field.name.lowercased()
                if name != "authorization", name != "cookie" { credentials.append("\(name): \(field.value)") }
            }
            self.credentials = credentials.sorted()
        }

        /// Every field named `name` in `headers`, joined: a header sent as several fields (a `Cookie` split in two)
        /// selects a response with all of them, not only its first. `nil` when there is none.
        static func value(of name: String, in headers: HTTPHeaders) -> String? {
            let values = headers.values(for: name)
            return values.count > 1 ? values.joined(separator: "\n") : values.first
        }

        /// The bytes of the request headers the key keeps beside its URL, counted against the byte limit like the
        /// response (a `Cookie` header alone may hold 50 cookies of 4 KiB).
        var headerBytes: Int {
            selectors.reduce(0) { $0 + ($1?.utf8.count ?? 0) } + credentials.reduce(0) { $0 + $1.utf8.count }
        }
    }

    /// A stored response with what revalidating it needs.
    struct Entry: Sendable {
        var response: HTTPResponse
        /// The `ETag` to send as `If-None-Match`.
        var etag: String?
        /// The `Last-Modified` date to send as `If-Modified-Since`.
        var lastModified: String?
        /// The request header values the response's `Vary` names (lower-cased name, value sent).
        var vary: [(name: String, value: String?)]
        /// Scheme, host, port and path without a trailing slash: what writes invalidate by.
        var path: String
        /// The bytes the entry counts against the byte limit.
        var size: Int
        /// When the entry was last used, on the storage's tick counter.
        var tick: UInt64 = 0

        /// Whether `request` sends the header values the response varies on.
        func matches(_ request: HTTPRequest) -> Bool {
            vary.allSatisfy { Key.value(of: $0.name, in: request.headers) == $0.value }
        }
    }

    /// The stored entries with least-recently-used eviction under an entry and a byte limit.
    ///
    /// Recency is a queue of `(tick, key)` pairs with lazy deletion: every use appends a pair, and a pair whose
    /// tick is no longer its entry's is skipped when evicting; the queue — the pairs already passed by eviction
    /// included — is compacted when it holds more than twice the entries, so what it keeps follows the limits
    /// however many responses went through. Lookups, insertions and evictions are amortised O(1).
    struct Storage {
        private(set) var entries: [Key: Entry] = [:]
        private var recency: [(tick: UInt64, key: Key)] = []
        private var recencyStart = 0
        private var tick: UInt64 = 0
        private(set) var bytes = 0
        /// Counts invalidations, so that a read which was in flight during one does not store what it read.
        var generation: UInt64 = 0

        /// The recency records held, live, stale and already passed: what the cache keeps beside its entries (for
        /// tests).
        package var footprint: Int { recency.count }

        /// The entry for `key`, marked as just used.
        mutating func entry(for key: Key) -> Entry? {
            guard entries[key] != nil else { return nil }
            tick += 1
            entries[key]?.tick = tick
            recency.append((tick, key))
            compactIfNeeded()
            return entries[key]
        }

        /// Stores `entry` as the most recently used, then evicts the least recently used entries until both limits
        /// hold.
        mutating func insert(_ entry: Entry, for key: Key, entryLimit: Int, byteLimit: Int) {
            remove(key)
            tick += 1
            var entry = entry
            entry.tick = tick
            entries[key] = entry
            bytes += entry.size
            recency.append((tick, key))
            while entries.count > entryLimit || bytes > byteLimit, recencyStart < recency.count {
                let (usedAt, oldest) = recency[recencyStart]
                recencyStart += 1
                if entries[oldest]?.tick == usedAt { remove(oldest) }
            }
            compactIfNeeded()
        }

        /// Forgets the entry for `key`.
        mutating func remove(_ key: Key) {
            if let removed = entries.removeValue(forKey: key) { bytes -= removed.size }
        }

        /// Forgets every entry `shouldRemove` selects.
        mutating func removeAll(where shouldRemove: (Entry) -> Bool) {
            for (key, entry) in entries where shouldRemove(entry) { remove(key) }
            compactIfNeeded()
        }

        private mutating func compactIfNeeded() {
            // Counted from the start of the array: the pairs eviction has passed are still held until compacted
            // (counting from `recencyStart` left them forever once every insertion evicted one entry).
            guard recency.count > 2 * entries.count + 16 else { return }
            recency = recency[recencyStart...].filter { entries[$0.key]?.tick == $0.tick }
            recencyStart = 0
        }
    }
}
