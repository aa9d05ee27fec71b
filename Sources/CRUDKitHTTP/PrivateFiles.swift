import CRUDKitCore
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one way CRUDKit creates files on disk: owner-only, exclusively, never through a symbolic link.
///
/// A body CRUDKit keeps for itself (a paused `GET`, a multipart upload with file parts, a download without a
/// destination) goes in a per-process private directory, `crudkit-<pid>-<random>` under the temporary directory,
/// made mode `0700` once and checked to be a real directory owned by this process's user with exactly that
/// mode; a name someone else took first is never used (another name is chosen). Every file is created with
/// `open(O_CREAT | O_EXCL | O_NOFOLLOW)` and mode `0600` set on the open descriptor, so there is no moment when
/// another local user can read it, whatever the umask, and an existing name or a planted link is refused.
///
/// A download to a destination the caller names is written to a `0600` partial file beside it (same directory,
/// so the final `rename(2)` cannot cross filesystems) and moved into place by ``moveIntoPlace(_:to:)``: an existing
/// regular file is replaced atomically once the new file is complete, keeping its permission bits when it is this
/// user's own; a new file (or one replacing another user's) stays `0600`; a directory, a symbolic link or any other kind of file is refused and left as it is.
///
/// The AsyncHTTPClient adapter uses the same entry points, so both transports give the same guarantees.
@_spi(TransportKit) public enum PrivateFiles {
    /// The private directory once made (and the exit hook registered), with a descriptor of it.
    private static let made = Locked<Directory?>(nil)

    /// The per-process private directory (`0700`, owned by this user), made on first use.
    ///
    /// When the directory has gone (a temporary-files cleaner removed it) or is no longer exactly that, a new one
    /// with another name is made. At exit, the directory is removed when it is empty.
    /// - Returns: The directory.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when no private directory can be made.
    package static func directory() throws -> URL {
        try current().url
    }

    /// The private directory with a descriptor of it: the one made, while it is still intact (this user's, `0700`,
    /// and what its path names), else a new one.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when no private directory can be made.
    static func current() throws -> Directory {
        try made.withLock { made in
            if let directory = made, directory.isIntact { return directory }
            let first = made == nil
            let directory = try makeDirectoryHandle(
                in: FileManager.default.temporaryDirectory, names: candidateNames())
            made = directory
            if first { atexit { PrivateFiles.removeDirectoryIfEmpty() } }
            return directory
        }
    }

    /// A fresh name in the private directory (the file is not created): for a file a transport creates later with
    /// ``openForWriting(_:)``.
    ///
    /// - Parameter prefix: The start of the file's name (`handle`, `download`, …).
    /// - Returns: `<directory>/<prefix>-<UUID>`.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when the private directory cannot be made.
    package static func newName(_ prefix: String) throws -> URL {
        try directory().appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }

    /// Creates a new empty file in the private directory (`0600`, exclusively) and opens it for writing.
    ///
    /// - Parameter prefix: The start of the file's name.
    /// - Returns: The file and a handle that writes to it (the caller closes it and removes the file).
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when the file cannot be created.
    public static func create(_ prefix: String) throws -> (url: URL, handle: FileHandle) {
        func attempt() throws -> (url: URL, handle: FileHandle) {
            // Created through the descriptor of the directory just checked, not by its path.
            let directory = try current()
            let name = "\(prefix)-\(UUID().uuidString)"
            let fd = try directory.create(name)
            return (directory.url.appendingPathComponent(name), FileHandle(fileDescriptor: fd, closeOnDealloc: true))
        }
        do {
            return try attempt()
        } catch {
            // The directory may have been removed since it was checked: once more with a fresh one.
            return try attempt()
        }
    }

