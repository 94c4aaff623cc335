import CWayland
public import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// The presenter's pen on a wlroots output: a layer surface above every window and panel (the
/// overlay layer), clear but for the strokes, painted here into shared memory. The compositor
/// draws it as any surface, so the output's capture has the strokes in every output. It takes
/// the pointer and the keyboard only while the pen is on; off, its input region is empty, and
/// with no strokes left it is gone.
///
/// The keys are the X11 pen's: `r`, `g`, `b`, `y`, `a`, `s`, `f`, `e`, Ctrl+Z, Escape or `d`.
///
/// On its own connection, on the thread that runs it.
public final class PenLayer: PenSurface {
    private let display: WaylandDisplay
    private let output: OpaquePointer
    private let compositor: OpaquePointer
    private let layerShell: OpaquePointer
    private let sharedMemory: OpaquePointer
    private let seat: OpaquePointer?
    private let pen: PenControl
    /// The output's size in pixels: the captured pictures', and the strokes' coordinates.
    private let size: PixelSize
    private var surface: PenLayerSurface?
    /// What the surface shows: the pen's version, and what of its drawing.
    private var shownVersion = -1
    private var progress = PenProgress()
    private var lastWhole: UInt64 = 0
    private let clock = MonotonicClock()
    private var input = PenLayerInput()
    private let seatListener = UnsafeMutablePointer<wl_seat_listener>.allocate(capacity: 1)
    private let pointerListener = UnsafeMutablePointer<wl_pointer_listener>.allocate(capacity: 1)
    private let keyboardListener = UnsafeMutablePointer<wl_keyboard_listener>.allocate(capacity: 1)
    /// Ends pen mode, while `run` runs.
    private var leave: () -> Void = {}
    /// Why the surface went (the compositor closed it), to say once.
    private var closedReason: String?

    /// Connects to the compositor at `display` for a pen over `output`.
    /// - Throws: 69 when the compositor is not there, has no such output, or has no layer shell.
    public init(display name: String, output outputName: String, pen: PenControl) throws(PodiumError) {
        display = try WaylandDisplay(name: name)
        guard let output = display.output(named: outputName) else {
            throw .unavailable("the pen: the Wayland display '\(name)' has no output \(outputName)")
        }
        guard let layerShell = display.bind("zwlr_layer_shell_v1", cwl_layer_shell_interface(), version: 3),
              let compositor = display.bind("wl_compositor", cwl_compositor_interface(), version: 4),
              let sharedMemory = display.sharedMemory else {
            throw .unavailable("the pen: the Wayland compositor at '\(name)' has no layer shell to draw above "
                               + "its windows (wlroots compositors have)")
        }
        self.output = output.proxy
        self.layerShell = layerShell
        self.compositor = compositor
        self.sharedMemory = sharedMemory
        self.pen = pen
        size = output.size
        seat = display.bind("wl_seat", cwl_seat_interface(), version: 5)
        listen()
        try display.roundtrip()
    }

    deinit {
        surface = nil
        input.drop()
        if let seat { wl_seat_release(seat) }
        zwlr_layer_shell_v1_destroy(layerShell)
        wl_compositor_destroy(compositor)
        display.flush()
        seatListener.deallocate()
        pointerListener.deallocate()
        keyboardListener.deallocate()
    }

    public func run(isStopping: () -> Bool, said: (String) -> Void, leave: @escaping () -> Void) -> String? {
        self.leave = leave
        defer { self.leave = {} }
        while !isStopping() {
            do throws(PodiumError) {
                try follow()
                // Woken by the pointer and the keys, and often enough to follow the keys' pen on and off.
                try display.dispatch(timeout: 30)
            } catch {
                return "the pen stopped: \(error.description)"
            }
            if let closedReason {
                said(closedReason)
                self.closedReason = nil
            }
        }
        return nil
    }

    /// Shows what the pen is now: the surface there while there are strokes or the pen is on,
    /// taking input while it is on, its pixels the strokes'.
    private func follow() throws(PodiumError) {
        let now = pen.now
        let wanted = now.isOn || !now.drawing.strokes.isEmpty
        if wanted, surface == nil {
            surface = try PenLayerSurface(compositor: compositor, layerShell: layerShell, output: output,
                                          sharedMemory: sharedMemory, pixels: size)
            shownVersion = -1
            progress = PenProgress()
        } else if !wanted, surface != nil {
            surface = nil
        }
        guard let surface else { return }
        if surface.isClosed {
            self.surface = nil
            closedReason = "the pen: the compositor took its surface away (its output went?); it comes back with "
                + "the next stroke"
            return
        }
        guard surface.isReady else { return }
        surface.takesInput(now.isOn)
        if now.version != shownVersion {
            let drawing = now.drawing
            if progress.onlyGrew(drawing) {
                shownVersion = now.version
                for (ink, segments) in progress.additions(in: drawing) { surface.paint(segments, ink: ink) }
            } else if clock.now() - lastWhole > 200_000_000 {
                // At most five times a second while a shape is dragged or old points go.
                shownVersion = now.version
                surface.clear()
                for stroke in drawing.strokes { surface.paint(stroke.segments, ink: stroke.ink) }
                progress.shown(drawing)
                lastWhole = clock.now()
            }
        }
        surface.present()
    }

