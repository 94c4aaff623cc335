import Foundation
import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// The windows a sway output shows that `--mask-window` names, from sway's IPC: its tree
/// (`get_tree`), asked at each frame handed on. sway tells of no window's drag or resize, and
/// a tree is a few kilobytes, a fraction of a millisecond to read.
///
/// Not thread-safe: the capture thread's.
final class SwayWindows: WindowAreas {
    /// A node of sway's tree, as much of it as the masks need.
    private struct Node: Decodable {
        struct Rect: Decodable {
            var x = 0, y = 0, width = 0, height = 0
            var pixels: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }
        }
        struct Properties: Decodable {
            var `class`: String?
            var instance: String?
        }
        var type: String?
        var name: String?
        var rect = Rect()
        /// The title bar, relative to the window's `rect`.
        var deco_rect: Rect?
        var visible: Bool?
        var app_id: String?
        var scale: Double?
        var window_properties: Properties?
        var nodes: [Node]? = []
        var floating_nodes: [Node]? = []

        var children: [Node] { (nodes ?? []) + (floating_nodes ?? []) }
    }

    private let connection: Int32
    private let output: String
    private let masks: PrivacyMasks
    private let decoder = JSONDecoder()

    /// - Throws: 69 when sway's IPC cannot be reached there.
    init(socket path: String, output: String, masks: PrivacyMasks) throws(PodiumError) {
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
        self.output = output
        self.masks = masks
        _ = try areas()
    }

    deinit { close(connection) }

    /// Where the sway IPC socket of the compositor at `display` may be: `$SWAYSOCK`, else those
    /// beside its Wayland socket (sway makes both in its runtime folder; a sway that died leaves
    /// its own), newest first.
    static func socketPaths(display: String, environment: [String: String]) -> [String] {
        if let named = environment["SWAYSOCK"], !named.isEmpty { return [named] }
        let folder = display.hasPrefix("/") ? (display as NSString).deletingLastPathComponent
            : environment["XDG_RUNTIME_DIR"] ?? ""
        let paths = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
            .map { (folder as NSString).appendingPathComponent($0) }
        let modified = { (path: String) in
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
        }
        return paths.sorted { modified($0) > modified($1) }
    }

    func areas() throws(PodiumError) -> [PixelRect] {
        let reply = try ask(type: 4)
        let root: Node
        do {
            root = try decoder.decode(Node.self, from: reply)
        } catch {
            throw .unavailable("sway's IPC sent a tree Podium cannot read: \(error)")
        }
        guard let screen = root.children.first(where: { $0.type == "output" && $0.name == output }) else {
            return []
        }
        let scale = screen.scale ?? 1
        let origin = screen.rect.pixels
        var found: [PixelRect] = []
        func visit(_ node: Node) {
            let isWindow = node.app_id != nil || node.window_properties != nil
            if isWindow, node.visible == true,
               masks.covers(title: node.name ?? "", instance: node.window_properties?.instance ?? node.app_id ?? "",
                            className: node.window_properties?.class ?? node.app_id ?? "", isNotification: false) {
                var area = node.rect.pixels
                if let title = node.deco_rect, title.height > 0 {
                    area = area.union(PixelRect(x: area.x, y: area.y - title.height, width: area.width,
                                                height: title.height))
                }
                // Logical pixels on the output, to the picture's.
                found.append(PixelRect(x: Int((Double(area.x - origin.x) * scale).rounded(.down)),
                                       y: Int((Double(area.y - origin.y) * scale).rounded(.down)),
                                       width: Int((Double(area.width) * scale).rounded(.up)) + 1,
                                       height: Int((Double(area.height) * scale).rounded(.up)) + 1))
            }
            node.children.forEach(visit)
        }
        // Every window shown, on any output: a floating one may reach over this one's edge.
        root.children.forEach(visit)
        return found
    }

    /// Sends an IPC message of `type` with no payload and reads its reply's payload.
    private func ask(type: UInt32) throws(PodiumError) -> Data {
        var message = Data("i3-ipc".utf8)
        withUnsafeBytes(of: UInt32(0)) { message.append(contentsOf: $0) }
        withUnsafeBytes(of: type) { message.append(contentsOf: $0) }
        let sent = message.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == message.count else { throw lost() }
        var header = [UInt8](repeating: 0, count: 14)
        try read(into: &header)
        let length = header[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        guard header.starts(with: Array("i3-ipc".utf8)), length < 64 << 20 else { throw lost() }
        var payload = [UInt8](repeating: 0, count: Int(length))
        try read(into: &payload)
        return Data(payload)
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
        .unavailable("lost sway's IPC: the masked windows cannot be followed")
    }
}