    /// Creates the file at `url` owner-only (`0600` whatever the umask) and opens it for writing; an existing name
    /// (a file, a directory, a symbolic link, even a dangling one) is refused, never opened or followed.
    ///
    /// - Parameter url: Where the new file goes.
    /// - Returns: A handle that writes to the new file.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when the name exists or the file cannot be created.
    public static func create(at url: URL) throws -> FileHandle {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST {
                throw CRUDError.invalidRequest(
                    reason: "\(url.path) already exists: CRUDKit creates its files exclusively and does not use it")
            }
            throw failure("cannot create \(url.path)", code)
        }
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            close(fd)
            unlink(url.path)
            throw failure("cannot make \(url.path) owner-only", code)
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Opens `url` for writing: created owner-only and exclusively when missing (see ``create(at:)``); an existing
    /// one is opened without following a symbolic link, and only when it is a regular file owned by this user.
    ///
    /// - Parameter url: The file a transport writes a body into.
    /// - Returns: A handle positioned at the start of the file.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when the file cannot be created, or the name is a link,
    ///   not a regular file, or another user's file.
    public static func openForWriting(_ url: URL) throws -> FileHandle {
        // A file CRUDKit named for itself is opened through the descriptors it keeps, never by its path.
        if let kept = keptFile(at: url) { return try kept.openForWriting() }
        let created = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if created >= 0 {
            guard fchmod(created, 0o600) == 0 else {
                let code = errno
                close(created)
                unlink(url.path)
                throw failure("cannot make \(url.path) owner-only", code)
            }
            return FileHandle(fileDescriptor: created, closeOnDealloc: true)
        }
        guard errno == EEXIST else { throw failure("cannot create \(url.path)", errno) }
        // O_NONBLOCK: a FIFO planted at the name must not block the open; it is refused below.
        let fd = open(url.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP {
                throw CRUDError.invalidRequest(
                    reason: "\(url.path) is a symbolic link: CRUDKit does not write through a link")
            }
            throw failure("cannot open \(url.path)", code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            close(fd)
            throw CRUDError.invalidRequest(
                reason: "\(url.path) is not a regular file of this user: CRUDKit does not write into it")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// A fresh name beside `destination` (same directory, hidden) for the partial file of a download to it.
    ///
    /// - Parameter destination: The file the download goes to.
    /// - Returns: `<directory>/.<name>.<UUID>.partial`.
    public static func partialFile(for destination: URL) -> URL {
        destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial")
    }

    /// Checks that a download may go to `destination`: a missing name or a regular file (replaced on success);
    /// a directory, a symbolic link or another kind of file is refused, before any byte is requested.
    ///
    /// - Parameter destination: The file the download goes to.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` saying why `destination` cannot be written.
    public static func checkDestination(_ destination: URL) throws {
        var info = stat()
        guard lstat(destination.path, &info) == 0 else {
            if errno == ENOENT { return }
            throw failure("cannot inspect the download destination \(destination.path)", errno)
        }
        if let refusal = refusal(of: destination, mode: info.st_mode) { throw refusal }
    }

    /// Moves the complete `file` to `destination` with `rename(2)`: a regular file there is replaced atomically
    /// (the new file takes its permission bits when the file is this user's own; another user's leaves it `0600`),
    /// a missing one is created (mode `0600`); a directory, a symbolic link or another kind of file is refused and
    /// left untouched; `file` itself must be a regular file of this user, not a link. `file` must be in `destination`'s directory
    /// (see ``partialFile(for:)``); on failure it stays where it is.
    ///
    /// `rename(2)` never follows a link, so even a link planted after the check is replaced, not written through.
    /// - Parameters:
    ///   - file: The complete file.
    ///   - destination: Where it goes.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` saying why it cannot go there.
    public static func moveIntoPlace(_ file: URL, to destination: URL) throws {
        // The mode is set on the complete file itself, opened without following a link someone swapped in for it.
        let fd = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw failure("cannot open the complete download \(file.path)", errno) }
        defer { close(fd) }
        var own = stat()
        guard fstat(fd, &own) == 0, own.st_mode & S_IFMT == S_IFREG, own.st_uid == geteuid() else {
            throw CRUDError.invalidRequest(
                reason: "\(file.path) is no longer a regular file of this user: CRUDKit does not move it into place")
        }
        var info = stat()
        if lstat(destination.path, &info) == 0 {
            if let refusal = refusal(of: destination, mode: info.st_mode) { throw refusal }
            // Keep the permission bits the user chose for their own file being replaced; another user's file (planted
            // where others can write) does not choose who may read the body: the new file stays `0600`.
            if info.st_uid == geteuid() { _ = fchmod(fd, info.st_mode & 0o777) }
        } else if errno != ENOENT {
            throw failure("cannot inspect the download destination \(destination.path)", errno)
        }
        guard rename(file.path, destination.path) == 0 else {
            let code = errno
            if code == EISDIR || code == ENOTEMPTY || code == EEXIST {
                throw CRUDError.invalidRequest(
                    reason: "the download destination \(destination.path) is a directory: "
                        + "CRUDKit replaces a file, never a directory and its contents")
            }
            throw failure("cannot move the download to \(destination.path)", code)
        }
    }

    // MARK: - Internals

    /// Why a download may not go to `destination`, an existing name of kind `mode`; `nil` for a regular file.
    private static func refusal(of destination: URL, mode: mode_t) -> CRUDError? {
        switch mode & S_IFMT {
        case S_IFREG:
            return nil
        case S_IFDIR:
            return .invalidRequest(
                reason: "the download destination \(destination.path) is a directory: "
                    + "CRUDKit replaces a file, never a directory and its contents")
        case S_IFLNK:
            return .invalidRequest(
                reason: "the download destination \(destination.path) is a symbolic link: CRUDKit neither "
                    + "writes through a link nor replaces it (pass the link's target, or remove the link)")
        default:
            return .invalidRequest(
                reason: "the download destination \(destination.path) is not a regular file: CRUDKit does not "
                    + "replace it")
        }
    }

    /// Names for the private directory: `crudkit-<pid>-<random>`, a new random part each time.
    static func candidateNames(count: Int = 16) -> [String] {
        (0..<count).map { _ in
            "crudkit-\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 16))"
        }
    }

    /// Makes the first of `names` that does not exist yet in `parent` as a directory of mode `0700` (whatever the
    /// umask) owned by this user; a name that exists (a directory, a file or a link someone made first) is skipped.
    ///
    /// - Parameters:
    ///   - parent: Where the directory goes (the temporary directory).
    ///   - names: The names to try, in order.
    /// - Returns: The new directory.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when none could be made.
    package static func makeDirectory(in parent: URL, names: [String]) throws -> URL {
        try makeDirectoryHandle(in: parent, names: names).url
    }

    /// ``makeDirectory(in:names:)``, answering the directory with a descriptor of it.
    static func makeDirectoryHandle(in parent: URL, names: [String]) throws -> Directory {
        for name in names {
            let url = parent.appendingPathComponent(name, isDirectory: true)
            guard mkdir(url.path, 0o700) == 0 else {
                if errno == EEXIST { continue }  // Someone else's name: never used, whoever made it.
                throw failure("cannot make a private directory in \(parent.path)", errno)
            }
            let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            let directory = Directory(url: url, descriptor: fd)
            guard fchmod(fd, 0o700) == 0, directory.isIntact else { continue }
            return directory
        }
        throw CRUDError.invalidRequest(
            reason: "cannot make a private directory in \(parent.path): every name tried was already taken")
    }

    /// Checks that `url` is a directory (not a link) owned by this user with mode exactly `0700`.
    static func checkPrivateDirectory(_ url: URL) throws {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw failure("cannot inspect \(url.path)", errno) }
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o7777 == 0o700 else {
            throw CRUDError.invalidRequest(reason: "\(url.path) is not a private directory of this user")
        }
    }

    /// Removes the private directory when nothing is left in it (at exit).
    static func removeDirectoryIfEmpty() {
        if let url = made.withLock({ $0?.url }) { rmdir(url.path) }
    }

    static func failure(_ what: String, _ code: Int32) -> CRUDError {
        .invalidRequest(reason: "\(what): \(String(cString: strerror(code)))")
    }
}