    /// The pointer's place on the surface (in its logical units, 24.8 fixed point) in the buffer's pixels.
    private func pixel(_ x: wl_fixed_t, _ y: wl_fixed_t) -> PixelPoint {
        let scale = surface?.scale ?? 1
        return PixelPoint(x: Int(x) * scale / 256, y: Int(y) * scale / 256)
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> PenLayer? {
        data.map { Unmanaged<PenLayer>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Follows the seat's pointer and keyboard as they come and go, and takes their events.
    private func listen() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        seatListener.initialize(to: wl_seat_listener(
            capabilities: { data, _, capabilities in PenLayer.from(data)?.seatHas(capabilities) },
            name: { _, _, _ in }))
        pointerListener.initialize(to: wl_pointer_listener(
            enter: { data, _, _, _, x, y in PenLayer.from(data)?.input.pointerAt = (x, y) },
            leave: { _, _, _, _ in },
            motion: { data, _, _, x, y in
                guard let layer = PenLayer.from(data) else { return }
                layer.pen.moved(to: layer.pixel(x, y))
                layer.input.pointerAt = (x, y)
            },
            button: { data, _, _, _, button, state in
                // BTN_LEFT, as linux/input-event-codes.h has it.
                guard let layer = PenLayer.from(data), button == 0x110 else { return }
                if state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue {
                    layer.pen.pressed(at: layer.pixel(layer.input.pointerAt.x, layer.input.pointerAt.y))
                } else {
                    layer.pen.released()
                }
            },
            axis: { _, _, _, _, _ in }, frame: { _, _ in }, axis_source: { _, _, _ in },
            axis_stop: { _, _, _, _ in }, axis_discrete: { _, _, _, _ in }, axis_value120: { _, _, _, _ in }))
        keyboardListener.initialize(to: wl_keyboard_listener(
            keymap: { data, _, format, descriptor, size in
                defer { close(descriptor) }
                guard format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue else { return }
                PenLayer.from(data)?.input.load(keymap: descriptor, size: Int(size))
            },
            enter: { _, _, _, _, _ in },
            leave: { _, _, _, _ in },
            key: { data, _, _, _, key, state in
                guard let layer = PenLayer.from(data), state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue,
                      case let (keysym, control)? = layer.input.keysym(of: key) else { return }
                if layer.pen.typed(keysym: keysym, control: control) { layer.leave() }
            },
            modifiers: { data, _, _, depressed, latched, locked, group in
                PenLayer.from(data)?.input.modifiers(depressed: depressed, latched: latched, locked: locked,
                                                     group: group)
            },
            repeat_info: { _, _, _, _ in }))
        if let seat { wl_seat_add_listener(seat, seatListener, me) }
    }

    private func seatHas(_ capabilities: UInt32) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let hasPointer = capabilities & WL_SEAT_CAPABILITY_POINTER.rawValue != 0
        if hasPointer, input.pointer == nil, let seat, let pointer = wl_seat_get_pointer(seat) {
            wl_pointer_add_listener(pointer, pointerListener, me)
            input.pointer = pointer
        } else if !hasPointer, let pointer = input.pointer {
            wl_pointer_release(pointer)
            input.pointer = nil
        }
        let hasKeyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
        if hasKeyboard, input.keyboard == nil, let seat, let keyboard = wl_seat_get_keyboard(seat) {
            wl_keyboard_add_listener(keyboard, keyboardListener, me)
            input.keyboard = keyboard
        } else if !hasKeyboard, let keyboard = input.keyboard {
            wl_keyboard_release(keyboard)
            input.keyboard = nil
        }
    }
}

/// The seat's pointer and keyboard as the pen hears them: where the pointer is, and the keyboard's
/// map and modifiers (through libxkbcommon) to read its keys as keysyms.
private struct PenLayerInput {
    var pointer: OpaquePointer?
    var keyboard: OpaquePointer?
    var pointerAt: (x: wl_fixed_t, y: wl_fixed_t) = (0, 0)
    private var context: OpaquePointer?
    private var keymap: OpaquePointer?
    private var state: OpaquePointer?

