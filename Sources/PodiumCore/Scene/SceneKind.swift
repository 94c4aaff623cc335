/// The test content `podium scene` draws and `podium bench` measures with.
public enum SceneKind: String, CaseIterable, Sendable {
    /// Every pixel changes every frame: a textured picture sliding under the screen.
    case video
    /// A text slide with a cursor-sized object moving over it, and the next slide every 5 s.
    case slides
    /// One slide that never changes.
    case `static`
    /// One slide drawn again whole every frame with the very same pixels, as a program that
    /// repaints its window does: the X server reports damage, nothing changes.
    case repainted
    /// The repainted slide with a text caret blinking on it: a repaint where only a few rows change.
    case caret
    /// One slide drawn again whole every frame with the cursor-sized object of `slides` moving
    /// over it, as a presentation program that animates does: damage everywhere, a few rows changed.
    case animated
    /// A dark screen that flashes white for 100 ms at every whole second, while a 1 kHz beep of
    /// 50 ms plays into the sound server's default output at the same instant: what `podium
    /// av-sync` measures picture and sound against.
    case clapper
}

extension SceneKind {
    /// How long each flash of the clapper lasts.
    public static let flashLength: UInt64 = 100_000_000

    /// Whether the clapper shows its flash `elapsed` nanoseconds into the scene.
    public static func flashes(at elapsed: UInt64) -> Bool {
        elapsed % 1_000_000_000 < flashLength
    }
}
