import CXCB
import Logging
import PodiumCore

/// The areas of the windows `--mask-window` and `--mask notifications` name, kept up to date
/// from the server's notices: the screen's top-level windows are looked at again when one is
/// made, shown, hidden, closed, reparented or renamed, and followed as they move from the
/// notices alone (no round trip while a window is dragged).
///
/// A top-level window is a window manager's frame (the title bar is masked with the window) or a
/// window of its own (a notification pop-up). Not thread-safe: confine to the capture thread.
final class WindowMasks {
    private struct TopLevel {
        var rect: PixelRect
        var masked: Bool
    }

    private let connection: XConnection
    private let masks: PrivacyMasks
    private let atoms: WindowAtoms
    /// `_NET_WM_WINDOW_TYPE` and its `_NOTIFICATION` value.
    private let windowType: xcb_atom_t
    private let notification: xcb_atom_t
    /// The properties whose change may change what is masked.
    private let naming: Set<xcb_atom_t>
    /// The shown top-level windows, by id.
    private var shown: [xcb_window_t: TopLevel] = [:]
    /// The application windows watched for a new name, with the top-level window they are in.
    private var clients: [xcb_window_t: xcb_window_t] = [:]
    /// Set by a notice that may change which windows are masked.
    private var stale = true
    /// The masked areas, in root coordinates, as they were last worked out.
    private(set) var areas: [PixelRect] = []
    /// The application windows masked, said once each; `nil` before the first look.
    private var masked: Set<xcb_window_t>?
    private let logger: Logger

    init(connection: XConnection, masks: PrivacyMasks, logger: Logger) {
        self.connection = connection
        self.masks = masks
        self.logger = logger
        atoms = WindowAtoms(connection)
        let named = connection.atoms(["_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_NOTIFICATION"])
        windowType = named[0]
        notification = named[1]
        naming = [XCB_ATOM_WM_NAME.rawValue, XCB_ATOM_WM_CLASS.rawValue, atoms.name, windowType]
        let events = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue
        xcb_change_window_attributes(connection.raw, connection.root, XCB_CW_EVENT_MASK.rawValue, [events])
        connection.flush()
    }

    /// Takes a notice the server sent, if it is about the screen's windows.
    func handle(_ event: UnsafePointer<xcb_generic_event_t>) {
        switch Int32(event.pointee.response_type & 0x7F) {
        case XCB_CREATE_NOTIFY, XCB_MAP_NOTIFY, XCB_UNMAP_NOTIFY, XCB_DESTROY_NOTIFY, XCB_REPARENT_NOTIFY:
            stale = true
        case XCB_CONFIGURE_NOTIFY:
            let configure = UnsafeRawPointer(event).load(as: xcb_configure_notify_event_t.self)
            guard configure.event == connection.root, var top = shown[configure.window] else { return }
            let border = 2 * Int(configure.border_width)
            top.rect = PixelRect(x: Int(configure.x), y: Int(configure.y), width: Int(configure.width) + border,
                                 height: Int(configure.height) + border)
            shown[configure.window] = top
            if top.masked { gather() }
        case XCB_PROPERTY_NOTIFY:
            let property = UnsafeRawPointer(event).load(as: xcb_property_notify_event_t.self)
            if clients[property.window] != nil && naming.contains(property.atom) { stale = true }
        default:
            break
        }
    }

    /// Looks at the windows again if a notice said they changed.
    /// - Returns: whether `areas` changed.
    func refresh() -> Bool {
        guard stale else { return false }
        stale = false
        let before = areas
        rescan()
        return areas != before
    }

    /// Finds the shown top-level windows and whether each is masked. The attributes and places of
    /// all are asked for before the first answer is awaited.
    private func rescan() {
        let children = connection.children(of: connection.root)
        let cookies = children.map { child in
            (xcb_get_window_attributes(connection.raw, child), xcb_get_geometry(connection.raw, child))
        }
        var found: [xcb_window_t: TopLevel] = [:]
        var watched: [xcb_window_t: xcb_window_t] = [:]
        var maskedNow: [(window: xcb_window_t, title: String)] = []
        for (child, (attributesCookie, geometryCookie)) in zip(children, cookies) {
            let viewable = try? connection.withReply({ xcb_get_window_attributes_reply($0, attributesCookie, $1) }) {
                $0.pointee.map_state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue)
            }
            let rect = try? connection.withReply({ xcb_get_geometry_reply($0, geometryCookie, $1) }) { reply in
                let border = 2 * Int(reply.pointee.border_width)
                return PixelRect(x: Int(reply.pointee.x), y: Int(reply.pointee.y),
                                 width: Int(reply.pointee.width) + border, height: Int(reply.pointee.height) + border)
            }
            guard viewable == true, let rect else { continue }
            let client = connection.clientWindow(of: child, atoms: atoms, depth: 1) ?? child
            if clients[client] == nil {
                let events = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
                xcb_change_window_attributes(connection.raw, client, XCB_CW_EVENT_MASK.rawValue, [events])
            }
            watched[client] = child
            let title = covered(client)
            found[child] = TopLevel(rect: rect, masked: title != nil)
            if let title { maskedNow.append((client, title)) }
        }
        connection.flush()
        shown = found
        clients = watched
        gather()
        say(maskedNow)
    }

    /// Says which windows are masked: each once, when first masked; that none is, at the start.
    private func say(_ found: [(window: xcb_window_t, title: String)]) {
        let before = masked
        masked = Set(found.map(\.window))
        let new = found.filter { before?.contains($0.window) != true }
        guard !new.isEmpty else {
            if before == nil { logger.notice("no window to mask now (\(masks)); masked as soon as one shows") }
            return
        }
        let named = new.map { "'\($0.title)' (0x\(String($0.window, radix: 16)))" }.joined(separator: ", ")
        logger.notice("masking \(named)")
    }

    /// The title of the application window `client` if it is one to mask, else `nil`.
    private func covered(_ client: xcb_window_t) -> String? {
        let classes = (connection.property(XCB_ATOM_WM_CLASS.rawValue, of: client)?.bytes ?? [])
            .split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let types = connection.property(windowType, of: client, type: XCB_ATOM_ATOM.rawValue)
            .map(XConnection.cardinals) ?? []
        let title = connection.title(of: client, atoms: atoms)
        let covers = masks.covers(title: title, instance: classes.first ?? "",
                                  className: classes.count > 1 ? classes[1] : "",
                                  isNotification: notification != 0 && types.contains(notification))
        return covers ? title : nil
    }

    private func gather() {
        areas = shown.values.filter(\.masked).map(\.rect).sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }
}
