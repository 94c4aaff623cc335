/// The pixels of decoded RGB frames (`rgb24`), as the picture tests read them back.
public enum RGB {
    /// The pixel at (`x`, `y`) of a frame `width` wide.
    public static func pixel(_ frame: [UInt8], _ x: Int, _ y: Int, width: Int = 320) -> (r: Int, g: Int, b: Int) {
        let index = (y * width + x) * 3
        return (Int(frame[index]), Int(frame[index + 1]), Int(frame[index + 2]))
    }

    /// Whether `pixel` is `colour`, each channel within `within`: a decoder moves them a little.
    public static func near(_ pixel: (r: Int, g: Int, b: Int), _ colour: (r: Int, g: Int, b: Int),
                            within: Int = 40) -> Bool {
        abs(pixel.r - colour.r) <= within && abs(pixel.g - colour.g) <= within && abs(pixel.b - colour.b) <= within
    }
}
