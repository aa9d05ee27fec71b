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

    /// This process's TCP sockets, classified against one local server's port, all from one reading of
    /// `/proc/self/fd` and one of `/proc/net/tcp{,6}`: counts from separate readings race a connection that closes
    /// between them (a pooled socket counted as open in one and gone from the other looked like a leak).
    struct TCPSnapshot: Sendable, CustomStringConvertible {
        /// Every open descriptor.
        var descriptors: Int
        /// The open sockets that are TCP connections or listeners.
        var tcpSockets: Int
        /// Client ends of connections to the port.
        var toPort: Int
        /// Server ends of connections on the port (not the listener).
        var onPort: Int
        /// Listeners on the port.
        var listeningOnPort: Int

        var description: String {
            "fds=\(descriptors) tcp=\(tcpSockets) to_port=\(toPort) on_port=\(onPort) listening=\(listeningOnPort)"
        }
    }

    /// One consistent ``TCPSnapshot`` against `port`.
    static func tcpSnapshot(port: Int) -> TCPSnapshot {
        let targets = descriptorTargets()
        let ours = Set(
            targets.compactMap { target in
                target.hasPrefix("socket:[") ? UInt64(target.dropFirst(8).dropLast()) : nil
            })
        var snapshot = TCPSnapshot(descriptors: targets.count, tcpSockets: 0, toPort: 0, onPort: 0, listeningOnPort: 0)
        var seen = Set<UInt64>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ", omittingEmptySubsequences: true)
                guard columns.count > 9, let inode = UInt64(columns[9]), inode != 0, ours.contains(inode),
                    seen.insert(inode).inserted
                else { continue }
                snapshot.tcpSockets += 1
                if Self.port(of: columns[2]) == port { snapshot.toPort += 1 }
                if Self.port(of: columns[1]) == port {
                    if columns[3] == "0A" { snapshot.listeningOnPort += 1 } else { snapshot.onPort += 1 }
                }
            }
        }
        return snapshot
    }

    /// Takes ``tcpSnapshot(port:)`` until `settled` accepts one or `seconds` pass, yielding 10 ms between tries;
    /// returns the last. Teardown of a stopped server and a released session ends on other threads, so a check
    /// waits for it this way, bounded, instead of reading once while it may still run.
    static func settledTCPSnapshot(
        port: Int, within seconds: Double, until settled: (TCPSnapshot) -> Bool
    ) async -> TCPSnapshot {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var snapshot = tcpSnapshot(port: port)
        while !settled(snapshot) && DispatchTime.now().uptimeNanoseconds < end {
            try? await Task.sleep(nanoseconds: 10_000_000)
            snapshot = tcpSnapshot(port: port)
        }
        return snapshot
    }

    private static func port(of address: Substring) -> Int? {
        address.split(separator: ":").last.flatMap { Int($0, radix: 16) }
    }
}
