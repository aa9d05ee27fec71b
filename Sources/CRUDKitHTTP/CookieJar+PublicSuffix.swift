extension CookieJar {
    /// Whether `domain` (lower-cased, no leading dot) is a public suffix: a name under which anyone may register,
    /// so that no cookie may be set for all of it.
    ///
    /// A compact built-in list, not the whole Public Suffix List (publicsuffix.org). It covers:
    /// - every single-label name: all generic and country-code TLDs (`com`, `org`, `dev`, `uk`, `de`, `jp`, …), and
    ///   the special-use names `localhost`, `test`, `example`, `invalid`, `local`, `internal`, `onion`;
    /// - the common second levels of country-code TLDs (`co.uk`, `org.uk`, `com.au`, `co.jp`, `com.br`, `co.in`,
    ///   `com.cn`, `co.nz`, `co.za`, `com.mx`, the US states `ny.us`, the Canadian provinces `on.ca`, …), listed in
    ///   `publicSuffixes` below;
    /// - every second level of the TLDs the list marks with a wildcard (`*.ck`, `*.bd`, `*.np`, …);
    /// - `home.arpa` and the reverse-DNS zones;
    /// - the best-known hosting platforms whose customers share a domain (`github.io`, `herokuapp.com`,
    ///   `netlify.app`, `vercel.app`, `pages.dev`, `workers.dev`, `web.app`, `appspot.com`, `azurewebsites.net`,
    ///   `cloudfront.net`, …).
    /// A suffix missing from the list (a rare third level such as `kawasaki.jp`'s, a smaller platform) is treated as
    /// an ordinary domain: a host under it can set a cookie for it.
    ///
    /// One trailing dot (a fully qualified name, `com.`) is ignored; a name with another empty label (`.com`,
    /// `a..com`, `com..`) counts as a public suffix, so no cookie is ever set for it.
    static func isPublicSuffix(_ domain: String) -> Bool {
        let domain = domain.hasSuffix(".") ? String(domain.dropLast()) : domain
        guard !domain.isEmpty, !hasEmptyLabel(domain) else { return true }
        guard let dot = domain.lastIndex(of: ".") else { return true }
        if publicSuffixes.contains(domain) { return true }
        let tld = domain[domain.index(after: dot)...]
        let secondLevel = domain[..<dot]
        return !secondLevel.contains(".") && wildcardTopLevelDomains.contains(String(tld))
    }

    /// Whether `host` is an IP address: an IPv6 address (it has a colon), or a name whose last label is a number
    /// (decimal or `0x` hex), which URL parsers read as IPv4 (`127.0.0.1`, `127.1`, `0x7f.1`). No TLD is numeric.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let host = host.hasSuffix(".") ? host.dropLast() : Substring(host)
        let last = host.split(separator: ".", omittingEmptySubsequences: false).last ?? ""
        if !last.isEmpty, last.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// TLDs whose every second level is a public suffix (`*.ck` in the Public Suffix List).
    static let wildcardTopLevelDomains: Set<String> = [
        "bd", "bn", "ck", "er", "fk", "jm", "kh", "mm", "np", "pg",
    ]

    /// Public suffixes of two or more labels (single labels always are one).
    static let publicSuffixes: Set<String> = {
        let byTopLevelDomain: [String: [String]] = [
            "ae": ["ac", "co", "gov", "mil", "net", "org", "sch"],
            "ar": ["com", "edu", "gob", "gov", "int", "mil", "net", "org", "tur"],
            "at": ["ac", "co", "gv", "or"],
            "au": [
                "asn", "com", "edu", "gov", "id", "net", "org", "act", "nsw", "nt", "qld", "sa", "tas", "vic", "wa",
            ],
            "be": ["ac"],
            "br": [
                "adm", "adv", "agr", "am", "app", "art", "blog", "com", "coop", "dev", "eco", "edu", "eng", "esp",
                "etc", "eti", "far", "gov", "ind", "inf", "jor", "leg", "lel", "log", "med", "mil", "net", "nom",
                "ong", "org", "ppg", "pro", "psc", "rec", "seg", "srv", "tec", "tmp", "tur", "tv", "vet", "wiki",
            ],
            "ca": [
                "ab", "bc", "mb", "nb", "nf", "nl", "ns", "nt", "nu", "on", "pe", "qc", "sk", "yk", "gc",
            ],
            "cl": ["co", "gob", "gov", "mil"],
            "cn": [
                "ac", "com", "edu", "gov", "mil", "net", "org", "ah", "bj", "cq", "fj", "gd", "gs", "gx", "gz", "ha",
                "hb", "he", "hi", "hk", "hl", "hn", "jl", "js", "jx", "ln", "mo", "nm", "nx", "qh", "sc", "sd", "sh",
                "sn", "sx", "tj", "tw", "xj", "xz", "yn", "zj",
            ],
            "co": ["com", "edu", "gov", "mil", "net", "nom", "org"],
            "eg": ["com", "edu", "eun", "gov", "mil", "name", "net", "org", "sci"],
            "es": ["com", "edu", "gob", "nom", "org"],
            "fr": ["asso", "com", "gouv", "nom", "prd", "tm"],
            "gr": ["com", "edu", "gov", "net", "org"],
            "hk": ["com", "edu", "gov", "idv", "net", "org"],
            "id": ["ac", "biz", "co", "desa", "go", "mil", "my", "net", "or", "ponpes", "sch", "web"],
            "ie": ["gov"],
            "il": ["ac", "co", "gov", "idf", "k12", "muni", "net", "org"],
            "in": [
                "ac", "ai", "am", "bihar", "biz", "business", "ca", "cn", "co", "com", "coop", "cs", "delhi", "dr",
                "edu", "er", "firm", "gen", "gov", "gujarat", "ind", "info", "int", "internet", "io", "me", "mil",
                "net", "nic", "org", "pg", "post", "pro", "res", "travel", "tv", "uk", "up", "us",
            ],
            "it": ["edu", "gov"],
            "jp": ["ac", "ad", "co", "ed", "go", "gr", "lg", "ne", "or"],
            "kr": ["ac", "co", "es", "go", "hs", "kg", "mil", "ms", "ne", "or", "pe", "re", "sc", "seoul"],
            "mx": ["com", "edu", "gob", "net", "org"],
            "my": ["biz", "com", "edu", "gov", "mil", "name", "net", "org"],
            "ng": ["com", "edu", "gov", "i", "mil", "mobi", "name", "net", "org", "sch"],
            "nz": [
                "ac", "co", "cri", "geek", "gen", "govt", "health", "iwi", "kiwi", "maori", "mil", "net", "org",
                "parliament", "school",
            ],
            "pe": ["com", "edu", "gob", "mil", "net", "nom", "org"],
            "ph": ["com", "edu", "gov", "i", "mil", "net", "ngo", "org"],
            "pk": ["biz", "com", "edu", "fam", "gob", "gok", "gon", "gop", "gos", "gov", "info", "net", "org", "web"],
            "pl": [
                "biz", "com", "edu", "gov", "info", "mil", "net", "org", "nom", "waw", "krakow", "wroclaw", "gda",
                "poznan",
            ],
            "pt": ["com", "edu", "gov", "int", "net", "nome", "org", "publ"],
            "ru": ["ac", "edu", "gov", "int", "mil"],
            "sa": ["com", "edu", "gov", "med", "net", "org", "pub", "sch"],
            "sg": ["com", "edu", "gov", "net", "org"],
            "th": ["ac", "co", "go", "in", "mi", "net", "or"],
            "tr": [
                "av", "bbs", "bel", "biz", "com", "dr", "edu", "gen", "gov", "info", "k12", "kep", "mil", "name", "net",
                "org", "pol", "tel", "tsk", "tv", "web",
            ],
            "tw": ["club", "com", "ebiz", "edu", "game", "gov", "idv", "mil", "net", "org"],
            "ua": ["com", "edu", "gov", "in", "net", "org"],
            "uk": ["ac", "co", "gov", "ltd", "me", "net", "nhs", "org", "plc", "police", "sch"],
            "us": [
                "ak", "al", "ar", "as", "az", "ca", "co", "ct", "dc", "de", "fl", "ga", "gu", "hi", "ia", "id", "il",
                "in", "ks", "ky", "la", "ma", "md", "me", "mi", "mn", "mo", "ms", "mt", "nc", "nd", "ne", "nh", "nj",
                "nm", "nv", "ny", "oh", "ok", "or", "pa", "pr", "ri", "sc", "sd", "tn", "tx", "ut", "va", "vi", "vt",
                "wa", "wi", "wv", "wy", "dni", "fed", "isa", "kids", "nsn",
            ],
            "vn": ["ac", "biz", "com", "edu", "gov", "health", "info", "int", "name", "net", "org", "pro"],
            "za": ["ac", "co", "edu", "gov", "law", "mil", "net", "ngo", "nic", "nis", "nom", "org", "school", "web"],
        ]
        var suffixes = Set(byTopLevelDomain.flatMap { tld, labels in labels.map { "\($0).\(tld)" } })
        suffixes.formUnion(["home.arpa", "in-addr.arpa", "ip6.arpa"])
        // Hosting platforms (the Public Suffix List's private section): their customers share the domain.
        suffixes.formUnion([
            "amplifyapp.com", "appspot.com", "azurestaticapps.net", "azurewebsites.net", "bitbucket.io",
            "blogspot.com", "cloudapp.net", "cloudfront.net", "deno.dev", "elasticbeanstalk.com", "firebaseapp.com",
            "fly.dev", "github.io", "githubusercontent.com", "gitlab.io", "glitch.me", "herokuapp.com", "netlify.app",
            "ngrok-free.app", "ngrok.io", "onrender.com", "pages.dev", "readthedocs.io", "s3.amazonaws.com",
            "surge.sh", "trycloudflare.com", "up.railway.app", "vercel.app", "web.app", "workers.dev",
        ])
        return suffixes
    }()
}
