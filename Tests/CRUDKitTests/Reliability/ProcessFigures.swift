import Foundation

/// Resident memory and file descriptors of this process, read from `/proc` (Linux); zeros elsewhere.
struct ProcessFigures: Sendable, CustomStringConvertible {
    /// Resident set size in kilobytes (`/proc/self/statm`, second field, times the page size).
    var residentKilobytes: Int
    /// Every open file descriptor (`/proc/self/fd`).
    var descriptors: Int
    /// The descriptors that are sockets.
    var sockets: Int
    /// The sockets that are TCP connections or listeners (not Unix-domain pairs).
    var tcpSockets: Int

    /// The figures now.
    static func now() -> ProcessFigures {
        let sockets = socketInodes()
        return ProcessFigures(
            residentKilobytes: residentKilobytes(), descriptors: descriptorTargets().count, sockets: sockets.count,
            tcpSockets: tcpInodes().intersection(sockets).count)
    }

    var description: String { "rss=\(residentKilobytes) kB fds=\(descriptors) sockets=\(sockets) tcp=\(tcpSockets)" }

    /// The inodes of every TCP socket in this network namespace (`/proc/net/tcp` and `tcp6`).
    static func tcpInodes() -> Set<UInt64> {
        var inodes = Set<UInt64>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ", omittingEmptySubsequences: true)
                if columns.count > 9, let inode = UInt64(columns[9]), inode != 0 { inodes.insert(inode) }
            }
        }
        return inodes
    }

    static func residentKilobytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    /// What each open descriptor points at (`socket:[123]`, `pipe:[45]`, `/dev/null`, `anon_inode:[eventfd]`).
    static func descriptorTargets() -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
    }

    /// The inodes of the open sockets.
    static func socketInodes() -> Set<UInt64> {
        Set(
            descriptorTargets().compactMap { target in
                target.hasPrefix("socket:[") ? UInt64(target.dropFirst(8).dropLast()) : nil
            })
    }

    /// How many of this process's open sockets are TCP connections whose remote port is `port` (client ends of
    /// connections to a local server) and whose local port is `port` (the server's ends), from `/proc/net/tcp`.
    static func tcpConnections(port: Int) -> (toPort: Int, onPort: Int) {
        let ours = socketInodes()
        var toPort = 0
        var onPort = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ", omittingEmptySubsequences: true)
                guard columns.count > 9, let inode = UInt64(columns[9]), ours.contains(inode) else { continue }
                if Self.port(of: columns[2]) == port { toPort += 1 }
                if Self.port(of: columns[1]) == port && columns[3] != "0A" { onPort += 1 }  // 0A: listening
            }
        }
        return (toPort, onPort)
    }

    private static func port(of address: Substring) -> Int? {
        address.split(separator: ":").last.flatMap { Int($0, radix: 16) }
    }
}
