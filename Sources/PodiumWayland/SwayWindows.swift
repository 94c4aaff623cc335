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

    private let ipc: SwayIPC
    private let output: String
    private let masks: PrivacyMasks
    private let decoder = JSONDecoder()

    /// - Throws: 69 when sway's IPC cannot be reached there.
    init(socket path: String, output: String, masks: PrivacyMasks) throws(PodiumError) {
        ipc = try SwayIPC(socket: path)
        self.output = output
        self.masks = masks
        _ = try areas()
    }

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
        let reply: Data
        do {
            reply = try ipc.ask(.tree)
        } catch {
            throw .unavailable("lost sway's IPC: the masked windows cannot be followed")
        }
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
}
