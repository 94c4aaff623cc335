import CXCB
import Foundation

/// Reads the properties of a display's top-level windows as a window manager or task bar would,
/// through a connection of its own. In-process rather than through `xprop`, whose output depends
/// on the locale: a test of text encodings needs the bytes themselves.
public final class WindowProperties {
    private let connection: OpaquePointer
    private let root: xcb_window_t

    /// A property as stored: its type's name, its format (8, 16 or 32 bits an item) and its bytes.
    public struct Property: Equatable, Sendable {
        public var type: String
        public var format: Int
        public var bytes: [UInt8]

        public init(type: String, format: Int, bytes: [UInt8]) {
            self.type = type
            self.format = format
            self.bytes = bytes
        }

        /// The bytes as 32-bit items (CARDINAL, WINDOW …), for format 32.
        public var cardinals: [UInt32] {
            guard format == 32 else { return [] }
            return stride(from: 0, to: bytes.count - 3, by: 4).map { index in
                bytes[index..<index + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            }
        }

        /// The text, decoded as its type says: UTF-8 for `UTF8_STRING`, Latin-1 for ICCCM's `STRING`.
        public var text: String {
            guard type == "STRING" else { return String(decoding: bytes, as: UTF8.self) }
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        }
    }

    public init(display: String) throws {
        var screenNumber: Int32 = 0
        connection = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(connection) == 0 else {
            xcb_disconnect(connection)
            throw TestFailure("cannot connect to \(display)")
        }
        root = xcb_setup_roots_iterator(xcb_get_setup(connection)).data.pointee.root
    }

    deinit { xcb_disconnect(connection) }

    /// The top-level windows that name their class: the applications' windows (a window manager's
    /// own windows and frames aside).
    public func clients() throws -> [UInt32] {
        guard let tree = xcb_query_tree_reply(connection, xcb_query_tree(connection, root), nil) else {
            throw TestFailure("no window tree")
        }
        defer { free(tree) }
        let count = Int(xcb_query_tree_children_length(tree))
        let children = UnsafeBufferPointer(start: xcb_query_tree_children(tree), count: count)
        return try children.filter { try property("WM_CLASS", of: $0) != nil }
    }

    /// Several properties of `window` as they stood at one moment: the server is grabbed while
    /// they are read, so a client changing them in between (a title updated each second) cannot
    /// make two that are set together disagree.
    public func properties(_ names: [String], of window: UInt32) throws -> [String: Property] {
        xcb_grab_server(connection)
        defer {
            xcb_ungrab_server(connection)
            xcb_flush(connection)
        }
        var found: [String: Property] = [:]
        for name in names { found[name] = try property(name, of: window) }
        return found
    }

    /// The property `name` of `window`, or `nil` when the window has none.
    public func property(_ name: String, of window: UInt32) throws -> Property? {
        let atom = try intern(name)
        // Any type, up to 4 MiB (the length counts 32-bit units): whatever the window set.
        let cookie = xcb_get_property(connection, 0, window, atom, XCB_GET_PROPERTY_TYPE_ANY.rawValue, 0, 1 << 20)
        guard let reply = xcb_get_property_reply(connection, cookie, nil) else {
            throw TestFailure("no reply for \(name)")
        }
        defer { free(reply) }
        // Type None: the window has no such property.
        guard reply.pointee.type != 0, let value = xcb_get_property_value(reply) else { return nil }
        let length = Int(xcb_get_property_value_length(reply))
        let bytes = Array(UnsafeRawBufferPointer(start: value, count: length))
        return Property(type: try atomName(reply.pointee.type), format: Int(reply.pointee.format), bytes: bytes)
    }

    private func intern(_ name: String) throws -> xcb_atom_t {
        let cookie = xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name)
        guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else {
            throw TestFailure("cannot intern \(name)")
        }
        defer { free(reply) }
        return reply.pointee.atom
    }

    private func atomName(_ atom: xcb_atom_t) throws -> String {
        guard let reply = xcb_get_atom_name_reply(connection, xcb_get_atom_name(connection, atom), nil) else {
            throw TestFailure("no name for atom \(atom)")
        }
        defer { free(reply) }
        let name = UnsafeRawPointer(xcb_get_atom_name_name(reply)!).assumingMemoryBound(to: UInt8.self)
        let count = Int(xcb_get_atom_name_name_length(reply))
        return String(decoding: UnsafeBufferPointer(start: name, count: count), as: UTF8.self)
    }
}
