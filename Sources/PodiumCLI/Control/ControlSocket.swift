import Foundation
import PodiumCore

/// A run's control socket (`--control`): a Unix stream socket, mode 0600 in a folder of this
/// user's alone, that takes one JSON request a line and answers each with one JSON line
/// (`ControlRequest`, `ControlReply`). `podium control` is its client.
///
/// One thread serves it, polling, so a client that connects and says nothing holds up nobody:
/// at most `maximumClients` at once, a request at most `maximumLine` bytes, a reply that the client
/// does not take within a second is dropped with the client. A peer of another user is refused
/// (`SO_PEERCRED`), even if the folder's mode let it in. The socket is removed as the run ends.
final class ControlSocket: Sendable {
    let path: String
    private let listener: Int32

    static let maximumClients = 8
    static let maximumLine = 4096

    /// `struct ucred` of `<sys/socket.h>`, which Glibc's Swift module leaves out (it needs
    /// `_GNU_SOURCE`): a process id and a user and group id, as the kernel fills them.
    private struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Makes and binds the socket at `path` (`Invocation.controlSocket`).
    /// - Throws: 73 when the folder or the socket cannot be made.
    init(path: String) throws(PodiumError) {
        try ControlAddress.prepareDirectory()
        self.path = path
        guard var address = ControlAddress.socketAddress(path) else {
            throw .cannotCreate("--control: the socket path \(path) is longer than a socket path can be")
        }
        // Sockets left by runs that were killed, this process's id among them.
        ControlAddress.removeLeftovers()
        unlink(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotCreate("--control: cannot make a socket: \(Self.reason())") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, chmod(path, 0o600) == 0, listen(descriptor, Int32(Self.maximumClients)) == 0 else {
            let reason = Self.reason()
            Glibc.close(descriptor)
            unlink(path)
            throw .cannotCreate("--control: cannot listen on \(path): \(reason)")
        }
        listener = descriptor
    }

    /// Removes the socket's name: no client finds this run any more. Called as the run ends, before
    /// the process does (the serving thread may not get to it).
    func remove() {
        unlink(path)
    }

    /// Answers requests for `run` until it stops. The thread's body.
    /// - Parameter status: what the statistics know now, for the replies.
    func serve(_ run: Run, status: @escaping @Sendable () -> ControlStatus) {
        var clients: [(descriptor: Int32, pending: [UInt8])] = []
        var buffer = [UInt8](repeating: 0, count: Self.maximumLine)
        defer {
            for client in clients { Glibc.close(client.descriptor) }
            Glibc.close(listener)
        }
        while !run.isStopping {
            var descriptors = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + clients.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            // Woken now and then to see that the run stopped.
            guard poll(&descriptors, nfds_t(descriptors.count), 200) > 0 else { continue }
            var gone: Set<Int32> = []
            for (index, descriptor) in descriptors.enumerated().dropFirst() where descriptor.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
                guard count > 0 else {
                    gone.insert(descriptor.fd)
                    continue
                }
                clients[index - 1].pending += buffer[0..<count]
                while let newline = clients[index - 1].pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: clients[index - 1].pending[..<newline], as: UTF8.self)
                    clients[index - 1].pending.removeSubrange(...newline)
                    if !send(run.control.answer(line, status: status), to: descriptor.fd) { gone.insert(descriptor.fd) }
                }
                if clients[index - 1].pending.count > Self.maximumLine {
                    _ = send(refusal("a request is one line of at most \(Self.maximumLine) bytes"), to: descriptor.fd)
                    gone.insert(descriptor.fd)
                }
            }
            for descriptor in gone { Glibc.close(descriptor) }
            clients.removeAll { gone.contains($0.descriptor) }
            if descriptors[0].revents & Int16(POLLIN) != 0, let client = admit(count: clients.count) {
                clients.append((client, []))
            }
        }
    }

    /// Accepts a client of this user's while there is room for one.
    private func admit(count: Int) -> Int32? {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return nil }
        // Not handed to the children Podium starts (`accept4` is out of Glibc's Swift module).
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var peer = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        let refusal: String? = if getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0
            || peer.uid != getuid() {
            "this Podium answers its own user only"
        } else if count >= Self.maximumClients {
            "\(Self.maximumClients) clients are connected already; try again"
        } else {
            nil
        }
        guard let refusal else { return client }
        _ = send(self.refusal(refusal), to: client)
        Glibc.close(client)
        return nil
    }

    private func refusal(_ message: String) -> String {
        #"{"error":"\#(message)","ok":false,"podium":1}"#
    }

    /// Writes `reply` and a newline; `false` when the client is gone, or did not take it within a
    /// second (it is not reading: the thread does not wait on it longer).
    private func send(_ reply: String, to descriptor: Int32) -> Bool {
        let bytes = Array((reply + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var writable = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                guard poll(&writable, 1, 1_000) > 0 else { return false }
                continue
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
