import CWayland
import PodiumCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Plays a viewer's pointer and keys on one output of a wlroots compositor: a virtual pointer
/// bound to that output (its places are the output's alone) and a virtual keyboard, as a mouse
/// and a keyboard plugged in would be. The keyboard's map is libxkbcommon's default (`us`); a
/// character on its shifted level gets Shift.
final class WaylandVirtualInput: Sendable {
    private let devices: Mutex<Devices>

    /// The connection and its devices, used under the lock.
    private final class Devices {
        let display: WaylandDisplay
        let pointer: OpaquePointer
        let keyboard: OpaquePointer
        /// For each keysym, its evdev key code and whether it is the shifted level.
        let keys: [UInt32: (code: UInt32, shifted: Bool)]
        let shiftMask: UInt32
        let start = MonotonicClock()

        init(display: WaylandDisplay, pointer: OpaquePointer, keyboard: OpaquePointer,
             keys: [UInt32: (code: UInt32, shifted: Bool)], shiftMask: UInt32) {
            (self.display, self.pointer, self.keyboard, self.keys, self.shiftMask) =
                (display, pointer, keyboard, keys, shiftMask)
        }

        deinit {
            zwlr_virtual_pointer_v1_destroy(pointer)
            zwp_virtual_keyboard_v1_destroy(keyboard)
            display.flush()
        }

        /// Milliseconds, as input events carry them.
        var time: UInt32 { UInt32(truncatingIfNeeded: start.now() / 1_000_000) }
    }

    /// - Throws: 69 when the compositor has no such output, or no virtual pointer and keyboard.
    init(display name: String, output outputName: String) throws(PodiumError) {
        devices = Mutex(try Self.open(display: name, output: outputName))
    }

    /// Connects to the compositor and makes the devices.
    private static func open(display name: String, output outputName: String) throws(PodiumError)
        -> sending Devices {
        let display = try WaylandDisplay(name: name)
        guard let output = display.output(named: outputName) else {
            throw .unavailable("the Wayland display '\(name)' has no output \(outputName)", about: .viewerInput)
        }
        guard let pointers = display.bind("zwlr_virtual_pointer_manager_v1",
                                          cwl_virtual_pointer_manager_interface(), version: 2),
              let keyboards = display.bind("zwp_virtual_keyboard_manager_v1",
                                           cwl_virtual_keyboard_manager_interface(), version: 1),
              let seat = display.bind("wl_seat", cwl_seat_interface(), version: 1) else {
            throw .unavailable("the Wayland compositor at '\(name)' has no virtual pointer and "
                               + "keyboard (wlroots compositors have)", about: .viewerInput)
        }
        defer {
            zwlr_virtual_pointer_manager_v1_destroy(pointers)
            zwp_virtual_keyboard_manager_v1_destroy(keyboards)
            wl_seat_destroy(seat)
        }
        guard let pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer_with_output(pointers, seat,
                                                                                                output.proxy),
              let keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(keyboards, seat) else {
            throw .unavailable("the Wayland compositor at '\(name)' made no virtual pointer or keyboard",
                               about: .viewerInput)
        }
        let map = try keymap()
        defer { xkb_keymap_unref(map.keymap) }
        zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, map.descriptor,
                                       map.size)
        close(map.descriptor)
        try display.roundtrip()
        return Devices(display: display, pointer: pointer, keyboard: keyboard, keys: keys(of: map.keymap),
                       shiftMask: 1 << xkb_keymap_mod_get_index(map.keymap, "Shift"))
    }

    /// Returns once the compositor has taken every event played so far.
    func settle() {
        devices.withLock { devices in try? devices.display.roundtrip() }
    }

    func play(_ events: [RemoteInput]) {
        devices.withLock { devices in
            for event in events {
                switch event {
                case .move(let x, let y):
                    // Places in ten-thousandths of the output, whatever its size.
                    zwlr_virtual_pointer_v1_motion_absolute(devices.pointer, devices.time, UInt32(x * 10_000),
                                                            UInt32(y * 10_000), 10_000, 10_000)
                    zwlr_virtual_pointer_v1_frame(devices.pointer)
                case .button(let button, let down):
                    // BTN_LEFT, BTN_MIDDLE, BTN_RIGHT, as linux/input-event-codes.h has them.
                    guard let code = [1: UInt32(0x110), 2: 0x112, 3: 0x111][button] else { continue }
                    zwlr_virtual_pointer_v1_button(devices.pointer, devices.time, code,
                                                   down ? WL_POINTER_BUTTON_STATE_PRESSED.rawValue
                                                        : WL_POINTER_BUTTON_STATE_RELEASED.rawValue)
                    zwlr_virtual_pointer_v1_frame(devices.pointer)
                case .key(let keysym, let down):
                    guard let key = devices.keys[keysym] else { continue }
                    if down, key.shifted {
                        zwp_virtual_keyboard_v1_modifiers(devices.keyboard, devices.shiftMask, 0, 0, 0)
                    }
                    zwp_virtual_keyboard_v1_key(devices.keyboard, devices.time, key.code,
                                                down ? WL_KEYBOARD_KEY_STATE_PRESSED.rawValue
                                                     : WL_KEYBOARD_KEY_STATE_RELEASED.rawValue)
                    if down, key.shifted { zwp_virtual_keyboard_v1_modifiers(devices.keyboard, 0, 0, 0, 0) }
                }
            }
            // Sent now; what the compositor says back is read so that its messages never pile up.
            try? devices.display.dispatch()
        }
    }

    /// libxkbcommon's default keymap, as text in shared memory for the compositor.
    private static func keymap() throws(PodiumError) -> (keymap: OpaquePointer, descriptor: Int32, size: UInt32) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else {
            throw .unavailable("libxkbcommon made no context", about: .viewerInput)
        }
        defer { xkb_context_unref(context) }
        guard let keymap = xkb_keymap_new_from_names(context, nil, XKB_KEYMAP_COMPILE_NO_FLAGS),
              let text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            throw .unavailable("libxkbcommon made no keymap (is xkb-data installed?)", about: .viewerInput)
        }
        defer { free(text) }
        let size = strlen(text) + 1
        let descriptor = cwl_memfd()
        guard descriptor >= 0, write(descriptor, text, size) == size else {
            if descriptor >= 0 { close(descriptor) }
            xkb_keymap_unref(keymap)
            throw .unavailable("cannot hand the keyboard's map over: "
                               + String(cString: strerror(errno)), about: .viewerInput)
        }
        return (keymap, descriptor, UInt32(size))
    }

    /// Each keysym of `keymap`'s first layout on its first two levels, by evdev key code.
    private static func keys(of keymap: OpaquePointer) -> [UInt32: (code: UInt32, shifted: Bool)] {
        var keys: [UInt32: (code: UInt32, shifted: Bool)] = [:]
        for code in xkb_keymap_min_keycode(keymap)...xkb_keymap_max_keycode(keymap) where code >= 8 {
            for level: UInt32 in 0..<2 {
                var symbols: UnsafePointer<xkb_keysym_t>?
                let count = xkb_keymap_key_get_syms_by_level(keymap, code, 0, level, &symbols)
                guard count > 0, let first = symbols?.pointee, keys[first] == nil else { continue }
                keys[first] = (code - 8, level == 1)
            }
        }
        return keys
    }
}
