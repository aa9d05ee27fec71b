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

    /// The cookies of a jar, guarded by the jar's lock.
    ///
    /// Each domain's cookies are kept in creation order, so the oldest of a domain is its first and the oldest of
    /// the jar is the oldest of the domains' firsts.
    struct CookieStore {
        /// Cookies by their `domain`.
        private(set) var domains: [String: [Cookie]] = [:]
        /// Cookies in `domains`, expired ones not yet removed included.
        private(set) var count = 0
        private var nextCreated: UInt64 = 0
        let maximumPerDomain: Int
        let maximum: Int

        init(maximumPerDomain: Int = CookieJar.maximumCookiesPerDomain, maximum: Int = CookieJar.maximumCookies) {
            self.maximumPerDomain = maximumPerDomain
            self.maximum = maximum
        }

        /// Stores `cookie`, replacing one of the same name, domain and path; an expired one only removes that one
        /// (RFC 6265 §5.3 steps 11 and 12). Then removes the oldest cookies beyond the limits.
        ///
        /// A cookie from plain HTTP (`fromSecureOrigin` false) that would replace or shadow a `Secure` one of the
        /// same name is ignored (RFC 6265bis §5.7 step 16), so an attacker on the network cannot overwrite an
        /// HTTPS session cookie.
        mutating func insert(_ cookie: Cookie, fromSecureOrigin: Bool, now: Date) {
            if !fromSecureOrigin && shadowsSecureCookie(cookie, now: now) { return }
            // Taken out of the dictionary so that changing it does not copy it.
            var cookies = domains.removeValue(forKey: cookie.domain) ?? []
            let existing = cookies.firstIndex { $0.name == cookie.name && $0.path == cookie.path }
            if cookie.isExpired(at: now) {
                guard let existing else {
                    domains[cookie.domain] = cookies.isEmpty ? nil : cookies
                    return
                }
                cookies.remove(at: existing)
                count -= 1
            } else if let existing {
                var replacement = cookie
                replacement.created = cookies[existing].created
                cookies[existing] = replacement
            } else {
                var added = cookie
                added.created = nextCreated
                nextCreated += 1
                cookies.append(added)
                count += 1
            }
            if cookies.count > maximumPerDomain {
                let before = cookies.count
                cookies.removeAll { $0.isExpired(at: now) }
                if cookies.count > maximumPerDomain { cookies.removeFirst(cookies.count - maximumPerDomain) }
                count -= before - cookies.count
            }
            domains[cookie.domain] = cookies.isEmpty ? nil : cookies
            if count > maximum { evict(now: now) }
        }

        /// Whether a live `Secure` cookie has `cookie`'s name, a domain inside `cookie`'s or containing it, and a
        /// path `cookie`'s path is under.
        private func shadowsSecureCookie(_ cookie: Cookie, now: Date) -> Bool {
            for (domain, cookies) in domains
            where domain == cookie.domain || CookieJar.domainMatches(domain, cookie.domain)
                || CookieJar.domainMatches(cookie.domain, domain)
            {
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
            for (domain, cookies) in domains {
                let kept = cookies.filter { !$0.isExpired(at: now) }
                guard kept.count < cookies.count else { continue }
                count -= cookies.count - kept.count
                domains[domain] = kept.isEmpty ? nil : kept
            }
            while count > maximum {
                guard
                    let oldest = domains.min(by: {
                        ($0.value.first?.created ?? .max) < ($1.value.first?.created ?? .max)
                    })?.key
                else { return }
                guard var cookies = domains.removeValue(forKey: oldest), !cookies.isEmpty else { continue }
                cookies.removeFirst()
                count -= 1
                if !cookies.isEmpty { domains[oldest] = cookies }
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
                if var cookies = domains[String(domain)] {
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
                        domains[String(domain)] = cookies.isEmpty ? nil : cookies
                    }
                }
                // An IP address is inside no other domain (§5.1.3).
                guard !isIPAddress, let dot = domain.firstIndex(of: ".") else { break }
                domain = domain[domain.index(after: dot)...]
                guard !domain.isEmpty else { break }
            }
            return matched.sorted {
                $0.path.utf8.count != $1.path.utf8.count
                    ? $0.path.utf8.count > $1.path.utf8.count : $0.created < $1.created
            }
        }
    }
}
