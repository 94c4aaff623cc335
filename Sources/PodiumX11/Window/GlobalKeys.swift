import CXCB
import Glibc
public import PodiumCore

/// The presenter's keys held for the whole X desktop (`--hotkeys`): grabbed on the root window, so
/// they reach Podium while the slides have the focus. A combination another program grabbed first
/// is said once and left to it (X does not say which program holds it); the rest work.
///
/// On its own connection, on the thread that listens.
public final class GlobalKeys {
    private let connection: XConnection
    private let hotkeys: Hotkeys
    /// Each key code's keysym, read again when the keyboard's map changes.
    private var keysyms: [UInt8: UInt32]
    /// The modifiers that tell hotkeys apart: Caps Lock and Num Lock on or off change nothing.
    private static let meaningful = Hotkey.Modifiers([.shift, .control, .alt, .super]).rawValue
    /// Caps Lock and Num Lock (Mod2 on every common keyboard map), grabbed in each combination.
    private static let locks: [UInt16] = [0, 2, 16, 2 | 16]

    /// Opens `display` for `hotkeys` (`grab()` then takes them).
    /// - Throws: 69 when the display does not open, or is Xwayland (which hears keys only while
    ///   its own windows have the focus).
    public init(display: String?, hotkeys: Hotkeys) throws(PodiumError) {
        connection = try XConnection(display: display)
        guard !connection.isXWayland else {
            throw .unavailable("global keys: \(connection.displayName) is Xwayland, which hears keys only while its "
                               + "own windows have the focus")
        }
        self.hotkeys = hotkeys
        keysyms = connection.keyboardMapping()
    }

    /// Grabs the keys. - Returns: the actions whose keys cannot be had, each with a line to say.
    ///
    /// The corresponding C function is `xcb_grab_key`.
    public func grab() -> [(action: LiveAction, problem: String)] {
        var problems: [(action: LiveAction, problem: String)] = []
        for (action, key) in hotkeys.bindings {
            let codes = keysyms.filter { $0.value == key.keysym }.map(\.key).sorted()
            guard !codes.isEmpty else {
                problems.append((action, "global keys: no key on this keyboard makes \(key.key); "
                                 + "\(action.name) has none"))
                continue
            }
            var taken = false
            for code in codes {
                for lock in Self.locks {
                    let cookie = xcb_grab_key_checked(connection.raw, 1, connection.root, key.modifiers.rawValue | lock,
                                                      code, UInt8(XCB_GRAB_MODE_ASYNC.rawValue),
                                                      UInt8(XCB_GRAB_MODE_ASYNC.rawValue))
                    do throws(X11RequestError) { try connection.check(cookie) } catch { taken = true }
                }
            }
            if taken {
                problems.append((action, "global keys: \(key) (\(action.name)) is held by another program; "
                                 + "it stays with that program"))
            }
        }
        return problems
    }

    /// Acts on the keys as they are pressed until `isStopping` says so or the display closes;
    /// a key held down acts once. When the keyboard's map changes (another layout, `xmodmap`),
    /// the keys are let go and grabbed again where the new map puts them.
    /// - Parameter regrabbed: what the new map left out, as `grab()` says it.
    /// - Returns: why it stopped early (the display closed), or `nil` when asked to.
    public func listen(isStopping: () -> Bool, perform: (LiveAction) -> Void,
                       regrabbed: ([(action: LiveAction, problem: String)]) -> Void = { _ in }) -> String? {
        var descriptor = pollfd(fd: xcb_get_file_descriptor(connection.raw), events: Int16(POLLIN), revents: 0)
        // X repeats a held key as a release and a press with the same time.
        var released: (code: UInt8, time: UInt32)?
        while !isStopping() {
            guard !connection.isBroken else {
                return "global keys stopped: the X display \(connection.displayName) closed"
            }
            // Woken by the keys, and now and then to see that the run stopped.
            _ = poll(&descriptor, 1, 500)
            while let event = xcb_poll_for_event(connection.raw) {
                defer { free(event) }
                let kind = event.pointee.response_type & 0x7F
                if kind == XCB_MAPPING_NOTIFY {
                    let notice = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_mapping_notify_event_t.self)
                    if notice.pointee.request == UInt8(XCB_MAPPING_KEYBOARD.rawValue) { regrabbed(remap()) }
                } else if kind == XCB_KEY_RELEASE {
                    let release = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_key_release_event_t.self).pointee
                    released = (release.detail, release.time)
                } else if kind == XCB_KEY_PRESS {
                    let press = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
                    defer { released = nil }
                    if let released, released.code == press.detail, released.time == press.time { continue }
                    let key = Hotkey(modifiers: Hotkey.Modifiers(rawValue: press.state & Self.meaningful),
                                     keysym: keysyms[press.detail] ?? 0, key: "")
                    if let action = hotkeys.action(for: key) { perform(action) }
                }
            }
        }
        return nil
    }

    /// Lets every key go and grabs them again as the keyboard's map now has them.
    ///
    /// The corresponding C function is `xcb_ungrab_key`.
    private func remap() -> [(action: LiveAction, problem: String)] {
        xcb_ungrab_key(connection.raw, UInt8(XCB_GRAB_ANY.rawValue), connection.root, UInt16(XCB_MOD_MASK_ANY.rawValue))
        keysyms = connection.keyboardMapping()
        return grab()
    }
}
