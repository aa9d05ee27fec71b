import CRUDKitCore
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension PrivateFiles {
    /// The private directory as made: its path and an open descriptor of it, so that files are created in the
    /// directory that was checked (`openat`), whatever the path names later.
    final class Directory: Sendable {
        /// Where the directory was made.
        let url: URL
        /// An `O_DIRECTORY` descriptor of it, closed with it.
        let descriptor: Int32

        init(url: URL, descriptor: Int32) {
            self.url = url
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        /// Whether the directory is still this user's `0700` directory, not removed, and still what its path
        /// names (not another directory made at the same name since).
        var isIntact: Bool {
            var own = stat()
            var named = stat()
            guard fstat(descriptor, &own) == 0, own.st_nlink > 0, lstat(url.path, &named) == 0 else { return false }
            return own.st_mode & S_IFMT == S_IFDIR && own.st_uid == geteuid() && own.st_mode & 0o7777 == 0o700
                && named.st_dev == own.st_dev && named.st_ino == own.st_ino
        }

        /// Creates `name` in this directory, owner-only and exclusively, never through a link, open for reading
        /// and writing.
        func create(_ name: String) throws -> Int32 {
            let fd = openat(descriptor, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw PrivateFiles.failure("cannot create \(url.path)/\(name)", errno) }
            guard fchmod(fd, 0o600) == 0 else {
                let code = errno
                close(fd)
                unlinkat(descriptor, name, 0)
                throw PrivateFiles.failure("cannot make \(url.path)/\(name) owner-only", code)
            }
            return fd
        }
    }

    /// A file of CRUDKit's own whose name is chosen before any byte is written (a paused `GET`'s kept body, a
    /// download without a destination): created in the private directory through the descriptor of the directory
    /// checked (a fresh private directory when that one has gone), written and read back through the descriptor
    /// that created it, and removed through the directory's descriptor.
    ///
    /// A transport opens it by ``url`` with ``PrivateFiles/openForWriting(_:)``, which hands out that descriptor:
    /// if a temporary-files cleaner removes the private directory and another local user makes a directory of the
    /// same name, nothing is written there and nothing is read from there.
    package final class KeptFile: Sendable {
        private struct State {
            var directory: Directory
            var descriptor: Int32?
            var ended = false
        }

        /// The name transports are given; what ``PrivateFiles/openForWriting(_:)`` recognises.
        package let url: URL
        private let name: String
        private let state: Locked<State>

        /// Chooses a name in the private directory (made or checked now); the file is created when first opened.
        /// - Throws: ``CRUDError/invalidRequest(reason:)`` when no private directory can be made.
        package init(_ prefix: String) throws {
            let directory = try PrivateFiles.current()
            name = "\(prefix)-\(UUID().uuidString)"
            url = directory.url.appendingPathComponent(name)
            state = Locked(State(directory: directory))
            PrivateFiles.kept.withLock { $0[url.path] = self }
        }

        /// Where the file is now: ``url``, unless its directory had gone when it was created.
        package var currentURL: URL {
            state.withLock { $0.directory.url.appendingPathComponent(name) }
        }

        /// A new descriptor of the file for writing, the file created (owner-only, exclusively) on first use in the
        /// checked directory — or, when that one has gone or is no longer what its path names, in a fresh one.
        func openForWriting() throws -> FileHandle {
            try state.withLock { state in
                if state.ended { throw CRUDError.cancelled }
                if state.descriptor == nil {
                    if !state.directory.isIntact { state.directory = try PrivateFiles.current() }
                    state.descriptor = try state.directory.create(name)
                }
                guard let descriptor = state.descriptor else { throw CRUDError.cancelled }
                let copy = dup(descriptor)
                guard copy >= 0 else { throw PrivateFiles.failure("cannot open \(url.path)", errno) }
                return FileHandle(fileDescriptor: copy, closeOnDealloc: true)
            }
        }

        /// The bytes in the file (0 before it was created): through its descriptor, or (written by a transport
        /// that opened it by name) as found in the checked directory.
        package var size: Int64 {
            state.withLock { state in
                var info = stat()
                if let descriptor = state.descriptor {
                    return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
                }
                guard fstatat(state.directory.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return 0 }
                return Int64(info.st_size)
            }
        }

        /// The file's bytes, read through the descriptor that wrote them; a file a transport created by name
        /// itself is opened in the checked directory, through its descriptor, and read only when it is a regular
        /// file of this user. Empty when there is no file.
        /// - Throws: ``CRUDError/invalidRequest(reason:)`` when they cannot be read.
        package func contents() throws -> Data {
            try state.withLock { state in
                if let descriptor = state.descriptor { return try Self.read(descriptor, url) }
                let fd = openat(state.directory.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
                guard fd >= 0 else {
                    if errno == ENOENT { return Data() }
                    throw PrivateFiles.failure("cannot read \(url.path)", errno)
                }
                defer { close(fd) }
                var info = stat()
                guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
                    throw CRUDError.invalidRequest(
                        reason: "\(url.path) is not a regular file of this user: CRUDKit does not read it")
                }
                return try Self.read(fd, url)
            }
        }

        /// The file as a transport that opened it by name left it in `directory` (a regular file of this user,
        /// opened without following a link), or a new empty one for a body that wrote nothing.
        private func adopt(in directory: Directory) throws -> Int32 {
            let fd = openat(directory.descriptor, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                if errno == ENOENT { return try directory.create(name) }
                throw PrivateFiles.failure("cannot open \(url.path)", errno)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
                close(fd)
                throw CRUDError.invalidRequest(
                    reason: "\(url.path) is not a regular file of this user: CRUDKit does not hand it over")
            }
            return fd
        }

        /// Copies every byte of the file open as `source` into `target` (written from its start), 64 KiB at a
        /// time: a body of any size costs the copy one buffer, not its size in memory.
        private static func copy(from source: Int32, to target: Int32, _ url: URL) throws {
            let chunk = 64 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
            defer { buffer.deallocate() }
            var offset: off_t = 0
            while true {
                let read = pread(source, buffer, chunk, offset)
                if read < 0 && errno == EINTR { continue }
                guard read >= 0 else { throw PrivateFiles.failure("cannot read \(url.path)", errno) }
                if read == 0 { return }
                var done = 0
                while done < read {
                    let written = write(target, buffer + done, read - done)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else {
                        throw PrivateFiles.failure("cannot copy \(url.path)", written < 0 ? errno : EIO)
                    }
                    done += written
                }
                offset += off_t(read)
            }
        }

        /// Every byte of the file open as `descriptor`, read from its start (`pread`).
        private static func read(_ descriptor: Int32, _ url: URL) throws -> Data {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw PrivateFiles.failure("cannot read \(url.path)", errno) }
            var data = Data(count: Int(info.st_size))
            let total = data.count
            try data.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var done = 0
                while done < total {
                    let read = pread(descriptor, base + done, total - done, off_t(done))
                    if read < 0 && errno == EINTR { continue }
                    guard read > 0 else {
                        throw PrivateFiles.failure("cannot read \(url.path)", read < 0 ? errno : EIO)
                    }
                    done += read
                }
            }
            return data
        }

        /// Removes the file (through the directory's descriptor) and closes it; later opens fail.
        package func remove() {
            state.withLock { state in
                guard !state.ended else { return }
                state.ended = true
                if let descriptor = state.descriptor {
                    unlinkat(state.directory.descriptor, name, 0)
                    close(descriptor)
                    state.descriptor = nil
                }
            }
            PrivateFiles.kept.withLock { $0[url.path] = nil }
        }

        /// Hands the complete file over to the caller: its path when its directory is still the checked one and
        /// the name still this file, else a copy in a fresh private directory; then closes it.
        /// - Returns: Where the file is.
        /// - Throws: ``CRUDError/invalidRequest(reason:)`` when no private file can be made for it.
        package func release() throws -> URL {
            defer { PrivateFiles.kept.withLock { $0[url.path] = nil } }
            return try state.withLock { state in
                guard !state.ended else { throw CRUDError.cancelled }
                if state.descriptor == nil { state.descriptor = try adopt(in: state.directory) }
                guard let descriptor = state.descriptor else { throw CRUDError.cancelled }
                var own = stat()
                var named = stat()
                let url = state.directory.url.appendingPathComponent(name)
                if state.directory.isIntact, fstat(descriptor, &own) == 0,
                    fstatat(state.directory.descriptor, name, &named, AT_SYMLINK_NOFOLLOW) == 0,
                    named.st_dev == own.st_dev, named.st_ino == own.st_ino
                {
                    state.ended = true
                    close(descriptor)
                    state.descriptor = nil
                    return url
                }
                // The directory went while the body arrived: the bytes move to a fresh private file. A copy that
                // fails part of the way is removed: nothing is left under the new name, and the kept file stays
                // for the caller to remove.
                let fresh = try PrivateFiles.current()
                let copyName = "\(name)-moved"
                let target = try fresh.create(copyName)
                defer { close(target) }
                do {
                    try Self.copy(from: descriptor, to: target, self.url)
                } catch {
                    unlinkat(fresh.descriptor, copyName, 0)
                    throw error
                }
                state.ended = true
                unlinkat(state.directory.descriptor, name, 0)
                close(descriptor)
                state.descriptor = nil
                return fresh.url.appendingPathComponent(copyName)
            }
        }
    }

    /// The kept files by ``KeptFile/url``'s path, for ``openForWriting(_:)`` and ``size(of:)``.
    static let kept = Locked<[String: KeptFile]>([:])

    /// The kept file `url` names, if any.
    static func keptFile(at url: URL) -> KeptFile? {
        kept.withLock { $0[url.path] }
    }

    /// The bytes in `file`: through its descriptor for a ``KeptFile``, else by path (0 when it does not exist).
    package static func size(of file: URL) -> Int64 {
        if let kept = keptFile(at: file) { return kept.size }
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
