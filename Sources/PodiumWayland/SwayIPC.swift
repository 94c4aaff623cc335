import Foundation
import PodiumCore

/// A connection to sway's IPC socket (i3's protocol): a message and its reply, in turn.
///
/// Not thread-safe: one thread's.
final class SwayIPC {
    /// The messages Podium sends.
    enum Message: UInt32 {
        case command = 0
        case outputs = 3
        case tree = 4
    }

    private let connection: Int32
    let path: String

    /// - Throws: 69 when sway's IPC cannot be reached there.
    init(socket path: String) throws(PodiumError) {
        let connection = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard connection >= 0 else {
            throw .unavailable("cannot reach sway's IPC: \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { room in
            guard path.utf8.count < room.count else { return false }
            room.copyBytes(from: path.utf8)
            room[path.utf8.count] = 0
            return true
        }
        let connected = fits && withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(connection, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        // A compositor that stops answering must not stall capture for long.
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(connection)
            throw .unavailable("cannot reach sway's IPC at \(path): \(reason)")
        }
        self.connection = connection
        self.path = path
    }

    deinit { close(connection) }

    /// Sends `message` with `payload` and reads its reply's payload.
    /// - Throws: 69 when the connection is lost.
    func ask(_ message: Message, _ payload: String = "") throws(PodiumError) -> Data {
        var bytes = Data("i3-ipc".utf8)
        withUnsafeBytes(of: UInt32(payload.utf8.count)) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: message.rawValue) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: payload.utf8)
        let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw lost() }
        var header = [UInt8](repeating: 0, count: 14)
        try read(into: &header)
        let length = header[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        guard header.starts(with: Array("i3-ipc".utf8)), length < 64 << 20 else { throw lost() }
        var reply = [UInt8](repeating: 0, count: Int(length))
        try read(into: &reply)
        return Data(reply)
    }

    private func read(into bytes: inout [UInt8]) throws(PodiumError) {
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { room in
                room.baseAddress.map { recv(connection, $0 + done, room.count - done, 0) } ?? -1
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw lost() }
            done += got
        }
    }

    private func lost() -> PodiumError {
        .unavailable("lost sway's IPC at \(path)")
    }
}
