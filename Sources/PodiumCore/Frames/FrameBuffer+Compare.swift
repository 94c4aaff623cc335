import Foundation

extension FrameBuffer {
    /// The rows among `rows` whose bytes differ from the same rows of `reference`: what really
    /// changed where the X server only said something was drawn. A row is compared until its
    /// first differing byte, so a picture that changes costs little and one repainted unchanged
    /// costs a read of the rows repainted.
    ///
    /// The corresponding C function is `memcmp`.
    /// - Parameter bytesPerRow: the row length of both pictures, which have the same layout.
    public func rowsDiffering(from reference: FrameBuffer, in rows: RowBands, bytesPerRow: Int) -> RowBands {
        var changed = RowBands()
        guard bytesPerRow > 0 else { return changed }
        let looked = rows.clamped(toHeight: min(capacity, reference.capacity) / bytesPerRow)
        for index in 0..<looked.count {
            let band = looked[index]
            var firstDiffering: Int?
            for row in band {
                let offset = row * bytesPerRow
                if memcmp(bytes + offset, reference.bytes + offset, bytesPerRow) != 0 {
                    if firstDiffering == nil { firstDiffering = row }
                } else if let first = firstDiffering {
                    changed.insert(first..<row)
                    firstDiffering = nil
                }
            }
            if let first = firstDiffering { changed.insert(first..<band.upperBound) }
        }
        return changed
    }
}