    /// Reads the keyboard's map, as the compositor sent it.
    mutating func load(keymap descriptor: Int32, size: Int) {
        guard let text = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), text != MAP_FAILED else { return }
        defer { munmap(text, size) }
        if context == nil { context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) }
        guard let map = xkb_keymap_new_from_string(context, text.assumingMemoryBound(to: CChar.self),
                                                   XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS),
              let newState = xkb_state_new(map) else { return }
        dropKeymap()
        keymap = map
        state = newState
    }

    mutating func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        guard let state else { return }
        xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group)
    }

    /// The keysym of the evdev `key` pressed, and whether Control is held; `nil` with no map yet.
    func keysym(of key: UInt32) -> (UInt32, Bool)? {
        guard let state else { return nil }
        let control = xkb_state_mod_name_is_active(state, "Control", XKB_STATE_MODS_EFFECTIVE) > 0
        // xkb's keycodes are evdev's plus 8, as X's.
        return (xkb_state_key_get_one_sym(state, key + 8), control)
    }

    private mutating func dropKeymap() {
        if let state { xkb_state_unref(state) }
        if let keymap { xkb_keymap_unref(keymap) }
        (state, keymap) = (nil, nil)
    }

    /// Lets the pointer and keyboard go, and the map.
    mutating func drop() {
        if let pointer { wl_pointer_release(pointer) }
        if let keyboard { wl_keyboard_release(keyboard) }
        (pointer, keyboard) = (nil, nil)
        dropKeymap()
        if let context { xkb_context_unref(context) }
        context = nil
    }
}

