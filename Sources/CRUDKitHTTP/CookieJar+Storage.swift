import Foundation

extension CookieJar {
    /// One cookie as the jar keeps it (RFC 6265 §5.3).
    struct Cookie: Sendable, Equatable {
        var name: String
        var value: String
        /// The host it was set by (host-only) or its `Domain`, lower-cased.
        var domain: String
        /// Whether it goes to `domain` alone, not to its subdomains.
        var hostOnly: Bool
        var path: String
        var secure: Bool
        /// When it expires; `nil` for a cookie that lives as long as the jar.
        var expires: Date?
        /// Creation order in the jar: lower is older. A cookie that replaces another keeps the other's.
        var created: UInt64

        func isExpired(at now: Date) -> Bool {
            expires.map { $0 <= now } ?? false
        }
    }

    /// The cookies of a jar, guarded by the jar's lock, indexed so that storing one and looking up a host's cost
    /// what that host's cookies cost, whatever else the jar holds.
    ///
    /// - Each domain's cookies are kept in creation order, so the oldest of a domain is its first.
    /// - `byAge` lists every cookie's creation stamp and domain in creation order, the oldest of the jar first;
    ///   `byExpiry` is a heap of the cookies that expire, the soonest first. Both delete lazily: a record whose
    ///   cookie has gone (or, for `byExpiry`, has another expiry now) is skipped when it comes up, and each is
    ///   rebuilt from the live cookies when it holds twice as many records as there are cookies, so they never
    ///   outgrow the jar.
    /// - `subdomains` names, for each domain, the stored domains inside it, so that the check of a cookie from
    ///   plain HTTP against `Secure` ones (RFC 6265bis §5.7) looks at related domains only.
    struct CookieStore {
        /// Cookies by their `domain`.
        private(set) var domains: [String: [Cookie]] = [:]
        /// Cookies in `domains`, expired ones not yet removed included.
        private(set) var count = 0
        private var nextCreated: UInt64 = 0
        /// Every cookie's creation stamp and domain, oldest first, from `ageStart` on (see the type's comment).
        private var byAge: [(created: UInt64, domain: String)] = []
        private var ageStart = 0
        /// Expiry records, a binary min-heap on `(expires, created)` (see the type's comment).
        private var byExpiry: [(expires: Date, created: UInt64, domain: String)] = []
        /// For each domain, the stored domains strictly inside it.
        private var subdomains: [String: Set<String>] = [:]
        /// For each domain and cookie name, the stored domains strictly inside it holding a `Secure` cookie of that
        /// name (live or not): the check of a cookie from plain HTTP looks at these only.
        private var secureInside: [String: [String: Set<String>]] = [:]
        /// Domains and records looked at by stores and lookups so far (for tests: what one costs).
        private(set) var visits = 0
        let maximumPerDomain: Int
        let maximum: Int

        init(maximumPerDomain: Int = CookieJar.maximumCookiesPerDomain, maximum: Int = CookieJar.maximumCookies) {
            self.maximumPerDomain = maximumPerDomain
            self.maximum = maximum
        }

        /// The records kept to find the oldest and the soonest-expiring cookies (for tests).
        var queuedRecords: Int { byAge.count + byExpiry.count }

        /// Stores `cookie`, replacing one of the same name, domain and path; an expired one only removes that one
        /// (RFC 6265 §5.3 steps 11 and 12). Then removes the oldest cookies beyond the limits.
        ///
        /// A cookie from plain HTTP (`fromSecureOrigin` false) that would replace or shadow a `Secure` one of the
        /// same name is ignored (RFC 6265bis §5.7 step 16), so an attacker on the network cannot overwrite an
        /// HTTPS session cookie.
        mutating func insert(_ cookie: Cookie, fromSecureOrigin: Bool, now: Date) {
            if !fromSecureOrigin && shadowsSecureCookie(cookie, now: now) { return }
            // Taken out of the dictionary so that changing it does not copy it.
            visits += 1
            let stored = domains.removeValue(forKey: cookie.domain)
            var cookies = stored ?? []
            let existing = cookies.firstIndex { $0.name == cookie.name && $0.path == cookie.path }
            if cookie.isExpired(at: now) {
                guard let existing else {
                    if let stored { domains[cookie.domain] = stored }
                    return
                }
                cookies.remove(at: existing)
                count -= 1
            } else if let existing {
                var replacement = cookie
                replacement.created = cookies[existing].created
                if let expires = replacement.expires, expires != cookies[existing].expires {
                    pushExpiry((expires, replacement.created, cookie.domain))
                }
                cookies[existing] = replacement
            } else {
                var added = cookie
                added.created = nextCreated
                nextCreated += 1
                cookies.append(added)
                count += 1
                byAge.append((added.created, cookie.domain))
                if let expires = added.expires { pushExpiry((expires, added.created, cookie.domain)) }
            }
            if cookies.count > maximumPerDomain {
                let before = cookies.count
                cookies.removeAll { $0.isExpired(at: now) }
                if cookies.count > maximumPerDomain { cookies.removeFirst(cookies.count - maximumPerDomain) }
                count -= before - cookies.count
            }
            put(cookies, for: cookie.domain, wasStored: stored != nil, previous: stored ?? [])
            if count > maximum { evict(now: now) }
            compactIfNeeded()
        }

