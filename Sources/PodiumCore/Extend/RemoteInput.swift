/// What a viewer's page sends from an extra screen (`podium extend --allow-input`): the pointer
/// and the keys, as a tablet's user works on the monitor it shows.
public enum RemoteInput: Sendable, Equatable {
    /// The pointer to a place of the picture: 0...1 across and down.
    case move(x: Double, y: Double)
    /// A button (1 left, 2 middle, 3 right) down or up, where the pointer is.
    case button(Int, down: Bool)
    /// A key down or up, by its X keysym (a character's, or a named key's, as `keysym(named:)`).
    case key(UInt32, down: Bool)

    /// The X keysym of a key as a browser names it (`KeyboardEvent.key`): a character, or one of
    /// the named keys a tablet's keyboard has; `nil` for others.
    public static func keysym(named name: String) -> UInt32? {
        if let named = namedKeys[name] { return named }
        let scalars = Array(name.unicodeScalars)
        guard scalars.count == 1, let scalar = scalars.first, scalar.value >= 0x20 else { return nil }
        // Latin-1 characters are their own keysyms; others are Unicode's plane of keysyms.
        return scalar.value < 0x100 ? scalar.value : 0x0100_0000 | scalar.value
    }

    private static let namedKeys: [String: UInt32] = [
        "Enter": 0xFF0D, "Backspace": 0xFF08, "Tab": 0xFF09, "Escape": 0xFF1B, "Delete": 0xFFFF,
        "Home": 0xFF50, "End": 0xFF57, "PageUp": 0xFF55, "PageDown": 0xFF56,
        "ArrowLeft": 0xFF51, "ArrowUp": 0xFF52, "ArrowRight": 0xFF53, "ArrowDown": 0xFF54,
        "Shift": 0xFFE1, "Control": 0xFFE3, "Alt": 0xFFE9, "Meta": 0xFFEB,
    ]
}

/// Plays `RemoteInput` on the extra screen alone: the pointer within its monitor, the keys to
/// whatever has the focus there. Thread-safe: the viewers' server calls it from its threads.
public protocol InputInjector: Sendable {
    /// Plays `events` in order.
    func play(_ events: [RemoteInput])
    /// Whether a key pressed now reaches a window on the extra screen (and not one on the
    /// presenter's own): `InputSession` presses none while it does not.
    var keysReachTheScreen: Bool { get }
}