/// The pen's layer surface while it is shown: the strokes painted into a canvas of the output's
/// pixels, and two buffers of shared memory lent to the compositor in turn, each brought up to
/// date from the canvas where it is stale before it is shown.
private final class PenLayerSurface {
    private let surface: OpaquePointer
    private let layer: OpaquePointer
    private let compositor: OpaquePointer
    private let sharedMemory: OpaquePointer
    /// The output's size in pixels.
    private let pixels: PixelSize
    /// The buffers' pixels by the surface's logical units: the output's scale where it is whole
    /// (the strokes then lie on the output's pixels); 1 where it is fractional, the compositor
    /// scaling the buffer.
    private(set) var scale = 1
    /// The buffers' and the canvas's size.
    private var size = PixelSize(width: 0, height: 0)
    private(set) var isReady = false
    private(set) var isClosed = false
    private var canvasPixels: UnsafeMutablePointer<UInt32>?
    private var canvas: PenCanvas?
    private var buffers: [(shared: SharedBuffer, busy: Bool, stale: PixelRect?)] = []
    /// What changed since the last commit.
    private var damage: PixelRect?
    /// The frame callback asked for at the last commit, until it is done.
    private var frame: OpaquePointer?
    private var takingInput: Bool?
    private let layerListener = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
    private let bufferListener = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
    private let frameListener = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)

    init(compositor: OpaquePointer, layerShell: OpaquePointer, output: OpaquePointer, sharedMemory: OpaquePointer,
         pixels: PixelSize) throws(PodiumError) {
        guard let surface = wl_compositor_create_surface(compositor) else {
            throw .unavailable("the pen: the Wayland compositor made no surface")
        }
        guard let layer = zwlr_layer_shell_v1_get_layer_surface(layerShell, surface, output,
                                                                ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue,
                                                                "podium-pen") else {
            wl_surface_destroy(surface)
            throw .unavailable("the pen: the Wayland compositor made no layer surface")
        }
        self.surface = surface
        self.layer = layer
        self.compositor = compositor
        self.sharedMemory = sharedMemory
        self.pixels = pixels
        let me = Unmanaged.passUnretained(self).toOpaque()
        layerListener.initialize(to: zwlr_layer_surface_v1_listener(
            configure: { data, layer, serial, width, height in
                guard let data else { return }
                zwlr_layer_surface_v1_ack_configure(layer, serial)
                Unmanaged<PenLayerSurface>.fromOpaque(data).takeUnretainedValue()
                    .configured(width: Int(width), height: Int(height))
            },
            closed: { data, _ in
                guard let data else { return }
                Unmanaged<PenLayerSurface>.fromOpaque(data).takeUnretainedValue().isClosed = true
            }))
        bufferListener.initialize(to: wl_buffer_listener(release: { data, buffer in
            guard let data else { return }
            let surface = Unmanaged<PenLayerSurface>.fromOpaque(data).takeUnretainedValue()
            if let index = surface.buffers.firstIndex(where: { $0.shared.wayland == buffer }) {
                surface.buffers[index].busy = false
            }
        }))
        frameListener.initialize(to: wl_callback_listener(done: { data, callback, _ in
            wl_callback_destroy(callback)
            guard let data else { return }
            Unmanaged<PenLayerSurface>.fromOpaque(data).takeUnretainedValue().frame = nil
        }))
        zwlr_layer_surface_v1_add_listener(layer, layerListener, me)
        // The whole output, above its panels too, and never pushing them aside.
        let edges = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue
            | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue
        zwlr_layer_surface_v1_set_anchor(layer, edges)
        zwlr_layer_surface_v1_set_size(layer, 0, 0)
        zwlr_layer_surface_v1_set_exclusive_zone(layer, -1)
        takesInput(false)
        wl_surface_commit(surface)
    }

    deinit {
        if let frame { wl_callback_destroy(frame) }
        zwlr_layer_surface_v1_destroy(layer)
        wl_surface_destroy(surface)
        for buffer in buffers { wl_buffer_destroy(buffer.shared.wayland) }
        canvasPixels?.deallocate()
        layerListener.deallocate()
        bufferListener.deallocate()
        frameListener.deallocate()
    }

    /// The compositor's size for the surface (in logical units): the canvas and buffers are made
    /// the first time.
    private func configured(width: Int, height: Int) {
        guard !isReady, width > 0, height > 0 else { return }
        let ratio = pixels.width / width
        scale = ratio > 1 && width * ratio == pixels.width && height * ratio == pixels.height ? ratio : 1
        size = PixelSize(width: width * scale, height: height * scale)
        let rowPixels = size.width
        for _ in 0..<2 {
            guard let shared = try? SharedBuffer(size: size, bytesPerRow: rowPixels * 4,
                                                 format: WL_SHM_FORMAT_ARGB8888.rawValue,
                                                 sharedMemory: sharedMemory) else { isClosed = true; return }
            wl_buffer_add_listener(shared.wayland, bufferListener, Unmanaged.passUnretained(self).toOpaque())
            buffers.append((shared, false, PixelRect(x: 0, y: 0, size: size)))
        }
        let memory = UnsafeMutablePointer<UInt32>.allocate(capacity: rowPixels * size.height)
        canvasPixels = memory
        canvas = PenCanvas(pixels: memory, size: size, rowPixels: rowPixels)
        canvas?.clear()
        wl_surface_set_buffer_scale(surface, Int32(scale))
        damage = PixelRect(x: 0, y: 0, size: size)
        isReady = true
    }

    /// Takes the pointer and the keyboard while `on`; off, events go to what is under it.
    func takesInput(_ on: Bool) {
        guard takingInput != on else { return }
        takingInput = on
        zwlr_layer_surface_v1_set_keyboard_interactivity(layer, on ? 1 : 0)
        if on {
            wl_surface_set_input_region(surface, nil)
        } else if let none = wl_compositor_create_region(compositor) {
            wl_surface_set_input_region(surface, none)
            wl_region_destroy(none)
        }
        damage = damage ?? PixelRect(x: 0, y: 0, width: 1, height: 1)
    }

    func clear() {
        canvas?.clear()
        changed(PixelRect(x: 0, y: 0, size: size))
    }

    func paint(_ segments: [PenProgress.Segment], ink: PenDrawing.Ink) {
        if let box = canvas?.paint(segments, ink: ink) { changed(box) }
    }

    private func changed(_ box: PixelRect) {
        damage = damage?.union(box) ?? box
        for index in buffers.indices { buffers[index].stale = buffers[index].stale?.union(box) ?? box }
    }

    /// Shows what changed, in a buffer the compositor is not reading, once the last is on screen.
    func present() {
        guard isReady, let damage, frame == nil, let canvasPixels,
              let index = buffers.firstIndex(where: { !$0.busy }) else { return }
        let buffer = buffers[index]
        if let stale = buffer.stale,
           let target = UnsafeMutablePointer<UInt32>(bitPattern: buffer.shared.memory.address) {
            for row in stale.y..<stale.maxY {
                let start = row * size.width + stale.x
                (target + start).update(from: canvasPixels + start, count: stale.width)
            }
        }
        buffers[index].stale = nil
        buffers[index].busy = true
        wl_surface_attach(surface, buffer.shared.wayland, 0, 0)
        wl_surface_damage_buffer(surface, Int32(damage.x), Int32(damage.y), Int32(damage.width),
                                 Int32(damage.height))
        frame = wl_surface_frame(surface)
        if let frame { wl_callback_add_listener(frame, frameListener, Unmanaged.passUnretained(self).toOpaque()) }
        wl_surface_commit(surface)
        self.damage = nil
    }
}