        /// Whether a live `Secure` cookie has `cookie`'s name, a domain inside `cookie`'s or containing it, and a
        /// path `cookie`'s path is under. Only `cookie`'s domain, the domains it is inside and the stored domains
        /// inside it are looked at.
        private mutating func shadowsSecureCookie(_ cookie: Cookie, now: Date) -> Bool {
            var related = Self.parents(of: cookie.domain)
            related.append(cookie.domain)
            related.append(contentsOf: secureInside[cookie.domain]?[cookie.name] ?? [])
            for domain in related {
                visits += 1
                guard
                    domain == cookie.domain || CookieJar.domainMatches(domain, cookie.domain)
                        || CookieJar.domainMatches(cookie.domain, domain),
                    let cookies = domains[domain]
                else { continue }
                let shadowed = cookies.contains {
                    $0.secure && $0.name == cookie.name && !$0.isExpired(at: now)
                        && CookieJar.pathMatches(cookie.path, $0.path)
                }
                if shadowed { return true }
            }
            return false
        }

        /// Removes every expired cookie, then the oldest until at most `maximum` are left.
        private mutating func evict(now: Date) {
            while let soonest = byExpiry.first, soonest.expires <= now {
                popExpiry()
                visits += 1
                guard let index = domains[soonest.domain]?.firstIndex(where: { $0.created == soonest.created }),
                    domains[soonest.domain]?[index].expires == soonest.expires
                else { continue }
                let previous = domains[soonest.domain] ?? []
                var cookies = previous
                cookies.remove(at: index)
                count -= 1
                put(cookies, for: soonest.domain, wasStored: true, previous: previous)
            }
            while count > maximum, ageStart < byAge.count {
                let (created, domain) = byAge[ageStart]
                ageStart += 1
                visits += 1
                // Records before this one have all been taken: if its cookie is still stored, it is its domain's
                // first (the oldest there).
                guard let previous = domains[domain], previous.first?.created == created else { continue }
                count -= 1
                put(Array(previous.dropFirst()), for: domain, wasStored: true, previous: previous)
            }
        }

        /// The cookies a request to `host` and `path` carries (RFC 6265 §5.4), longer paths first, then older
        /// first; removes the expired ones it meets.
        mutating func cookies(host: String, path: String, secure: Bool, now: Date) -> [Cookie] {
            guard count > 0 else { return [] }
            var matched: [Cookie] = []
            var domain = Substring(host)
            let isIPAddress = CookieJar.isIPAddress(host)
            while true {
                visits += 1
                let key = String(domain)
                if var cookies = domains[key] {
                    let exact = domain.count == host.count
                    var expired = 0
                    for cookie in cookies {
                        if cookie.isExpired(at: now) {
                            expired += 1
                        } else if (exact || !cookie.hostOnly) && (secure || !cookie.secure)
                            && CookieJar.pathMatches(path, cookie.path)
                        {
                            matched.append(cookie)
                        }
                    }
                    if expired > 0 {
                        cookies.removeAll { $0.isExpired(at: now) }
                        count -= expired
                        put(cookies, for: key, wasStored: true, previous: domains[key] ?? [])
                    }
                }
                // An IP address is inside no other domain (§5.1.3).
                guard !isIPAddress, let dot = domain.firstIndex(of: ".") else { break }
                domain = domain[domain.index(after: dot)...]
                guard !domain.isEmpty else { break }
            }
            if count * 2 + 16 < queuedRecords { compactIfNeeded() }
            return matched.sorted {
                $0.path.utf8.count != $1.path.utf8.count
                    ? $0.path.utf8.count > $1.path.utf8.count : $0.created < $1.created
            }
        }

