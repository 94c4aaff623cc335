import CXCB
public import PodiumCore

/// The atoms that name the properties of top-level windows, asked for in one round trip.
struct WindowAtoms {
    let clientList: xcb_atom_t
    let state: xcb_atom_t
    let name: xcb_atom_t
    let utf8: xcb_atom_t

    init(_ connection: XConnection) {
        let atoms = connection.atoms(["_NET_CLIENT_LIST", "WM_STATE", "_NET_WM_NAME", "UTF8_STRING"])
        clientList = atoms[0]
        state = atoms[1]
        name = atoms[2]
        utf8 = atoms[3]
    }
}

extension XConnection {
    /// The applications' top-level windows, as a task bar lists them: `_NET_CLIENT_LIST` when the
    /// window manager keeps one; else the root's children that carry `WM_STATE` (or, under a
    /// reparenting manager, the child of a frame that does); else, with no window manager at
    /// all (nothing sets `WM_STATE`), the root's children that name a title or class.
    ///
    /// Connects nothing and blocks on a few round trips: call it off the cooperative pool.
    public func clientWindows() -> [ClientWindow] {
        let atoms = WindowAtoms(self)
        var ids = property(atoms.clientList, of: root, type: XCB_ATOM_WINDOW.rawValue).map(Self.cardinals) ?? []
        if ids.isEmpty {
            let children = self.children(of: root)
            ids = children.compactMap { clientWindow(of: $0, atoms: atoms, depth: 1) }
            if ids.isEmpty { ids = children.filter { hasName($0, atoms: atoms) } }
        }
        return ids.compactMap { describe($0, atoms: atoms) }
    }

    /// The window `id` as a `ClientWindow`: its names, where it is, whether it is shown;
    /// `nil` when it no longer exists.
    func describe(_ id: xcb_window_t, atoms: WindowAtoms) -> ClientWindow? {
        let geometryCookie = xcb_get_geometry(raw, id)
        let placeCookie = xcb_translate_coordinates(raw, id, root, 0, 0)
        let attributesCookie = xcb_get_window_attributes(raw, id)
        guard let size = try? withReply({ xcb_get_geometry_reply($0, geometryCookie, $1) }, {
            PixelSize(width: Int($0.pointee.width), height: Int($0.pointee.height))
        }), let place = try? withReply({ xcb_translate_coordinates_reply($0, placeCookie, $1) }, {
            (x: Int($0.pointee.dst_x), y: Int($0.pointee.dst_y))
        }), let mapped = try? withReply({ xcb_get_window_attributes_reply($0, attributesCookie, $1) }, {
            $0.pointee.map_state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue)
        }) else { return nil }
        // WM_CLASS is two strings, each ended by a NUL: the instance, then the class.
        let classes = (property(XCB_ATOM_WM_CLASS.rawValue, of: id)?.bytes ?? [])
            .split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        return ClientWindow(id: id, title: title(of: id, atoms: atoms),
                            instance: classes.first ?? "", className: classes.count > 1 ? classes[1] : "",
                            rect: PixelRect(x: place.x, y: place.y, size: size), isMapped: mapped)
    }

    /// `_NET_WM_NAME` (UTF-8), else `WM_NAME`: Latin-1 when its type is `STRING`, as ICCCM says;
    /// anything else (`COMPOUND_TEXT`, which is ASCII for most titles) is read as UTF-8.
    func title(of window: xcb_window_t, atoms: WindowAtoms) -> String {
        if let name = property(atoms.name, of: window, type: atoms.utf8), !name.bytes.isEmpty {
            return String(decoding: name.bytes, as: UTF8.self)
        }
        guard let name = property(XCB_ATOM_WM_NAME.rawValue, of: window) else { return "" }
        if name.type == XCB_ATOM_STRING.rawValue {
            return String(String.UnicodeScalarView(name.bytes.map { Unicode.Scalar($0) }))
        }
        return String(decoding: name.bytes, as: UTF8.self)
    }

    /// The client window in `window` or below it, `depth` levels down at most: the window
    /// itself if it carries `WM_STATE` (the window manager manages it), else the first child
    /// that does (a reparenting manager's frame holds the client).
    func clientWindow(of window: xcb_window_t, atoms: WindowAtoms, depth: Int) -> xcb_window_t? {
        if property(atoms.state, of: window, type: atoms.state) != nil { return window }
        guard depth > 0 else { return nil }
        for child in children(of: window) {
            if let found = clientWindow(of: child, atoms: atoms, depth: depth - 1) { return found }
        }
        return nil
    }

    /// The children of `window`, bottom to top.
    ///
    /// The corresponding C function is `xcb_query_tree`.
    func children(of window: xcb_window_t) -> [xcb_window_t] {
        let cookie = xcb_query_tree(raw, window)
        return (try? withReply({ xcb_query_tree_reply($0, cookie, $1) }) { reply in
            Array(UnsafeBufferPointer(start: xcb_query_tree_children(reply),
                                      count: Int(xcb_query_tree_children_length(reply))))
        }) ?? []
    }

    /// Whether `window` names a title or a class: an application's window where no window
    /// manager marks them, rather than an input-only or helper window.
    private func hasName(_ window: xcb_window_t, atoms: WindowAtoms) -> Bool {
        property(XCB_ATOM_WM_CLASS.rawValue, of: window) != nil || !title(of: window, atoms: atoms).isEmpty
    }

    /// The property `atom` of `window` (of `type`, any by default): its type and bytes, or `nil`
    /// when the window has none or is gone.
    ///
    /// The corresponding C function is `xcb_get_property`.
    func property(_ atom: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t = 0)
        -> (type: xcb_atom_t, bytes: [UInt8])? {
        guard atom != 0 else { return nil }
        // Up to 1 MiB (the length counts 32-bit units): any title or list.
        let cookie = xcb_get_property(raw, 0, window, atom, type, 0, 1 << 18)
        let found = try? withReply({ xcb_get_property_reply($0, cookie, $1) }) { reply -> (xcb_atom_t, [UInt8])? in
            // Type None: no such property (or not of the type asked for).
            guard reply.pointee.type != 0, reply.pointee.type == type || type == 0,
                  let value = xcb_get_property_value(reply) else { return nil }
            let length = Int(xcb_get_property_value_length(reply))
            return (reply.pointee.type, Array(UnsafeRawBufferPointer(start: value, count: length)))
        }
        return found.map { (type: $0.0, bytes: $0.1) }
    }

    /// A format-32 property's items (`WINDOW`, `CARDINAL`).
    static func cardinals(_ property: (type: xcb_atom_t, bytes: [UInt8])) -> [UInt32] {
        stride(from: 0, to: property.bytes.count - 3, by: 4).map { index in
            property.bytes[index..<index + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }
    }
}
