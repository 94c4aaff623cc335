import CXCB
public import PodiumCore

extension XConnection {
    /// Checks that the root window's pixels are 32-bit BGRA in memory, the one layout the
    /// pipeline converts from: a TrueColor visual of depth 24 or 32 with 8-bit red, green and
    /// blue at bits 16, 8 and 0, stored in 32 bits per pixel, least significant byte first.
    ///
    /// - Throws: `PodiumError` (69) naming what the display has instead.
    public func requireBGRAPixels() throws(PodiumError) {
        let setup = xcb_get_setup(raw)!
        guard setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue) else {
            throw .unavailable("display \(displayName) stores pixels most significant byte first; "
                               + "Podium captures little-endian displays only")
        }
        let depth = screen.root_depth
        guard depth == 24 || depth == 32 else {
            throw .unavailable("display \(displayName) has a \(depth)-bit screen; "
                               + "Podium captures 24- and 32-bit TrueColor displays only")
        }
        var formats = xcb_setup_pixmap_formats_iterator(setup)
        var bitsPerPixel: UInt8 = 0
        while formats.rem > 0 {
            if formats.data.pointee.depth == depth { bitsPerPixel = formats.data.pointee.bits_per_pixel }
            xcb_format_next(&formats)
        }
        guard bitsPerPixel == 32 else {
            throw .unavailable(
                "display \(displayName) stores \(depth)-bit pixels in \(bitsPerPixel) bits; Podium needs 32")
        }
        guard let visual = rootVisual(),
              visual._class == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue),
              visual.red_mask == 0xFF0000, visual.green_mask == 0x00FF00, visual.blue_mask == 0x0000FF
        else {
            throw .unavailable(
                "display \(displayName) does not use a TrueColor visual with 8-bit RGB; Podium cannot read its pixels")
        }
    }

    private func rootVisual() -> xcb_visualtype_t? {
        var depths = xcb_screen_allowed_depths_iterator(screenPointer)
        while depths.rem > 0 {
            var visuals = xcb_depth_visuals_iterator(depths.data)
            while visuals.rem > 0 {
                if visuals.data.pointee.visual_id == screen.root_visual { return visuals.data.pointee }
                xcb_visualtype_next(&visuals)
            }
            xcb_depth_next(&depths)
        }
        return nil
    }
}