        // MARK: - Indexes

        /// Stores `cookies` as `domain`'s (none: forgets the domain), keeping `subdomains` in step; `wasStored`
        /// says whether the domain had cookies before.
        private mutating func put(_ cookies: [Cookie], for domain: String, wasStored: Bool, previous: [Cookie]) {
            updateSecureIndex(for: domain, from: previous, to: cookies)
            if cookies.isEmpty {
                domains[domain] = nil
                guard wasStored else { return }
                for parent in Self.parents(of: domain) {
                    subdomains[parent]?.remove(domain)
                    if subdomains[parent]?.isEmpty == true { subdomains[parent] = nil }
                }
            } else {
                domains[domain] = cookies
                guard !wasStored else { return }
                for parent in Self.parents(of: domain) { subdomains[parent, default: []].insert(domain) }
            }
        }

        /// Keeps `secureInside` in step when `domain`'s cookies change from `previous` to `cookies`.
        private mutating func updateSecureIndex(for domain: String, from previous: [Cookie], to cookies: [Cookie]) {
            let before = Set(previous.lazy.filter(\.secure).map(\.name))
            let after = Set(cookies.lazy.filter(\.secure).map(\.name))
            guard before != after else { return }
            for parent in Self.parents(of: domain) {
                for name in before.subtracting(after) {
                    secureInside[parent]?[name]?.remove(domain)
                    if secureInside[parent]?[name]?.isEmpty == true { secureInside[parent]?[name] = nil }
                    if secureInside[parent]?.isEmpty == true { secureInside[parent] = nil }
                }
                for name in after.subtracting(before) {
                    secureInside[parent, default: [:]][name, default: []].insert(domain)
                }
            }
        }

        /// The domains `domain` is inside, nearest first (`b.c` and `c` for `a.b.c`).
        private static func parents(of domain: String) -> [String] {
            var parents: [String] = []
            var rest = Substring(domain)
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                if rest.isEmpty { break }
                parents.append(String(rest))
            }
            return parents
        }

        /// Whether the cookie created at `created` is still stored under `domain` (with `expires`, when given).
        private func isStored(_ created: UInt64, in domain: String, expiring expires: Date? = nil) -> Bool {
            guard let cookie = domains[domain]?.first(where: { $0.created == created }) else { return false }
            return expires == nil || cookie.expires == expires
        }

        /// Rebuilds `byAge` and `byExpiry` from the stored cookies once they hold twice as many records as there
        /// are cookies (amortised O(1) a store).
        private mutating func compactIfNeeded() {
            if byAge.count > 2 * count + 16 {
                visits += byAge.count - ageStart
                byAge = byAge[ageStart...].filter { isStored($0.created, in: $0.domain) }
                ageStart = 0
            }
            if byExpiry.count > 2 * count + 16 {
                visits += byExpiry.count
                var seen = Set<UInt64>()
                byExpiry = byExpiry.filter {
                    isStored($0.created, in: $0.domain, expiring: $0.expires) && seen.insert($0.created).inserted
                }
                for index in stride(from: byExpiry.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
            }
        }

        private static func precedes(
            _ a: (expires: Date, created: UInt64, domain: String), _ b: (expires: Date, created: UInt64, domain: String)
        ) -> Bool {
            a.expires != b.expires ? a.expires < b.expires : a.created < b.created
        }

        private mutating func pushExpiry(_ record: (expires: Date, created: UInt64, domain: String)) {
            byExpiry.append(record)
            var child = byExpiry.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.precedes(byExpiry[child], byExpiry[parent]) else { break }
                byExpiry.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func popExpiry() {
            guard !byExpiry.isEmpty else { return }
            byExpiry.swapAt(0, byExpiry.count - 1)
            byExpiry.removeLast()
            siftDown(0)
        }

        private mutating func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var first = parent
                if left < byExpiry.count, Self.precedes(byExpiry[left], byExpiry[first]) { first = left }
                if right < byExpiry.count, Self.precedes(byExpiry[right], byExpiry[first]) { first = right }
                guard first != parent else { return }
                byExpiry.swapAt(parent, first)
                parent = first
            }
        }
    }
}
